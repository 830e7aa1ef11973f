#include "dwarf_frames.h"

#include <dwarf.h>
#include <stdbool.h>
#include <stdlib.h>

#include "diag.h"
#include "htab.h"
#include "sort.h"
#include "upper_bound.h"

/* One address range of a function or inlined copy.  Ranges nest (an
 * inlined copy lies inside its caller), so after sorting by start each
 * range's parent is the innermost earlier range that contains it. */
struct piece {
	uint64_t lo, hi;
	int32_t parent; /* index, or -1 */
	bool inlined;
	const char *name, *call_file;
	int call_line;
};

/* A compilation unit's pieces, built the first time one of its addresses
 * is asked for: walking the DIE tree per address (dwarf_getscopes) costs a
 * tree walk each time. */
struct cu_index {
	Dwarf_Die cu;
	struct piece *p;
	size_t n, cap;
};

struct dwarf_frames {
	Dwarf *dw;
	struct htab *cus; /* CU DIE offset -> struct cu_index, NULL if no DIE there */
	/* The address range the last lookup fell in, and its CU: addresses
	 * of one function or file come in runs. */
	Dwarf_Arange *last;
	struct cu_index *last_cu;
};

struct dwarf_frames *dwarf_frames_new(Dwarf *dw)
{
	struct dwarf_frames *d = xcalloc(1, sizeof(*d));

	d->dw = dw;
	d->cus = htab_new();
	return d;
}

static void free_cu_index(void *p)
{
	struct cu_index *c = p;

	if (c)
		free(c->p);
	free(c);
}

void dwarf_frames_free(struct dwarf_frames *d)
{
	if (!d)
		return;
	htab_free_values(d->cus, free_cu_index);
	free(d);
}

/* The name to print: the linkage (mangled, demangled later) name, or
 * DW_AT_name, following DW_AT_abstract_origin and DW_AT_specification. */
static const char *die_name(Dwarf_Die *die)
{
	Dwarf_Attribute a;
	const char *s;

	if ((s = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_linkage_name, &a))))
		return s;
	if ((s = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &a))))
		return s;
	return dwarf_formstring(dwarf_attr_integrate(die, DW_AT_name, &a));
}

static void add_die(struct cu_index *c, Dwarf_Die *die, bool inlined, Dwarf_Files *files,
		    size_t nfiles)
{
	Dwarf_Addr base, lo, hi;
	Dwarf_Attribute a;
	Dwarf_Word v;
	ptrdiff_t off = 0;
	const char *name = die_name(die), *call_file = NULL;
	int call_line = 0;

	if (inlined) {
		if (files && dwarf_formudata(dwarf_attr(die, DW_AT_call_file, &a), &v) == 0 &&
		    v < nfiles)
			call_file = dwarf_filesrc(files, v, NULL, NULL);
		if (dwarf_formudata(dwarf_attr(die, DW_AT_call_line, &a), &v) == 0)
			call_line = (int)v;
	}
	while ((off = dwarf_ranges(die, off, &base, &lo, &hi)) > 0) {
		if (lo >= hi)
			continue;
		c->p = xreserve_from(c->p, &c->cap, c->n + 1, sizeof(*c->p), 64);
		c->p[c->n++] = (struct piece){ lo, hi, -1, inlined, name, call_file, call_line };
	}
}

static int by_start(const void *a, const void *b)
{
	const struct piece *x = a, *y = b;

	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	if (x->hi != y->hi)
		return x->hi > y->hi ? -1 : 1; /* the outer one first */
	return (int)x->inlined - (int)y->inlined;
}

static struct cu_index *build(Dwarf_Die *cu)
{
	struct cu_index *c = xcalloc(1, sizeof(*c));
	Dwarf_Files *files = NULL;
	size_t nfiles = 0, depth = 0, sp = 0;
	Dwarf_Die stack[64], die;
	int32_t *open;

	c->cu = *cu;
	dwarf_getsrcfiles(cu, &files, &nfiles);
	/* Depth-first over every DIE: functions hide inside namespaces,
	 * classes and lexical blocks. */
	if (dwarf_child(cu, &die) == 0) {
		stack[0] = die;
		depth = 1;
		while (depth > 0) {
			Dwarf_Die *d = &stack[depth - 1], child;
			int tag = dwarf_tag(d);
			if (tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine)
				add_die(c, d, tag == DW_TAG_inlined_subroutine, files, nfiles);
			if (dwarf_haschildren(d) && depth < 64 && dwarf_child(d, &child) == 0) {
				stack[depth++] = child;
				continue;
			}
			/* Next sibling, or climb until there is one. */
			while (depth > 0) {
				Dwarf_Die next;
				if (dwarf_siblingof(&stack[depth - 1], &next) == 0) {
					stack[depth - 1] = next;
					break;
				}
				depth--;
			}
		}
	}
	sort_array(c->p, c->n, sizeof(*c->p), by_start);
	open = xcalloc(c->n + 1, sizeof(*open));
	for (size_t i = 0; i < c->n; i++) {
		while (sp > 0 && c->p[open[sp - 1]].hi < c->p[i].hi)
			sp--;
		c->p[i].parent = sp ? open[sp - 1] : -1;
		open[sp++] = (int32_t)i;
	}
	free(open);
	return c;
}

/* What dwarf_addrdie() finds, without its search of every CU read so far
 * (a tree of them) on each call: the range's CU offset leads to the index
 * directly, and the CU DIE is looked up once. */
static struct cu_index *cu_for(struct dwarf_frames *d, uint64_t vaddr)
{
	Dwarf_Aranges *aranges;
	Dwarf_Arange *a;
	Dwarf_Die cu;
	Dwarf_Off key;
	size_t n;
	bool created;
	struct htab_entry *e;

	if (dwarf_getaranges(d->dw, &aranges, &n) != 0 ||
	    !(a = dwarf_getarange_addr(aranges, vaddr)))
		return NULL;
	if (a == d->last)
		return d->last_cu;
	if (dwarf_getarangeinfo(a, NULL, NULL, &key) != 0)
		return NULL;
	e = htab_upsert(d->cus, &key, sizeof(key), &created);
	if (created)
		e->val.p = dwarf_offdie(d->dw, key, &cu) ? build(&cu) : NULL;
	d->last = a;
	d->last_cu = e->val.p;
	return e->val.p;
}

size_t dwarf_frames(struct dwarf_frames *d, uint64_t vaddr, struct dwarf_frame *out, size_t max)
{
	struct cu_index *c = d ? cu_for(d, vaddr) : NULL;
	const char *file = NULL;
	Dwarf_Line *l;
	size_t after, k = 0;
	int line = 0;
	int32_t i;

	if (!c)
		return 0;
	if ((l = dwarf_getsrc_die(&c->cu, vaddr))) {
		file = dwarf_linesrc(l, NULL, NULL);
		dwarf_lineno(l, &line);
	}
	/* The last piece starting at or before vaddr; the innermost piece
	 * holding vaddr is it or one of its ancestors. */
	after = UPPER_BOUND(c->p, c->n, lo, vaddr);
	for (i = (int32_t)after - 1; i >= 0 && vaddr >= c->p[i].hi; i = c->p[i].parent)
		;
	for (; i >= 0 && k < max; i = c->p[i].parent) {
		out[k++] = (struct dwarf_frame){ c->p[i].name, file, line };
		if (!c->p[i].inlined)
			break;
		/* The caller is executing the call site of this inlined copy. */
		file = c->p[i].call_file;
		line = c->p[i].call_line;
	}
	if (k == 0 && max > 0 && file)
		out[k++] = (struct dwarf_frame){ NULL, file, line };
	return k;
}
