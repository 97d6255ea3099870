/* seccomp_deny.c - runs a command where some system calls fail, to test
 * amp on restricted machines for real rather than by pretending:
 *
 *   seccomp_deny perf=EACCES affinity=EPERM exec=EACCES -- amp ...
 *
 * perf      perf_event_open(2)          (paranoid setting, seccomp'd container)
 * affinity  sched_setaffinity(2)        (CPU affinity refused)
 * exec      mmap/mprotect with PROT_EXEC (executable mappings forbidden)
 * Each fails with the errno named (EACCES, EPERM, ENOSYS).  Exits 77 (the
 * test suite's "skipped") where seccomp filters cannot be installed. */
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#if defined(__x86_64__)
#define ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define ARCH AUDIT_ARCH_AARCH64
#endif

#define MAX_INSNS 64

static int errno_named(const char *s)
{
	if (strcmp(s, "EACCES") == 0)
		return EACCES;
	if (strcmp(s, "EPERM") == 0)
		return EPERM;
	if (strcmp(s, "ENOSYS") == 0)
		return ENOSYS;
	return -1;
}

static struct sock_filter prog[MAX_INSNS];
static int n;

static void add(struct sock_filter f)
{
	prog[n++] = f;
}

/* if (nr == sys) return ERRNO(e); */
static void deny(int sys, int e)
{
	add((struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned)sys, 0, 1));
	add((struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (unsigned)e));
}

/* if (nr == sys && (args[2] & PROT_EXEC) [&& (args[3] & MAP_ANONYMOUS)])
 * return ERRNO(e); then reloads nr.  Like SELinux's execmem: anonymous
 * memory may not become code, while the loader still maps libraries. */
static void deny_exec(int sys, int e, int anon_only)
{
	add((struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned)sys, 0, anon_only ? 6 : 4));
	add((struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[2])));
	add((struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, PROT_EXEC, 0, anon_only ? 3 : 1));
	if (anon_only) {
		add((struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[3])));
		add((struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, MAP_ANONYMOUS, 0, 1));
	}
	add((struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (unsigned)e));
	add((struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)));
}

int main(int argc, char **argv)
{
	int i;

#ifndef ARCH
	fprintf(stderr, "seccomp_deny: no filter for this architecture\n");
	return 77;
#else
	add((struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)));
	add((struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, ARCH, 1, 0));
	add((struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW));
	add((struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)));
	for (i = 1; i < argc && strcmp(argv[i], "--") != 0; i++) {
		char what[32];
		const char *eq = strchr(argv[i], '=');
		int e = eq ? errno_named(eq + 1) : -1;

		if (!eq || e < 0 || (size_t)(eq - argv[i]) >= sizeof what) {
			fprintf(stderr, "seccomp_deny: bad rule '%s' (NAME=EACCES|EPERM|ENOSYS)\n", argv[i]);
			return 2;
		}
		memcpy(what, argv[i], (size_t)(eq - argv[i]));
		what[eq - argv[i]] = '\0';
		if (strcmp(what, "perf") == 0) {
			deny(SYS_perf_event_open, e);
		} else if (strcmp(what, "affinity") == 0) {
			deny(SYS_sched_setaffinity, e);
		} else if (strcmp(what, "exec") == 0) {
			deny_exec(SYS_mmap, e, 1);
			deny_exec(SYS_mprotect, e, 0);
#ifdef SYS_pkey_mprotect
			deny_exec(SYS_pkey_mprotect, e, 0);
#endif
		} else {
			fprintf(stderr, "seccomp_deny: unknown rule '%s'\n", what);
			return 2;
		}
	}
	add((struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW));
	if (i + 1 >= argc) {
		fprintf(stderr, "usage: seccomp_deny RULE... -- COMMAND [ARG]...\n");
		return 2;
	}
	struct sock_fprog fp = { (unsigned short)n, prog };

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &fp) < 0) {
		fprintf(stderr, "seccomp_deny: cannot install the filter: %s\n", strerror(errno));
		return 77;
	}
	execvp(argv[i + 1], argv + i + 1);
	fprintf(stderr, "seccomp_deny: %s: %s\n", argv[i + 1], strerror(errno));
	return 127;
#endif
}
