#include "source.h"

#include "options.h"

const struct source_ops *source_for(const struct options *o)
{
	return o->dwarf ? &dwarf_source : &fp_source;
}
