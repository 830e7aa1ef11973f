/*
 * The consistent palette (--cp, --palfile): a file of "NAME->rgb(R,G,B)"
 * lines that pins each name's colour across graphs.  Names missing from it
 * get their usual colour, which is added; the file is rewritten sorted.
 */
#ifndef PROF_SVG_PALETTE_MAP_H
#define PROF_SVG_PALETTE_MAP_H

#include <stdbool.h>
#include <stddef.h>

#include "palette.h"

struct palette_map;

/* Loads path if it exists (a missing file is an empty map); malformed lines
 * are warned about and counted in *bad. */
struct palette_map *palette_map_load(const char *path, size_t *bad);
void palette_map_free(struct palette_map *m);

/* The pinned colour of s[0..len), or else *fresh, which is then pinned. */
struct rgb palette_map_get(struct palette_map *m, const char *s, size_t len, struct rgb fresh);

/* Rewrites the file, sorted by name, if anything was added. */
bool palette_map_save(struct palette_map *m);

#endif
