#include "palette_map.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "diag.h"
#include "htab.h"
#include "sort.h"
#include "stream.h"

struct palette_map {
	char *path;
	struct htab *names; /* name -> packed rgb */
	bool changed;
};

static uint64_t pack(struct rgb c)
{
	return (uint64_t)c.r << 16 | (uint64_t)c.g << 8 | c.b;
}

static struct rgb unpack(uint64_t v)
{
	return (struct rgb){ (uint8_t)(v >> 16), (uint8_t)(v >> 8), (uint8_t)v };
}

struct palette_map *palette_map_load(const char *path, size_t *bad)
{
	struct palette_map *m = xcalloc(1, sizeof(*m));
	char *line = NULL;
	size_t cap = 0, lineno = 0;
	ssize_t got;
	FILE *f;

	m->path = xstrdup(path);
	m->names = htab_new();
	f = fopen(path, "r");
	if (!f) {
		if (errno != ENOENT)
			err(EXIT_USAGE, "%s", path);
		return m;
	}
	while ((got = getline(&line, &cap, f)) > 0) {
		size_t len = (size_t)got;
		struct rgb c;
		lineno++;
		while (len && (line[len - 1] == '\n' || line[len - 1] == '\r'))
			len--;
		if (!len)
			continue;
		char *arrow = NULL;
		for (size_t i = len; i >= 2; i--)
			if (line[i - 2] == '-' && line[i - 1] == '>') {
				arrow = line + i - 2;
				break;
			}
		if (!arrow || !palette_parse_rgb(arrow + 2, len - (size_t)(arrow + 2 - line), &c)) {
			if (!(*bad)++ || *bad <= 5)
				warnx("%s:%zu: not NAME->rgb(R,G,B); skipped", path, lineno);
			continue;
		}
		htab_upsert(m->names, line, (size_t)(arrow - line), NULL)->val.u = pack(c);
	}
	if (ferror(f))
		err(EXIT_USAGE, "%s", path);
	free(line);
	fclose(f);
	return m;
}

void palette_map_free(struct palette_map *m)
{
	if (!m)
		return;
	htab_free(m->names);
	free(m->path);
	free(m);
}

struct rgb palette_map_get(struct palette_map *m, const char *s, size_t len, struct rgb fresh)
{
	bool created;
	struct htab_entry *e = htab_upsert(m->names, s, len, &created);

	if (created) {
		e->val.u = pack(fresh);
		m->changed = true;
	}
	return unpack(e->val.u);
}

static int cmp_entry(const void *a, const void *b)
{
	const struct htab_entry *x = *(const struct htab_entry *const *)a;
	const struct htab_entry *y = *(const struct htab_entry *const *)b;
	size_t n = x->len < y->len ? x->len : y->len;
	int c = memcmp(x->key, y->key, n);

	return c ? c : (x->len > y->len) - (x->len < y->len);
}

bool palette_map_save(struct palette_map *m)
{
	size_t n = htab_count(m->names);
	struct htab_entry *e = htab_entries(m->names), **order;
	char *tmp;
	FILE *f;
	bool ok;

	if (!m->changed)
		return true;
	order = xreallocarray(NULL, n, sizeof(*order));
	for (size_t i = 0; i < n; i++)
		order[i] = &e[i];
	sort_array(order, n, sizeof(*order), cmp_entry);
	if (asprintf(&tmp, "%s.tmp", m->path) < 0)
		errx(EXIT_USAGE, "out of memory");
	f = output_open(tmp, false);
	for (size_t i = 0; i < n; i++) {
		struct rgb c = unpack(order[i]->val.u);
		fwrite(order[i]->key, 1, order[i]->len, f);
		fprintf(f, "->rgb(%d,%d,%d)\n", c.r, c.g, c.b);
	}
	ok = output_close(f, tmp);
	if (ok && rename(tmp, m->path) != 0) {
		warn("%s", m->path);
		ok = false;
	}
	if (!ok)
		unlink(tmp);
	free(tmp);
	free(order);
	return ok;
}
