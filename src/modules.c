/* modules.c - the measurement modules in the order they run (each needs
 * what the ones before it found).  Adding a module: one file ending in
 * its descriptor, one line here. */
#include "config.h"
#include <stddef.h>
#include "measure.h"

extern const struct amp_module amp_module_line;
extern const struct amp_module amp_module_assoc;

const struct amp_module *const amp_modules[] = {
	&amp_module_line,
	&amp_module_assoc,
	NULL
};
