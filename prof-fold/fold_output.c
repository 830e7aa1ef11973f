/*
 * Stack -> count aggregation and the sorted output.
 *
 * Stacks are counted in a hash table keyed by the whole folded stack, so
 * memory grows with the number of distinct stacks, not with the input.  The
 * --filter and --exclude regular expressions are a property of a stack, so
 * they are tested once per distinct stack, at output.
 */
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "fold.h"
#include "folded.h"
#include "sort.h"

void agg_init(struct fold_agg *a)
{
	memset(a, 0, sizeof(*a));
	a->stacks = htab_new();
}

void agg_free(struct fold_agg *a)
{
	for (size_t i = 0; i < a->nfilters; i++)
		regfree(&a->filters[i]);
	for (size_t i = 0; i < a->nexcludes; i++)
		regfree(&a->excludes[i]);
	free(a->filters);
	free(a->excludes);
	free(a->unit);
	free(a->text);
	free(a->timed);
	htab_free(a->stacks);
}

/* No NUL byte, and well-formed UTF-8 (no overlong forms, no surrogates,
 * nothing past U+10FFFF). */
static bool is_text(const unsigned char *s, size_t n)
{
	for (size_t i = 0; i < n;) {
		unsigned char c = s[i];
		size_t more;
		unsigned int cp;
		if (c >= 0x01 && c < 0x80) {
			i++;
			continue;
		}
		if (c >= 0xc2 && c <= 0xdf)
			more = 1, cp = c & 0x1f;
		else if (c >= 0xe0 && c <= 0xef)
			more = 2, cp = c & 0x0f;
		else if (c >= 0xf0 && c <= 0xf4)
			more = 3, cp = c & 0x07;
		else
			return false; /* NUL, a continuation byte, or never valid */
		if (n - i <= more)
			return false;
		for (size_t k = 1; k <= more; k++) {
			if ((s[i + k] & 0xc0) != 0x80)
				return false;
			cp = cp << 6 | (s[i + k] & 0x3f);
		}
		if ((more == 2 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) ||
		    (more == 3 && (cp < 0x10000 || cp > 0x10ffff)))
			return false;
		i += more + 1;
	}
	return true;
}

static void add_count(struct fold_agg *a, struct htab_entry *e, uint64_t count)
{
	if (e->val.u + count < e->val.u) {
		e->val.u = UINT64_MAX;
		a->saturated++;
	} else {
		e->val.u += count;
	}
}

size_t agg_add(struct fold_agg *a, const char *stack, size_t len, uint64_t count)
{
	bool created;
	struct htab_entry *e = htab_upsert(a->stacks, stack, len, &created);

	/* Checked once per distinct stack: the cost stays off the per-line
	 * path. */
	if (created && !is_text((const unsigned char *)stack, len))
		a->not_text++;
	add_count(a, e, count);
	return (size_t)(e - htab_entries(a->stacks));
}

void agg_add_at(struct fold_agg *a, size_t idx, uint64_t count)
{
	add_count(a, &htab_entries(a->stacks)[idx], count);
}

bool agg_add_regex(struct fold_agg *a, const char *re, bool exclude,
		   char *errbuf, size_t errlen)
{
	regex_t **list = exclude ? &a->excludes : &a->filters;
	size_t *n = exclude ? &a->nexcludes : &a->nfilters;
	regex_t rx;
	int rc = regcomp(&rx, re, REG_EXTENDED | REG_NOSUB);

	if (rc != 0) {
		regerror(rc, &rx, errbuf, errlen);
		return false;
	}
	*list = xreallocarray(*list, *n + 1, sizeof(**list));
	(*list)[(*n)++] = rx;
	return true;
}

static bool matches(const regex_t *rx, const char *stack, size_t len)
{
	regmatch_t m = { .rm_so = 0, .rm_eo = (regoff_t)len };

	return regexec(rx, stack, 1, &m, REG_STARTEND) == 0;
}

