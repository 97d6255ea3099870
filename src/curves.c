/* curves.c - --curves=DIR: every experiment's raw measurements, as a CSV
 * (control variable, measured value, the decision) and as an SVG chart
 * for people (latency against working set with the levels found marked;
 * miss rate against the hypothesis tested).  The recorder is an observer
 * of the trace (trace.h); the charts are plain SVG 1.1, log scale where
 * the control variable grows geometrically. */
#include "config.h"
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "measure.h"
#include "progress.h"
#include "report.h"
#include "timing.h"
#include "tlb_timing.h"
#include "trace.h"
#include "util.h"

struct point {
	unsigned vote;
	enum amp_trace_kind kind;
	char plan[24];
	uint64_t lines, stride, region, accesses;
	int evict;
	double misses, excess, rate;
	double x, y;            /* POINT: the module's control variable and measure */
};

struct experiment {
	char level[8], module[16], param[24], method[12];
	char decision[AMP_REASON_LEN + 32];
	unsigned vote;          /* votes cast so far */
	int64_t votes[AMP_MAX_VOTES];
	int nvotes;
	struct point *pt;
	int npt, cap;
	/* A module's own curve (POINT events): its axes; the walks and
	 * counts under it are its inner measurements, not charted. */
	int npoints_own;
	char xname[32], yname[32], xlabel[96], ylabel[96];
	int y_decides;
};

static struct {
	struct experiment *ex;
	int n, cap;
	/* The TLB sweeps (timing path), kept by amp_curves_tlb. */
	const struct amp_tlb_timing *tlb[2];
	const char *tlb_name[2];
} rec;

static struct experiment *current(void)
{
	return rec.n ? &rec.ex[rec.n - 1] : NULL;
}

static void on_event(const struct amp_trace_ev *e, void *arg)
{
	struct experiment *x;
	struct point *p;

	if (e->kind == AMP_TR_VOTE_BEGIN) {
		if (rec.n == rec.cap) {
			int cap = rec.cap ? 2 * rec.cap : 32;
			struct experiment *more = realloc(rec.ex, (size_t)cap * sizeof *more);

			if (!more)
				return;
			rec.ex = more;
			rec.cap = cap;
		}
		x = &rec.ex[rec.n++];
		memset(x, 0, sizeof *x);
		snprintf(x->level, sizeof x->level, "%s", e->lv->name);
		snprintf(x->module, sizeof x->module, "%s", e->module ? e->module->name : "");
		snprintf(x->param, sizeof x->param, "%s", e->param ? e->param : x->module);
		snprintf(x->method, sizeof x->method, "%s", e->method ? e->method : "");
		return;
	}
	x = current();
	if (!x)
		return;
	switch (e->kind) {
	case AMP_TR_VOTE:
		if (!e->failed && x->nvotes < AMP_MAX_VOTES)
			x->votes[x->nvotes++] = e->value;
		x->vote++;
		return;
	case AMP_TR_DECIDED:
		if (!e->result->known)
			snprintf(x->decision, sizeof x->decision, "unknown: %s", e->result->reason);
		else
			snprintf(x->decision, sizeof x->decision, "%lld (%.0f%% of the votes%s)",
				 (long long)e->result->value, 100 * e->result->confidence,
				 e->result->inconclusive ? ", inconclusive" : "");
		return;
	case AMP_TR_COUNT:
	case AMP_TR_WALK:
	case AMP_TR_TIMED:
	case AMP_TR_POINT:
		break;
	default:
		return;
	}
	if (e->kind == AMP_TR_POINT) {
		x->npoints_own++;
		snprintf(x->xname, sizeof x->xname, "%s", e->xname);
		snprintf(x->yname, sizeof x->yname, "%s", e->yname);
		snprintf(x->xlabel, sizeof x->xlabel, "%s", e->xlabel);
		snprintf(x->ylabel, sizeof x->ylabel, "%s", e->ylabel);
		x->y_decides = e->y_decides;
	}
	/* A walk's rate comes right after the count (or timing) of its
	 * plan: the walk takes that point over, with its lines and stride. */
	if (e->kind == AMP_TR_WALK && x->npt && x->pt[x->npt - 1].kind != AMP_TR_WALK &&
	    x->pt[x->npt - 1].vote == x->vote) {
		p = &x->pt[x->npt - 1];
		p->kind = AMP_TR_WALK;
		p->lines = e->lines;
		p->stride = e->stride;
		p->evict = e->evict;
		p->rate = e->rate;
		snprintf(p->plan, sizeof p->plan, "cyclic");
		return;
	}
	if (x->npt == x->cap) {
		int cap = x->cap ? 2 * x->cap : 64;
		struct point *more = realloc(x->pt, (size_t)cap * sizeof *more);

		if (!more)
			return;
		x->pt = more;
		x->cap = cap;
	}
	p = &x->pt[x->npt++];
	memset(p, 0, sizeof *p);
	p->vote = x->vote;
	p->kind = e->kind;
	snprintf(p->plan, sizeof p->plan, "%s", e->plan ? e->plan : e->kind == AMP_TR_WALK ? "cyclic" : "timed");
	p->lines = e->lines;
	p->stride = e->stride;
	p->region = e->region;
	p->accesses = e->accesses;
	p->evict = e->evict;
	p->misses = e->misses;
	p->excess = e->excess;
	p->rate = e->kind == AMP_TR_COUNT ? (e->accesses ? e->misses / (double)e->accesses : 0) : e->rate;
	p->x = e->x;
	p->y = e->y;
}

void amp_curves_tlb(const char *name, const struct amp_tlb_timing *t)
{
	int i = strcmp(name, "itlb") == 0;

	rec.tlb[i] = t;
	rec.tlb_name[i] = name;
}

void amp_curves_start(void)
{
	for (int i = 0; i < rec.n; i++)
		free(rec.ex[i].pt);
	free(rec.ex);
	memset(&rec, 0, sizeof rec);
	amp_trace_subscribe(on_event, NULL);
}

