/* backend_perf.c - hardware miss counters through perf_event_open(2).
 *
 * Each uniform event becomes, in this order of preference:
 *   1. the native event of the host's microarchitecture (eventmap.c),
 *      encoded by libpfm4 as pmu::EVENT for user level only;
 *   2. a generic kernel event (PERF_TYPE_HW_CACHE, PERF_TYPE_HARDWARE)
 *      when amp has no table for the CPU or was built without libpfm4.
 * When amp has a table for the CPU and it has no row for an event, the
 * event is absent: the generic one would count another level (the
 * kernel's "dTLB miss" on Intel is a page walk, an STLB miss).
 *
 * A set is one perf group (the first event leads), opened disabled and
 * counted for this thread only, in user mode only.  start/stop enable
 * and disable the group and read it; the counts are the differences.
 *
 * Test knob: when the environment variable AMP_FAKE_PERF_ERRNO names an
 * errno (EACCES, EPERM, ENOSYS, ENOENT, EOPNOTSUPP, ENODEV, EINVAL,
 * EBUSY, EMFILE, or a number), every perf_event_open() of this backend
 * fails with it without calling the kernel, so the error reports can be
 * tested on any machine. */
#include "config.h"
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "counters.h"
#include "eventmap.h"

/* snprintf for messages: cutting a long one short is intended. */
static void say(char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void say(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, len, fmt, ap);
	va_end(ap);
}

#if defined(__linux__) && defined(HAVE_LINUX_PERF_EVENT_H)
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <linux/perf_event.h>
#ifdef HAVE_LIBPFM
/* After <linux/perf_event.h>: libpfm's copy of it then steps aside. */
#include <perfmon/pfmlib_perf_event.h>
#endif

#define CACHE_EV(cache, op, result) \
	((uint64_t)(cache) | ((uint64_t)(op) << 8) | ((uint64_t)(result) << 16))

/* The kernel's generic events amp falls back to. */
static const struct perf_generic {
	enum amp_event ev;
	uint32_t type;
	uint64_t config;
	const char *name;
} perf_generic[] = {
	{ AMP_EV_L1D_MISS, PERF_TYPE_HW_CACHE,
	  CACHE_EV(PERF_COUNT_HW_CACHE_L1D, PERF_COUNT_HW_CACHE_OP_READ, PERF_COUNT_HW_CACHE_RESULT_MISS),
	  "PERF_TYPE_HW_CACHE L1D/READ/MISS" },
	{ AMP_EV_L1I_MISS, PERF_TYPE_HW_CACHE,
	  CACHE_EV(PERF_COUNT_HW_CACHE_L1I, PERF_COUNT_HW_CACHE_OP_READ, PERF_COUNT_HW_CACHE_RESULT_MISS),
	  "PERF_TYPE_HW_CACHE L1I/READ/MISS" },
	{ AMP_EV_L3_MISS, PERF_TYPE_HW_CACHE,
	  CACHE_EV(PERF_COUNT_HW_CACHE_LL, PERF_COUNT_HW_CACHE_OP_READ, PERF_COUNT_HW_CACHE_RESULT_MISS),
	  "PERF_TYPE_HW_CACHE LL/READ/MISS" },
	{ AMP_EV_DTLB_MISS, PERF_TYPE_HW_CACHE,
	  CACHE_EV(PERF_COUNT_HW_CACHE_DTLB, PERF_COUNT_HW_CACHE_OP_READ, PERF_COUNT_HW_CACHE_RESULT_MISS),
	  "PERF_TYPE_HW_CACHE DTLB/READ/MISS" },
	{ AMP_EV_ITLB_MISS, PERF_TYPE_HW_CACHE,
	  CACHE_EV(PERF_COUNT_HW_CACHE_ITLB, PERF_COUNT_HW_CACHE_OP_READ, PERF_COUNT_HW_CACHE_RESULT_MISS),
	  "PERF_TYPE_HW_CACHE ITLB/READ/MISS" },
	{ AMP_EV_CYCLES, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES,
	  "PERF_TYPE_HARDWARE CPU_CYCLES" },
};

