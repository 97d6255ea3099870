/* sim_presets.c - machines for --sim=PRESET, each from a published table
 * so that amp's answers can be checked against the paper's.
 *
 * AMP: C. L. Coleman and J. W. Davidson, "Automatic Memory Hierarchy
 * Characterization", ISPASS 2001, Table 1 (line size / cache size /
 * associativity, TLB page size / entries / associativity).  Levels
 * marked N/C there had no miss counter on that machine: they get
 * counter=no, but still real geometry so the simulation is whole.
 *
 * X-Ray: K. Yotov, K. Pingali and P. Stodghill, "X-Ray: A Tool for
 * Automatic Measurement of Hardware Parameters", QEST 2005, Table 2
 * ("Actual" rows) and section 5.2.3 (TLBs).  That table has no L1i, so
 * the L1i of those presets is the part's documented one.
 *
 * Keys not given take the defaults listed at the top of sim_spec.c.
 */
#include <stddef.h>

#include "sim.h"

const struct sim_preset sim_presets[] = {
	/* ---- AMP Table 1 ---- */
	{ "p5-133",
	  "133 MHz Intel Pentium (P5); AMP (Coleman & Davidson) Table 1",
	  /* L2 is N/C: a board cache the paper did not measure; 256K
	   * direct-mapped with 32 B lines is the usual board of the time. */
	  "L1i:size=8K,line=32,assoc=2;"
	  "L1d:size=8K,line=32,assoc=2,write=noallocate;"
	  "L2:size=256K,line=32,assoc=1,counter=no;"
	  "ITLB:entries=32,assoc=2,page=4K;"
	  "DTLB:entries=64,assoc=4,page=4K" },
	{ "ppro-200",
	  "200 MHz Intel Pentium Pro; AMP (Coleman & Davidson) Table 1",
	  "L1i:size=8K,line=32,assoc=2;"
	  "L1d:size=8K,line=32,assoc=2;"
	  "L2:size=256K,line=32,assoc=4;"
	  "ITLB:entries=32,assoc=4,page=4K;"
	  "DTLB:entries=64,assoc=4,page=4K,counter=no" },
	{ "pii-233",
	  "233 MHz Intel Pentium II; AMP (Coleman & Davidson) Table 1",
	  "L1i:size=16K,line=32,assoc=4;"
	  "L1d:size=16K,line=32,assoc=4;"
	  "L2:size=512K,line=32,assoc=4;"
	  "ITLB:entries=32,assoc=4,page=4K;"
	  "DTLB:entries=64,assoc=4,page=4K,counter=no" },
	{ "usparc-1",
	  "167 MHz Sun UltraSPARC-I; AMP (Coleman & Davidson) Table 1",
	  "L1i:size=16K,line=32,assoc=2;"
	  "L1d:size=16K,line=32,assoc=1,write=noallocate;"
	  "L2:size=512K,line=64,assoc=1;"
	  "ITLB:entries=64,assoc=full,page=8K,counter=no;"
	  "DTLB:entries=64,assoc=full,page=8K,counter=no" },
	{ "r10k-225",
	  "225 MHz MIPS R10000 (SGI Octane); AMP (Coleman & Davidson) Table 1",
	  /* One unified, fully associative (64-way) TLB. */
	  "L1i:size=32K,line=64,assoc=2;"
	  "L1d:size=32K,line=32,assoc=2;"
	  "L2:size=1M,line=128,assoc=2;"
	  "TLB:entries=64,assoc=full,page=32K" },

	/* ---- X-Ray Table 2; L1i from each part's manual ---- */
	{ "itanium2",
	  "Intel Itanium 2; X-Ray (Yotov, Pingali & Stodghill) Table 2",
	  /* L1i 16K/64B/4-way: Itanium 2 reference manual. */
	  "L1d:size=16K,line=64,assoc=4,latency=2;"
	  "L1i:size=16K,line=64,assoc=4;"
	  "L2:size=256K,line=128,assoc=8;"
	  "L3:size=6M,line=128,assoc=24" },
	{ "opteron240",
	  "AMD Opteron 240; X-Ray (Yotov, Pingali & Stodghill) Table 2",
	  /* L1i 64K/64B/2-way: AMD K8 documentation.  The L2 is a victim
	   * cache of L1: exclusive. */
	  "L1d:size=64K,line=64,assoc=2,latency=3;"
	  "L1i:size=64K,line=64,assoc=2;"
	  "L2:size=1M,line=64,assoc=16,inclusion=exclusive" },
	{ "usparc3i",
	  "Sun UltraSPARC IIIi; X-Ray (Yotov, Pingali & Stodghill) Table 2",
	  /* L1i 32K/32B/4-way: UltraSPARC IIIi manual. */
	  "L1d:size=64K,line=32,assoc=4,latency=2;"
	  "L1i:size=32K,line=32,assoc=4;"
	  "L2:size=1M,line=64,assoc=4" },
	{ "pentium4",
	  "Intel Pentium 4; X-Ray (Yotov, Pingali & Stodghill) Table 2 and 5.2.3",
	  /* The L1i is a trace cache of micro-ops, not a byte cache: it is
	   * modelled as a 16K/64B/8-way cache.  DTLB: X-Ray 5.2.3. */
	  "L1d:size=8K,line=64,assoc=4,latency=2;"
	  "L1i:size=16K,line=64,assoc=8;"
	  "L2:size=512K,line=128,assoc=8;"
	  "DTLB:entries=64,assoc=full,page=4K" },
	{ "athlonmp",
	  "AMD Athlon MP; X-Ray (Yotov, Pingali & Stodghill) Table 2",
	  /* L1i 64K/64B/2-way: AMD Athlon documentation; exclusive L2. */
	  "L1d:size=64K,line=64,assoc=2,latency=3;"
	  "L1i:size=64K,line=64,assoc=2;"
	  "L2:size=512K,line=64,assoc=16,inclusion=exclusive" },
	{ "r12000",
	  "MIPS R12000; X-Ray (Yotov, Pingali & Stodghill) Table 2",
	  /* L1i 32K/64B/2-way: R12000 manual.  The table's L2 associativity
	   * is '?'; the R12000 documents a 2-way L2. */
	  "L1d:size=32K,line=32,assoc=2,latency=2;"
	  "L1i:size=32K,line=64,assoc=2;"
	  "L2:size=512K,line=128,assoc=2" },
	{ "power3",
	  "IBM POWER3; X-Ray (Yotov, Pingali & Stodghill) Table 2",
	  /* L1i 32K/128B/128-way: POWER3 documentation.  The table's
	   * latency row is garbled for this machine: 2 cycles is assumed.
	   * Its 7-way L2 cannot divide 4096 lines into whole sets: 8-way. */
	  "L1d:size=64K,line=128,assoc=128,latency=2;"
	  "L1i:size=32K,line=128,assoc=128;"
	  "L2:size=512K,line=128,assoc=8" },
	{ "pentium3",
	  "Intel Pentium III; X-Ray (Yotov, Pingali & Stodghill) 5.2.3",
	  "L1d:size=16K,line=32,assoc=4;"
	  "L1i:size=16K,line=32,assoc=4;"
	  "L2:size=256K,line=32,assoc=8;"
	  "DTLB:entries=64,assoc=4,page=4K" },

	/* ---- teaching ---- */
	{ "zen5-like",
	  "a modern x86 core loosely after AMD Zen 5 (public figures, rounded); for teaching, not from a paper",
	  "L1d:size=48K,line=64,assoc=12,latency=5;"
	  "L1i:size=32K,line=64,assoc=8;"
	  "L2:size=1M,line=64,assoc=16,latency=14,inclusion=inclusive;"
	  "L3:size=32M,line=64,assoc=16,latency=50,inclusion=nine;"
	  "DTLB:entries=96,assoc=full;"
	  "ITLB:entries=64,assoc=full;"
	  "STLB:entries=2048,assoc=16" },
	{ NULL, NULL, NULL }
};

/* ASCII case-insensitive, whatever the locale. */
static int name_eq(const char *a, const char *b)
{
	for (;; a++, b++) {
		char x = *a >= 'A' && *a <= 'Z' ? (char)(*a - 'A' + 'a') : *a;
		char y = *b >= 'A' && *b <= 'Z' ? (char)(*b - 'A' + 'a') : *b;

		if (x != y)
			return 0;
		if (!x)
			return 1;
	}
}

const struct sim_preset *sim_preset_find(const char *name)
{
	const struct sim_preset *p;

	if (!name)
		return NULL;
	for (p = sim_presets; p->name; p++)
		if (name_eq(p->name, name))
			return p;
	return NULL;
}