/* ---- SVG charts ---- */

#define W 860
#define H 520
#define ML 90   /* margins: room for tick labels and axis titles */
#define MR 200  /* the legend */
#define MT 70
#define MB 70
#define MAX_SERIES 8

static const char *const palette[MAX_SERIES] = { "#1f77b4", "#d62728", "#2ca02c", "#9467bd",
						 "#ff7f0e", "#17becf", "#8c564b", "#e377c2" };

struct chart {
	FILE *out;
	double x0, x1, y0, y1;
	int logx, logy;
};

static double px(const struct chart *c, double x)
{
	double f = c->logx ? (log2(x) - log2(c->x0)) / (log2(c->x1) - log2(c->x0)) : (x - c->x0) / (c->x1 - c->x0);

	return ML + f * (W - ML - MR);
}

static double py(const struct chart *c, double y)
{
	double f = c->logy ? (log10(y) - log10(c->y0)) / (log10(c->y1) - log10(c->y0)) : (y - c->y0) / (c->y1 - c->y0);

	return H - MB - f * (H - MT - MB);
}

static void xml_text(FILE *out, const char *s)
{
	for (; *s; s++) {
		if (*s == '<')
			fputs("&lt;", out);
		else if (*s == '>')
			fputs("&gt;", out);
		else if (*s == '&')
			fputs("&amp;", out);
		else if (*s == '"')
			fputs("&quot;", out);
		else if ((unsigned char)*s >= 0x20)
			fputc(*s, out);
	}
}

static double nice_step(double range)
{
	double raw = range / 6, mag = pow(10, floor(log10(raw))), f = raw / mag;

	return (f < 1.5 ? 1 : f < 3 ? 2 : f < 7 ? 5 : 10) * mag;
}

/* Frame, title, axes with ticks and their labels. */
static void chart_begin(struct chart *c, const char *title, const char *subtitle, const char *xlabel,
			const char *ylabel, int bytes_x)
{
	FILE *out = c->out;
	double step;
	char buf[32];

	fprintf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"%d\" height=\"%d\" "
		"viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"12\">\n", W, H, W, H);
	fprintf(out, "<rect width=\"%d\" height=\"%d\" fill=\"white\"/>\n", W, H);
	fprintf(out, "<text x=\"%d\" y=\"26\" font-size=\"16\" font-weight=\"bold\">", ML);
	xml_text(out, title);
	fprintf(out, "</text>\n<text x=\"%d\" y=\"46\" fill=\"#444\">", ML);
	xml_text(out, subtitle);
	fprintf(out, "</text>\n");
	fprintf(out, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" stroke=\"#333\"/>\n", ML, MT,
		W - ML - MR, H - MT - MB);
	/* x ticks: powers of two on a log axis, nice steps otherwise */
	if (c->logx) {
		for (double x = pow(2, ceil(log2(c->x0))); x <= c->x1 * 1.0001; x *= 2) {
			int every = log2(c->x1 / c->x0) > 12 ? 2 : 1;

			if ((long)log2(x) % every)
				continue;
			if (bytes_x)
				amp_fmt_size((uint64_t)x, buf, sizeof buf);
			else
				snprintf(buf, sizeof buf, "%g", x);
			fprintf(out, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#ddd\"/>\n", px(c, x), MT,
				px(c, x), H - MB);
			fprintf(out, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%s</text>\n", px(c, x), H - MB + 18,
				buf);
		}
	} else {
		step = nice_step(c->x1 - c->x0);
		for (double x = ceil(c->x0 / step) * step; x <= c->x1 + step * 1e-6; x += step) {
			fprintf(out, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#ddd\"/>\n", px(c, x), MT,
				px(c, x), H - MB);
			fprintf(out, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%g</text>\n", px(c, x), H - MB + 18, x);
		}
	}
	if (c->logy) {
		/* 1, 2, 5 per decade */
		for (double d = pow(10, floor(log10(c->y0))); d <= c->y1; d *= 10)
			for (int m = 1; m <= 5; m += m == 1 ? 1 : 3) {
				double y = d * m;

				if (y < c->y0 || y > c->y1)
					continue;
				fprintf(out, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#ddd\"/>\n", ML,
					py(c, y), W - MR, py(c, y));
				fprintf(out, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%g</text>\n", ML - 6,
					py(c, y) + 4, y);
			}
	} else {
		step = nice_step(c->y1 - c->y0);
		for (double y = ceil(c->y0 / step) * step; y <= c->y1 + step * 1e-6; y += step) {
			fprintf(out, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#ddd\"/>\n", ML,
				py(c, y), W - MR, py(c, y));
			fprintf(out, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%g</text>\n", ML - 6,
				py(c, y) + 4, y);
		}
	}
	fprintf(out, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">", ML + (W - ML - MR) / 2, H - 22);
	xml_text(out, xlabel);
	fprintf(out, "</text>\n<text transform=\"translate(22,%d) rotate(-90)\" text-anchor=\"middle\">",
		MT + (H - MT - MB) / 2);
	xml_text(out, ylabel);
	fprintf(out, "</text>\n");
}

static void legend(struct chart *c, int i, const char *name, const char *color, int dashed)
{
	int y = MT + 14 + 20 * i;

	fprintf(c->out, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"%s\" stroke-width=\"2\"%s/>\n",
		W - MR + 12, y - 4, W - MR + 36, y - 4, color, dashed ? " stroke-dasharray=\"5,3\"" : "");
	fprintf(c->out, "<text x=\"%d\" y=\"%d\">", W - MR + 42, y);
	xml_text(c->out, name);
	fprintf(c->out, "</text>\n");
}

/* Ends the SVG and closes its file; 0, or EOF when writing failed. */
static int chart_end(struct chart *c)
{
	fprintf(c->out, "</svg>\n");
	return fclose(c->out);
}

