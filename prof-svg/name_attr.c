#include "name_attr.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "htab.h"
#include "stream.h"
#include "xml_text.h"

struct name_attrs {
	struct htab *names; /* name -> index + 1 into attrs */
	struct name_attr *attrs;
	size_t n;
};

/* A growable string, for escaping into memory. */
struct sbuf {
	char *p;
	size_t len, cap;
};

static void sb_add(struct sbuf *b, const char *s, size_t n)
{
	if (b->len + n + 1 > b->cap) {
		b->cap = (b->len + n + 1) * 2;
		b->p = xrealloc(b->p, b->cap);
	}
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = '\0';
}

static void sb_escaped(struct sbuf *b, const char *s, size_t n)
{
	char *mem = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&mem, &size);

	if (!f)
		errx(EXIT_USAGE, "out of memory");
	xml_put(f, s, n);
	fclose(f);
	sb_add(b, mem, size);
	free(mem);
}

static bool attr_name_ok(const char *s, size_t n)
{
	if (n == 0 || n > 64 || !(isalpha((unsigned char)s[0]) || s[0] == '_'))
		return false;
	for (size_t i = 0; i < n; i++)
		if (!isalnum((unsigned char)s[i]) && !strchr("_-.:", s[i]))
			return false;
	if (n >= 2 && tolower((unsigned char)s[0]) == 'o' && tolower((unsigned char)s[1]) == 'n')
		return false; /* event handlers */
	/* Scripts and fetches, and what prof-svg itself writes. */
	static const char *const banned[] = { "style", "href", "xlink:href", "src", "xmlns",
					      "id", "class", "target",
					      "begin", "end", "values", "from", "to", "by",
					      "attributeName" };
	for (size_t i = 0; i < sizeof(banned) / sizeof(*banned); i++)
		if (strlen(banned[i]) == n && strncasecmp(banned[i], s, n) == 0)
			return false;
	if (n >= 6 && strncasecmp(s, "xmlns:", 6) == 0)
		return false;
	if (n >= 5 && strncasecmp(s, "data-", 5) == 0)
		return false;
	return true;
}

/* Presentation attributes (fill, mask, clip-path, filter, cursor, ...)
 * take url(), which Chromium fetches: a value that could spell it, in any
 * case or spacing or through a CSS escape (\75 rl), is not written. */
static bool attr_value_ok(const char *v, size_t n)
{
	char seen[4];
	size_t k = 0;

	for (size_t i = 0; i < n; i++) {
		char c = (char)tolower((unsigned char)v[i]);
		if (c == '\\')
			return false;
		if (isspace((unsigned char)c))
			continue;
		if (k == sizeof(seen)) {
			memmove(seen, seen + 1, sizeof(seen) - 1);
			k--;
		}
		seen[k++] = c;
		if (k == 4 && memcmp(seen, "url(", 4) == 0)
			return false;
	}
	return true;
}

char *name_attrs_sanitize_extra(const char *raw, size_t *dropped)
{
	struct sbuf b = { 0 };
	const char *p = raw;

	sb_add(&b, "", 0);
	while (*p) {
		while (isspace((unsigned char)*p))
			p++;
		if (!*p)
			break;
		const char *name = p;
		while (*p && *p != '=' && !isspace((unsigned char)*p))
			p++;
		size_t nlen = (size_t)(p - name);
		if (*p != '=' || (p[1] != '"' && p[1] != '\'')) {
			(*dropped)++;
			while (*p && !isspace((unsigned char)*p))
				p++;
			continue;
		}
		char quote = p[1];
		const char *val = p + 2, *close = strchr(val, quote);
		if (!close) {
			(*dropped)++;
			break;
		}
		p = close + 1;
		if (!attr_name_ok(name, nlen) || !attr_value_ok(val, (size_t)(close - val))) {
			(*dropped)++;
			continue;
		}
		sb_add(&b, " ", 1);
		sb_add(&b, name, nlen);
		sb_add(&b, "=\"", 2);
		sb_escaped(&b, val, (size_t)(close - val));
		sb_add(&b, "\"", 1);
	}
	return b.p;
}

