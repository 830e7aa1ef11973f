/*
 * Folded stacks as input: "root;...;leaf COUNT" lines, from prof-fold,
 * FlameGraph's stackcollapse scripts or inferno, to merge several files or
 * re-filter one.  Equal stacks are summed; the count is the last
 * space-separated field; lines starting with '#' are comments.  --no-comm
 * drops each stack's root frame and --skip-after cuts it at the function
 * nearest the leaf.
 */
#include <string.h>

#include "diag.h"
#include "fold.h"

static bool parse_count(const char *s, size_t len, uint64_t *count)
{
	uint64_t v = 0;

	if (len == 0 || len > 19)
		return false;
	for (size_t i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return false;
		v = v * 10 + (uint64_t)(s[i] - '0');
	}
	*count = v;
	return true;
}

/* Cuts stack[0..*len) to start at the frame nearest the leaf that equals a
 * --skip-after function; returns the new start. */
static const char *skip_after(const struct fold_opts *o, const char *s,
			      size_t *len)
{
	size_t end = *len;

	while (end > 0) {
		const char *semi = memrchr(s, ';', end);
		size_t start = semi ? (size_t)(semi - s) + 1 : 0;
		for (size_t i = 0; i < o->nskip_after; i++) {
			const char *f = o->skip_after[i];
			if (strlen(f) == end - start &&
			    memcmp(f, s + start, end - start) == 0) {
				*len -= start;
				return s + start;
			}
		}
		if (!semi)
			break;
		end = start - 1;
	}
	return s;
}

/* A unit is a short plain word: it reaches a graph's tooltips. */
static void note_unit(struct fold_agg *agg, const char *s, size_t len)
{
	char unit[64];

	if (len >= sizeof(unit))
		return;
	for (size_t i = 0; i < len; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
		      (s[i] >= '0' && s[i] <= '9') || strchr("-_.:", s[i])))
			return;
	memcpy(unit, s, len);
	unit[len] = '\0';
	agg_note_unit(agg, unit);
}

uint64_t folded_parse_input(const struct fold_opts *o, struct fold_agg *agg,
			    struct line_reader *r)
{
	struct fold_diag d = { .name = r->name };
	const char *s;
	size_t len;
	uint64_t count;

	while ((s = lr_next(r, &len)) != NULL) {
		while (len > 0 && (s[len - 1] == ' ' || s[len - 1] == '\t'))
			len--;
		if (len == 0)
			continue;
		/* Comments, as prof-svg reads them; "# count: UNIT" says
		 * what the counts are. */
		if (s[0] == '#') {
			if (len > 9 && memcmp(s, "# count: ", 9) == 0)
				note_unit(agg, s + 9, len - 9);
			continue;
		}
		const char *sp = memrchr(s, ' ', len);
		if (!sp) {
			diag_bad_line(&d, o, r->lineno, "folded line without a count");
			continue;
		}
		size_t slen = (size_t)(sp - s);
		if (!parse_count(sp + 1, len - slen - 1, &count)) {
			diag_bad_line(&d, o, r->lineno, "folded line with a bad count");
			continue;
		}
		if (o->no_comm) {
			const char *semi = memchr(s, ';', slen);
			if (!semi)
				continue;
			slen -= (size_t)(semi + 1 - s);
			s = semi + 1;
		}
		if (o->nskip_after)
			s = skip_after(o, s, &slen);
		if (slen > 0) {
			uint64_t sat = agg->saturated, nt = agg->not_text;
			agg_add(agg, s, slen, count);
			if (agg->saturated != sat)
				diag_saturated(&d, r->lineno);
			if (agg->not_text != nt)
				diag_not_text(&d, r->lineno, agg->not_text - nt);
		}
	}
	return diag_report(&d);
}
