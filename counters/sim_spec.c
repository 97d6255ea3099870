/* sim_spec.c - the --sim=SPEC grammar: parse and validate a simulated
 * machine, describe its levels, print it back as canonical text.
 *
 *   SPEC := PRESET | ELEM[;ELEM...] | PRESET;ELEM[;ELEM...]
 *   ELEM := NAME:KEY=VALUE[,KEY=VALUE...]
 *
 * Elements after a preset override keys of the preset's level of the
 * same name, or add a level.  Names, keys, words and size suffixes are
 * case-insensitive; blanks around tokens are ignored.  Sizes take K, M,
 * G or T (also KB/KiB...; all binary) and decimal fractions that come to
 * a whole number of bytes (1.25M = 1310720).
 *
 * Defaults, for every key a level is not given:
 *
 *   caches     size  line  assoc  policy  write     inclusion  latency  counter  index     prefetch  region
 *   L1d L1i L1  32K    64      8  lru     allocate  nine             4  yes      virtual          0  no
 *   L2 L2d L2i 256K    64      8  lru     allocate  nine            12  yes      physical         0  no
 *   L3           8M    64     16  lru     allocate  nine            40  yes      physical         0  no
 *   L4          64M    64     16  lru     allocate  nine            80  yes      physical         0  no
 *
 *   prefetch=N: a miss here also fills the N lines on each side of it
 *   here, within its 4 KiB page (a neighbour-line prefetcher).
 *   region=yes: a miss that opens a visit to a page also fills the line
 *   the last visit went on to, as far from its opening line (a region
 *   prefetcher that learns; sim_model.c).
 *   index=hashed: physical, the bits above the set number mixed into it
 *   (sim.h), as sliced last-level caches do.
 *
 *   TLBs          entries  assoc  page  policy  latency (miss penalty)  counter
 *   DTLB ITLB TLB      64      4    4K  lru                          8  yes
 *   STLB             1024      8    4K  lru                         30  yes
 *
 *   MEM: latency 200.
 *   Spec-wide: noise 0, seed 1, pages_random 0 (contiguous), map_page 4096.
 *
 * Limits (they keep the simulator's memory and cycle sums bounded):
 * size and page <= 1T, line <= 1G, entries and assoc <= 16777216 (also
 * the line count of a fully associative cache), latency <= 1000000,
 * prefetch <= 64.
 *
 * The parser allocates nothing and reads only up to the string's NUL:
 * any byte string gives 0 or -1 with a one-line message.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "sim.h"

#define KiB (UINT64_C(1) << 10)
#define MiB (UINT64_C(1) << 20)
#define MAX_BYTES (UINT64_C(1) << 40)
#define MAX_WAYS (UINT64_C(1) << 24)
#define MAX_LINE (UINT64_C(1) << 30)
#define MAX_LATENCY UINT64_C(1000000)
#define MEM_LATENCY 200
#define MAX_PREFETCH 64

/* Element classes, also the bits of a key's "applies to" mask. */
enum { EC_CACHE = 1, EC_TLB = 2, EC_MEM = 4 };

/* Element indexes: the table's order is the order the unknown-element
 * message lists them in; spec->lv is sorted separately. */
enum {
	E_L1D, E_L1I, E_L1, E_L2, E_L2D, E_L2I, E_L3, E_L4,
	E_DTLB, E_ITLB, E_STLB, E_TLB, E_MEM, NELEMS
};

struct elem_desc {
	const char *name;
	unsigned cls;
	enum sim_side side;
	int level;
	uint64_t size;		/* default size (caches) or entries (TLBs) */
	unsigned assoc;		/* default ways */
	unsigned latency;	/* default hit latency / miss penalty */
};

static const struct elem_desc elems[NELEMS] = {
	[E_L1D]  = { "L1d",  EC_CACHE, SIM_DATA,    1,  32 * KiB,  8,  4 },
	[E_L1I]  = { "L1i",  EC_CACHE, SIM_INSN,    1,  32 * KiB,  8,  4 },
	[E_L1]   = { "L1",   EC_CACHE, SIM_UNIFIED, 1,  32 * KiB,  8,  4 },
	[E_L2]   = { "L2",   EC_CACHE, SIM_UNIFIED, 2, 256 * KiB,  8, 12 },
	[E_L2D]  = { "L2d",  EC_CACHE, SIM_DATA,    2, 256 * KiB,  8, 12 },
	[E_L2I]  = { "L2i",  EC_CACHE, SIM_INSN,    2, 256 * KiB,  8, 12 },
	[E_L3]   = { "L3",   EC_CACHE, SIM_UNIFIED, 3,   8 * MiB, 16, 40 },
	[E_L4]   = { "L4",   EC_CACHE, SIM_UNIFIED, 4,  64 * MiB, 16, 80 },
	[E_DTLB] = { "DTLB", EC_TLB,   SIM_DATA,    1,        64,  4,  8 },
	[E_ITLB] = { "ITLB", EC_TLB,   SIM_INSN,    1,        64,  4,  8 },
	[E_STLB] = { "STLB", EC_TLB,   SIM_UNIFIED, 2,      1024,  8, 30 },
	[E_TLB]  = { "TLB",  EC_TLB,   SIM_UNIFIED, 1,        64,  4,  8 },
	[E_MEM]  = { "MEM",  EC_MEM,   SIM_UNIFIED, 0,         0,  0, MEM_LATENCY },
};