/* A series: a line through its points and a dot at each. */
static void series_w(struct chart *c, const double *xs, const double *ys, int n, const char *color, double width)
{
	fprintf(c->out, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"%.1f\" points=\"", color, width);
	for (int i = 0; i < n; i++)
		fprintf(c->out, "%.1f,%.1f ", px(c, xs[i]), py(c, ys[i]));
	fprintf(c->out, "\"/>\n");
	for (int i = 0; i < n; i++)
		fprintf(c->out, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"%.1f\" fill=\"%s\"/>\n", px(c, xs[i]), py(c, ys[i]),
			width / 2 + 2, color);
}

static void series(struct chart *c, const double *xs, const double *ys, int n, const char *color)
{
	series_w(c, xs, ys, n, color, 2);
}

/* The error of a chart or table that could not be written: -1. */
static int cannot_write(char *err, size_t len, const char *path)
{
	snprintf(err, len, "--curves: cannot write %s: %s", path, strerror(errno));
	return -1;
}

/* Opens dir/stem+suffix for writing, its name left in path (for the
 * error message). */
static FILE *open_in(char *path, size_t size, const char *dir, const char *stem, const char *suffix)
{
	snprintf(path, size, "%s/%s%s", dir, stem, suffix);
	return fopen(path, "w");
}

/* A curve's CSV written (csv closed), its chart's SVG opened into a
 * fresh *c; NULL where either fails (path names the file). */
static FILE *svg_after_csv(FILE *csv, struct chart *c, char *path, size_t size, const char *dir, const char *stem,
			   const char *suffix)
{
	FILE *f;

	if (fclose(csv) != 0 || !(f = open_in(path, size, dir, stem, suffix)))
		return NULL;
	memset(c, 0, sizeof *c);
	c->out = f;
	return f;
}

/* The latency sweep: ns (or ticks) per load against working set. */
static int write_sweep(const char *dir, const struct amp_report *r, char *err, size_t len)
{
	const struct amp_sweep *sw = r->sweep;
	double scale = r->tick_mhz.known ? 1000.0 / r->tick_mhz.value : 1, ymax = 0, ymin = 1e300;
	const char *unit = r->tick_mhz.known ? "ns" : "simulated cycles";
	const char *short_unit = r->tick_mhz.known ? "ns" : "cycles";
	char path[1024], ylabel[64], sz[32], label[96];
	double xs[AMP_SWEEP_MAX_POINTS], ys[AMP_SWEEP_MAX_POINTS];
	struct chart c = { 0 };
	FILE *f;

	if (!(f = open_in(path, sizeof path, dir, "latency-sweep", ".csv")))
		goto fail;
	fprintf(f, "working_set_bytes,ticks_per_load,ticks_monotone,%s_per_load,level\n",
		r->tick_mhz.known ? "ns" : "cycles");
	for (int i = 0; i < sw->n; i++) {
		int level = -1;

		for (int k = 0; k < sw->nclusters; k++)
			if (i >= sw->cl[k].first && i <= sw->cl[k].last)
				level = k;
		fprintf(f, "%llu,%.4f,%.4f,%.4f,", (unsigned long long)sw->size[i], sw->raw[i], sw->ticks[i],
			sw->raw[i] * scale);
		if (level < 0)
			fprintf(f, "between levels\n");
		else if (sw->reached_memory && level == sw->nclusters - 1)
			fprintf(f, "memory\n");
		else
			fprintf(f, "level %d\n", level + 1);
	}
	if (fclose(f) != 0)
		goto fail;

	if (!(f = open_in(path, sizeof path, dir, "latency-sweep", ".svg")))
		goto fail;
	for (int i = 0; i < sw->n; i++) {
		if (sw->raw[i] * scale > ymax)
			ymax = sw->raw[i] * scale;
		if (sw->raw[i] > 0 && sw->raw[i] * scale < ymin)
			ymin = sw->raw[i] * scale;
	}
	c.out = f;
	c.logx = 1;
	c.x0 = sw->n ? (double)sw->size[0] : 4096;
	c.x1 = sw->n > 1 ? (double)sw->size[sw->n - 1] : c.x0 * 2;
	/* Memory is tens of times L1: a log axis keeps L1 and L2 apart. */
	c.logy = ymax > 0 && ymin < ymax && ymax / ymin > 10;
	c.y0 = c.logy ? pow(10, floor(log10(ymin))) : 0;
	c.y1 = ymax > 0 ? ymax * (c.logy ? 1.5 : 1.1) : 1;
	snprintf(ylabel, sizeof ylabel, "load latency (%s per load%s)", unit, c.logy ? ", log scale" : "");
	snprintf(label, sizeof label, "%s; dashed: levels found (median latency, effective size)",
		 r->sim_spec[0] ? "simulated machine" : r->cpu);
	chart_begin(&c, "Load latency against working set (random pointer chase)", label,
		    "working set (bytes, log scale)", ylabel, 1);
	/* Reported capacities (sysfs or the spec), grey, for comparison. */
	for (int i = 0; i < r->nreported; i++) {
		const struct amp_reported_cache *rc = &r->reported[i];
		double x = (double)rc->size;

		if (strcmp(rc->type, "instruction") == 0 || x < c.x0 || x > c.x1)
			continue;
		fprintf(f, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#999\" stroke-dasharray=\"2,3\"/>\n",
			px(&c, x), MT, px(&c, x), H - MB);
		fprintf(f, "<text x=\"%.1f\" y=\"%d\" fill=\"#777\" font-size=\"11\" text-anchor=\"end\" "
			"transform=\"rotate(-90 %.1f %d)\">reported L%d %s</text>\n", px(&c, x) - 3, MT + 6, px(&c, x) - 3,
			MT + 6, rc->level, amp_fmt_size(rc->size, sz, sizeof sz));
	}
	/* The levels: latency as a dashed plateau, effective size as a line. */
	for (int k = 0; k < sw->nclusters; k++) {
		int mem = sw->reached_memory && k == sw->nclusters - 1;
		double y = sw->cl[k].ticks * scale, xa = (double)sw->size[sw->cl[k].first];
		double xb = (double)sw->size[mem ? sw->n - 1 : sw->cl[k].fits];

		fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#d62728\" stroke-width=\"2\" "
			"stroke-dasharray=\"6,4\"/>\n", px(&c, xa), py(&c, y), px(&c, xb), py(&c, y));
		/* Each level's numbers in the legend column, clear of the curve. */
		if (mem)
			snprintf(label, sizeof label, "memory: %.1f %s", y, short_unit);
		else
			snprintf(label, sizeof label, "level %d: %.1f %s", k + 1, y, short_unit);
		fprintf(f, "<text x=\"%d\" y=\"%d\" fill=\"#d62728\">", W - MR + 12, MT + 90 + 34 * k);
		xml_text(f, label);
		fprintf(f, "</text>\n");
		if (!mem) {
			snprintf(label, sizeof label, "  effective size %s", amp_fmt_size(sw->size[sw->cl[k].fits], sz, sizeof sz));
			fprintf(f, "<text x=\"%d\" y=\"%d\" fill=\"#d62728\">", W - MR + 12, MT + 90 + 34 * k + 15);
			xml_text(f, label);
			fprintf(f, "</text>\n");
			fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" fill=\"#d62728\">%d</text>\n", px(&c, xa) + 2,
				py(&c, y) - 6, k + 1);
		}
		if (!mem)
			fprintf(f, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#d62728\" stroke-width=\"1\"/>\n",
				px(&c, xb), MT, px(&c, xb), H - MB);
	}
	for (int i = 0; i < sw->n; i++) {
		xs[i] = (double)sw->size[i];
		ys[i] = sw->raw[i] * scale;
	}
	series(&c, xs, ys, sw->n, palette[0]);
	legend(&c, 0, "measured (min of runs)", palette[0], 0);
	legend(&c, 1, "level found", "#d62728", 1);
	legend(&c, 2, "reported capacity", "#999", 1);
	if (chart_end(&c) != 0)
		goto fail;
	return 0;
