/*
 * A capture's stacks by id, each with the sink's cache slot for its first
 * user.
 *
 * prof-sample numbers stacks 1, 2, 3...: they live in an array indexed by
 * id, so a capture of many stacks, each used about once, is read without
 * a hash lookup (a cache miss or two) per record.  Ids far beyond the
 * number of stacks (another writer's numbering, a forged capture) go to a
 * hash table, which keeps memory proportional to the stacks.
 */
#ifndef PROF_SYMBOLIZE_STACK_TABLE_H
#define PROF_SYMBOLIZE_STACK_TABLE_H

#include <stdbool.h>
#include <stdint.h>

#include "capture.h"
#include "htab.h"

/* A stack id that a STACK record defined or a SAMPLE named. */
struct stack_entry {
	uint64_t at; /* of its frames in the table's ips */
	uint32_t nr;
	bool present; /* in the dense array: the id has an entry */
	bool defined; /* by a STACK record (else only named so far) */
	/* The first (pid, generation) whose slot this is: nearly every
	 * stack belongs to one process, whose cached text needs no hashing. */
	bool slot_used;
	uint32_t slot_pid, slot_generation;
	void *slot;
};

struct stack_table {
	struct stack_entry *dense; /* by id, below ndense */
	uint64_t ndense;
	struct htab *sparse; /* id -> struct stack_entry *, the others */
	uint64_t *ips;	     /* the defined stacks' frames, one after another */
	uint64_t nips, ips_cap;
	uint64_t count; /* entries, for the dense part's bound */
};

void stack_table_init(struct stack_table *t);

/* Frees the table, passing each used slot to free_slot. */
void stack_table_free(struct stack_table *t, void (*free_slot)(void *));

/* The entry of id (not 0), created (undefined) if create and absent, else
 * NULL if absent; valid until the next entry is created. */
struct stack_entry *stack_table_entry(struct stack_table *t, uint32_t id, bool create);

/* Defines st's id as st; false if a STACK record defined it already. */
bool stack_table_define(struct stack_table *t, const struct cap_stack *st);

/* The frames of a defined entry, leaf first; valid until the next define.
 * Stacks of no frames, the only ones defined, have no array to point in. */
static inline const uint64_t *stack_table_ips(const struct stack_table *t,
					      const struct stack_entry *e)
{
	static const uint64_t none[1];

	return t->ips ? t->ips + e->at : none;
}

#endif
