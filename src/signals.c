/* signals.c - stop within a second on SIGINT/SIGTERM/SIGHUP.
 *
 * A measurement is a tight loop over memory; polling a flag in every
 * loop would cost time and still leave threads running.  So the handler
 * does only async-signal-safe work: unlink the temporary files amp is
 * writing (so no partial cache entry or curve is left), say why on
 * stderr, and _exit().  The kernel releases every mapping and thread
 * with the process. */
#include "config.h"
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <unistd.h>
#include "signals.h"

#define MAX_TRACKED 8

static const char *_Atomic tracked[MAX_TRACKED];

static void say(const char *s)
{
	ssize_t ignored = write(STDERR_FILENO, s, strlen(s));

	(void)ignored;
}

static void on_signal(int sig)
{
	for (int i = 0; i < MAX_TRACKED; i++) {
		const char *p = atomic_load(&tracked[i]);

		if (p)
			unlink(p);
	}
	say(sig == SIGINT ? "amp: interrupted (SIGINT)\n" :
	    sig == SIGTERM ? "amp: terminated (SIGTERM)\n" : "amp: hung up (SIGHUP)\n");
	_exit(128 + sig);
}

void amp_signals_install(void)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP };
	struct sigaction sa;

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	sigfillset(&sa.sa_mask); /* one handler at a time */
	for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
		struct sigaction old;

		/* A signal ignored by whoever started amp (nohup) stays ignored. */
		if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler == SIG_IGN)
			continue;
		sigaction(sigs[i], &sa, NULL);
	}
}

int amp_signals_track(const char *path)
{
	for (int i = 0; i < MAX_TRACKED; i++) {
		const char *expected = NULL;

		if (atomic_compare_exchange_strong(&tracked[i], &expected, path))
			return 0;
	}
	return -1;
}

void amp_signals_forget(const char *path)
{
	for (int i = 0; i < MAX_TRACKED; i++) {
		const char *expected = path;

		atomic_compare_exchange_strong(&tracked[i], &expected, NULL);
	}
}
