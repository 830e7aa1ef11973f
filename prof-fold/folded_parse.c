/*
 * Folded stacks as input: "root;...;leaf COUNT" lines, from prof-fold,
 * FlameGraph's stackcollapse scripts or inferno, to merge several files or
 * re-filter one.  common/folded.c reads the lines; here equal stacks are
 * summed, exactly, so a count must be a whole number of 64 bits.
 * --no-comm drops each stack's root frame and --skip-after cuts it at the
 * function nearest the leaf.
 */
#include <string.h>

#include "diag.h"
#include "fold.h"
#include "folded.h"

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

/* "# count: UNIT": what the counts are. */
static void note_unit(struct fold_agg *agg, const struct folded_line *l)
{
	char unit[FOLDED_UNIT_MAX + 1];

	memcpy(unit, l->unit, l->unit_len);
	unit[l->unit_len] = '\0';
	agg_note_unit(agg, unit);
}

uint64_t folded_parse_input(const struct fold_opts *o, struct fold_agg *agg,
			    struct line_reader *r)
{
	struct fold_diag d = { .name = r->name };
	const char *s;
	size_t len;
	uint64_t count, end_ns = 0, cut = r->cut;
	bool timed = false;

	while ((s = lr_next(r, &len)) != NULL) {
		struct folded_line l;
		/* Its count was cut off with its end. */
		if (r->cut != cut) {
			cut = r->cut;
			diag_bad_line(&d, o, r->lineno, "folded line longer than 16 MiB");
			continue;
		}
		switch (folded_parse(s, len, 1, &l)) {
		case FOLDED_BLANK:
			continue;
		case FOLDED_COMMENT:
			if (l.unit)
				note_unit(agg, &l);
			/* A time line: its stacks go to the slot its start
			 * falls in. */
			if (l.timed) {
				timed = true;
				end_ns = l.time_ns + 1;
			}
			continue;
		case FOLDED_NO_COUNT:
			diag_bad_line(&d, o, r->lineno, "folded line without a count");
			continue;
		case FOLDED_BAD_COUNT:
			diag_bad_line(&d, o, r->lineno, "folded line with a bad count");
			continue;
		case FOLDED_STACK:
			break;
		}
		/* Counts are summed exactly: whole numbers of 64 bits. */
		if (!folded_count_u64(&l.count[0], &count)) {
			diag_bad_line(&d, o, r->lineno, "folded line with a bad count");
			continue;
		}
		if (o->slot_ns && !timed) {
			diag_bad_line(&d, o, r->lineno, "stack before any time line (--timed)");
			continue;
		}
		size_t slen = l.stack_len;
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
			size_t idx = agg_add(agg, s, slen, count);
			if (o->slot_ns)
				agg_time(agg, idx, end_ns, count, 0);
			if (agg->saturated != sat)
				diag_saturated(&d, r->lineno);
			if (agg->not_text != nt)
				diag_not_text(&d, r->lineno, agg->not_text - nt);
		}
	}
	return diag_report(&d);
}
