/* nbgen.c - the nano-benchmark generator (X-Ray sections 2.3-2.4), run at
 * build time: reads the configurations of synth/nanobench.def and writes
 * one C timing function per configuration, stream count and unroll; the
 * ops lines in the volatile-switch template of X-Ray Fig. 3(d) (the regs
 * lines in a plain loop, see emit_regs):
 *
 *   initialise every variable from a volatile;
 *   t_s = now();
 *   switch (volatile zero) {
 *   case 0:
 *   loop:
 *   case 1:  S_1;  case 2: S_2;  ...  case W: S_W;
 *            if (--i) goto loop;
 *            t_e = now();
 *            if (!volatile zero) return t_e - t_s;
 *   }
 *   use every variable (store to a volatile);
 *
 * The compiler keeps the variables in registers, but since any case
 * label may be the entry it cannot merge, reorder or drop the timed
 * statements, and since the variables come from volatiles and go to
 * volatiles it can neither fold nor delete them.
 *
 * Usage: nbgen nanobench.def > nanobench.c */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "nanobench.h"

#define MAX_LINES 64
#define MAX_STMTS 8

struct config {
	int regs;                 /* a regs line, else ops */
	char name[32], type[64];
	char x[32], y[32];
	int fma;
	char aux[32];             /* "" when none */
	char source[256];         /* the statements as written */
	char stmt[MAX_STMTS][96];
	int nstmts;
	int line;
};

static struct config cfg[MAX_LINES];
static int ncfg;

static const char *ctype_of(const char *type)
{
	if (strcmp(type, "int32") == 0)
		return "int32_t";
	if (strcmp(type, "int64") == 0)
		return "int64_t";
	if (strcmp(type, "float") == 0 || strcmp(type, "double") == 0)
		return type;
	if (strcmp(type, "v2df") == 0)
		return "nb_v2df";
	return NULL;
}

/* A C identifier made of s (spaces to '_'). */
static void ident(char *out, size_t len, const char *s)
{
	size_t i;

	for (i = 0; s[i] && i + 1 < len; i++)
		out[i] = isalnum((unsigned char)s[i]) ? s[i] : '_';
	out[i] = '\0';
}

static void trim(char *s)
{
	char *p = s, *e;

	while (isspace((unsigned char)*p))
		p++;
	memmove(s, p, strlen(p) + 1);
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = '\0';
}

static int fail(const char *file, int line, const char *what)
{
	fprintf(stderr, "nbgen: %s:%d: %s\n", file, line, what);
	return -1;
}

static int parse(const char *file)
{
	FILE *f = fopen(file, "r");
	char buf[512];
	int lineno = 0;

	if (!f) {
		perror(file);
		return -1;
	}
	while (fgets(buf, sizeof buf, f)) {
		struct config *c = &cfg[ncfg];
		char kind[16], target[16];
		int used = 0;

		lineno++;
		trim(buf);
		if (!buf[0] || buf[0] == '#')
			continue;
		if (ncfg == MAX_LINES)
			return fail(file, lineno, "too many lines");
		memset(c, 0, sizeof *c);
		c->line = lineno;
		if (sscanf(buf, "%15s %31s %n", kind, c->name, &used) < 2)
			return fail(file, lineno, "expected a kind and a name");
		if (strcmp(kind, "regs") == 0) {
			c->regs = 1;
			snprintf(c->type, sizeof c->type, "%s", buf + used);
			trim(c->type);
			if (!c->type[0])
				return fail(file, lineno, "regs needs a C type");
			ncfg++;
			continue;
		}
		if (strcmp(kind, "ops") != 0)
			return fail(file, lineno, "kind must be ops or regs");
		{
			const char *rest = buf + used;
			int n2 = 0;

			if (sscanf(rest, "%63s %31s %31s %15s %31s %n", c->type, c->x, c->y, target,
				   c->aux, &n2) < 5 || !n2)
				return fail(file, lineno, "ops needs TYPE X Y TARGET AUX STATEMENTS");
			rest += n2;
			snprintf(c->source, sizeof c->source, "%s", rest);
		}
		if (!ctype_of(c->type) || strcmp(c->type, "v2df") == 0)
			return fail(file, lineno, "ops type must be int32, int64, float or double");
		c->fma = strcmp(target, "fma") == 0;
		if (!c->fma && strcmp(target, "-") != 0)
			return fail(file, lineno, "target must be - or fma");
		if (strcmp(c->aux, "-") == 0)
			c->aux[0] = '\0';
		char copy[sizeof c->source];

		snprintf(copy, sizeof copy, "%s", c->source);
		for (char *s = strtok(copy, ";"); s; s = strtok(NULL, ";")) {
			if (c->nstmts == MAX_STMTS)
				return fail(file, lineno, "too many statements");
			snprintf(c->stmt[c->nstmts], sizeof c->stmt[0], "%s", s);
			trim(c->stmt[c->nstmts]);
			if (c->stmt[c->nstmts][0])
				c->nstmts++;
		}
		if (!c->nstmts)
			return fail(file, lineno, "no statements");
		ncfg++;
	}
	fclose(f);
	for (int i = 0; i < ncfg; i++) {
		int found = !cfg[i].aux[0];

		for (int j = 0; j < ncfg && !found; j++)
			found = !cfg[j].regs && strcmp(cfg[j].name, cfg[i].aux) == 0 &&
				strcmp(cfg[j].type, cfg[i].type) == 0 && !cfg[j].aux[0];
		if (!found)
			return fail(file, cfg[i].line, "aux names no ops line of the same type");
	}
	return 0;
}

