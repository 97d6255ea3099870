/* explain.c - teaching mode (--explain): each experiment told as it
 * runs, for a classroom watching a simulated machine: what hypothesis a
 * module tests, how it arranges the accesses, what the counter or the
 * clock said, and how the votes fell. */
#include "config.h"
#include <stdio.h>
#include <string.h>
#include "measure.h"
#include "progress.h"
#include "trace.h"

/* Per module: the hypothesis and the access pattern, in words. */
static const struct {
	const char *module, *hypothesis, *pattern;
} lessons[] = {
	{ "line", "each line (page) misses once on a first touch, so bytes touched per miss is the line (page) size",
	  "flush the level, then touch an uncached region once, 8 bytes (1 KiB for a TLB) at a time" },
	{ "assoc", "lines a way size apart share a set: a cyclic walk over A of them hits while A <= ways and "
		   "misses every time once A > ways (with LRU)",
	  "cyclic walks of n lines, s bytes apart, for growing n and s; the smallest n that thrashes gives the ways, "
	  "the stride where thrashing starts gives the way size" },
	{ "isets", "N lines drawn at random, C of which fit where they map, hit C/N of the time under any policy, so "
		   "their time over the same lines in other sets is nil up to N = C and grows from C + 1; C halves as "
		   "the stride doubles up to the way size and stays from there",
	  "each line one indirect jump to a target drawn from a table (no predictor foresees it, so no fetch runs "
	  "ahead); walks of 2, 3, 4... lines s bytes apart against the same walks 64 B apart, for s doubling from a "
	  "page; then 2 x ways lines with half moved by 16, 32... bytes" },
	{ "block-l1", "moving half of a full set by an offset keeps it in the set until the offset reaches a line",
	  "timed walks over a full L1 set with half of its lines shifted by 8, 16, 32... bytes" },
	{ "evset", "a physically indexed level's sets are found by experiment: a minimal group of lines that evicts "
		   "one line has as many lines as the level has ways",
	  "by timing, one reload of a target timed after walks of candidate lines (counted walks where strides failed "
	  "to predict the sets), the candidates shrunk by group testing until removing any line stops the eviction" },
	{ "block", "all lines at one page offset can share a target's set; moved by less than a line they still do, "
		   "moved by a line they no longer can; a second access within the line just loaded hits",
	  "below L2, one reload of a target timed after walks of the lines at its page offset in many pages, moved by "
	  "growing offsets (page-offset classes); elsewhere access pairs in a buffer below the level: a block's last "
	  "word, then the word D bytes before it, for growing D" },
	{ "inclusion", "evicting a line from this level evicts it from the level above only if the level is inclusive; "
		       "an exclusive level holds what the level above does not",
	  "fill the level above, evict from this level only, then count misses of the level above" },
	{ "replacement", "which line one more line evicts tells the policy: the least recently used (lru), a tree bit "
			 "(plru), the oldest (fifo), or any (random)",
	  "fill one set, touch some lines again, add one line, then count which of the old lines miss" },
	{ "write", "a write-allocate level fetches a line on a store miss, so loads after the stores hit",
	  "store to uncached lines, then load them and count misses" },
	{ "unified", "a unified level holds code and data: fetching code evicts data (or data evicts code)",
	  "fill the level with data, run code over the same sets, count the data's misses" },
};

static struct {
	FILE *out;
	int detail;            /* show measurements: only in a vote's first round */
	unsigned shown;        /* measurements shown in this vote */
} ex;

#define SHOW_PER_VOTE 24

static void lesson(const struct amp_module *m)
{
	for (size_t i = 0; i < sizeof lessons / sizeof lessons[0]; i++)
		if (strcmp(lessons[i].module, m->name) == 0) {
			fprintf(ex.out, "   Hypothesis: %s.\n   Access pattern: %s.\n", lessons[i].hypothesis,
				lessons[i].pattern);
			return;
		}
	fprintf(ex.out, "   %s.\n", m->summary);
}