fail:
	return cannot_write(err, len, path);
}

/* y axis from the values: log when they span more than ten times;
 * linear from 0, or (zoom) around the values where small steps matter. */
static void y_range(struct chart *c, const double *ys, int n, int zoom)
{
	double lo = 1e300, hi = -1e300;

	for (int i = 0; i < n; i++) {
		lo = fmin(lo, ys[i]);
		hi = fmax(hi, ys[i]);
	}
	if (n == 0 || hi <= lo) {
		lo = n ? fmin(0, lo) : 0;
		hi = n && hi > 0 ? hi : 1;
	}
	c->logy = lo > 0 && hi / lo > 10;
	c->y0 = c->logy ? pow(10, floor(log10(lo))) : fmin(0, lo * 1.1);
	c->y1 = c->logy ? hi * 1.5 : hi * 1.1;
	if (zoom && !c->logy && lo > 0 && hi > lo) {
		c->y0 = fmax(0, lo - (hi - lo));
		c->y1 = hi + (hi - lo) / 2;
	}
}

/* The x axis: log base 2 when the control variable grows
 * geometrically over three octaves or more. */
static void x_range(struct chart *c, const double *xs, int n)
{
	double lo = 1e300, hi = -1e300;

	for (int i = 0; i < n; i++) {
		lo = fmin(lo, xs[i]);
		hi = fmax(hi, xs[i]);
	}
	if (n == 0) {
		lo = 0;
		hi = 1;
	}
	c->logx = lo > 0 && hi / lo >= 4;
	c->x0 = c->logx ? lo : fmin(0, lo);
	c->x1 = c->logx ? hi : hi + 1;
}

static void vmark(struct chart *c, double x, const char *color, const char *text, int row)
{
	if (x < c->x0 || x > c->x1)
		return;
	fprintf(c->out, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"%s\" stroke-dasharray=\"6,4\"/>\n",
		px(c, x), MT, px(c, x), H - MB, color);
	fprintf(c->out, "<text x=\"%.1f\" y=\"%d\" fill=\"%s\" text-anchor=\"end\">", px(c, x) - 4, MT + 16 + 15 * row,
		color);
	xml_text(c->out, text);
	fprintf(c->out, "</text>\n");
}

static void hmark(struct chart *c, double y, double xa, double xb, const char *color, const char *text)
{
	if (y < c->y0 || y > c->y1)
		return;
	fprintf(c->out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" stroke-width=\"2\" "
		"stroke-dasharray=\"6,4\"/>\n", px(c, xa), py(c, y), px(c, xb), py(c, y), color);
	if (text) {
		fprintf(c->out, "<text x=\"%.1f\" y=\"%.1f\" fill=\"%s\">", px(c, xa) + 4, py(c, y) - 6, color);
		xml_text(c->out, text);
		fprintf(c->out, "</text>\n");
	}
}

static void note(struct chart *c, int row, const char *color, const char *text)
{
	fprintf(c->out, "<text x=\"%d\" y=\"%d\" fill=\"%s\">", W - MR + 12, MT + 110 + 16 * row, color);
	xml_text(c->out, text);
	fprintf(c->out, "</text>\n");
}

static int ends_with(const char *s, const char *tail)
{
	size_t a = strlen(s), b = strlen(tail);

	return a >= b && strcmp(s + a - b, tail) == 0;
}

/* A module's own curve (block: the moved half's offset or the pairs'
 * distance; line: bytes per miss, vote by vote): one series per vote,
 * the decision marked on the axis it is read on. */