int name_attrs_href_ok(const char *href)
{
	char scheme[16];
	size_t n = 0;

	for (const char *p = href; *p && n < sizeof(scheme) - 1; p++) {
		unsigned char c = (unsigned char)*p;
		if (c <= ' ')
			continue; /* browsers ignore these inside a scheme */
		if (c == ':')
			break;
		scheme[n++] = (char)tolower(c);
	}
	scheme[n] = '\0';
	if (!strchr(href, ':'))
		return 1;
	return strcmp(scheme, "javascript") && strcmp(scheme, "vbscript") && strcmp(scheme, "data");
}

static char *escaped_dup(const char *s)
{
	struct sbuf b = { 0 };

	sb_add(&b, "", 0);
	sb_escaped(&b, s, strlen(s));
	return b.p;
}

static void set(char **slot, const char *value)
{
	free(*slot);
	*slot = escaped_dup(value);
}

struct name_attrs *name_attrs_load(const char *path, size_t *bad)
{
	FILE *f = input_open(path);
	struct name_attrs *na = xcalloc(1, sizeof(*na));
	char *line = NULL;
	size_t cap = 0, lineno = 0;
	ssize_t got;

	na->names = htab_new();
	while ((got = getline(&line, &cap, f)) > 0) {
		size_t len = (size_t)got;
		lineno++;
		while (len && (line[len - 1] == '\n' || line[len - 1] == '\r'))
			line[--len] = '\0';
		if (!len)
			continue;
		char *save = NULL, *name = strtok_r(line, "\t", &save);
		if (!name || !*name)
			continue;
		bool created;
		struct htab_entry *e = htab_upsert(na->names, name, strlen(name), &created);
		if (created) {
			na->attrs = xreallocarray(na->attrs, na->n + 1, sizeof(*na->attrs));
			memset(&na->attrs[na->n], 0, sizeof(*na->attrs));
			e->val.u = ++na->n;
		}
		struct name_attr *a = &na->attrs[e->val.u - 1];
		for (char *field; (field = strtok_r(NULL, "\t", &save));) {
			char *eq = strchr(field, '=');
			size_t dropped = 0;
			if (!eq || eq == field) {
				warnx("%s:%zu: attribute \"%s\" is not key=value; skipped", path,
				      lineno, field);
				(*bad)++;
				continue;
			}
			*eq = '\0';
			const char *key = field, *val = eq + 1;
			if (!strcmp(key, "id"))
				set(&a->id, val);
			else if (!strcmp(key, "class"))
				set(&a->cls, val);
			else if (!strcmp(key, "title"))
				set(&a->title, val);
			else if (!strcmp(key, "target"))
				set(&a->target, val);
			else if (!strcmp(key, "href")) {
				if (name_attrs_href_ok(val)) {
					set(&a->href, val);
				} else {
					warnx("%s:%zu: unsafe href skipped", path, lineno);
					(*bad)++;
				}
			} else if (!strcmp(key, "g_extra") || !strcmp(key, "a_extra")) {
				char **slot = key[0] == 'g' ? &a->g_extra : &a->a_extra;
				free(*slot);
				*slot = name_attrs_sanitize_extra(val, &dropped);
				if (dropped) {
					warnx("%s:%zu: %zu unsafe or malformed attribute(s) in %s "
					      "skipped", path, lineno, dropped, key);
					(*bad)++;
				}
			} else {
				warnx("%s:%zu: unknown attribute \"%s\" skipped", path, lineno, key);
				(*bad)++;
			}
		}
	}
	if (ferror(f))
		err(EXIT_USAGE, "%s", path);
	free(line);
	if (f != stdin)
		fclose(f);
	return na;
}

void name_attrs_free(struct name_attrs *na)
{
	if (!na)
		return;
	for (size_t i = 0; i < na->n; i++) {
		struct name_attr *a = &na->attrs[i];
		free(a->id), free(a->cls), free(a->title), free(a->href);
		free(a->target), free(a->g_extra), free(a->a_extra);
	}
	free(na->attrs);
	htab_free(na->names);
	free(na);
}

const struct name_attr *name_attrs_find(struct name_attrs *na, const char *s, size_t len)
{
	struct htab_entry *e = na ? htab_find(na->names, s, len) : NULL;

	return e ? &na->attrs[e->val.u - 1] : NULL;
}
