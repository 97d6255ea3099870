/* trace.c - the observers of a run (see trace.h). */
#include "config.h"
#include <stddef.h>
#include "trace.h"

#define MAX_OBSERVERS 4

static struct {
	amp_trace_fn fn;
	void *arg;
} observers[MAX_OBSERVERS];
static int nobservers;
static const struct amp_module *current_module;
static const struct amp_level *current_level; /* of the last module event */
static const char *current_param;

int amp_trace_subscribe(amp_trace_fn fn, void *arg)
{
	if (nobservers >= MAX_OBSERVERS)
		return -1;
	observers[nobservers].fn = fn;
	observers[nobservers].arg = arg;
	nobservers++;
	return 0;
}

void amp_trace_clear(void)
{
	nobservers = 0;
	current_module = NULL;
	current_level = NULL;
	current_param = NULL;
}

int amp_tracing(void)
{
	return nobservers > 0;
}

void amp_trace_set_module(const struct amp_module *m)
{
	current_module = m;
}

const struct amp_module *amp_trace_module(void)
{
	return current_module;
}

const struct amp_level *amp_trace_level(void)
{
	return current_level;
}

void amp_trace_set_param(const char *param)
{
	current_param = param;
}

const char *amp_trace_param(void)
{
	return current_param;
}

void amp_trace(struct amp_trace_ev *e)
{
	if (!e->module)
		e->module = current_module;
	if (e->kind == AMP_TR_MODULE)
		current_level = e->lv;
	if (!e->param)
		e->param = current_param;
	for (int i = 0; i < nobservers; i++)
		observers[i].fn(e, observers[i].arg);
}

void amp_trace_count(const struct amp_plan *p, const char *method, double misses)
{
	struct amp_trace_ev e = { .kind = AMP_TR_COUNT, .plan = p->name, .method = method,
				  .region = p->region, .accesses = amp_plan_accesses(p, 1), .misses = misses };

	if (nobservers)
		amp_trace(&e);
}

void amp_trace_point(const struct amp_level *lv, const char *method, const char *xname, const char *xlabel,
		     double x, const char *yname, const char *ylabel, double y, int y_decides)
{
	struct amp_trace_ev e = { .kind = AMP_TR_POINT, .lv = lv, .method = method, .xname = xname,
				  .xlabel = xlabel, .x = x, .yname = yname, .ylabel = ylabel, .y = y,
				  .y_decides = y_decides };

	if (nobservers)
		amp_trace(&e);
}