static int write_own(const char *dir, const char *base, const struct experiment *x, char *err, size_t len)
{
	char path[1024], title[160], sub[AMP_REASON_LEN + 64], label[64];
	double xs[256], ys[256], all_x[1024], all_y[1024];
	int n = 0, decided = x->decision[0] && !strstr(x->decision, "unknown"), by_vote;
	struct chart c = { 0 };
	unsigned nvotes = 0;
	FILE *f;

	if (!(f = open_in(path, sizeof path, dir, base, ".csv")))
		goto fail;
	/* A curve over the votes themselves has the vote as its x. */
	by_vote = strcmp(x->xname, "vote") == 0;
	if (by_vote)
		fprintf(f, "vote,%s,vote_value,decision\n", x->yname);
	else
		fprintf(f, "vote,%s,%s,vote_value,decision\n", x->xname, x->yname);
	for (int i = 0; i < x->npt; i++) {
		const struct point *p = &x->pt[i];

		if (p->kind != AMP_TR_POINT)
			continue;
		if (by_vote)
			fprintf(f, "%u,%.4f,", p->vote + 1, p->y);
		else
			fprintf(f, "%u,%g,%.4f,", p->vote + 1, p->x, p->y);
		if ((int)p->vote < x->nvotes)
			fprintf(f, "%lld,", (long long)x->votes[p->vote]);
		else
			fprintf(f, ",");
		fprintf(f, "\"%s\"\n", x->decision);
		if (n < 1024) {
			all_x[n] = p->x;
			all_y[n++] = p->y;
		}
		if (p->vote + 1 > nvotes)
			nvotes = p->vote + 1;
	}
	if (fclose(f) != 0)
		goto fail;

	if (!(f = open_in(path, sizeof path, dir, base, ".svg")))
		goto fail;
	c.out = f;
	x_range(&c, all_x, n);
	y_range(&c, all_y, n, 0);
	if (decided && x->y_decides) {
		double d = (double)atoll(x->decision);

		c.y0 = fmin(c.y0, d * 0.9);
		c.y1 = fmax(c.y1, d * 1.1);
	}
	snprintf(title, sizeof title, "%s %s: %s (%s)", x->level, x->param, x->module, x->method);
	snprintf(sub, sizeof sub, "decided: %s", x->decision[0] ? x->decision : "-");
	snprintf(label, sizeof label, "%s", "");
	{
		char xl[128], yl[128];

		snprintf(xl, sizeof xl, "%s%s", x->xlabel, c.logx ? ", log scale" : "");
		snprintf(yl, sizeof yl, "%s%s", x->ylabel, c.logy ? ", log scale" : "");
		chart_begin(&c, title, sub, xl, yl, c.logx && ends_with(x->xname, "_bytes"));
	}
	if (decided) {
		double d = (double)atoll(x->decision);

		snprintf(label, sizeof label, "decided: %.0f", d);
		if (x->y_decides)
			hmark(&c, d, c.x0, c.x1, "#555", label);
		else
			vmark(&c, d, "#555", label, 0);
	}
	for (unsigned v = 0; v < nvotes; v++) {
		int k = 0;

		for (int i = 0; i < x->npt && k < 256; i++)
			if (x->pt[i].kind == AMP_TR_POINT && x->pt[i].vote == v) {
				xs[k] = x->pt[i].x;
				ys[k++] = x->pt[i].y;
			}
		/* Votes that agree lie on one another: the first ones drawn
		 * wider, so each shows as a band around the next. */
		series_w(&c, xs, ys, k, palette[v % MAX_SERIES], by_vote ? 2 : 2 + 1.5 * (nvotes - 1 - v));
		if (v < MAX_SERIES) {
			snprintf(label, sizeof label, "vote %u", v + 1);
			legend(&c, (int)v, label, palette[v], 0);
		}
	}
	if (chart_end(&c) != 0)
		goto fail;
	return 0;
fail:
	return cannot_write(err, len, path);
}

/* The TLB sweeps (tlb_timing.c): time per access against pages (with the
 * packed control and the TLBs' part, the levels found marked), and
 * against the stride (the page size's knee marked). */
