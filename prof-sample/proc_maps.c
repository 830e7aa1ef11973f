#include "proc_maps.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>

#include "build_id.h"
#include "diag.h"

struct cached_id {
	uint8_t len;
	uint8_t id[BUILD_ID_MAX];
};

static const struct cached_id *lookup_id(struct htab *ids, uint32_t pid, const struct cap_map *m,
					 const char *path)
{
	uint64_t key[2] = { m->dev, m->inode };
	bool created;
	struct htab_entry *e = htab_upsert(ids, key, sizeof(key), &created);
	struct cached_id *c;
	char file[128];

	if (!created)
		return e->val.p;
	c = xcalloc(1, sizeof(*c));
	e->val.p = c;
	/* map_files reaches the very file that is mapped, even when it was
	 * deleted or lives in another mount namespace; the path through the
	 * process's root is the fallback where map_files is not readable. */
	snprintf(file, sizeof(file), "/proc/%" PRIu32 "/map_files/%" PRIx64 "-%" PRIx64, pid,
		 m->start, m->end);
	c->len = (uint8_t)file_build_id(file, c->id);
	if (!c->len && path[0] == '/') {
		char *alt;
		if (asprintf(&alt, "/proc/%" PRIu32 "/root%s", pid, path) >= 0) {
			c->len = (uint8_t)file_build_id(alt, c->id);
			free(alt);
		}
	}
	return c;
}

bool proc_write_maps(struct cap_writer *w, uint32_t pid, struct htab *ids)
{
	char name[64], *line = NULL;
	size_t cap = 0;
	ssize_t n;
	FILE *f;

	snprintf(name, sizeof(name), "/proc/%" PRIu32 "/maps", pid);
	f = fopen(name, "r");
	if (!f)
		return false;
	while ((n = getline(&line, &cap, f)) > 0) {
		unsigned long long start, end, pgoff, inode;
		unsigned int major, minor;
		char perms[8];
		int path_at = 0;
		struct cap_map m;

		if (line[n - 1] == '\n')
			line[--n] = '\0';
		if (sscanf(line, "%llx-%llx %7s %llx %x:%x %llu %n", &start, &end, perms, &pgoff,
			   &major, &minor, &inode, &path_at) < 7)
			continue;
		if (perms[2] != 'x')
			continue;
		const char *path = line + path_at;
		m = (struct cap_map){
			.pid = pid,
			.start = start,
			.end = end,
			.pgoff = pgoff,
			.dev = makedev(major, minor),
			.inode = inode,
			.path = cap_cstr(path),
		};
		if (inode) {
			const struct cached_id *c = lookup_id(ids, pid, &m, path);
			m.build_id_len = c->len;
			m.build_id = c->id;
		}
		capw_map(w, &m);
	}
	free(line);
	fclose(f);
	return true;
}

void proc_ids_free(struct htab *ids)
{
	struct htab_entry *e = htab_entries(ids);

	for (size_t i = 0; i < htab_count(ids); i++)
		free(e[i].val.p);
	htab_free(ids);
}
