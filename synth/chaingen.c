/* chaingen.c - writes the build-time jump chains (codechain.h), run at
 * build time: one assembly text per architecture with a code generator
 * (x86-64, aarch64), inside the C file's top-level __asm__ so it needs
 * no assembler rules of its own.
 *
 * Each chain is AMP_CODECHAIN_UNITS units of 64 B in .text; a unit is
 * `jumps` jumps, one per 64/jumps bytes, each to the next, the last to
 * the next unit in chain order (the chain's last unit to its tail).  The
 * chain order runs page after page, each page's units shuffled (no
 * next-line prefetcher finds the next line), so the last n units in chain
 * order (what a run of n units executes) are whole pages and part of
 * one.  The pages come in blocks of COLOURS, one page of each colour
 * (page number mod COLOURS, the sets a virtually indexed cache with a
 * way of up to COLOURS pages gives it) in a random rotation of
 * increasing colours, the pages of a colour shuffled over the blocks:
 * the last pages of a block are consecutive colours, so every set of a
 * cache whose way is 1 to COLOURS pages holds as many of the last n
 * units as any other, give or take two (one where the way is a page).
 * The tail counts the runs down and jumps back to the entry.  The
 * offsets of the units from the chain's start, in chain order, go to a
 * table in .rodata.  Each kind of chain comes AMP_CODECHAIN_LAYOUTS
 * times, each with an order of its own, on pages of its own
 * (amp_codechain<jumps>_<layout>).
 *
 * Usage: chaingen > codechain_asm.c */
#include <stdint.h>
#include <stdio.h>
#include "codechain.h"

#define PAGE_UNITS (4096 / AMP_CODECHAIN_UNIT)
#define PAGES (AMP_CODECHAIN_UNITS / PAGE_UNITS)
#define COLOURS 16

/* Per architecture: a jump to a label, the function's entry (first
 * argument: where to enter; second: how many runs) and the tail. */
struct isa {
	const char *guard;
	const char *jump;  /* printf format: the label */
	const char *entry;
	const char *tail;  /* printf format: the label after it, twice */
};

static const struct isa isas[] = {
	{ "defined(__x86_64__)", "jmp %s", "jmp *%rdi",
	  "sub $1, %%rsi\\n\\tjnz %s\\n\\tret\\n%s:\\n\\tjmp *%%rdi" },
	{ "defined(__aarch64__)", "b %s", "br x0",
	  "subs x1, x1, #1\\n\\tb.ne %s\\n\\tret\\n%s:\\n\\tbr x0" },
};

static uint64_t rng = 0x9e3779b97f4a7c15ULL;

static unsigned next_below(unsigned n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (unsigned)(rng % n);
}

static void shuffle(unsigned *a, unsigned n)
{
	for (unsigned i = n - 1; i > 0; i--) {
		unsigned j = next_below(i + 1), t = a[i];

		a[i] = a[j];
		a[j] = t;
	}
}

/* The chain order: order[k] is the unit run k-th. */
static void chain_order(unsigned *order)
{
	unsigned pages[PAGES], units[PAGE_UNITS], blocks[PAGES / COLOURS];

	/* blocks[b]: which page of each colour block b takes. */
	for (unsigned c = 0; c < COLOURS; c++) {
		for (unsigned b = 0; b < PAGES / COLOURS; b++)
			blocks[b] = b;
		shuffle(blocks, PAGES / COLOURS);
		for (unsigned b = 0; b < PAGES / COLOURS; b++)
			pages[b * COLOURS + c] = blocks[b] * COLOURS + c;
	}
	for (unsigned b = 0; b < PAGES / COLOURS; b++) {
		unsigned first = next_below(COLOURS), block[COLOURS];

		for (unsigned c = 0; c < COLOURS; c++)
			block[c] = pages[b * COLOURS + (first + c) % COLOURS];
		for (unsigned c = 0; c < COLOURS; c++)
			pages[b * COLOURS + c] = block[c];
	}
	for (unsigned p = 0; p < PAGES; p++) {
		for (unsigned u = 0; u < PAGE_UNITS; u++)
			units[u] = u;
		shuffle(units, PAGE_UNITS);
		for (unsigned u = 0; u < PAGE_UNITS; u++)
			order[p * PAGE_UNITS + u] = pages[p] * PAGE_UNITS + units[u];
	}
}

static void emit_chain(const struct isa *isa, unsigned jumps, unsigned layout, const unsigned *order)
{
	static unsigned after[AMP_CODECHAIN_UNITS];
	char name[32], label[48];

	snprintf(name, sizeof name, "%u_%u", jumps, layout);
	for (unsigned k = 0; k < AMP_CODECHAIN_UNITS; k++)
		after[order[k]] = k + 1 < AMP_CODECHAIN_UNITS ? order[k + 1] : AMP_CODECHAIN_UNITS;
	printf("\"\\t.globl amp_codechain%s\\n\"\n", name);
	printf("\t\".p2align 12\\n\"\n\"amp_codechain%s:\\n\"\n", name);
	for (unsigned u = 0; u < AMP_CODECHAIN_UNITS; u++) {
		printf("\".Lc%s_%u:\\n", name, u);
		for (unsigned j = 0; j + 1 < jumps; j++) {
			printf("\\t");
			printf(isa->jump, "1f");
			printf("\\n\\t.balign %u\\n1:\\n", AMP_CODECHAIN_UNIT / jumps);
		}
		if (after[u] < AMP_CODECHAIN_UNITS)
			snprintf(label, sizeof label, ".Lc%s_%u", name, after[u]);
		else
			snprintf(label, sizeof label, ".Lc%s_tail", name);
		printf("\\t");
		printf(isa->jump, label);
		printf("\\n\\t.p2align 6\\n\"\n");
	}
	printf("\".Lc%s_tail:\\n\\t", name);
	snprintf(label, sizeof label, ".Lc%s_again", name);
	printf(isa->tail, label, label);
	printf("\\n\"\n");
	printf("\"\\t.pushsection .rodata\\n\\t.p2align 2\\n\\t.globl amp_codechain%s_order\\namp_codechain%s_order:\\n\"\n",
	       name, name);
	for (unsigned k = 0; k < AMP_CODECHAIN_UNITS; k++)
		printf("\"\\t.int .Lc%s_%u - amp_codechain%s\\n\"\n", name, order[k], name);
	printf("\"\\t.popsection\\n\"\n");
}

int main(void)
{
	static unsigned order[AMP_CODECHAIN_UNITS];
	static const unsigned jumps[] = { AMP_CODECHAIN_JUMPS };

	printf("/* Generated by synth/chaingen: do not edit. */\n#include \"codechain.h\"\n");
	for (size_t i = 0; i < sizeof isas / sizeof isas[0]; i++) {
		const struct isa *isa = &isas[i];

		rng = 0x9e3779b97f4a7c15ULL; /* the same order on every ISA */
		printf("#%s %s\n__asm__(\"\\t.text\\n\"\n", i ? "elif" : "if", isa->guard);
		printf("\"\\t.globl amp_codechain_enter\\n\\t.type amp_codechain_enter, %%function\\n\"\n"
		       "\"\\t.p2align 6\\namp_codechain_enter:\\n\\t%s\\n\"\n", isa->entry);
		for (size_t j = 0; j < sizeof jumps / sizeof jumps[0]; j++)
			for (unsigned l = 0; l < AMP_CODECHAIN_LAYOUTS; l++) {
				chain_order(order);
				emit_chain(isa, jumps[j], l, order);
			}
		printf(");\n");
	}
	printf("#endif\n");
	return 0;
}
