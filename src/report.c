/* report.c - the result structure's helpers. */
#include "config.h"
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "report.h"

void amp_num_set(struct amp_num *n, double v)
{
	n->known = 1;
	n->value = v;
	n->reason[0] = '\0';
}

void amp_num_unknown(struct amp_num *n, const char *fmt, ...)
{
	va_list ap;

	n->known = 0;
	n->value = 0;
	va_start(ap, fmt);
	vsnprintf(n->reason, sizeof n->reason, fmt, ap);
	va_end(ap);
}

void amp_report_init(struct amp_report *r)
{
	memset(r, 0, sizeof *r);
	snprintf(r->amp_version, sizeof r->amp_version, "%s", PACKAGE_VERSION);
	amp_num_unknown(&r->tick_mhz, "not calibrated");
	amp_num_unknown(&r->timer_resolution_ns, "not calibrated");
	amp_num_unknown(&r->timer_overhead_ticks, "not calibrated");
	amp_num_unknown(&r->counter_overhead_ticks, "not measured");
	amp_num_unknown(&r->pinned_cpu, "not pinned");
	snprintf(r->others_reason, sizeof r->others_reason, "not read");
	amp_num_unknown(&r->core_mhz, "not measured");
	amp_num_unknown(&r->memory_ticks, "not measured");
}
