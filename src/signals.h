/* signals.h - Ctrl-C and SIGTERM: amp stops at once, removes the files
 * it was writing, and exits 130 or 143 (128 + the signal). */
#ifndef AMP_SIGNALS_H
#define AMP_SIGNALS_H

/* Installs the handlers for SIGINT, SIGTERM and SIGHUP. */
void amp_signals_install(void);
/* A file being written (a temporary to be renamed): removed if a signal
 * stops amp before amp_signals_forget(path).  At most a few at a time;
 * path must stay valid until forgotten.  0, or -1 when the table is full. */
int amp_signals_track(const char *path);
void amp_signals_forget(const char *path);

#endif