static const struct {
	const char *name;
	int value;
} fake_errnos[] = {
	{ "EACCES", EACCES }, { "EPERM", EPERM }, { "ENOSYS", ENOSYS },
	{ "ENOENT", ENOENT }, { "EOPNOTSUPP", EOPNOTSUPP }, { "ENODEV", ENODEV },
	{ "EINVAL", EINVAL }, { "EBUSY", EBUSY }, { "EMFILE", EMFILE },
};

/* The errno AMP_FAKE_PERF_ERRNO asks for, or 0 (see the top comment). */
static int fake_errno(void)
{
	const char *s = getenv("AMP_FAKE_PERF_ERRNO");
	char *end;
	long v;

	if (!s || !*s)
		return 0;
	for (size_t i = 0; i < sizeof fake_errnos / sizeof fake_errnos[0]; i++)
		if (strcmp(s, fake_errnos[i].name) == 0)
			return fake_errnos[i].value;
	v = strtol(s, &end, 0);
	/* An unknown name still fails: the knob must never go unnoticed. */
	return (*end || v <= 0 || v > 4095) ? EINVAL : (int)v;
}

static int perf_open_fd(struct perf_event_attr *attr, int group_fd)
{
	int e = fake_errno();

	if (e) {
		errno = e;
		return -1;
	}
	/* This thread, any CPU. */
	return (int)syscall(SYS_perf_event_open, attr, 0, -1, group_fd, PERF_FLAG_FD_CLOEXEC);
}

static int read_paranoid(void)
{
	FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "r");
	int v;

	if (!f)
		return -100;
	if (fscanf(f, "%d", &v) != 1)
		v = -100;
	fclose(f);
	return v;
}

/* What a person can do about perf_event_open() failing with err. */
static void explain_errno(int err, const char *what, char *buf, size_t len)
{
	int paranoid;

	switch (err) {
	case ENOENT:
	case EOPNOTSUPP:
	case ENODEV:
		say(buf, len, "perf_event_open(%s): %s — no hardware PMU (virtual machine?)",
		    what, strerror(err));
		break;
	case EACCES:
	case EPERM:
		paranoid = read_paranoid();
		if (paranoid > 2)
			say(buf, len, "perf_event_open(%s): %s — perf_event_paranoid=%d forbids "
			    "user counters; run sysctl kernel.perf_event_paranoid=2 or give amp "
			    "CAP_PERFMON", what, strerror(err), paranoid);
		else if (paranoid == -100)
			say(buf, len, "perf_event_open(%s): %s — perf_event_paranoid unreadable; "
			    "set sysctl kernel.perf_event_paranoid=2 or give amp CAP_PERFMON",
			    what, strerror(err));
		else
			say(buf, len, "perf_event_open(%s): %s — perf_event_paranoid=%d permits "
			    "user counters, so a seccomp profile or LSM forbids them (or give amp "
			    "CAP_PERFMON)", what, strerror(err), paranoid);
		break;
	case ENOSYS:
		say(buf, len, "perf_event_open is not available (kernel without perf events, "
		    "or blocked by seccomp)");
		break;
	default:
		say(buf, len, "perf_event_open(%s): %s", what, strerror(err));
		break;
	}
}

static const char *ev_name(enum amp_event ev)
{
	return (unsigned)ev < AMP_EV_COUNT ? amp_event_table[ev].name : "?";
}

/* One uniform event resolved for this host. */
struct perf_choice {
	struct perf_event_attr attr;
	char label[128];           /* short: "spr::L1D:REPLACEMENT" */
	char what[AMP_REASON_LEN]; /* what it counts, or why it is absent */
};

static void user_only(struct perf_event_attr *attr)
{
	attr->size = sizeof *attr;
	attr->disabled = 1;
	attr->exclude_kernel = 1;
	attr->exclude_hv = 1;
	attr->read_format = PERF_FORMAT_GROUP | PERF_FORMAT_TOTAL_TIME_ENABLED |
			    PERF_FORMAT_TOTAL_TIME_RUNNING;
}

