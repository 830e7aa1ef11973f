/*
 * The frame names of a profile, interned: each distinct name gets an id,
 * dense from 0 in the order first seen.
 *
 * A deep profile has few names and many frames (50,000 deep C++ stacks:
 * 486,000 new frames, 20,000 names), so a frame costs a lookup of a name
 * already there, which waits on memory: the table is some megabytes.  A
 * lookup in common/htab.c waits three times, for the slot, its entry and
 * the key's bytes.  Here a slot leads straight to a record that holds the
 * name's length and id beside its bytes: two waits.  The records are one
 * array that moves as it grows, which is why no one else keeps a pointer
 * into it.
 */
#ifndef PROF_SVG_NAME_TABLE_H
#define PROF_SVG_NAME_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct name_table;

struct nt_key {
	const char *s;
	size_t len;
	uint64_t hash; /* set by nt_intern_many */
};

struct name_table *nt_new(void);
void nt_free(struct name_table *t);

/* Makes room for names names in all, of bytes bytes together. */
void nt_reserve(struct name_table *t, size_t names, size_t bytes);

/* The id of s[0..len), new if *created. */
uint32_t nt_intern(struct name_table *t, const char *s, size_t len, bool *created);

/* nt_intern of n keys in turn, the memory each waits on fetched for all
 * of them first, so that the waits overlap. */
void nt_intern_many(struct name_table *t, struct nt_key *keys, size_t n, uint32_t *ids,
		    bool *created);

/* Name id and its length; good until the next name is interned. */
const char *nt_name(const struct name_table *t, uint32_t id, size_t *len);

size_t nt_count(const struct name_table *t);

#endif
