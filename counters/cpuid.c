/* cpuid.c - who is the host CPU: x86 vendor/family/model/stepping from
 * the CPUID instruction, ARM implementer/part from /proc/cpuinfo or the
 * MIDR register the kernel exports, the architecture from uname(). */
#include "config.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif
#include "eventmap.h"

/* Copy src to dst (size len) without trailing blanks or newline. */
static void copy_trimmed(char *dst, size_t len, const char *src)
{
	size_t n = strlen(src);

	while (n && (src[n - 1] == '\n' || src[n - 1] == ' ' || src[n - 1] == '\t'))
		n--;
	if (n >= len)
		n = len - 1;
	memcpy(dst, src, n);
	dst[n] = '\0';
}

/* The first processor's block of /proc/cpuinfo: fills what CPUID cannot
 * say (model name) or what ARM only says here.  Returns the number of
 * fields found. */
static int read_cpuinfo(struct amp_cpu_id *id)
{
	char line[512];
	int found = 0, line_start = 1;
	FILE *f = fopen("/proc/cpuinfo", "r");

	if (!f)
		return 0;
	while (fgets(line, sizeof line, f)) {
		char *colon = strchr(line, ':');
		char key[64];
		const char *val;
		size_t k;
		int was_start = line_start;

		/* Long lines (x86 "flags") come in pieces: skip the tails. */
		line_start = strchr(line, '\n') != NULL;
		if (!was_start)
			continue;
		if (line[0] == '\n' && found)
			break; /* end of the first processor's block */
		if (!colon)
			continue;
		k = (size_t)(colon - line);
		while (k && (line[k - 1] == ' ' || line[k - 1] == '\t'))
			k--;
		if (k >= sizeof key)
			continue;
		memcpy(key, line, k);
		key[k] = '\0';
		val = colon + 1;
		while (*val == ' ' || *val == '\t')
			val++;
		if (strcmp(key, "model name") == 0) {
			copy_trimmed(id->model_name, sizeof id->model_name, val);
			found++;
		} else if (strcmp(key, "vendor_id") == 0 && !id->vendor[0]) {
			copy_trimmed(id->vendor, sizeof id->vendor, val);
			found++;
		} else if (strcmp(key, "CPU implementer") == 0) {
			id->implementer = (unsigned)strtoul(val, NULL, 0);
			found++;
		} else if (strcmp(key, "CPU part") == 0) {
			id->part = (unsigned)strtoul(val, NULL, 0);
			found++;
		}
	}
	fclose(f);
	return found;
}

#if defined(__x86_64__) || defined(__i386__)
static int identify_x86(struct amp_cpu_id *id)
{
	unsigned a, b, c, d, base_family, base_model;

	if (!__get_cpuid(0, &a, &b, &c, &d))
		return -1;
	memcpy(id->vendor, &b, 4);
	memcpy(id->vendor + 4, &d, 4);
	memcpy(id->vendor + 8, &c, 4);
	id->vendor[12] = '\0';
	if (a < 1 || !__get_cpuid(1, &a, &b, &c, &d))
		return 0;
	/* SDM vol. 2 / AMD APM vol. 3: the extended family is added only
	 * to family 0xf, the extended model used only by families 6 and 0xf. */
	base_family = (a >> 8) & 0xf;
	base_model = (a >> 4) & 0xf;
	id->family = base_family;
	if (base_family == 0xf)
		id->family += (a >> 20) & 0xff;
	id->model = base_model;
	if (base_family == 0x6 || base_family == 0xf)
		id->model |= ((a >> 16) & 0xf) << 4;
	id->stepping = a & 0xf;
	return 0;
}
#endif

/* ARM implementer codes (MIDR_EL1[31:24]) for the vendor field. */
static const struct {
	unsigned code;
	const char *name;
} arm_implementers[] = {
	{ 0x41, "ARM" }, { 0x42, "Broadcom" }, { 0x43, "Cavium" },
	{ 0x46, "Fujitsu" }, { 0x48, "HiSilicon" }, { 0x4e, "NVIDIA" },
	{ 0x50, "APM" }, { 0x51, "Qualcomm" }, { 0x61, "Apple" },
	{ 0xc0, "Ampere" },
};

static void identify_arm(struct amp_cpu_id *id, int have_cpuinfo)
{
	if (!have_cpuinfo || (!id->implementer && !id->part)) {
		/* /proc/cpuinfo may be masked (containers); MIDR is not. */
		FILE *f = fopen("/sys/devices/system/cpu/cpu0/regs/identification/midr_el1", "r");
		unsigned long long midr;

		if (f) {
			if (fscanf(f, "%llx", &midr) == 1) {
				id->implementer = (midr >> 24) & 0xff;
				id->part = (midr >> 4) & 0xfff;
			}
			fclose(f);
		}
	}
	for (size_t i = 0; i < sizeof arm_implementers / sizeof arm_implementers[0]; i++)
		if (arm_implementers[i].code == id->implementer)
			snprintf(id->vendor, sizeof id->vendor, "%s", arm_implementers[i].name);
	if (!id->vendor[0] && id->implementer)
		snprintf(id->vendor, sizeof id->vendor, "impl-0x%02x", id->implementer);
	if (!id->model_name[0] && (id->implementer || id->part))
		snprintf(id->model_name, sizeof id->model_name,
			 "implementer 0x%02x part 0x%03x", id->implementer, id->part);
}

int amp_cpu_identify(struct amp_cpu_id *id)
{
	struct utsname u;
	int have_cpuinfo, ok = 0;

	memset(id, 0, sizeof *id);
	if (uname(&u) == 0) {
		copy_trimmed(id->arch, sizeof id->arch, u.machine);
		ok = 1;
	}
#if defined(__x86_64__) || defined(__i386__)
	if (identify_x86(id) == 0)
		ok = 1;
#endif
	have_cpuinfo = read_cpuinfo(id) > 0;
	if (have_cpuinfo)
		ok = 1;
	if (strncmp(id->arch, "aarch64", 7) == 0 || strncmp(id->arch, "arm", 3) == 0) {
		identify_arm(id, have_cpuinfo);
		if (id->implementer || id->part)
			ok = 1;
	}
	return ok ? 0 : -1;
}
