#include "modules.h"

#include <stdlib.h>
#include <string.h>

#include "diag.h"

void modules_init(struct modules *m)
{
	m->byid = htab_new();
	m->failed = 0;
}

void modules_free(struct modules *m)
{
	struct htab_entry *e = htab_entries(m->byid);

	for (size_t i = 0; i < htab_count(m->byid); i++) {
		struct module *mod = e[i].val.p;
		elf_symtab_free(&mod->symtab);
		free(mod->path);
		free(mod);
	}
	htab_free(m->byid);
}

static bool is_special(const char *path)
{
	return path[0] != '/';
}

struct module *modules_get(struct modules *m, const struct cap_map *map)
{
	/* The key is the build-id, with the path appended so two files
	 * without build-ids stay apart; a leading byte separates the two. */
	size_t plen = map->path.len, klen = 1 + map->build_id_len + plen;
	char *key = xmalloc(klen);
	bool created;
	struct htab_entry *e;
	struct module *mod;
	char why[256];

	key[0] = (char)map->build_id_len;
	memcpy(key + 1, map->build_id, map->build_id_len);
	memcpy(key + 1 + map->build_id_len, map->path.s, plen);
	e = htab_upsert(m->byid, key, klen, &created);
	free(key);
	if (!created)
		return e->val.p;

	mod = xcalloc(1, sizeof(*mod));
	e->val.p = mod;
	mod->path = xstrndup(map->path.s, plen);
	if (is_special(mod->path))
		return mod;
	mod->loaded = elf_symtab_load(&mod->symtab, mod->path, map->build_id, map->build_id_len,
				      why, sizeof(why));
	if (!mod->loaded) {
		m->failed++;
		warnx("%s: %s; its frames stay unresolved", mod->path, why);
	}
	return mod;
}
