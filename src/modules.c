/* modules.c - the measurement modules in the order they run (each needs
 * what the ones before it found).  Adding a module: one file ending in
 * its descriptor, one line here. */
#include "config.h"
#include <stddef.h>
#include "measure.h"

extern const struct amp_module amp_module_line;
extern const struct amp_module amp_module_assoc;
extern const struct amp_module amp_module_evset;
extern const struct amp_module amp_module_block_l1;
extern const struct amp_module amp_module_isets;
extern const struct amp_module amp_module_icache;
extern const struct amp_module amp_module_block;
extern const struct amp_module amp_module_inclusion;
extern const struct amp_module amp_module_replacement;
extern const struct amp_module amp_module_write;
extern const struct amp_module amp_module_unified;

const struct amp_module *const amp_modules[] = {
	&amp_module_line,
	&amp_module_assoc,
	&amp_module_block_l1,
	&amp_module_isets,
	&amp_module_icache,
	&amp_module_evset,
	&amp_module_block,
	&amp_module_inclusion,
	&amp_module_replacement,
	&amp_module_write,
	&amp_module_unified,
	NULL
};
