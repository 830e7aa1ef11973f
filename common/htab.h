/*
 * A hash table from byte-string keys to a 64-bit value, for the things every
 * stage counts or deduplicates: stacks, symbols, modules.
 *
 * Keys are copied into an arena owned by the table, so callers may pass
 * transient buffers.  Entries live in insertion order in one array, which
 * makes iteration deterministic and sorting cheap; an entry pointer is valid
 * until the next insertion.
 */
#ifndef PROF_HTAB_H
#define PROF_HTAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct htab_entry {
	const void *key;
	uint32_t len;
	uint64_t hash;
	union {
		uint64_t u;
		int64_t i;
		void *p;
	} val;
};

struct htab;

struct htab *htab_new(void);
void htab_free(struct htab *h);

/* Frees a table whose values are pointers, each passed to free_value
 * first (free, or the owner's destructor). */
void htab_free_values(struct htab *h, void (*free_value)(void *));

/* Hash used by the table; exposed so callers can hash once and reuse. */
uint64_t htab_hash(const void *key, size_t len);

struct htab_entry *htab_find(struct htab *h, const void *key, size_t len);

/* Returns the entry for key, creating it (value zero) if absent; *created
 * tells which, when not NULL. */
struct htab_entry *htab_upsert(struct htab *h, const void *key, size_t len,
			       bool *created);

/* htab_upsert for a key whose htab_hash() is known. */
struct htab_entry *htab_upsert_hashed(struct htab *h, const void *key, size_t len,
				      uint64_t hash, bool *created);

/* Removes key if present; returns whether it was.  The last entry moves
 * into the removed one's place, so insertion order is not kept after a
 * removal, and entry pointers are invalidated; so are the entries' key
 * pointers, since the keys may move to a smaller arena. */
bool htab_remove(struct htab *h, const void *key, size_t len);

/* Removes every entry for which drop(entry, arg) is true (drop frees what
 * the entry's value owns before it says so); returns how many.  As with
 * htab_remove, the order of what is left is not kept. */
size_t htab_remove_if(struct htab *h, bool (*drop)(struct htab_entry *e, void *arg), void *arg);

size_t htab_count(const struct htab *h);

/* The entries in insertion order. */
struct htab_entry *htab_entries(struct htab *h);

/* Bytes held by the table, for memory accounting. */
size_t htab_bytes(const struct htab *h);

#endif