_Static_assert(NELEMS - 1 <= SIM_MAX_LEVELS, "every level fits in spec->lv");

/* ---- small string helpers; all work on (pointer, length) spans ---- */

struct span {
	const char *p;
	size_t n;
};

static int is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' ||
	       c == '\v' || c == '\f';
}

/* ASCII only: the locale must not change what a spec means. */
static char lower(char c)
{
	return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
}

static int is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static struct span trim(struct span s)
{
	while (s.n && is_blank(s.p[0])) {
		s.p++;
		s.n--;
	}
	while (s.n && is_blank(s.p[s.n - 1]))
		s.n--;
	return s;
}

static int span_eq(struct span s, const char *word)
{
	size_t i;

	for (i = 0; i < s.n; i++)
		if (!word[i] || lower(s.p[i]) != lower(word[i]))
			return 0;
	return word[i] == '\0';
}

/* s split at the first c: *head before it, *tail after; 0 if no c. */
static int span_split(struct span s, char c, struct span *head, struct span *tail)
{
	const char *q = memchr(s.p, c, s.n);

	if (!q)
		return 0;
	head->p = s.p;
	head->n = (size_t)(q - s.p);
	tail->p = q + 1;
	tail->n = s.n - head->n - 1;
	return 1;
}

static int is_pow2(uint64_t v)
{
	return v && !(v & (v - 1));
}

/* A bounded append-only writer: never overruns, always terminated. */
struct sbuf {
	char *p;
	size_t len, pos;
};

