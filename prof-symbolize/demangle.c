#include "demangle.h"

#include <libiberty/demangle.h>
#include <stddef.h>

char *demangle(const char *name)
{
	/* Itanium C++ (and Rust legacy, which uses it) start with _Z, Rust v0
	 * with _R: anything else is left alone without asking. */
	if (name[0] != '_' || (name[1] != 'Z' && name[1] != 'R'))
		return NULL;
	return cplus_demangle(name, DMGL_PARAMS | DMGL_ANSI | DMGL_AUTO);
}
