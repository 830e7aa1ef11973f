#include "demangle.h"

#include <libiberty/demangle.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "htab.h"

char *demangle(const char *name)
{
	/* Itanium C++ (and Rust legacy, which uses it) start with _Z, Rust v0
	 * with _R: anything else is left alone without asking. */
	if (name[0] != '_' || (name[1] != 'Z' && name[1] != 'R'))
		return NULL;
	return cplus_demangle(name, DMGL_PARAMS | DMGL_ANSI | DMGL_AUTO);
}

struct demangler {
	struct htab *names; /* mangled name -> its demangled form (malloc'd) */
};

struct demangler *demangler_new(void)
{
	struct demangler *d = xcalloc(1, sizeof(*d));

	d->names = htab_new();
	return d;
}

void demangler_free(struct demangler *d)
{
	if (!d)
		return;
	htab_free_values(d->names, free);
	free(d);
}

const char *demangled(struct demangler *d, const char *name)
{
	struct htab_entry *e;
	bool created;

	/* Names that are not mangled are most names, and are not kept. */
	if (name[0] != '_' || (name[1] != 'Z' && name[1] != 'R'))
		return name;
	e = htab_upsert(d->names, name, strlen(name), &created);
	if (created)
		e->val.p = demangle(name);
	return e->val.p ? e->val.p : name;
}