#ifdef HAVE_LIBPFM
/* Encode pmu::native; 0, or -1 with libpfm's reason in what. */
static int pfm_encode(const struct amp_uarch *u, const char *native,
		      struct perf_choice *c)
{
	struct perf_event_attr *attr = &c->attr;
	pfm_perf_encode_arg_t arg;
	char name[512];
	int r;

	/* amp picks the PMU itself (eventmap.c), also for models libpfm4
	 * does not detect; libpfm4 encodes an undetected PMU only when this
	 * is set at its initialisation.  PAPI shares the library and the
	 * setting, so papi sets it too; a user's own value is kept. */
	setenv("LIBPFM_ENCODE_INACTIVE", "1", 0);
	r = pfm_initialize(); /* idempotent: returns the first result */
	say(name, sizeof name, "%s::%s", u->pfm_pmu, native);
	say(c->label, sizeof c->label, "%s", name);
	if (r != PFM_SUCCESS) {
		say(c->what, sizeof c->what, "%s: libpfm4 initialisation failed: %s", name,
		    pfm_strerror(r));
		return -1;
	}
	memset(attr, 0, sizeof *attr);
	attr->size = sizeof *attr;
	memset(&arg, 0, sizeof arg);
	arg.attr = attr;
	arg.size = sizeof arg;
	r = pfm_get_os_event_encoding(name, PFM_PLM3, PFM_OS_PERF_EVENT, &arg);
	if (r != PFM_SUCCESS) {
		say(c->what, sizeof c->what, "libpfm4 cannot encode %s: %s", name,
		    pfm_strerror(r));
		return -1;
	}
	say(c->what, sizeof c->what, "%s (raw 0x%llx)", name,
	    (unsigned long long)attr->config);
	return 0;
}
#endif

/* 1 when ev can be counted on this host (c->attr ready to open), 0 when
 * it is absent; c->what says which. */
static int perf_resolve(enum amp_event ev, struct perf_choice *c)
{
	struct amp_cpu_id id;
	const struct amp_uarch *u = NULL;
	char note[AMP_REASON_LEN] = "";

	memset(c, 0, sizeof *c);
	if ((unsigned)ev >= AMP_EV_COUNT) {
		say(c->what, sizeof c->what, "unknown event %d", (int)ev);
		return 0;
	}
	if (amp_cpu_identify(&id) == 0)
		u = amp_uarch_for_cpu(&id);
	if (!u)
		say(note, sizeof note, "no event table for this CPU (%s family 0x%x model 0x%x%s%s)",
		    id.vendor[0] ? id.vendor : id.arch, id.family, id.model,
		    id.model_name[0] ? ": " : "", id.model_name);
#ifdef HAVE_LIBPFM
	if (u) {
		const char *native = amp_eventmap_native(u, ev);

		if (!native) {
			say(c->what, sizeof c->what, "no %s event counts %s (%s)", u->name,
			    ev_name(ev), amp_event_table[ev].description);
			return 0;
		}
		if (pfm_encode(u, native, c) == 0) {
			user_only(&c->attr);
			return 1;
		}
		/* An older libpfm4 may lack the PMU: try the generic event. */
		say(note, sizeof note, "%s", c->what);
	}
#else
	if (u)
		say(note, sizeof note, "amp was built without libpfm4");
#endif
	for (size_t i = 0; i < sizeof perf_generic / sizeof perf_generic[0]; i++) {
		const struct perf_generic *g = &perf_generic[i];

		if (g->ev != ev)
			continue;
		memset(&c->attr, 0, sizeof c->attr);
		c->attr.type = g->type;
		c->attr.config = g->config;
		user_only(&c->attr);
		say(c->label, sizeof c->label, "%s", g->name);
		say(c->what, sizeof c->what, "%s (generic; %s)", g->name, note);
		return 1;
	}
	say(c->what, sizeof c->what, "no generic perf event for %s, and %s", ev_name(ev),
	    note[0] ? note : "no native one");
	return 0;
}