/* Statement s with the identifier A replaced by A<stream>. */
static void emit_stmt(const char *s, int stream)
{
	for (const char *p = s; *p; p++) {
		int starts = p == s || !(isalnum((unsigned char)p[-1]) || p[-1] == '_');

		if (*p == 'A' && starts && !(isalnum((unsigned char)p[1]) || p[1] == '_'))
			printf("A%d", stream);
		else
			putchar(*p);
	}
}

/* An operand literal as a constant of the line's type. */
static void emit_literal(const char *ctype, const char *v)
{
	int integer = !strpbrk(v, ".eE");

	printf("(%s)(%s%s)", ctype, v, integer ? "LL" : "");
}

static void fn_name(char *out, size_t len, const struct config *c, int streams, int length)
{
	char n[32], t[64];

	ident(n, sizeof n, c->name);
	ident(t, sizeof t, c->type);
	if (c->regs)
		snprintf(out, len, "nb_regs_%s_n%d", n, streams);
	else
		snprintf(out, len, "nb_ops_%s_%s_k%d_l%d", n, t, streams, length);
}

/* The clock starts before the switch: an entry at any case label then
 * needs no code of its own, so the compiler lays the loop out straight
 * (with t_s set in case 0 it threads a stub per label through the loop,
 * and the taken jumps cost more than the statements).  The switch's one
 * indirect jump is the same in both unrolls and cancels. */
static void emit_timed_head(void)
{
	printf("\tt_s = amp_ticks();\n\tswitch (nb_zero) {\n\tcase 0:\n\tloop:\n");
}

static void emit_timed_tail(void)
{
	printf("\t\tif (--i)\n\t\t\tgoto loop;\n"
	       "\t\tt_e = amp_ticks();\n"
	       "\t\tif (!nb_zero)\n\t\t\treturn t_e - t_s;\n\t}\n");
}

static void emit_ops(const struct config *c, int streams, int length)
{
	const char *ct = ctype_of(c->type);
	char fn[128];
	int label = 1;

	fn_name(fn, sizeof fn, c, streams, length);
	printf("\n%sstatic uint64_t %s(uint64_t iters)\n{\n", c->fma ? "NB_FMA_TARGET " : "", fn);
	printf("\tvolatile %s in_x = ", ct);
	emit_literal(ct, c->x);
	printf(", in_y = ");
	emit_literal(ct, c->y);
	printf(", in_a = (%s)1;\n", ct);
	printf("\t%s X = in_x, Y = in_y", ct);
	for (int s = 0; s < streams; s++)
		printf(", A%d = in_a", s);
	printf(";\n\tuint64_t i = iters, t_s, t_e;\n\n");
	emit_timed_head();
	for (int l = 0; l < length; l++)
		for (int k = 0; k < c->nstmts; k++)
			for (int s = 0; s < streams; s++) {
				printf("\tcase %d: ", label++);
				emit_stmt(c->stmt[k], s);
				printf(";\n");
			}
	emit_timed_tail();
	for (int s = 0; s < streams; s++)
		printf("\tnb_sink_%s = A%d;\n", c->type, s);
	printf("\treturn 0;\n}\n");
}

static int regs_length(int n)
{
	return n * ((NB_REGS_STMTS + n - 1) / n);
}

/* The live-range pattern is timed without the volatile switch
 * (BlackjackBench 3.5): the chained adds already keep the compiler from
 * merging or dropping statements, and the switch's jump needs registers
 * of its own while every variable is live, so the count came out two
 * short.  The variables are read from volatiles after the first timer
 * read and written back before the second, so none is live across
 * the timer read (rdtsc clobbers two registers on x86-64); the few loads and
 * stores are the same for every N and vanish in the iterations. */