static int write_tlb(const char *dir, const char *name, const struct amp_tlb_timing *t,
		     const struct amp_report *r, char *err, size_t len)
{
	int insn = strcmp(name, "itlb") == 0;
	double scale = r->tick_mhz.known ? 1000.0 / r->tick_mhz.value : 1;
	const char *unit = r->tick_mhz.known ? "ns" : "simulated cycles";
	const char *col = r->tick_mhz.known ? "ns" : "cycles";
	const char *access = insn ? "jump" : "load";
	double xs[AMP_TLB_MAX_POINTS], a[AMP_TLB_MAX_POINTS], ctl[AMP_TLB_MAX_POINTS], part[AMP_TLB_MAX_POINTS];
	double all[3 * AMP_TLB_MAX_POINTS];
	char path[1024], title[160], sub[400], ylabel[96], label[160], sz[32];
	struct chart c = { 0 };
	FILE *f;

	if (!(f = open_in(path, sizeof path, dir, name, "-entries.csv")))
		goto fail;
	fprintf(f, "pages,ticks_per_%s,control_ticks_per_%s,tlb_part_ticks,tlb_part_%s,level\n", access, access,
		col);
	for (int i = 0; i < t->npoints; i++) {
		int k = 0;

		xs[i] = (double)t->pages[i];
		a[i] = t->ticks[i] * scale;
		ctl[i] = t->ctl_ticks[i] * scale;
		/* The TLBs' part, as tlb_timing.c takes it: the control's
		 * rise taken out, on top of the first point's time. */
		part[i] = (t->ticks[i] - t->ctl_ticks[i] + t->ctl_ticks[0]) * scale;
		while (k < t->nlevels && t->pages[i] > t->lv[k].entries)
			k++;
		fprintf(f, "%llu,%.4f,%.4f,%.4f,%.4f,", (unsigned long long)t->pages[i], t->ticks[i], t->ctl_ticks[i],
			t->ticks[i] - t->ctl_ticks[i] + t->ctl_ticks[0], part[i]);
		if (t->nlevels == 0)
			fprintf(f, "no level found\n");
		else if (k < t->nlevels)
			fprintf(f, "level %d\n", k + 1);
		else
			fprintf(f, "past every level\n");
	}
	if (fclose(f) != 0)
		goto fail;

	if (!(f = open_in(path, sizeof path, dir, name, "-entries.svg")))
		goto fail;
	c.out = f;
	x_range(&c, xs, t->npoints);
	memcpy(all, a, sizeof a);
	memcpy(all + AMP_TLB_MAX_POINTS, ctl, sizeof ctl);
	memcpy(all + 2 * AMP_TLB_MAX_POINTS, part, sizeof part);
	for (int i = t->npoints; i < AMP_TLB_MAX_POINTS; i++) /* unused slots: copies of point 0 */
		all[i] = all[AMP_TLB_MAX_POINTS + i] = all[2 * AMP_TLB_MAX_POINTS + i] = a[0];
	y_range(&c, all, t->npoints ? 3 * AMP_TLB_MAX_POINTS : 0, 0);
	snprintf(title, sizeof title, "%s: time per %s against pages touched (one %s per page)",
		 insn ? "Instruction TLB" : "Data TLB", access, access);
	if (t->nlevels)
		snprintf(sub, sizeof sub, "%s; %d level%s found; page %s", r->sim_spec[0] ? "simulated machine" : r->cpu,
			 t->nlevels, t->nlevels == 1 ? "" : "s", amp_fmt_size(t->page, sz, sizeof sz));
	else
		snprintf(sub, sizeof sub, "no level found: %s", t->reason);
	snprintf(ylabel, sizeof ylabel, "time per %s (%s%s)", access, unit, c.logy ? ", log scale" : "");
	chart_begin(&c, title, sub, "pages touched (log scale)", ylabel, 0);
	for (int k = 0; k < t->nlevels; k++) {
		double e = (double)t->lv[k].entries, hit = t->lv[k].hit_ticks * scale;

		snprintf(label, sizeof label, "level %d: %llu entries", k + 1, (unsigned long long)t->lv[k].entries);
		vmark(&c, e, "#d62728", label, k);
		hmark(&c, hit, c.x0, e < c.x1 ? e : c.x1, "#d62728", NULL);
		note(&c, 2 * k, "#d62728", label);
		snprintf(label, sizeof label, "  hit %.1f, miss +%.1f %s", hit, t->lv[k].miss_penalty_ticks * scale, col);
		note(&c, 2 * k + 1, "#d62728", label);
	}
	series(&c, xs, a, t->npoints, palette[0]);
	series(&c, xs, ctl, t->npoints, palette[2]);
	series(&c, xs, part, t->npoints, palette[3]);
	legend(&c, 0, "one per page", palette[0], 0);
	legend(&c, 1, "packed (control)", palette[2], 0);
	legend(&c, 2, "TLBs' part", palette[3], 0);
	legend(&c, 3, "level found", "#d62728", 1);
	if (chart_end(&c) != 0)
		goto fail;

	/* The page size: time per access against the stride. */
	if (!(f = open_in(path, sizeof path, dir, name, "-page-size.csv")))
		goto fail;
	fprintf(f, "stride_bytes,ticks_per_%s,%s_per_%s,decision\n", access, col, access);
	if (t->page)
		snprintf(label, sizeof label, "page %llu", (unsigned long long)t->page);
	else
		snprintf(label, sizeof label, "unknown");
	for (int i = 0; i < t->nstrides; i++) {
		xs[i] = (double)t->strides[i];
		a[i] = t->stride_ticks[i] * scale;
		fprintf(f, "%llu,%.4f,%.4f,\"%s\"\n", (unsigned long long)t->strides[i], t->stride_ticks[i], a[i], label);
	}
	if (!(f = svg_after_csv(f, &c, path, sizeof path, dir, name, "-page-size.svg")))
		goto fail;
	x_range(&c, xs, t->nstrides);
	y_range(&c, a, t->nstrides, 1);
	snprintf(title, sizeof title, "%s: time per %s against the stride (page size)", insn ? "Instruction TLB" : "Data TLB",
		 access);
	snprintf(sub, sizeof sub, "%s: %s", t->page ? "found" : "not found", t->page_reason);
	if (strlen(sub) > 110)
		strcpy(sub + 104, " ...");
	snprintf(ylabel, sizeof ylabel, "time per %s (%s%s)", access, unit, c.logy ? ", log scale" : "");
	chart_begin(&c, title, sub, "stride between accesses (bytes, log scale)", ylabel, 1);
	if (t->page) {
		snprintf(label, sizeof label, "page: %s", amp_fmt_size(t->page, sz, sizeof sz));
		vmark(&c, (double)t->page, "#d62728", label, 0);
	}
	series(&c, xs, a, t->nstrides, palette[0]);
	legend(&c, 0, "measured (min of runs)", palette[0], 0);
	legend(&c, 1, "page size found", "#d62728", 1);
	if (!c.logy && c.y0 > 0)
		note(&c, 0, "#444", "the time axis does not start at 0");
	if (chart_end(&c) != 0)
		goto fail;

	/* Random draws past the first level: N times the excess per jump
	 * (or load), piecewise linear with a kink where each level ends
	 * (amp_tlb_draws_reach), beside the first level's misses alone. */
	if (t->ndraws) {
		double model[AMP_TLB_MAX_POINTS];
		uint64_t c1 = t->lv[0].entries;

		if (!(f = open_in(path, sizeof path, dir, name, "-draws.csv")))
			goto fail;
		fprintf(f, "pages,ticks_per_%s,control_ticks_per_%s,excess_ticks,pages_times_excess,"
			   "first_level_misses_alone\n", access, access);
		for (int i = 0; i < t->ndraws; i++) {
			double e = t->draw_ticks[i] - t->draw_ctl_ticks[i] - t->ref_excess;

			xs[i] = (double)t->draw_pages[i];
			a[i] = xs[i] * e * scale;
			model[i] = t->l1_penalty * (xs[i] - (double)c1) * scale;
			fprintf(f, "%llu,%.4f,%.4f,%.4f,%.1f,%.1f\n", (unsigned long long)t->draw_pages[i], t->draw_ticks[i],
				t->draw_ctl_ticks[i], e, xs[i] * e, t->l1_penalty * (xs[i] - (double)c1));
		}
		if (!(f = svg_after_csv(f, &c, path, sizeof path, dir, name, "-draws.svg")))
			goto fail;
		x_range(&c, xs, t->ndraws);
		memcpy(all, a, (size_t)t->ndraws * sizeof *a);
		memcpy(all + t->ndraws, model, (size_t)t->ndraws * sizeof *model);
		y_range(&c, all, 2 * t->ndraws, 1);
		snprintf(title, sizeof title, "%s: random %ss, pages times the excess per %s",
			 insn ? "Instruction TLB" : "Data TLB", access, access);
		if (t->nlevels > 1)
			snprintf(sub, sizeof sub, "second level: %llu entries; a first-level miss +%.1f %s, a walk +%.1f %s",
				 (unsigned long long)t->lv[1].entries, t->l1_penalty * scale, col,
				 t->lv[1].miss_penalty_ticks * scale, col);
		else
			snprintf(sub, sizeof sub, "no second level: %.100s", t->draws_reason);
		snprintf(ylabel, sizeof ylabel, "pages x excess per %s (%s%s)", access, unit, c.logy ? ", log scale" : "");
		chart_begin(&c, title, sub, "pages touched, drawn at random (log scale)", ylabel, 1);
		if (t->nlevels > 1) {
			snprintf(label, sizeof label, "level 2: %llu entries", (unsigned long long)t->lv[1].entries);
			vmark(&c, (double)t->lv[1].entries, "#d62728", label, 0);
		}
		series(&c, xs, a, t->ndraws, palette[0]);
		series(&c, xs, model, t->ndraws, palette[2]);
		legend(&c, 0, "measured", palette[0], 0);
		legend(&c, 1, "first-level misses alone", palette[2], 0);
		legend(&c, 2, "level found", "#d62728", 1);
		if (chart_end(&c) != 0)
			goto fail;
	}

	/* The first level's ways: the fewest pages that miss it, per stride. */
	if (t->nassoc) {
		if (!(f = open_in(path, sizeof path, dir, name, "-ways.csv")))
			goto fail;
		fprintf(f, "stride_pages,fewest_pages_missing,decision\n");
		for (int i = 0; i < t->nassoc; i++)
			fprintf(f, "%llu,%llu,\"%s\"\n", (unsigned long long)t->assoc_strides[i],
				(unsigned long long)t->assoc_fewest[i],
				t->lv[0].assoc ? (t->lv[0].assoc == t->lv[0].entries ? "fully associative" : "ways found")
					       : t->lv[0].assoc_reason);
		if (!(f = svg_after_csv(f, &c, path, sizeof path, dir, name, "-ways.svg")))
			goto fail;
		for (int i = 0; i < t->nassoc; i++) {
			xs[i] = (double)(t->assoc_strides[i] * t->page); /* the axis reads bytes */
			a[i] = (double)t->assoc_fewest[i];
		}
		x_range(&c, xs, t->nassoc);
		y_range(&c, a, t->nassoc, 1);
		snprintf(title, sizeof title, "%s: the fewest pages that miss its first level, against their stride",
			 insn ? "Instruction TLB" : "Data TLB");
		if (t->lv[0].assoc)
			snprintf(sub, sizeof sub, "%llu ways%s", (unsigned long long)t->lv[0].assoc,
				 t->lv[0].assoc == t->lv[0].entries ? " (fully associative)" : "");
		else
			snprintf(sub, sizeof sub, "not found: %.100s", t->lv[0].assoc_reason);
		chart_begin(&c, title, sub, "stride between the pages (bytes, log scale)", "fewest pages that miss", 1);
		series(&c, xs, a, t->nassoc, palette[0]);
		legend(&c, 0, "fewest missing (bisection)", palette[0], 0);
		if (chart_end(&c) != 0)
			goto fail;
	}
	return 0;
fail:
	return cannot_write(err, len, path);
}

