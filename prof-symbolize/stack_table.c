#include "stack_table.h"

#include <stdlib.h>

#include "diag.h"

/* Ids below this many past twice the entries so far are dense: one in two
 * array elements used at worst, yet small captures start with no growing. */
#define DENSE_SLACK 4096

void stack_table_init(struct stack_table *t)
{
	*t = (struct stack_table){ .sparse = htab_new() };
}

void stack_table_free(struct stack_table *t, void (*free_slot)(void *))
{
	struct htab_entry *v = htab_entries(t->sparse);

	for (uint64_t id = 0; id < t->ndense; id++)
		free_slot(t->dense[id].slot);
	for (size_t i = 0; i < htab_count(t->sparse); i++) {
		free_slot(((struct stack_entry *)v[i].val.p)->slot);
		free(v[i].val.p);
	}
	htab_free(t->sparse);
	free(t->dense);
	free(t->ips);
}

static bool dense(struct stack_table *t, uint32_t id)
{
	if (id < t->ndense)
		return true;
	if (id >= 2 * t->count + DENSE_SLACK)
		return false;
	uint64_t n = (uint64_t)id + 1 > 2 * t->ndense ? (uint64_t)id + 1 : 2 * t->ndense;
	t->dense = xreallocarray(t->dense, n, sizeof(*t->dense));
	for (uint64_t i = t->ndense; i < n; i++)
		t->dense[i] = (struct stack_entry){ 0 };
	t->ndense = n;
	return true;
}

struct stack_entry *stack_table_entry(struct stack_table *t, uint32_t id, bool create)
{
	struct stack_entry *e;
	struct htab_entry *h;
	bool created;

	if (id < t->ndense || (create && dense(t, id))) {
		e = &t->dense[id];
		if (e->present)
			return e;
		/* A dense id not yet defined nor named may have been sparse
		 * before the array grew past it. */
		if (htab_count(t->sparse) && (h = htab_find(t->sparse, &id, sizeof(id))))
			return h->val.p;
		if (!create)
			return NULL;
		e->present = true;
		t->count++;
		return e;
	}
	if (!create) {
		h = htab_count(t->sparse) ? htab_find(t->sparse, &id, sizeof(id)) : NULL;
		return h ? h->val.p : NULL;
	}
	h = htab_upsert(t->sparse, &id, sizeof(id), &created);
	if (created) {
		h->val.p = xcalloc(1, sizeof(struct stack_entry));
		t->count++;
	}
	return h->val.p;
}

bool stack_table_define(struct stack_table *t, const struct cap_stack *st)
{
	struct stack_entry *e = stack_table_entry(t, st->id, true);

	if (e->defined)
		return false;
	if (t->nips + st->nr > t->ips_cap) {
		t->ips_cap = t->nips + st->nr > 2 * t->ips_cap ? t->nips + st->nr : 2 * t->ips_cap;
		t->ips = xreallocarray(t->ips, t->ips_cap, sizeof(*t->ips));
	}
	e->at = t->nips;
	e->nr = st->nr;
	e->defined = true;
	for (uint32_t i = 0; i < st->nr; i++)
		t->ips[t->nips++] = cap_stack_ip(st, i);
	return true;
}