static void emit_regs(const struct config *c, int n)
{
	const char *ct = ctype_of(c->type) ? ctype_of(c->type) : c->type;
	char fn[128], id[32];
	int len = regs_length(n);

	ident(id, sizeof id, c->name);
	fn_name(fn, sizeof fn, c, n, len);
	printf("\nstatic uint64_t %s(uint64_t iters)\n{\n\t%s P0", fn, ct);
	for (int v = 1; v < n; v++)
		printf(", P%d", v);
	printf(";\n\tuint64_t i = iters, t_s, t_e;\n\n\tt_s = amp_ticks();\n");
	for (int v = 0; v < n; v++)
		printf("\tP%d = nb_in_%s;\n", v, id);
	printf("\tdo {\n");
	/* BlackjackBench's pattern: N/2 chains may be in flight at once, so
	 * a spill's load and store cannot hide behind an idle pipeline. */
	for (int s = 0; s < len; s++)
		printf("\t\tP%d = P%d + P%d;\n", s % n, s % n, (s + n - n / 2) % n);
	printf("\t} while (--i);\n");
	for (int v = 0; v < n; v++)
		printf("\tnb_out_%s = P%d;\n", id, v);
	printf("\tt_e = amp_ticks();\n\treturn t_e - t_s;\n}\n");
}

static void emit_entry(const struct config *c, int streams, int length)
{
	char fn[128];

	fn_name(fn, sizeof fn, c, streams, length);
	printf("\t{ %s, \"%s\", \"%s\", ", c->regs ? "AMP_NB_REGS" : "AMP_NB_OPS", c->name, c->type);
	if (c->aux[0])
		printf("\"%s\", ", c->aux);
	else
		printf("NULL, ");
	printf("\"%s\", %d, %d, %d, %d, %s },\n", c->regs ? "P[i%N] = P[i%N] + P[(i+N-N/2)%N]" : c->source,
	       c->fma, c->nstmts, streams, length, fn);
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: nbgen nanobench.def > nanobench.c\n");
		return 2;
	}
	if (parse(argv[1]) < 0)
		return 1;
	printf("/* nanobench.c - generated by synth/nbgen from nanobench.def; do not edit. */\n"
	       "#include <stddef.h>\n#include <stdint.h>\n#include <string.h>\n"
	       "#include \"nanobench.h\"\n#include \"timer.h\"\n\n"
	       "/* Every statement falls through to the next case label on purpose. */\n"
	       "#pragma GCC diagnostic ignored \"-Wimplicit-fallthrough\"\n\n"
	       "typedef double nb_v2df __attribute__((vector_size(16)));\n\n"
	       "#if defined(__x86_64__) || defined(__i386__)\n"
	       "#define NB_FMA_TARGET __attribute__((target(\"fma\")))\n#else\n"
	       "#define NB_FMA_TARGET\n#endif\n\n"
	       "static volatile int nb_zero;\n"
	       "static volatile int32_t nb_sink_int32;\nstatic volatile int64_t nb_sink_int64;\n"
	       "static volatile float nb_sink_float;\nstatic volatile double nb_sink_double;\n");
	for (int i = 0; i < ncfg; i++)
		if (cfg[i].regs) {
			const char *ct = ctype_of(cfg[i].type) ? ctype_of(cfg[i].type) : cfg[i].type;
			char id[32];

			ident(id, sizeof id, cfg[i].name);
			printf("static volatile %s nb_in_%s, nb_out_%s;\n", ct, id, id);
		}
	for (int i = 0; i < ncfg; i++) {
		if (cfg[i].regs) {
			for (int n = 2; n <= NB_MAX_VARS; n++)
				emit_regs(&cfg[i], n);
			continue;
		}
		for (int k = 1; k <= NB_MAX_STREAMS; k++)
			for (int l = 1; l <= 2; l++)
				emit_ops(&cfg[i], k, l * nb_len_short(k, cfg[i].nstmts));
	}
	printf("\nconst struct amp_nb amp_nb_table[] = {\n");
	for (int i = 0; i < ncfg; i++) {
		if (cfg[i].regs) {
			for (int n = 2; n <= NB_MAX_VARS; n++)
				emit_entry(&cfg[i], n, regs_length(n));
			continue;
		}
		for (int k = 1; k <= NB_MAX_STREAMS; k++)
			for (int l = 1; l <= 2; l++)
				emit_entry(&cfg[i], k, l * nb_len_short(k, cfg[i].nstmts));
	}
	printf("};\nconst int amp_nb_count = (int)(sizeof amp_nb_table / sizeof amp_nb_table[0]);\n\n"
	       "const struct amp_nb *amp_nb_find(enum amp_nb_kind kind, const char *name, const char *type,\n"
	       "\t\t\t\t int streams, int length)\n{\n"
	       "\tfor (int i = 0; i < amp_nb_count; i++) {\n"
	       "\t\tconst struct amp_nb *b = &amp_nb_table[i];\n\n"
	       "\t\tif (b->kind == kind && strcmp(b->name, name) == 0 &&\n"
	       "\t\t    (!type || strcmp(b->type, type) == 0) && b->streams == streams &&\n"
	       "\t\t    (!length || b->length == length))\n\t\t\treturn b;\n\t}\n\treturn NULL;\n}\n");
	return 0;
}