/* Open one event alone and close it: the probe. */
static int try_open(struct perf_event_attr *attr, const char *label, char *why, size_t len)
{
	int fd = perf_open_fd(attr, -1);

	if (fd < 0) {
		explain_errno(errno, label, why, len);
		return 0;
	}
	close(fd);
	return 1;
}

static int perf_probe(const struct amp_host *host, char *why, size_t len)
{
	struct perf_event_attr attr;
	struct perf_choice c;

	if (host && host->sim) {
		say(why, len, "perf counts the real machine, not a simulated one");
		return 0;
	}
	memset(&attr, 0, sizeof attr);
	attr.type = PERF_TYPE_HARDWARE;
	attr.config = PERF_COUNT_HW_CPU_CYCLES;
	user_only(&attr);
	if (!try_open(&attr, "CPU cycles", why, len))
		return 0;
	/* L1D misses as amp will count them: native or generic. */
	if (!perf_resolve(AMP_EV_L1D_MISS, &c)) {
		say(why, len, "cannot count L1D misses: %s", c.what);
		return 0;
	}
	if (!try_open(&c.attr, c.label, why, len))
		return 0;
	say(why, len, "hardware counters usable; L1D_MISS = %s", c.what);
	return 1;
}

static int perf_event_info(const struct amp_host *host, enum amp_event ev,
			   char *what, size_t len)
{
	struct perf_choice c;
	int ok = perf_resolve(ev, &c);

	say(what, len, "%s", c.what);
	return ok;
}

struct perf_set {
	int n;
	int fd[AMP_MAX_SET];
	uint64_t start[AMP_MAX_SET], total[AMP_MAX_SET];
	uint64_t start_enabled, start_running;
};

/* Group read: nr, time_enabled, time_running, then one value per event. */
static int group_read(const struct perf_set *s, uint64_t *val, uint64_t *enabled,
		      uint64_t *running)
{
	uint64_t buf[3 + AMP_MAX_SET];
	size_t want = (3 + (size_t)s->n) * sizeof buf[0];
	ssize_t got = read(s->fd[0], buf, want);

	if (got != (ssize_t)want || buf[0] != (uint64_t)s->n)
		return -1;
	*enabled = buf[1];
	*running = buf[2];
	memcpy(val, buf + 3, (size_t)s->n * sizeof buf[0]);
	return 0;
}

static void close_fds(struct perf_set *s)
{
	/* Members before the leader. */
	for (int i = s->n - 1; i >= 0; i--)
		if (s->fd[i] >= 0) {
			close(s->fd[i]);
			s->fd[i] = -1;
		}
}

static int perf_open(struct amp_cset *set, char *err, size_t len)
{
	struct perf_set *s;
	struct perf_choice c;

	if (set->host && set->host->sim) {
		say(err, len, "perf: counts the real machine, not a simulated one");
		return -1;
	}
	if (set->n < 1 || set->n > AMP_MAX_SET) {
		say(err, len, "perf: a set needs 1 to %d events", AMP_MAX_SET);
		return -1;
	}
	/* Resolve everything first: an absent event costs no syscall. */
	for (int i = 0; i < set->n; i++)
		if (!perf_resolve(set->ev[i], &c)) {
			say(err, len, "perf: cannot count %s: %s", ev_name(set->ev[i]), c.what);
			return -1;
		}
	s = calloc(1, sizeof *s);
	if (!s) {
		say(err, len, "perf: out of memory");
		return -1;
	}
	s->n = set->n;
	for (int i = 0; i < s->n; i++)
		s->fd[i] = -1;
	for (int i = 0; i < s->n; i++) {
		perf_resolve(set->ev[i], &c);
		/* Members follow the leader's enable/disable. */
		if (i > 0)
			c.attr.disabled = 0;
		s->fd[i] = perf_open_fd(&c.attr, i ? s->fd[0] : -1);
		if (s->fd[i] < 0) {
			char why[AMP_REASON_LEN];

			explain_errno(errno, c.label, why, sizeof why);
			say(err, len, "perf: %s: %s", ev_name(set->ev[i]), why);
			close_fds(s);
			free(s);
			return -1;
		}
	}
	/* A group that does not fit the counters opens fine but never
	 * runs: try it once, so the caller hears why now. */
	if (ioctl(s->fd[0], PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP) < 0 ||
	    ioctl(s->fd[0], PERF_EVENT_IOC_DISABLE, PERF_IOC_FLAG_GROUP) < 0)
		say(err, len, "perf: cannot enable the group: %s", strerror(errno));
	else if (group_read(s, s->start, &s->start_enabled, &s->start_running) < 0)
		say(err, len, "perf: cannot read the group of %d events", s->n);
	else if (s->start_enabled && !s->start_running)
		say(err, len, "perf: the %d events do not fit the PMU's counters together "
		    "(count fewer at once; the NMI watchdog may hold one)", s->n);
	else {
		set->priv = s;
		return 0;
	}
	close_fds(s);
	free(s);
	return -1;
}

