#include "folded_read.h"

#include <stdlib.h>
#include <string.h>

/* The counts of a stack line, false if it lacks a column the input has
 * (with FOLDED_ANY its first stack line decides how many). */
static bool stack_line(const struct folded_line *l, enum folded_role role, struct folded_stats *st,
		       double *before, double *after)
{
	int columns = role == FOLDED_ANY ? st->columns : 1;

	if (columns == 2 && l->ncounts != 2)
		return false;
	if (role == FOLDED_ANY)
		st->columns = (int)l->ncounts;
	*after = folded_count_double(&l->count[l->ncounts - 1]);
	*before = l->ncounts == 2 ? folded_count_double(&l->count[0]) : 0;
	return true;
}

static void note_bad(struct folded_stats *st, const char *line, size_t len, size_t lineno)
{
	if (!st->bad++) {
		st->first_bad = lineno;
		st->first_bad_len =
		    len < sizeof(st->first_bad_text) ? len : sizeof(st->first_bad_text);
		memcpy(st->first_bad_text, line, st->first_bad_len);
	}
	st->indented += line[0] == '\t' || line[0] == ' ';
}

bool folded_read_each(struct line_reader *r, enum folded_role role, struct folded_stats *st,
		      struct folded_time *time, folded_stack_fn fn, void *ctx)
{
	const char *line;
	size_t len;
	uint64_t cut = r->cut;

	while ((line = lr_next(r, &len)) != NULL) {
		size_t lineno = (size_t)r->lineno;
		struct folded_line l;
		double before, after;
		/* Two counts are looked for until a stack line has one. */
		size_t max_counts = role == FOLDED_ANY && st->columns != 1 ? 2 : 1;

		/* Its count was cut off with its end. */
		if (r->cut != cut) {
			cut = r->cut;
			note_bad(st, line, len, lineno);
			continue;
		}
		switch (folded_parse(line, len, max_counts, &l)) {
		case FOLDED_BLANK:
			continue;
		case FOLDED_COMMENT:
			/* prof-fold says so when its counts are not samples. */
			if (l.unit) {
				memcpy(st->unit, l.unit, l.unit_len);
				st->unit[l.unit_len] = '\0';
			}
			if (l.timed) {
				time->slot = l.time_ns;
				if (!time->timed)
					time->slot_ns = l.slot_ns;
				time->timed = true;
			}
			continue;
		case FOLDED_NO_COUNT:
		case FOLDED_BAD_COUNT:
			note_bad(st, line, len, lineno);
			continue;
		case FOLDED_STACK:
			break;
		}
		if (!stack_line(&l, role, st, &before, &after)) {
			note_bad(st, line, len, lineno);
			continue;
		}
		st->lines++;
		if (!fn(ctx, line, &l, before, after, time, lineno))
			return false;
	}
	return true;
}

struct tree_reader {
	struct frame_tree *t;
	enum folded_role role;
	bool reverse;
	struct folded_stats *st;
	struct timeline *tl;
};

static bool add_to_tree(void *ctx, const char *line, const struct folded_line *l, double before,
			double after, const struct folded_time *time, size_t lineno)
{
	struct tree_reader *tr = ctx;
	struct frame_tree *t = tr->t;
	struct timeline *tl = tr->tl;
	uint32_t leaf;

	if (tr->role == FOLDED_ANY && tr->st->columns == 2 && !t->diff)
		ft_enable_diff(t);
	switch (tr->role) {
	case FOLDED_ANY:
		leaf = ft_add(t, line, l->stack_len, tr->reverse, after, before);
		break;
	case FOLDED_BEFORE:
		leaf = ft_add(t, line, l->stack_len, tr->reverse, 0, after);
		break;
	case FOLDED_AFTER:
	default:
		leaf = ft_add(t, line, l->stack_len, tr->reverse, after, 0);
		break;
	}
	if (tl && time->timed) {
		timeline_add(tl, time->slot, leaf, after);
	} else if (tl && !tl->untimed++) {
		tl->first_untimed = lineno;
	}
	return true;
}

void folded_read(struct line_reader *r, struct frame_tree *t, enum folded_role role, bool reverse,
		 struct folded_stats *st, struct timeline *tl)
{
	struct tree_reader tr = { t, role, reverse, st, tl };
	struct folded_time time = { 0 };

	folded_read_each(r, role, st, &time, add_to_tree, &tr);
	/* The slots' length is the first time line's, stacks or none. */
	if (tl && time.timed && !tl->slot_ns)
		tl->slot_ns = time.slot_ns;
}