static void measurement_line(const struct amp_trace_ev *e)
{
	if (!ex.detail)
		return;
	if (ex.shown++ == SHOW_PER_VOTE) {
		fprintf(ex.out, "     ... (more measurements in this vote not shown)\n");
		return;
	}
	if (ex.shown > SHOW_PER_VOTE)
		return;
	/* A cyclic walk's count is told with the walk that follows it. */
	if (e->kind == AMP_TR_COUNT && strcmp(e->plan, "cyclic") == 0) {
		ex.shown--;
		return;
	}
	switch (e->kind) {
	case AMP_TR_COUNT:
		fprintf(ex.out, "     plan %-10s %8llu measured accesses, region %llu bytes: %.0f misses (%.3f per access)\n",
			e->plan, (unsigned long long)e->accesses, (unsigned long long)e->region, e->misses,
			e->accesses ? e->misses / (double)e->accesses : 0.0);
		break;
	case AMP_TR_WALK:
		fprintf(ex.out, "     walk of %3llu lines %6llu bytes apart%s: miss rate %.2f, %s\n",
			(unsigned long long)e->lines, (unsigned long long)e->stride,
			e->evict ? " (each evicted from the level above)" : "", e->rate,
			amp_thrashes(e->lv, e->rate) ? "thrashes: more lines than the set holds"
						     : "fits: every line stays");
		break;
	case AMP_TR_TIMED:
		fprintf(ex.out, "     timed walk of %llu lines: %+.2f ticks per access over %s, "
			"share missing %s %.2f\n", (unsigned long long)e->lines, e->excess,
			e->text ? e->text : "the all-L1 reference", e->lv->name, e->rate);
		break;
	case AMP_TR_POINT:
		fprintf(ex.out, "     %s %g: %s %.3g\n", e->xname, e->x, e->yname, e->y);
		break;
	default:
		break;
	}
}

static void on_event(const struct amp_trace_ev *e, void *arg)
{
	const struct amp_param *p;

	switch (e->kind) {
	case AMP_TR_PHASE:
		fprintf(ex.out, "\n== %s ==\n", e->name);
		break;
	case AMP_TR_SWEEP:
		fprintf(ex.out, "   working set %6llu KiB: %8.2f ticks per load\n",
			(unsigned long long)(e->region >> 10), e->excess);
		break;
	case AMP_TR_MODULE:
		fprintf(ex.out, "\n-- %s: module %s (%s)\n", e->lv->name, e->module->name, e->method);
		lesson(e->module);
		break;
	case AMP_TR_VOTE_BEGIN:
		fprintf(ex.out, "   Parameter %s of %s: %u votes, each its own measurement.\n",
			e->param ? e->param : e->module ? e->module->name : "?", e->lv->name, e->votes);
		ex.detail = 1;
		ex.shown = 0;
		break;
	case AMP_TR_COUNT:
	case AMP_TR_WALK:
	case AMP_TR_TIMED:
	case AMP_TR_POINT:
		measurement_line(e);
		break;
	case AMP_TR_VOTE:
		if (e->failed)
			fprintf(ex.out, "   vote %u: no answer (%s)\n", e->vote + 1, e->text ? e->text : "");
		else
			fprintf(ex.out, "   vote %u: %lld\n", e->vote + 1, (long long)e->value);
		if (ex.detail && e->vote + 1 < e->votes)
			fprintf(ex.out, "     (the next votes repeat these measurements; only their answers are shown)\n");
		ex.detail = 0;
		break;
	case AMP_TR_DECIDED:
		p = e->result;
		if (!p->known)
			fprintf(ex.out, "   => %s unknown: %s\n", e->param ? e->param : "value", p->reason);
		else if (e->param && strcmp(e->param, "replacement") == 0 && p->value >= 0 && p->value < 5)
			fprintf(ex.out, "   => replacement = %s: the most common vote, %.0f%% of them\n",
				amp_policy_names[p->value], 100 * p->confidence);
		else
			fprintf(ex.out, "   => %s = %lld: the most common vote, %.0f%% of them%s%s\n",
				e->param ? e->param : e->module ? e->module->name : "value", (long long)p->value,
				100 * p->confidence,
				p->inconclusive ? "; too few agree, so it is marked inconclusive: " : "",
				p->inconclusive ? p->reason : "");
		break;
	}
}

void amp_explain_start(FILE *out)
{
	memset(&ex, 0, sizeof ex);
	ex.out = out;
	amp_trace_subscribe(on_event, NULL);
}