static int perf_start(struct amp_cset *set)
{
	struct perf_set *s = set->priv;

	if (!s || group_read(s, s->start, &s->start_enabled, &s->start_running) < 0)
		return -1;
	memset(s->total, 0, sizeof s->total);
	return ioctl(s->fd[0], PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP) < 0 ? -1 : 0;
}

static int perf_stop(struct amp_cset *set)
{
	struct perf_set *s = set->priv;
	uint64_t now[AMP_MAX_SET], enabled, running;

	if (!s || ioctl(s->fd[0], PERF_EVENT_IOC_DISABLE, PERF_IOC_FLAG_GROUP) < 0)
		return -1;
	if (group_read(s, now, &enabled, &running) < 0)
		return -1;
	enabled -= s->start_enabled;
	running -= s->start_running;
	/* Enabled but never on the PMU: the group does not fit the
	 * counters (or another user holds them); no count is honest. */
	if (enabled && !running)
		return -1;
	for (int i = 0; i < s->n; i++) {
		uint64_t d = now[i] - s->start[i];

		/* Multiplexed part of the time: scale as perf(1) does. */
		if (running && running < enabled)
			d = (uint64_t)((double)d * (double)enabled / (double)running);
		s->total[i] = d;
	}
	return 0;
}

static int perf_read(struct amp_cset *set, uint64_t *values)
{
	struct perf_set *s = set->priv;

	if (!s)
		return -1;
	memcpy(values, s->total, (size_t)s->n * sizeof values[0]);
	return 0;
}

static void perf_close(struct amp_cset *set)
{
	struct perf_set *s = set->priv;

	if (!s)
		return;
	close_fds(s);
	free(s);
	set->priv = NULL;
}

#else /* no perf events on this system */

static int perf_probe(const struct amp_host *host, char *why, size_t len)
{
	say(why, len, "perf_event_open is not available (not Linux, or built without "
	    "<linux/perf_event.h>)");
	return 0;
}

static int perf_event_info(const struct amp_host *host, enum amp_event ev,
			   char *what, size_t len)
{
	return perf_probe(host, what, len);
}

static int perf_open(struct amp_cset *set, char *err, size_t len)
{
	char why[AMP_REASON_LEN];

	perf_probe(set->host, why, sizeof why);
	say(err, len, "perf: %s", why);
	return -1;
}

static int perf_start(struct amp_cset *set)
{
	return -1;
}

static int perf_stop(struct amp_cset *set)
{
	return -1;
}

static int perf_read(struct amp_cset *set, uint64_t *values)
{
	return -1;
}

static void perf_close(struct amp_cset *set)
{
}

#endif

const struct amp_backend_ops amp_backend_perf = {
	.name = "perf",
	.summary = "hardware miss counters via perf_event_open (native events with libpfm4)",
	.priority = 50,
	.auto_select = 1,
	.probe = perf_probe,
	.event_info = perf_event_info,
	.open = perf_open,
	.start = perf_start,
	.stop = perf_stop,
	.read = perf_read,
	.close = perf_close,
};