static void sb_printf(struct sbuf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void sb_printf(struct sbuf *b, const char *fmt, ...)
{
	va_list ap;
	int r;

	if (!b->p || b->pos >= b->len)
		return;
	va_start(ap, fmt);
	r = vsnprintf(b->p + b->pos, b->len - b->pos, fmt, ap);
	va_end(ap);
	if (r > 0)
		b->pos += (size_t)r;
}

/* Short strings for messages, returned by value so that a call can sit
 * in an argument list (C11 temporary lifetime). */
struct shown {
	char s[112];
};

#define SHOW_MAX 24

/* User text for a message: at most SHOW_MAX bytes, anything but
 * printable ASCII escaped, so the message stays one clean line. */
static struct shown show(struct span v)
{
	struct shown r;
	struct sbuf b = { r.s, sizeof r.s, 0 };
	size_t i;

	r.s[0] = '\0';
	for (i = 0; i < v.n && i < SHOW_MAX; i++) {
		unsigned char c = (unsigned char)v.p[i];

		if (c >= 0x20 && c < 0x7f && c != '\\')
			sb_printf(&b, "%c", c);
		else
			sb_printf(&b, "\\x%02x", c);
	}
	if (v.n > SHOW_MAX)
		sb_printf(&b, "...");
	return r;
}

/* Canonical byte count: the largest binary suffix that divides it. */
static struct shown bytes_str(uint64_t v)
{
	static const char sfx[] = "KMGT";
	struct shown r;
	int i;

	for (i = 3; i >= 0; i--) {
		uint64_t u = UINT64_C(1) << (10 * (i + 1));

		if (v && v % u == 0) {
			snprintf(r.s, sizeof r.s, "%llu%c",
				 (unsigned long long)(v / u), sfx[i]);
			return r;
		}
	}
	snprintf(r.s, sizeof r.s, "%llu", (unsigned long long)v);
	return r;
}

/* Byte count for people: "16 KiB", "6 MiB", "1280 KiB", "48 B". */
static struct shown bytes_human(uint64_t v)
{
	static const char *const unit[] = { "KiB", "MiB", "GiB", "TiB" };
	struct shown r;
	int i;

	for (i = 3; i >= 0; i--) {
		uint64_t u = UINT64_C(1) << (10 * (i + 1));

		if (v && v % u == 0) {
			snprintf(r.s, sizeof r.s, "%llu %s",
				 (unsigned long long)(v / u), unit[i]);
			return r;
		}
	}
	snprintf(r.s, sizeof r.s, "%llu B", (unsigned long long)v);
	return r;
}

/* ---- errors ---- */

struct perr {
	char *buf;
	size_t len;
};

static int fail(struct perr *e, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Every message is "--sim: ..." on one line; returns -1 for tail calls. */
static int fail(struct perr *e, const char *fmt, ...)
{
	va_list ap;
	int r;

	if (!e->buf || !e->len)
		return -1;
	r = snprintf(e->buf, e->len, "--sim: ");
	if (r < 0 || (size_t)r >= e->len)
		return -1;
	va_start(ap, fmt);
	vsnprintf(e->buf + r, e->len - (size_t)r, fmt, ap);
	va_end(ap);
	return -1;
}

/* ---- keys: a table of names -> which elements take them, how the
 * value is parsed and printed, where it is stored ---- */

struct key_desc;
typedef int parse_fn(struct perr *e, const char *elem, const struct key_desc *k,
		     struct span v, uint64_t *out);
typedef void print_fn(struct sbuf *b, const struct key_desc *k, uint64_t v);

struct key_desc {
	const char *name;
	unsigned applies;		/* EC_* mask */
	parse_fn *parse;
	print_fn *print;
	uint64_t min, max;		/* numeric keys */
	const char *const *words;	/* word keys: index = stored value */
	uint64_t (*get)(const struct sim_level_spec *lv);
	void (*set)(struct sim_level_spec *lv, uint64_t v);
};

#define FIELD(f, type) \
static uint64_t get_##f(const struct sim_level_spec *lv) { return (uint64_t)lv->f; } \
static void set_##f(struct sim_level_spec *lv, uint64_t v) { lv->f = (type)v; }

FIELD(size, uint64_t)
FIELD(entries, unsigned)
FIELD(line, unsigned)
FIELD(page, uint64_t)
FIELD(policy, enum sim_policy)
FIELD(write_allocate, int)
FIELD(inclusion, enum sim_inclusion)
FIELD(latency, unsigned)
FIELD(counter, int)
FIELD(index, enum sim_index)
FIELD(prefetch, unsigned)
FIELD(region, int)

/* assoc travels as 0 for "full": full is the truth, the way count of a
 * fully associative level is derived at validation. */
static uint64_t get_assoc(const struct sim_level_spec *lv)
{
	return lv->full ? 0 : lv->assoc;
}

static void set_assoc(struct sim_level_spec *lv, uint64_t v)
{
	lv->full = v == 0;
	if (v)
		lv->assoc = (unsigned)v;
}

enum scan { SCAN_OK, SCAN_NEG, SCAN_BAD, SCAN_OVF };

/* A plain unsigned decimal; overflow is reported after the whole token
 * is seen to be digits, so "12x" is "not a number", not "too large". */
static enum scan scan_uint(struct span v, uint64_t *out)
{
	uint64_t x = 0;
	int ovf = 0;
	size_t i;

	if (v.n && v.p[0] == '-')
		return SCAN_NEG;
	if (!v.n)
		return SCAN_BAD;
	for (i = 0; i < v.n; i++) {
		unsigned d;

		if (!is_digit(v.p[i]))
			return SCAN_BAD;
		d = (unsigned)(v.p[i] - '0');
		if (x > (UINT64_MAX - d) / 10)
			ovf = 1;
		else
			x = x * 10 + d;
	}
	*out = x;
	return ovf ? SCAN_OVF : SCAN_OK;
}

/* A limit for a message: "1 KiB" for byte keys, plain digits else. */
static struct shown limit_str(uint64_t v, int bytes)
{
	struct shown r;

	if (bytes)
		return bytes_human(v);
	snprintf(r.s, sizeof r.s, "%llu", (unsigned long long)v);
	return r;
}

static int check_range(struct perr *e, const char *elem, const struct key_desc *k,
		       struct span v, uint64_t x, int bytes)
{
	if (x < k->min)
		return fail(e, "%s: %s=%s: must be at least %s", elem, k->name,
			    show(v).s, limit_str(k->min, bytes).s);
	if (x > k->max)
		return fail(e, "%s: %s=%s: above the limit of %s", elem, k->name,
			    show(v).s, limit_str(k->max, bytes).s);
	return 0;
}

static int parse_uint(struct perr *e, const char *elem, const struct key_desc *k,
		      struct span v, uint64_t *out)
{
	uint64_t x = 0;

	switch (scan_uint(v, &x)) {
	case SCAN_NEG:
		return fail(e, "%s: %s=%s: negative values are not allowed",
			    elem, k->name, show(v).s);
	case SCAN_BAD:
		return fail(e, "%s: %s=%s: expected an integer", elem, k->name,
			    show(v).s);
	case SCAN_OVF:
		x = UINT64_MAX;
		break;
	case SCAN_OK:
		break;
	}
	if (check_range(e, elem, k, v, x, 0))
		return -1;
	*out = x;
	return 0;
}

static int parse_assoc(struct perr *e, const char *elem, const struct key_desc *k,
		       struct span v, uint64_t *out)
{
	uint64_t x = 0;

	if (span_eq(v, "full")) {
		*out = 0;
		return 0;
	}
	switch (scan_uint(v, &x)) {
	case SCAN_NEG:
		return fail(e, "%s: %s=%s: negative values are not allowed",
			    elem, k->name, show(v).s);
	case SCAN_BAD:
		return fail(e, "%s: %s=%s: expected an integer or 'full'",
			    elem, k->name, show(v).s);
	case SCAN_OVF:
		x = UINT64_MAX;
		break;
	case SCAN_OK:
		break;
	}
	if (check_range(e, elem, k, v, x, 0))
		return -1;
	*out = x;
	return 0;
}

/* Binary suffixes; the value is 1 << shift. */
static const struct {
	const char *name;
	unsigned shift;
} suffixes[] = {
	{ "", 0 }, { "B", 0 },
	{ "K", 10 }, { "KB", 10 }, { "KiB", 10 },
	{ "M", 20 }, { "MB", 20 }, { "MiB", 20 },
	{ "G", 30 }, { "GB", 30 }, { "GiB", 30 },
	{ "T", 40 }, { "TB", 40 }, { "TiB", 40 },
};

/* 5^27 is the largest power of five in 64 bits: a mantissa (< 2^64)
 * with more significant fraction digits cannot be a whole number. */
#define MAX_FRAC 27

/* DIGITS[.DIGITS][SUFFIX], exact: mantissa * 2^shift / 10^frac must be a
 * whole number.  10^f = 5^f * 2^f, so divide by each separately and
 * nothing wider than 64 bits is needed. */
static int parse_bytes(struct perr *e, const char *elem, const struct key_desc *k,
		       struct span v, uint64_t *out)
{
	struct span ip = { v.p, 0 }, fp = { NULL, 0 }, sfx;
	uint64_t mant = 0, p5 = 1, x;
	unsigned shift = 0;
	int ovf = 0, found = 0;
	size_t i;

	if (v.n && v.p[0] == '-')
		return fail(e, "%s: %s=%s: negative values are not allowed",
			    elem, k->name, show(v).s);
	while (ip.n < v.n && is_digit(v.p[ip.n]))
		ip.n++;
	i = ip.n;
	if (i < v.n && v.p[i] == '.') {
		fp.p = v.p + i + 1;
		while (i + 1 + fp.n < v.n && is_digit(fp.p[fp.n]))
			fp.n++;
		i += 1 + fp.n;
	}
	sfx.p = v.p + i;
	sfx.n = v.n - i;
	for (size_t s = 0; s < sizeof suffixes / sizeof suffixes[0]; s++)
		if (span_eq(sfx, suffixes[s].name)) {
			shift = suffixes[s].shift;
			found = 1;
			break;
		}
	if (!found || ip.n + fp.n == 0)
		return fail(e, "%s: %s=%s: expected a size in bytes (e.g. 512, 16K, 1.5M)",
			    elem, k->name, show(v).s);
	/* Trailing zeros of the fraction say nothing. */
	while (fp.n && fp.p[fp.n - 1] == '0')
		fp.n--;
	if (fp.n > MAX_FRAC)
		return fail(e, "%s: %s=%s is not a whole number of bytes",
			    elem, k->name, show(v).s);
	for (i = 0; i < ip.n + fp.n; i++) {
		unsigned d = (unsigned)((i < ip.n ? ip.p[i] : fp.p[i - ip.n]) - '0');

		if (mant > (UINT64_MAX - d) / 10)
			ovf = 1;
		else
			mant = mant * 10 + d;
	}
	for (i = 0; i < fp.n; i++)
		p5 *= 5;
	if (ovf) {
		x = UINT64_MAX;
	} else {
		if (mant % p5)
			return fail(e, "%s: %s=%s is not a whole number of bytes",
				    elem, k->name, show(v).s);
		x = mant / p5;
		if (shift >= fp.n) {
			unsigned sh = shift - (unsigned)fp.n;

			x = x > (UINT64_MAX >> sh) ? UINT64_MAX : x << sh;
		} else {
			unsigned sh = (unsigned)fp.n - shift;

			if (x & ((UINT64_C(1) << sh) - 1))
				return fail(e, "%s: %s=%s is not a whole number of bytes",
					    elem, k->name, show(v).s);
			x >>= sh;
		}
	}
	if (check_range(e, elem, k, v, x, 1))
		return -1;
	*out = x;
	return 0;
}

static int parse_word(struct perr *e, const char *elem, const struct key_desc *k,
		      struct span v, uint64_t *out)
{
	char list[80];
	struct sbuf b = { list, sizeof list, 0 };
	uint64_t i;

	list[0] = '\0';
	for (i = 0; k->words[i]; i++) {
		if (span_eq(v, k->words[i])) {
			*out = i;
			return 0;
		}
		sb_printf(&b, "%s%s", i ? "|" : "", k->words[i]);
	}
	return fail(e, "%s: %s=%s: expected %s", elem, k->name, show(v).s, list);
}

static void print_uint(struct sbuf *b, const struct key_desc *k, uint64_t v)
{
	sb_printf(b, "%llu", (unsigned long long)v);
}

static void print_assoc(struct sbuf *b, const struct key_desc *k, uint64_t v)
{
	if (v)
		sb_printf(b, "%llu", (unsigned long long)v);
	else
		sb_printf(b, "full");
}

static void print_bytes(struct sbuf *b, const struct key_desc *k, uint64_t v)
{
	sb_printf(b, "%s", bytes_str(v).s);
}

static void print_word(struct sbuf *b, const struct key_desc *k, uint64_t v)
{
	uint64_t i;

	for (i = 0; k->words[i]; i++)
		if (i == v) {
			sb_printf(b, "%s", k->words[i]);
			return;
		}
	sb_printf(b, "%llu", (unsigned long long)v);	/* not a spec of ours */
}

/* Word lists in enum order: the index is the stored value. */
static const char *const policy_words[] = { "lru", "plru", "fifo", "random", NULL };
static const char *const write_words[] = { "noallocate", "allocate", NULL };
static const char *const inclusion_words[] = { "nine", "inclusive", "exclusive", NULL };
static const char *const counter_words[] = { "no", "yes", NULL };
static const char *const region_words[] = { "no", "yes", NULL };
static const char *const index_words[] = { "virtual", "physical", "hashed", NULL };

#define NUM(lo, hi) (lo), (hi), NULL
#define WORDS(w) 0, 0, (w)

/* Table order is the order keys are listed and printed in. */
static const struct key_desc keys[] = {
	{ "size",      EC_CACHE,                   parse_bytes, print_bytes, NUM(1, MAX_BYTES),        get_size,           set_size },
	{ "entries",   EC_TLB,                     parse_uint,  print_uint,  NUM(1, MAX_WAYS),         get_entries,        set_entries },
	{ "line",      EC_CACHE,                   parse_bytes, print_uint,  NUM(8, MAX_LINE),         get_line,           set_line },
	{ "assoc",     EC_CACHE | EC_TLB,          parse_assoc, print_assoc, NUM(1, MAX_WAYS),         get_assoc,          set_assoc },
	{ "page",      EC_TLB,                     parse_bytes, print_bytes, NUM(KiB, MAX_BYTES),      get_page,           set_page },
	{ "policy",    EC_CACHE | EC_TLB,          parse_word,  print_word,  WORDS(policy_words),      get_policy,         set_policy },
	{ "write",     EC_CACHE,                   parse_word,  print_word,  WORDS(write_words),       get_write_allocate, set_write_allocate },
	{ "inclusion", EC_CACHE,                   parse_word,  print_word,  WORDS(inclusion_words),   get_inclusion,      set_inclusion },
	{ "latency",   EC_CACHE | EC_TLB | EC_MEM, parse_uint,  print_uint,  NUM(1, MAX_LATENCY),      get_latency,        set_latency },
	{ "counter",   EC_CACHE | EC_TLB,          parse_word,  print_word,  WORDS(counter_words),     get_counter,        set_counter },
	{ "index",     EC_CACHE,                   parse_word,  print_word,  WORDS(index_words),       get_index,          set_index },
	{ "prefetch",  EC_CACHE,                   parse_uint,  print_uint,  NUM(0, MAX_PREFETCH),     get_prefetch,       set_prefetch },
	{ "region",    EC_CACHE,                   parse_word,  print_word,  WORDS(region_words),      get_region,         set_region },
};
#define NKEYS (sizeof keys / sizeof keys[0])

_Static_assert(NKEYS <= 32, "a key-seen mask fits in an unsigned");

static const char *class_name(unsigned cls)
{
	return cls == EC_CACHE ? "a cache" : cls == EC_TLB ? "a TLB" : "MEM";
}

/* ---- elements ---- */

static int elem_lookup(struct span name)
{
	int i;

	for (i = 0; i < NELEMS; i++)
		if (span_eq(name, elems[i].name))
			return i;
	return -1;
}

/* A level of element i with every default filled in. */
static void elem_defaults(int i, struct sim_level_spec *lv)
{
	const struct elem_desc *d = &elems[i];

	memset(lv, 0, sizeof *lv);
	memcpy(lv->name, d->name, strlen(d->name) + 1);
	lv->side = d->side;
	lv->level = d->level;
	lv->assoc = d->assoc;
	lv->latency = d->latency;
	lv->policy = SIM_LRU;
	lv->counter = 1;
	if (d->cls == EC_CACHE) {
		lv->kind = SIM_CACHE;
		lv->size = d->size;
		lv->line = 64;
		lv->write_allocate = 1;
		lv->inclusion = SIM_NINE;
		lv->index = d->level == 1 ? SIM_INDEX_VIRTUAL : SIM_INDEX_PHYSICAL;
	} else if (d->cls == EC_TLB) {
		lv->kind = SIM_TLB;
		lv->entries = (unsigned)d->size;
		lv->page = 4 * KiB;
	}
}

/* ---- parsing ---- */

struct pstate {
	struct sim_level_spec lv[NELEMS];	/* indexed like elems[] */
	unsigned char present[NELEMS];
	const struct sim_preset *preset;
	struct perr e;
};

static const struct sim_preset *preset_lookup(struct span name)
{
	char buf[sizeof ((struct sim_spec *)0)->preset];

	if (!name.n || name.n >= sizeof buf || memchr(name.p, '\0', name.n))
		return NULL;
	memcpy(buf, name.p, name.n);
	buf[name.n] = '\0';
	return sim_preset_find(buf);
}

static int parse_kv(struct pstate *ps, int ei, struct span kv, unsigned *seen)
{
	const struct elem_desc *d = &elems[ei];
	struct span key, val;
	const struct key_desc *k = NULL;
	int has_eq;
	uint64_t v;
	size_t i;

	kv = trim(kv);
	if (!kv.n)
		return fail(&ps->e, "%s: empty KEY=VALUE (a stray ',')", d->name);
	has_eq = span_split(kv, '=', &key, &val);
	if (!has_eq)
		key = kv;
	key = trim(key);
	if (!key.n)
		return fail(&ps->e, "%s: '%s': no key before '='", d->name, show(kv).s);
	for (i = 0; i < NKEYS; i++)
		if (span_eq(key, keys[i].name)) {
			k = &keys[i];
			break;
		}
	if (!k) {
		char list[96];
		struct sbuf b = { list, sizeof list, 0 };
		size_t j;

		list[0] = '\0';
		for (j = 0; j < NKEYS; j++)
			if (keys[j].applies & d->cls)
				sb_printf(&b, "%s%s", b.pos ? " " : "", keys[j].name);
		return fail(&ps->e, "%s: '%s': unknown key (expected %s)", d->name,
			    show(key).s, list);
	}
	if (!(k->applies & d->cls))
		return fail(&ps->e, "%s: key '%s' does not apply to %s%s", d->name,
			    k->name, class_name(d->cls),
			    d->cls == EC_MEM ? " (only 'latency')" : "");
	if (!has_eq)
		return fail(&ps->e, "%s: '%s' without '=VALUE'", d->name, k->name);
	if (*seen & (1u << i))
		return fail(&ps->e, "%s: key '%s' given twice", d->name, k->name);
	*seen |= 1u << i;
	val = trim(val);
	if (!val.n)
		return fail(&ps->e, "%s: %s=: empty value", d->name, k->name);
	if (k->parse(&ps->e, d->name, k, val, &v))
		return -1;
	k->set(&ps->lv[ei], v);
	return 0;
}

static int parse_list(struct pstate *ps, struct span text, int preset_ok);

/* One element; first: the spec's first element, which may be a preset. */
static int parse_elem(struct pstate *ps, struct span el, int first, int preset_ok,
		      unsigned char *given)
{
	struct span name, body, kv, rest;
	const struct sim_preset *p;
	unsigned seen = 0;
	int ei;

	el = trim(el);
	if (!el.n)
		return fail(&ps->e, "empty element (nothing between ';' separators)");
	if (!span_split(el, ':', &name, &body)) {
		p = preset_lookup(el);
		if (p && first && preset_ok) {
			struct span ptext = { p->spec, strlen(p->spec) };

			ps->preset = p;
			return parse_list(ps, ptext, 0);
		}
		ei = elem_lookup(el);
		if (ei >= 0)
			return fail(&ps->e, "%s: expected %s:KEY=VALUE[,KEY=VALUE...]",
				    elems[ei].name, elems[ei].name);
		if (p)
			return fail(&ps->e, "'%s': a preset can only come first, and only once",
				    show(el).s);
		if (first)
			return fail(&ps->e, "'%s': not a preset and not an element list (see amp --list-presets)",
				    show(el).s);
		return fail(&ps->e, "'%s': not an element (expected NAME:KEY=VALUE[,...])",
			    show(el).s);
	}
	name = trim(name);
	if (!name.n)
		return fail(&ps->e, "'%s': no element name before ':'", show(el).s);
	ei = elem_lookup(name);
	if (ei < 0) {
		char list[96];
		struct sbuf b = { list, sizeof list, 0 };
		int i;

		list[0] = '\0';
		for (i = 0; i < NELEMS; i++)
			sb_printf(&b, "%s%s", i ? " " : "", elems[i].name);
		return fail(&ps->e, "'%s': unknown element (expected %s)",
			    show(name).s, list);
	}
	if (given[ei])
		return fail(&ps->e, "%s: element given twice", elems[ei].name);
	given[ei] = 1;
	/* After a preset, an element of the same name keeps the preset's
	 * values for the keys it does not give. */
	if (!ps->present[ei])
		elem_defaults(ei, &ps->lv[ei]);
	ps->present[ei] = 1;
	body = trim(body);
	if (!body.n)
		return fail(&ps->e, "%s: no KEY=VALUE after ':'", elems[ei].name);
	while (span_split(body, ',', &kv, &rest)) {
		if (parse_kv(ps, ei, kv, &seen))
			return -1;
		body = rest;
	}
	return parse_kv(ps, ei, body, &seen);
}

/* ELEM[;ELEM...]; preset_ok: the first element may name a preset (not
 * inside a preset's own text). */
static int parse_list(struct pstate *ps, struct span text, int preset_ok)
{
	unsigned char given[NELEMS] = { 0 };
	struct span el, rest;
	int first = 1;

	while (span_split(text, ';', &el, &rest)) {
		if (parse_elem(ps, el, first, preset_ok, given))
			return -1;
		first = 0;
		text = rest;
	}
	return parse_elem(ps, text, first, preset_ok, given);
}

/* ---- validation ---- */

/* Geometry of one level; derives assoc of a fully associative level. */
static int check_level(struct perr *e, struct sim_level_spec *lv)
{
	const char *n = lv->name;

	if (lv->kind == SIM_CACHE) {
		uint64_t way;

		if (!is_pow2(lv->line))
			return fail(e, "%s: line=%u is not a power of two", n, lv->line);
		if (lv->full) {
			uint64_t lines = lv->size / lv->line;

			if (lv->size % lv->line)
				return fail(e, "%s: size=%s is not a multiple of line (%u)",
					    n, bytes_str(lv->size).s, lv->line);
			if (lines > MAX_WAYS)
				return fail(e, "%s: assoc=full: %llu lines, above the limit of %llu ways",
					    n, (unsigned long long)lines,
					    (unsigned long long)MAX_WAYS);
			lv->assoc = (unsigned)lines;
		}
		way = (uint64_t)lv->line * lv->assoc;
		if (lv->size < way)
			return fail(e, "%s: size=%s is smaller than line*assoc (%u*%u=%llu): no sets",
				    n, bytes_str(lv->size).s, lv->line, lv->assoc,
				    (unsigned long long)way);
		if (lv->size % way)
			return fail(e, "%s: size=%s is not a multiple of line*assoc (%u*%u=%llu)",
				    n, bytes_str(lv->size).s, lv->line, lv->assoc,
				    (unsigned long long)way);
		if (lv->level == 1 && lv->inclusion != SIM_NINE)
			return fail(e, "%s: inclusion=%s is meaningless on a level-1 cache (nothing above it); only 'nine' is accepted",
				    n, lv->inclusion == SIM_INCLUSIVE ? "inclusive" : "exclusive");
		if (lv->prefetch && lv->inclusion == SIM_EXCLUSIVE)
			return fail(e, "%s: prefetch=%u on an exclusive level: its lines come only from the level above",
				    n, lv->prefetch);
		if (lv->region && lv->inclusion == SIM_EXCLUSIVE)
			return fail(e, "%s: region=yes on an exclusive level: its lines come only from the level above",
				    n);
	} else {
		if (!is_pow2(lv->page))
			return fail(e, "%s: page=%s is not a power of two", n,
				    bytes_str(lv->page).s);
		if (lv->full)
			lv->assoc = lv->entries;
		if (lv->entries < lv->assoc)
			return fail(e, "%s: entries=%u is smaller than assoc (%u): no sets",
				    n, lv->entries, lv->assoc);
		if (lv->entries % lv->assoc)
			return fail(e, "%s: entries=%u is not a multiple of assoc (%u)",
				    n, lv->entries, lv->assoc);
	}
	if (lv->policy == SIM_PLRU && !is_pow2(lv->assoc))
		return fail(e, "%s: policy=plru needs a power-of-two associativity (assoc=%u%s)",
			    n, lv->assoc, lv->full ? ", fully associative" : "");
	return 0;
}

/* How the levels fit together. */
static int check_structure(struct pstate *ps)
{
	const unsigned char *p = ps->present;
	int have[5] = { 0 };
	int i, l;

	if (p[E_L1] && (p[E_L1D] || p[E_L1I]))
		return fail(&ps->e, "L1: a unified L1 excludes L1d and L1i (%s also given)",
			    p[E_L1D] ? "L1d" : "L1i");
	if (p[E_L2] && (p[E_L2D] || p[E_L2I]))
		return fail(&ps->e, "L2: a unified L2 excludes L2d and L2i (%s also given)",
			    p[E_L2D] ? "L2d" : "L2i");
	if (p[E_L1D] != p[E_L1I])
		return fail(&ps->e, "%s: a split level 1 needs %s too (use L1 for a unified L1)",
			    p[E_L1D] ? "L1d" : "L1i", p[E_L1D] ? "L1i" : "L1d");
	if (p[E_L2D] != p[E_L2I])
		return fail(&ps->e, "%s: a split level 2 needs %s too (use L2 for a unified L2)",
			    p[E_L2D] ? "L2d" : "L2i", p[E_L2D] ? "L2i" : "L2d");
	if (!p[E_L1] && !p[E_L1D])
		return fail(&ps->e, "no level-1 cache (give L1d and L1i, or L1)");
	/* Which L2 half would a unified L1 evict into? */
	if (p[E_L1] && p[E_L2D])
		return fail(&ps->e, "L2d: a split level 2 below a unified L1 is not supported (use L2)");
	for (i = 0; i < NELEMS; i++)
		if (p[i] && elems[i].cls == EC_CACHE)
			have[elems[i].level] = 1;
	for (l = 2; l <= 4; l++)
		if (have[l] && !have[l - 1]) {
			for (i = 0; i < NELEMS; i++)
				if (p[i] && elems[i].cls == EC_CACHE && elems[i].level == l)
					break;
			return fail(&ps->e, "%s: no level-%d cache above it (cache levels must be contiguous)",
				    elems[i].name, l - 1);
		}
	if (p[E_TLB] && (p[E_DTLB] || p[E_ITLB]))
		return fail(&ps->e, "TLB: a unified TLB excludes DTLB and ITLB (%s also given)",
			    p[E_DTLB] ? "DTLB" : "ITLB");
	if (p[E_STLB] && !p[E_DTLB] && !p[E_ITLB] && !p[E_TLB])
		return fail(&ps->e, "STLB: a second-level TLB needs a level-1 TLB (DTLB, ITLB or TLB)");
	return 0;
}

/* spec->lv order: caches, then TLBs; by level; data, insn, unified. */
static int level_before(const struct sim_level_spec *a, const struct sim_level_spec *b)
{
	if (a->kind != b->kind)
		return a->kind < b->kind;
	if (a->level != b->level)
		return a->level < b->level;
	return a->side < b->side;
}

/* On error *spec is left as it was. */
int sim_spec_parse(const char *text, struct sim_spec *spec, char *err, size_t len)
{
	struct pstate ps;
	struct sim_spec out;
	struct span all;
	int i, j;

	memset(&ps, 0, sizeof ps);
	ps.e.buf = err;
	ps.e.len = len;
	if (err && len)
		err[0] = '\0';
	if (!text || !spec)
		return fail(&ps.e, "no spec given");
	all.p = text;
	all.n = strlen(text);
	if (!trim(all).n)
		return fail(&ps.e, "empty spec (give a preset name or NAME:KEY=VALUE,...; see amp --list-presets)");
	elem_defaults(E_MEM, &ps.lv[E_MEM]);
	if (parse_list(&ps, all, 1))
		return -1;
	if (check_structure(&ps))
		return -1;

	memset(&out, 0, sizeof out);
	for (i = 0; i < NELEMS; i++) {
		if (!ps.present[i] || i == E_MEM)
			continue;
		if (check_level(&ps.e, &ps.lv[i]))
			return -1;
		/* Insertion sort: at most a dozen levels. */
		for (j = out.n; j > 0 && level_before(&ps.lv[i], &out.lv[j - 1]); j--)
			out.lv[j] = out.lv[j - 1];
		out.lv[j] = ps.lv[i];
		out.n++;
	}
	out.mem_latency = ps.lv[E_MEM].latency;
	out.noise = 0;
	out.sibling = 0;
	out.seed = 1;
	out.pages_random = 0;
	out.map_page = 4096;
	if (ps.preset)
		snprintf(out.preset, sizeof out.preset, "%s", ps.preset->name);
	*spec = out;
	return 0;
}

/* ---- printing ---- */

void sim_level_describe(const struct sim_level_spec *lv, char *buf, size_t len)
{
	static const char *const policy[] = { "lru", "plru", "fifo", "random" };
	struct sbuf b = { buf, len, 0 };
	const char *pol;

	if (!buf || !len)
		return;
	b.pos = strnlen(buf, len);
	if (b.pos == len) {		/* not a string: start one */
		b.pos = 0;
		buf[0] = '\0';
	}
	if (!lv)
		return;
	pol = (unsigned)lv->policy < 4 ? policy[lv->policy] : "?";
	sb_printf(&b, "%-4.8s ", lv->name);
	if (lv->kind == SIM_CACHE) {
		sb_printf(&b, "%s, ", bytes_human(lv->size).s);
		if (lv->full)
			sb_printf(&b, "fully associative (%u lines), ", lv->assoc);
		else if (lv->assoc == 1)
			sb_printf(&b, "direct-mapped, ");
		else
			sb_printf(&b, "%u-way, ", lv->assoc);
		sb_printf(&b, "%u B lines, %s, %s, ", lv->line, pol,
			  lv->write_allocate ? "write-allocate" : "no-write-allocate");
		if (lv->inclusion == SIM_INCLUSIVE)
			sb_printf(&b, "inclusive, ");
		else if (lv->inclusion == SIM_EXCLUSIVE)
			sb_printf(&b, "exclusive, ");
		sb_printf(&b, "latency %u, %s index", lv->latency, index_words[lv->index]);
	} else {
		sb_printf(&b, "%u entries, ", lv->entries);
		if (lv->full)
			sb_printf(&b, "fully associative, ");
		else if (lv->assoc == 1)
			sb_printf(&b, "direct-mapped, ");
		else
			sb_printf(&b, "%u-way, ", lv->assoc);
		sb_printf(&b, "%s pages, %s, miss penalty %u",
			  bytes_human(lv->page).s, pol, lv->latency);
	}
	if (!lv->counter)
		sb_printf(&b, ", N/C (no counter)");
}

static int elem_of(const struct sim_level_spec *lv)
{
	struct span name = { lv->name, strnlen(lv->name, sizeof lv->name) };

	return elem_lookup(name);
}

static const struct sim_level_spec *find_level(const struct sim_spec *s, int n,
					       const char *name)
{
	int i;

	for (i = 0; i < n; i++)
		if (!strncmp(s->lv[i].name, name, sizeof s->lv[i].name))
			return &s->lv[i];
	return NULL;
}

/* NAME:KEY=VALUE,... for the keys where lv differs from base; nothing
 * if none differ and base is a level the text already has (the
 * preset's), else the first key so that the element exists. */
static void format_elem(struct sbuf *b, int ei, const struct sim_level_spec *lv,
			const struct sim_level_spec *base, int base_given)
{
	const struct elem_desc *d = &elems[ei];
	size_t i;
	int n = 0;

	for (i = 0; i < NKEYS; i++) {
		const struct key_desc *k = &keys[i];
		uint64_t v = k->get(lv);

		if (!(k->applies & d->cls))
			continue;
		if (v == k->get(base) && (base_given || n))
			continue;
		if (n)
			sb_printf(b, ",");
		else
			sb_printf(b, "%s%s:", b->pos ? ";" : "", d->name);
		sb_printf(b, "%s=", k->name);
		k->print(b, k, v);
		n++;
	}
}

/* Canonical text: the preset's name (if any) and then, level by level
 * in spec->lv order, only the keys that differ from the preset's level
 * or, for a level the preset lacks, from the defaults; keys in table
 * order, sizes with the largest exact suffix.  Equal machines give equal
 * text, and the text re-parses to the same spec (preset name included). */
void sim_spec_format(const struct sim_spec *spec, char *buf, size_t len)
{
	struct sbuf b = { buf, len, 0 };
	struct sim_spec base;
	const struct sim_preset *p = NULL;
	struct sim_level_spec def;
	int i, n;

	if (!buf || !len)
		return;
	buf[0] = '\0';
	if (!spec)
		return;
	n = spec->n < 0 ? 0 : spec->n > SIM_MAX_LEVELS ? SIM_MAX_LEVELS : spec->n;
	/* A preset's text plus what differs from it, if every level of the
	 * preset is still there (an override cannot remove one). */
	if (spec->preset[0]) {
		struct span name = { spec->preset,
				     strnlen(spec->preset, sizeof spec->preset) };

		p = preset_lookup(name);
		if (p && sim_spec_parse(p->spec, &base, NULL, 0) == 0) {
			for (i = 0; i < base.n; i++)
				if (!find_level(spec, n, base.lv[i].name))
					p = NULL;
		} else {
			p = NULL;
		}
	}
	if (p)
		sb_printf(&b, "%s", p->name);
	for (i = 0; i < n; i++) {
		const struct sim_level_spec *lv = &spec->lv[i], *bl = NULL;
		int ei = elem_of(lv);

		if (ei < 0 || ei == E_MEM)
			continue;	/* not a level of ours */
		if (p)
			bl = find_level(&base, base.n, lv->name);
		if (!bl) {
			elem_defaults(ei, &def);
			bl = &def;
		}
		format_elem(&b, ei, lv, bl, bl != &def);
	}
	if (spec->mem_latency != (p ? base.mem_latency : MEM_LATENCY))
		sb_printf(&b, "%sMEM:latency=%u", b.pos ? ";" : "", spec->mem_latency);
}