/* One experiment: its CSV and its chart.  Walks (the associativity
 * search and its kin) plot miss rate against lines per walk, one series
 * per stride; counted plans plot misses per access against the
 * measurement's number. */
static int write_experiment(const char *dir, int index, const struct experiment *x, char *err, size_t len)
{
	char base[160], path[1024], title[160], sub[AMP_REASON_LEN + 64];
	int walks = 0;
	uint64_t strides[MAX_SERIES];
	int nstrides = 0;
	double xmin = 1e300, xmax = 0, ymax = 0;
	struct chart c = { 0 };
	FILE *f;

	if (strcmp(x->module, x->param) == 0)
		snprintf(base, sizeof base, "%02d-%s-%s", index, x->level, x->module);
	else
		snprintf(base, sizeof base, "%02d-%s-%s-%s", index, x->level, x->module, x->param);
	for (char *p = base; *p; p++)
		if (*p == ' ' || *p == '/')
			*p = '_';
	if (x->npoints_own)
		return write_own(dir, base, x, err, len);
	if (!(f = open_in(path, sizeof path, dir, base, ".csv")))
		goto fail;
	fprintf(f, "vote,measurement,plan,lines,stride_bytes,region_bytes,accesses,misses,excess_ticks,miss_rate,vote_value,decision\n");
	for (int i = 0; i < x->npt; i++) {
		const struct point *p = &x->pt[i];

		fprintf(f, "%u,%s,%s,%llu,%llu,%llu,%llu,%.3f,%.4f,%.4f,", p->vote + 1,
			p->kind == AMP_TR_WALK ? "walk" : p->kind == AMP_TR_TIMED ? "timed" : "count", p->plan,
			(unsigned long long)p->lines, (unsigned long long)p->stride, (unsigned long long)p->region,
			(unsigned long long)p->accesses, p->misses, p->excess, p->rate);
		if ((int)p->vote < x->nvotes)
			fprintf(f, "%lld,", (long long)x->votes[p->vote]);
		else
			fprintf(f, ",");
		fprintf(f, "\"%s\"\n", x->decision);
		if (p->kind != AMP_TR_COUNT)
			walks++;
	}
	if (fclose(f) != 0)
		goto fail;

	/* The chart's axes. */
	for (int i = 0; i < x->npt; i++) {
		const struct point *p = &x->pt[i];
		double xv = walks ? (double)p->lines : (double)(i + 1);

		if (walks && p->kind == AMP_TR_COUNT)
			continue;
		if (xv < xmin)
			xmin = xv;
		if (xv > xmax)
			xmax = xv;
		if (p->rate > ymax)
			ymax = p->rate;
		if (walks && p->kind == AMP_TR_WALK) {
			int s;

			for (s = 0; s < nstrides && strides[s] != p->stride; s++)
				;
			if (s == nstrides && nstrides < MAX_SERIES)
				strides[nstrides++] = p->stride;
		}
	}
	if (x->npt == 0) {
		xmin = 0;
		xmax = 1;
	}
	if (!(f = open_in(path, sizeof path, dir, base, ".svg")))
		goto fail;
	c.out = f;
	c.logx = walks && xmin > 0 && xmax / xmin >= 8;
	c.x0 = c.logx ? xmin : (walks ? 0 : 0);
	c.x1 = xmax > c.x0 ? xmax : c.x0 + 1;
	if (!c.logx)
		c.x1 = c.x1 + 1;
	c.y0 = 0;
	c.y1 = ymax > 1 ? ymax * 1.1 : 1.1;
	snprintf(title, sizeof title, "%s %s: %s (%s)", x->level, x->param, x->module, x->method);
	snprintf(sub, sizeof sub, "decided: %s", x->decision[0] ? x->decision : "-");
	chart_begin(&c, title, sub, walks ? "lines per walk (the hypothesis: how many lines one set holds)"
					  : "measurement (in order; votes alternate colours)",
		    walks ? (strcmp(x->method, "timing") == 0 ? "share of accesses missing (from time; 1 = all)"
							       : "miss rate per access")
			  : "misses per measured access", 0);
	if (walks && x->nvotes && x->decision[0] && !strstr(x->decision, "unknown")) {
		double d = (double)atoll(x->decision);

		if (d >= c.x0 && d <= c.x1) {
			fprintf(f, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#555\" stroke-dasharray=\"6,4\"/>\n",
				px(&c, d), MT, px(&c, d), H - MB);
			fprintf(f, "<text x=\"%.1f\" y=\"%d\" fill=\"#555\" text-anchor=\"end\">decided: %.0f</text>\n",
				px(&c, d) - 4, MT + 16, d);
		}
	}
	if (walks) {
		for (int s = 0; s <= nstrides; s++) {
			char name[48], stride[32];
			int first = 1;

			/* Series: one per stride (walks), the timed walks last. */
			if (s < nstrides)
				snprintf(name, sizeof name, "stride %s", amp_fmt_size(strides[s], stride, sizeof stride));
			else
				snprintf(name, sizeof name, "timed walks");
			for (int i = 0; i < x->npt; i++) {
				const struct point *p = &x->pt[i];
				int match = s < nstrides ? p->kind == AMP_TR_WALK && p->stride == strides[s]
							 : p->kind == AMP_TR_TIMED;

				if (!match)
					continue;
				if (first)
					legend(&c, s, name, palette[s % MAX_SERIES], 0);
				first = 0;
				fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3.5\" fill=\"%s\" fill-opacity=\"0.7\"/>\n",
					px(&c, (double)p->lines), py(&c, p->rate), palette[s % MAX_SERIES]);
			}
		}
	} else {
		for (int i = 0; i < x->npt; i++)
			fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3.5\" fill=\"%s\"/>\n", px(&c, (double)(i + 1)),
				py(&c, x->pt[i].rate), palette[x->pt[i].vote % 2]);
		legend(&c, 0, "odd votes", palette[0], 0);
		legend(&c, 1, "even votes", palette[1], 0);
	}
	if (chart_end(&c) != 0)
		goto fail;
	return 0;
fail:
	return cannot_write(err, len, path);
}

int amp_curves_check(const char *dir, char *err, size_t len)
{
	if (mkdir(dir, 0777) < 0 && errno != EEXIST) {
		snprintf(err, len, "--curves: cannot create %s: %s", dir, strerror(errno));
		return -1;
	}
	if (access(dir, W_OK | X_OK) < 0) {
		snprintf(err, len, "--curves: cannot write in %s: %s", dir, strerror(errno));
		return -1;
	}
	return 0;
}

/* DIR exists: amp_curves_check made it before the measurement. */
int amp_curves_write(const char *dir, const struct amp_report *r, char *err, size_t len)
{
	if (r->sweep && r->sweep->n && write_sweep(dir, r, err, len) < 0)
		return -1;
	for (int i = 0; i < rec.n; i++)
		if (rec.ex[i].npt && write_experiment(dir, i + 1, &rec.ex[i], err, len) < 0)
			return -1;
	for (int i = 0; i < 2; i++)
		if (rec.tlb[i] && rec.tlb[i]->nstrides && write_tlb(dir, rec.tlb_name[i], rec.tlb[i], r, err, len) < 0)
			return -1;
	return 0;
}
