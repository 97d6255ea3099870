/* cache.c - --cache: the JSON report kept under $XDG_CACHE_HOME/amp/
 * (default ~/.cache/amp/), one file per CPU model, kernel and set of
 * measurement options, returned at once by the next run unless
 * --refresh.  Written to a temporary file and renamed, so that a run
 * killed halfway, or two runs at once, never leave half a report. */
#include "config.h"
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "output.h"
#include "report.h"
#include "signals.h"

/* mkdir -p for the cache directory. */
static int make_dirs(char *dir)
{
	for (char *p = dir + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(dir, 0700) < 0 && errno != EEXIST) {
			*p = '/';
			return -1;
		}
		*p = '/';
	}
	return mkdir(dir, 0700) < 0 && errno != EEXIST ? -1 : 0;
}

/* Letters, digits, dot and dash survive in a file name; the rest is '_'. */
static void append_clean(char *buf, size_t len, const char *s)
{
	size_t n = strlen(buf);

	for (; *s && n + 1 < len; s++)
		buf[n++] = (char)((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
					  *s == '.' || *s == '-' ? *s : '_');
	buf[n] = '\0';
}

int amp_cache_path(const struct amp_config *cfg, const struct amp_report *r, char *path, size_t plen,
		   char *err, size_t len)
{
	const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
	char dir[768], name[256] = "", opts[256];
	unsigned long hash = 5381;

	if (xdg && *xdg == '/')
		snprintf(dir, sizeof dir, "%s/amp", xdg);
	else if (home && *home)
		snprintf(dir, sizeof dir, "%s/.cache/amp", home);
	else {
		snprintf(err, len, "--cache: neither XDG_CACHE_HOME nor HOME is set");
		return -1;
	}
	if (cfg->sim) {
		/* A simulated machine is its spec, not this CPU. */
		append_clean(name, sizeof name, "sim-");
		append_clean(name, sizeof name, cfg->sim);
		if (strlen(name) > 64)
			name[64] = '\0';
	} else {
		append_clean(name, sizeof name, r->cpu[0] ? r->cpu : "unknown-cpu");
		append_clean(name, sizeof name, "_");
		append_clean(name, sizeof name, r->kernel[0] ? r->kernel : "unknown-kernel");
	}
	/* Options that change what is measured change the key. */
	snprintf(opts, sizeof opts, "%s|%s|%s|%s|%g|%d|%d%d%d|%u|%u|%llu|%llu|%s", cfg->sim ? cfg->sim : "", cfg->backend ? cfg->backend : "",
		 r->kernel, cfg->level ? cfg->level : "", cfg->sim_noise, cfg->pages_random,
		 cfg->counters, cfg->timing, cfg->cross_check, cfg->reps,
		 cfg->votes, (unsigned long long)cfg->seed, (unsigned long long)cfg->max_size, PACKAGE_VERSION);
	for (const char *p = opts; *p; p++)
		hash = hash * 33 + (unsigned char)*p;
	if ((size_t)snprintf(path, plen, "%s/%s_%08lx.json", dir, name, hash & 0xffffffffUL) >= plen) {
		snprintf(err, len, "--cache: the cache path is too long");
		return -1;
	}
	return 0;
}

int amp_cache_print(const char *path)
{
	char buf[8192];
	size_t n;
	FILE *f = fopen(path, "r");
	int ok = 0;

	if (!f)
		return 0;
	/* Only a whole report of this format version counts. */
	n = fread(buf, 1, sizeof buf - 1, f);
	buf[n] = '\0';
	{
		char want[48];

		snprintf(want, sizeof want, "\"format_version\": %d,", AMP_FORMAT_VERSION);
		ok = strstr(buf, want) != NULL;
	}
	if (ok) {
		fwrite(buf, 1, n, stdout);
		while ((n = fread(buf, 1, sizeof buf, f)) > 0)
			fwrite(buf, 1, n, stdout);
	}
	fclose(f);
	return ok;
}

static int dir_of(const char *path, char *dir, size_t len)
{
	const char *slash = strrchr(path, '/');

	if (!slash || (size_t)(slash - path) >= len)
		return -1;
	memcpy(dir, path, (size_t)(slash - path));
	dir[slash - path] = '\0';
	return 0;
}

int amp_cache_writable(const char *path, char *err, size_t len)
{
	char dir[1024], tmp[1100];
	int fd;

	if (dir_of(path, dir, sizeof dir) < 0 || make_dirs(dir) < 0) {
		snprintf(err, len, "--cache: cannot create %s: %s", dir, strerror(errno));
		return -1;
	}
	snprintf(tmp, sizeof tmp, "%s/.probe.XXXXXX", dir);
	amp_signals_track(tmp); /* a signal now removes it (signals.c) */
	fd = mkstemp(tmp);
	if (fd < 0) {
		amp_signals_forget(tmp);
		snprintf(err, len, "--cache: cannot write in %s: %s", dir, strerror(errno));
		return -1;
	}
	close(fd);
	unlink(tmp);
	amp_signals_forget(tmp);
	return 0;
}

int amp_cache_store(const char *path, const struct amp_report *r, char *err, size_t len)
{
	char tmp[1100];
	int fd, bad;
	FILE *f;

	snprintf(tmp, sizeof tmp, "%s.XXXXXX", path);
	amp_signals_track(tmp); /* never a partial entry, even on Ctrl-C */
	fd = mkstemp(tmp);
	if (fd < 0 || !(f = fdopen(fd, "w"))) {
		snprintf(err, len, "--cache: cannot write %s: %s", tmp, strerror(errno));
		if (fd >= 0) {
			close(fd);
			unlink(tmp);
		}
		amp_signals_forget(tmp);
		return -1;
	}
	amp_emit_json(r, f);
	bad = fflush(f) != 0 || fsync(fd) != 0;
	bad |= fclose(f) != 0;
	if (bad || rename(tmp, path) < 0) {
		snprintf(err, len, "--cache: cannot write %s: %s", path, strerror(errno));
		unlink(tmp);
		amp_signals_forget(tmp);
		return -1;
	}
	amp_signals_forget(tmp);
	return 0;
}