static bool kept(struct fold_agg *a, const struct htab_entry *e)
{
	bool any = a->nfilters == 0;

	if (any && a->nexcludes == 0)
		return true;
	/* REG_STARTEND says where the stack ends, but a sanitizer's regexec
	 * still runs strlen() over it, and a key has no NUL after it. */
	if (a->text_cap < (size_t)e->len + 1) {
		a->text_cap = (size_t)e->len + 1;
		a->text = xrealloc(a->text, a->text_cap);
	}
	memcpy(a->text, e->key, e->len);
	a->text[e->len] = '\0';
	for (size_t i = 0; i < a->nfilters && !any; i++)
		any = matches(&a->filters[i], a->text, e->len);
	if (!any)
		return false;
	for (size_t i = 0; i < a->nexcludes; i++)
		if (matches(&a->excludes[i], a->text, e->len))
			return false;
	return true;
}

static int bytewise(const void *x, const void *y)
{
	const struct htab_entry *a = *(const struct htab_entry *const *)x;
	const struct htab_entry *b = *(const struct htab_entry *const *)y;
	size_t n = a->len < b->len ? a->len : b->len;
	int c = memcmp(a->key, b->key, n);

	if (c)
		return c;
	return a->len < b->len ? -1 : a->len > b->len;
}

void agg_note_unit(struct fold_agg *a, const char *unit)
{
	if (a->unit_conflict)
		return;
	if (!a->unit) {
		a->unit = xstrdup(unit);
		return;
	}
	if (strcmp(a->unit, unit) != 0) {
		warnx("the inputs count in different units (%s and %s): their counts are "
		      "summed as they are", a->unit, unit);
		a->unit_conflict = true;
	}
}

void agg_write(struct fold_agg *a, FILE *out)
{
	size_t n = htab_count(a->stacks), k = 0;
	struct htab_entry *e = htab_entries(a->stacks);
	struct htab_entry **v = xreallocarray(NULL, n ? n : 1, sizeof(*v));

	/* Samples are what every reader assumes; another unit is said, for
	 * prof-svg's tooltips (FlameGraph's tools skip the line). */
	if (a->unit && !a->unit_conflict && strcmp(a->unit, "samples") != 0)
		folded_write_unit(out, a->unit);

	for (size_t i = 0; i < n; i++)
		if (kept(a, &e[i]))
			v[k++] = &e[i];
	sort_array(v, k, sizeof(*v), bytewise);
	if (a->slot_ns) {
		agg_write_timed(a, out, v, k);
	} else {
		for (size_t i = 0; i < k; i++)
			folded_write_stack(out, v[i]->key, v[i]->len, v[i]->val.u);
	}
	free(v);
}

void diag_bad_line(struct fold_diag *d, const struct fold_opts *o,
		   uint64_t lineno, const char *what)
{
	if (o->strict)
		errx(EXIT_USAGE, "%s:%llu: %s (--strict)", d->name,
		     (unsigned long long)lineno, what);
	if (d->bad_lines++ == 0) {
		d->first_bad = lineno;
		snprintf(d->first_what, sizeof(d->first_what), "%s", what);
	}
}

void diag_saturated(struct fold_diag *d, uint64_t lineno)
{
	if (d->saturated++ == 0)
		d->first_saturated = lineno;
}

void diag_not_text(struct fold_diag *d, uint64_t lineno, uint64_t n)
{
	if (d->not_text == 0)
		d->first_not_text = lineno;
	d->not_text += n;
}

uint64_t diag_report(const struct fold_diag *d)
{
	if (d->not_text)
		warnx("%s:%llu: NUL bytes or invalid UTF-8 in %llu distinct stack%s, the first "
		      "here; passed through as they are",
		      d->name, (unsigned long long)d->first_not_text,
		      (unsigned long long)d->not_text, d->not_text == 1 ? "" : "s");
	if (d->saturated)
		warnx("%s:%llu: a stack's count passed 18446744073709551615 "
		      "(64 bits) and was kept at that", d->name,
		      (unsigned long long)d->first_saturated);
	if (d->bad_lines == 0)
		return d->saturated;
	if (d->bad_lines == 1)
		warnx("%s:%llu: %s; skipped it", d->name,
		      (unsigned long long)d->first_bad, d->first_what);
	else
		warnx("%s:%llu: %s; skipped %llu unparsable lines, this is "
		      "the first", d->name, (unsigned long long)d->first_bad,
		      d->first_what, (unsigned long long)d->bad_lines);
	return d->bad_lines + d->saturated;
}
