/* vendor_lib.c - the caches as the PAPI and hwloc libraries report them,
 * where amp was built with them (configure --with-papi, --with-hwloc):
 * further "reported" columns beside the measurement, never a measured
 * value.  Without the library the view says "not built". */
#include "config.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef HAVE_PAPI
#include <papi.h>
#endif
#ifdef HAVE_HWLOC
#include <hwloc.h>
#endif
#include "vendor.h"

static void add(struct amp_libview *v, int level, const char *type, uint64_t size, uint64_t line, unsigned ways)
{
	amp_reported_cache_add(v->cache, &v->ncache, level, type, size, line, ways);
}

int amp_vendor_papi(struct amp_libview *v)
{
	memset(v, 0, sizeof *v);
	snprintf(v->name, sizeof v->name, "papi");
#ifdef HAVE_PAPI
	const PAPI_hw_info_t *hw;

	/* The papi backend may have initialised the library already. */
	if (!PAPI_is_initialized() && PAPI_library_init(PAPI_VER_CURRENT) != PAPI_VER_CURRENT) {
		snprintf(v->missing, sizeof v->missing, "PAPI_library_init failed");
		return -1;
	}
	hw = PAPI_get_hardware_info();
	if (!hw || hw->mem_hierarchy.levels <= 0) {
		snprintf(v->missing, sizeof v->missing, "PAPI_get_hardware_info gives no memory hierarchy");
		return -1;
	}
	snprintf(v->source, sizeof v->source, "PAPI %d.%d hardware info", PAPI_VERSION_MAJOR(PAPI_VERSION),
		 PAPI_VERSION_MINOR(PAPI_VERSION));
	for (int i = 0; i < hw->mem_hierarchy.levels && i < PAPI_MAX_MEM_HIERARCHY_LEVELS; i++)
		for (int j = 0; j < PAPI_MH_MAX_LEVELS; j++) {
			const PAPI_mh_cache_info_t *c = &hw->mem_hierarchy.level[i].cache[j];
			int type = PAPI_MH_CACHE_TYPE(c->type);
			/* PAPI: SHRT_MAX (or -1) for fully associative, 0 unknown */
			unsigned ways = c->associativity > 0 && c->associativity < 32767 ? (unsigned)c->associativity : 0;

			if (type == PAPI_MH_TYPE_EMPTY || c->size <= 0)
				continue;
			add(v, i + 1, type == PAPI_MH_TYPE_INST ? "instruction" : type == PAPI_MH_TYPE_DATA ? "data" : "unified",
			    (uint64_t)c->size, c->line_size > 0 ? (uint64_t)c->line_size : 0, ways);
		}
	if (!v->ncache)
		snprintf(v->missing, sizeof v->missing, "PAPI's memory hierarchy lists no cache");
	return v->ncache ? 0 : -1;
#else
	snprintf(v->missing, sizeof v->missing, "not built (configure found no PAPI)");
	return -1;
#endif
}

int amp_vendor_hwloc(struct amp_libview *v)
{
	memset(v, 0, sizeof *v);
	snprintf(v->name, sizeof v->name, "hwloc");
#ifdef HAVE_HWLOC
	static const struct {
		hwloc_obj_type_t type;
		int level;
	} kinds[] = {
		{ HWLOC_OBJ_L1CACHE, 1 }, { HWLOC_OBJ_L1ICACHE, 1 }, { HWLOC_OBJ_L2CACHE, 2 },
		{ HWLOC_OBJ_L2ICACHE, 2 }, { HWLOC_OBJ_L3CACHE, 3 }, { HWLOC_OBJ_L4CACHE, 4 },
	};
	hwloc_topology_t topo;
	const char *xml = getenv("AMP_HWLOC_XML");

	if (hwloc_topology_init(&topo) < 0) {
		snprintf(v->missing, sizeof v->missing, "hwloc_topology_init failed");
		return -1;
	}
	/* hwloc 2 leaves instruction caches out unless asked. */
	hwloc_topology_set_icache_types_filter(topo, HWLOC_TYPE_FILTER_KEEP_ALL);
	/* A saved topology (tests, another machine's lstopo --of xml). */
	if (xml && hwloc_topology_set_xml(topo, xml) < 0) {
		snprintf(v->missing, sizeof v->missing, "cannot read the hwloc topology %s", xml);
		hwloc_topology_destroy(topo);
		return -1;
	}
	if (hwloc_topology_load(topo) < 0) {
		snprintf(v->missing, sizeof v->missing, "hwloc_topology_load failed");
		hwloc_topology_destroy(topo);
		return -1;
	}
	snprintf(v->source, sizeof v->source, "hwloc %s", xml ? xml : "topology");
	/* The first object of each cache type: the caches of CPU 0's core. */
	for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
		hwloc_obj_t o = hwloc_get_obj_by_type(topo, kinds[i].type, 0);
		int a;

		if (!o || !o->attr)
			continue;
		a = o->attr->cache.associativity;
		add(v, kinds[i].level,
		    o->attr->cache.type == HWLOC_OBJ_CACHE_INSTRUCTION ? "instruction"
		    : o->attr->cache.type == HWLOC_OBJ_CACHE_DATA      ? "data"
								       : "unified",
		    (uint64_t)o->attr->cache.size, o->attr->cache.linesize, a > 0 ? (unsigned)a : 0);
	}
	hwloc_topology_destroy(topo);
	if (!v->ncache)
		snprintf(v->missing, sizeof v->missing, "the hwloc topology has no cache");
	return v->ncache ? 0 : -1;
#else
	snprintf(v->missing, sizeof v->missing, "not built (configure found no hwloc)");
	return -1;
#endif
}
