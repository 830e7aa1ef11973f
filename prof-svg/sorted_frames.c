#include "sorted_frames.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "frame_kind.h"
#include "offcpu_words.h"
#include "sort.h"
#include "stack_order.h"
#include "svg_write.h"

static const char MARKER[] = OFF_CPU_MARKER;
#define MARKER_LEN (sizeof(MARKER) - 1)

/* Counts are whole and their sums exact below this: then a frame's count
 * is the counts read since it began, and its x its earlier siblings',
 * whatever order the sums are taken in. */
#define EXACT_MAX 9007199254740992.0 /* 2^53 */

/* The memory of a stream, at most: past it, the tree draws the input.
 * The stream keeps a name for each frame that may be drawn, which the
 * tree keeps once for all frames of that name: a profile whose frames
 * may all be drawn (--minwidth 0, or counts that grow along the input)
 * takes less memory as a tree.  A stream of a profile of 200,000 deep
 * stacks takes 6 MB in all. */
#define STREAM_MEMORY_MAX ((size_t)16 << 20)

/* The work of placing frames that came after siblings they sort before,
 * at most: past it, the tree draws the input. */
#define MOVED_WORK_MAX ((size_t)1 << 26)

/* A frame of the stack last read, not ended yet. */
struct open_frame {
	uint32_t end;	 /* where it ends in the stack (LINE_MAX_BYTES at most) */
	uint32_t len;	 /* its name's length */
	uint32_t id;	 /* its number, in the order frames begin: preorder */
	uint32_t parent; /* the parent's */
	bool marker;
	bool moved;	 /* it came after siblings it sorts before */
	double start;	 /* the counts read before it began */
	double again;	 /* of the frame of its name it continues (struct sibling) */
	double self;	 /* of stacks that end at it */
	double rel;	 /* of the siblings it sorts after */
	double blocked;	 /* of stacks blocked through it */
	/* (Indices of frames, which are fewer than 2^32.) */
	uint32_t siblings; /* where its children's siblings begin */
	uint32_t kept_at;  /* the frames kept before it began, */
	uint32_t moved_at; /* and before the first sibling it sorts before */
};

/* A child of an open frame, for a later sibling that sorts before it.
 * Sorted stacks bring siblings in the order of their names but where a
 * name is another's beginning: "f;g" comes after "f [clone .cold]" (';'
 * is above ' '), and the graph draws "f" first.  The siblings such a
 * frame sorts before are those just before it that begin with its name,
 * so each keeps how many bytes it shares with the sibling before it; the
 * first of them may be its own name, where stacks ended ("f" comes
 * before "f [clone .cold]"), and it is then the same frame, continued. */
struct sibling {
	double start, rel;
	uint32_t shared, len;
	uint32_t kept_at;
	/* Once it ended: */
	uint32_t kept;	/* its index in kept, or UINT32_MAX */
	bool counted;	/* its count is in the budget's */
	double count, blocked;
};

/* A frame that may be drawn. */
struct kept_frame {
	uint32_t id, parent, depth, len;
	size_t name; /* in names */
	double count, self, rel;
	bool blocked;
};

struct sorted_frames {
	const struct svg_opts *o;
	size_t budget;	/* the frame budget, 0 for none */

	char *prev;	/* the stack last read */
	size_t prev_len, prev_cap;
	struct open_frame *open; /* its frames, root first */
	size_t nopen, open_cap;
	size_t first_marker; /* the first of them that is "[off-cpu]", or SIZE_MAX */
	struct open_frame root;
	double total;	/* counts read */
	double min;	/* the smallest count drawn so far (update_min()) */
	uint32_t next_id;
	struct sibling *siblings; /* of the open frames, the root's first */
	size_t nsiblings, siblings_cap;
	size_t moved;	     /* frames that came after siblings they sort before */
	size_t moved_work;
	/* Counts of frames that came again later, in the budget's twice. */
	double *removed;
	size_t nremoved, removed_cap;

	struct kept_frame *kept;
	size_t nkept, kept_cap;
	char *names;
	size_t names_len, names_cap;
	/* The counts of the frames ended wide enough to count in the
	 * budget, pruned as that width grows. */
	double *counts;
	size_t ncounts, counts_cap, prune_at;
	/* The budget + 1 greatest counts of frames ended, a min-heap: a
	 * frame no wider than its least is past the budget for good. */
	double *heap;
	size_t nheap, heap_cap;
	size_t nonzero;
	uint32_t kinds;
	const char *why; /* why the tree must draw the input */

	struct frame_source src;
};

struct sorted_frames *sorted_frames_new(const struct svg_opts *o)
{
	struct sorted_frames *sf = xcalloc(1, sizeof(*sf));

	sf->o = o;
	if (!o->minwidth_set && o->maxframes > 0)
		sf->budget = (size_t)o->maxframes;
	sf->first_marker = SIZE_MAX;
	sf->root.id = sf->next_id++;
	sf->root.parent = UINT32_MAX;
	sf->prune_at = 4096;
	return sf;
}

void sorted_frames_free(struct sorted_frames *sf)
{
	if (!sf)
		return;
	free(sf->prev);
	free(sf->open);
	free(sf->kept);
	free(sf->names);
	free(sf->counts);
	free(sf->heap);
	free(sf->siblings);
	free(sf->removed);
	free(sf);
}

/* The smallest count drawn so far, before the budget: --minwidth's, at
 * the total read; before the frames a stack ends. */
static void update_min(struct sorted_frames *sf)
{
	double timemax = sf->o->total > sf->total ? sf->o->total : sf->total;

	sf->min = timemax > 0 ? svg_min_count(sf->o, timemax) : 0;
}

/* Puts c at the hole i of the heap h of n, or below it. */
static void sift_down(double *h, size_t n, size_t i, double c)
{
	for (;;) {
		size_t k = 2 * i + 1;
		if (k >= n)
			break;
		if (k + 1 < n && h[k + 1] < h[k])
			k++;
		if (h[k] >= c)
			break;
		h[i] = h[k];
		i = k;
	}
	h[i] = c;
}

static void heap_offer(struct sorted_frames *sf, double c)
{
	double *h = sf->heap;
	size_t i, n = sf->budget + 1;

	if (sf->nheap < n) {
		/* Up from the end. */
		h = sf->heap = xreserve(sf->heap, &sf->heap_cap, sf->nheap + 1, sizeof(*h));
		for (i = sf->nheap++; i && h[(i - 1) / 2] > c; i = (i - 1) / 2)
			h[i] = h[(i - 1) / 2];
		h[i] = c;
		return;
	}
	/* In place of the least. */
	if (c > h[0])
		sift_down(h, n, 0, c);
}

/* Whether the stream holds more than STREAM_MEMORY_MAX; if so, says so.
 * Asked when what it holds grows. */
static bool too_big(struct sorted_frames *sf)
{
	size_t bytes = sf->open_cap * sizeof(*sf->open) + sf->siblings_cap * sizeof(*sf->siblings) +
		       sf->kept_cap * sizeof(*sf->kept) + sf->names_cap + sf->prev_cap +
		       (sf->counts_cap + sf->heap_cap + sf->removed_cap) * sizeof(double);

	if (bytes <= STREAM_MEMORY_MAX)
		return false;
	sf->why = "more frames may be drawn than a stream holds well";
	return true;
}

/* Takes one count c out of the heap, if it is there: a frame's that
 * turned out to be part of a later one's. */
static void heap_remove(struct sorted_frames *sf, double c)
{
	double *h = sf->heap, last;
	size_t i, n;

	for (i = 0; i < sf->nheap && h[i] != c; i++)
		;
	sf->moved_work += i;
	if (i == sf->nheap)
		return;
	last = h[--sf->nheap];
	n = sf->nheap;
	if (i == n)
		return;
	/* last in place of c: up while below its parent, else down. */
	while (i && h[(i - 1) / 2] > last) {
		h[i] = h[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	sift_down(h, n, i, last);
}

/* Drops the counts that can no longer count in the budget. */
static void prune_counts(struct sorted_frames *sf)
{
	double min = sf->min;
	size_t n = 0;

	for (size_t i = 0; i < sf->ncounts; i++)
		if (sf->counts[i] >= min)
			sf->counts[n++] = sf->counts[i];
	sf->ncounts = n;
	sf->prune_at = n * 2 > 4096 ? n * 2 : 4096;
}

/* Frame f, the last of the stack at depth (root's 1), ends; false if
 * the tree must draw the input. */
static bool end_frame(struct sorted_frames *sf, const struct open_frame *f, uint32_t depth)
{
	double count = sf->total - f->start + f->again, min;
	struct sibling *me = &sf->siblings[f->siblings - 1];
	bool past_budget;

	me->count = count;
	me->blocked = f->blocked;
	/* The siblings it sorts before, kept before it began, lie after
	 * it in the graph. */
	if (f->moved) {
		sf->moved_work += f->kept_at - f->moved_at;
		if (sf->moved_work > MOVED_WORK_MAX) {
			sf->why = "too many frames sort before the siblings they come after";
			return false;
		}
		for (size_t i = f->moved_at; i < f->kept_at; i++)
			if (sf->kept[i].parent == f->parent)
				sf->kept[i].rel += count - f->again;
	}
	if (count <= 0)
		return true;
	sf->nonzero++;
	min = sf->min;
	if (count < min)
		return true;
	if (sf->ncounts == sf->prune_at)
		prune_counts(sf);
	if (sf->ncounts == sf->counts_cap && sf->counts_cap && too_big(sf))
		return false;
	sf->counts = xreserve_from(sf->counts, &sf->counts_cap, sf->ncounts + 1,
				   sizeof(*sf->counts), 4096);
	sf->counts[sf->ncounts++] = count;
	me->counted = true;
	/* budget + 1 other frames at least as wide: the budget's threshold
	 * is above this frame's count, whatever comes. */
	past_budget = sf->budget && sf->nheap == sf->budget + 1 && count <= sf->heap[0];
	if (sf->budget)
		heap_offer(sf, count);
	if (past_budget)
		return true;
	if ((sf->nkept == sf->kept_cap || sf->names_len + f->len > sf->names_cap) && too_big(sf))
		return false;
	sf->kept = xreserve(sf->kept, &sf->kept_cap, sf->nkept + 1, sizeof(*sf->kept));
	sf->names = xreserve_from(sf->names, &sf->names_cap, sf->names_len + f->len, 1, 65536);
	if (f->len)
		memcpy(sf->names + sf->names_len, sf->prev + f->end - f->len, f->len);
	me->kept = (uint32_t)sf->nkept;
	sf->kept[sf->nkept++] = (struct kept_frame){
		.id = f->id, .parent = f->parent, .depth = depth, .len = f->len,
		.name = sf->names_len, .count = count, .self = f->self + f->again, .rel = f->rel,
		.blocked = f->blocked > 0 && f->blocked == count,
	};
	sf->names_len += f->len;
	return true;
}

/* Ends the frames of the stack last read from depth d down; false if the
 * tree must draw the input. */
static bool end_frames(struct sorted_frames *sf, size_t d)
{
	update_min(sf);
	while (sf->nopen > d) {
		sf->nopen--;
		sf->nsiblings = sf->open[sf->nopen].siblings;
		if (!end_frame(sf, &sf->open[sf->nopen], (uint32_t)sf->nopen + 1))
			return false;
	}
	if (sf->first_marker >= d)
		sf->first_marker = SIZE_MAX;
	return true;
}

/* How many frames the stack shares with the one last read, which share
 * its first same bytes: the frames that end within them, where the
 * stack's frame ends too. */
static size_t shared_frames(const struct sorted_frames *sf, const char *s, size_t len,
			    size_t same)
{
	size_t lo = 0, hi = sf->nopen;

	/* The frames' ends rise: the first that is not shared. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		size_t e = sf->open[mid].end;
		if (e <= same && (e < same || e == len || (e < len && s[e] == ';')))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Begins the frame s[b, e) under the frames open, after a sibling with
 * which it shares its first shared bytes (0 if none); moved if it sorts
 * before that sibling.  False if the tree must draw the input. */
static bool begin_frame(struct sorted_frames *sf, const char *s, size_t b, size_t e,
			size_t shared, bool moved)
{
	struct open_frame *parent = sf->nopen ? &sf->open[sf->nopen - 1] : &sf->root;
	size_t shown, len = e - b, base = parent->siblings;
	uint32_t moved_at = 0, parent_id;
	bool marker = len == MARKER_LEN && !memcmp(s + b, MARKER, MARKER_LEN);
	double rel = sf->total - parent->start - parent->self, again = 0, blocked = 0;

	/* The tree's limit, which it says. */
	if (sf->next_id >= UINT32_MAX / 2) {
		sf->why = "too many frames";
		return false;
	}
	/* An empty name is every sibling's beginning. */
	if (moved && !len) {
		sf->why = "an empty frame name sorts before the frames before it";
		return false;
	}
	/* No later sibling sorts before one that shares nothing with the
	 * sibling before it, and those before it. */
	if (!shared)
		sf->nsiblings = base;
	if (moved) {
		/* Back over the siblings that begin with its name (the last
		 * does: it sorts after it); those all sort after it. */
		size_t k = sf->nsiblings - 1;
		struct sibling *first;
		while (k > base && sf->siblings[k].shared >= len)
			k--;
		sf->moved_work += sf->nsiblings - k;
		first = &sf->siblings[k];
		rel = first->start - parent->start - parent->self;
		moved_at = first->kept_at;
		sf->moved++;
		/* The frame of its name came first, its stacks ending there
		 * ("f" before "f [clone .cold]", then "f;g"): this is the
		 * rest of it, which it becomes.  Sorted stacks bring a name
		 * back no other way: "f;..." before "f [" is not sorted. */
		if (first->len == len) {
			rel = first->rel;
			again = first->count;
			blocked = first->blocked;
			if (first->count > 0)
				sf->nonzero--;
			if (first->kept != UINT32_MAX)
				sf->kept[first->kept].count = -1;
			if (first->counted) {
				sf->removed = xreserve(sf->removed, &sf->removed_cap, sf->nremoved + 1,
						       sizeof(*sf->removed));
				sf->removed[sf->nremoved++] = first->count;
				/* Else the heap holds a count no frame has, and
				 * its least is above the budget's threshold. */
				if (sf->budget)
					heap_remove(sf, first->count);
			}
		}
	}
	if ((sf->nsiblings == sf->siblings_cap || sf->nopen == sf->open_cap) && too_big(sf))
		return false;
	sf->siblings = xreserve(sf->siblings, &sf->siblings_cap, sf->nsiblings + 1,
				sizeof(*sf->siblings));
	sf->siblings[sf->nsiblings++] = (struct sibling){ .start = sf->total, .rel = rel,
							  .shared = (uint32_t)shared,
							  .len = (uint32_t)len,
							  .kept_at = (uint32_t)sf->nkept,
							  .kept = UINT32_MAX };
	parent_id = parent->id;
	/* (Which moves parent.) */
	sf->open = xreserve(sf->open, &sf->open_cap, sf->nopen + 1, sizeof(*sf->open));
	sf->open[sf->nopen] = (struct open_frame){
		.end = (uint32_t)e, .len = (uint32_t)len, .id = sf->next_id++, .parent = parent_id,
		.marker = marker, .moved = moved, .start = sf->total, .again = again,
		.blocked = blocked, .rel = rel,
		.siblings = (uint32_t)sf->nsiblings, .kept_at = (uint32_t)sf->nkept,
		.moved_at = moved_at,
	};
	if (marker && sf->first_marker == SIZE_MAX)
		sf->first_marker = sf->nopen;
	sf->nopen++;
	sf->kinds |= 1u << frame_kind_of(s + b, len, &shown);
	return true;
}

/* Adds the stack s (len bytes) of count c; false, with sf->why, if the
 * tree must draw the input. */
static bool add_stack(struct sorted_frames *sf, const char *s, size_t len, double c)
{
	size_t same = len ? stack_common_bytes(s, len, sf->prev, sf->prev_len) : 0;
	size_t d = len ? shared_frames(sf, s, len, same) : 0;
	size_t from = d ? sf->open[d - 1].end + 1 : 0; /* where its new frames begin */
	bool new_frames = d ? sf->open[d - 1].end < len : len > 0, moved = false;
	size_t sibling_end = d < sf->nopen ? sf->open[d].end : 0;
	struct open_frame *last;

	/* Sorted, as bytes: then siblings come in the order of their names
	 * but where a name is another's beginning (see struct sibling), and
	 * a stack that ends at a frame comes before those through its
	 * children, which leave room for its own count first. */
	if (same < len && same < sf->prev_len ? (unsigned char)s[same] < (unsigned char)sf->prev[same]
					      : same == len && len < sf->prev_len) {
		sf->why = "the stacks are not sorted";
		return false;
	}
	/* Its first frame ends where the stack last read goes on. */
	moved = new_frames && d < sf->nopen && same < len && s[same] == ';';
	if (!end_frames(sf, d))
		return false;
	if (new_frames) {
		for (size_t b = from, first = 1;; first = 0) {
			const char *semi = memchr(s + b, ';', len - b);
			size_t e = semi ? (size_t)(semi - s) : len, shared = 0;
			/* The first new frame follows the stack last read's
			 * there, if that had one: they share its first bytes. */
			if (first && sibling_end) {
				shared = same < e ? same : e;
				shared = (shared < sibling_end ? shared : sibling_end) - b;
			}
			if (!begin_frame(sf, s, b, e, shared, first && moved))
				return false;
			if (!semi)
				break;
			b = e + 1;
		}
	}
	last = sf->nopen ? &sf->open[sf->nopen - 1] : &sf->root;
	last->self += c;
	if (sf->first_marker != SIZE_MAX) {
		sf->root.blocked += c;
		for (size_t i = 0; i <= sf->first_marker; i++)
			sf->open[i].blocked += c;
	}
	sf->total += c;
	if (sf->total >= EXACT_MAX) {
		sf->why = "counts add up to 2^53 or more";
		return false;
	}
	if (len > sf->prev_cap) {
		sf->prev_cap = len * 2;
		sf->prev = xrealloc(sf->prev, sf->prev_cap);
	}
	if (len > same)
		memcpy(sf->prev + same, s + same, len - same);
	sf->prev_len = len;
	return true;
}

static bool each_stack(void *ctx, const char *line, const struct folded_line *l, double before,
		       double after, const struct folded_time *time, size_t lineno)
{
	struct sorted_frames *sf = ctx;

	(void)before;
	(void)lineno;
	if (l->ncounts != 1)
		sf->why = "two columns of counts: a differential";
	else if (time->timed)
		sf->why = "time lines: a heatmap";
	else if (!l->count[0].whole)
		sf->why = "a count that is not a whole number";
	else
		return add_stack(sf, line, l->stack_len, after);
	return false;
}

static int by_id(const void *a, const void *b)
{
	uint32_t x = ((const struct kept_frame *)a)->id, y = ((const struct kept_frame *)b)->id;

	return (x > y) - (x < y);
}

static int by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double *kept_counts(const struct frame_source *src, double minw, size_t *n)
{
	const struct sorted_frames *sf = src->data;
	double *out = xreallocarray(NULL, sf->ncounts + 1, sizeof(*out));

	*n = 0;
	if (sf->total >= minw && sf->total > 0)
		out[(*n)++] = sf->total;
	for (size_t i = 0; i < sf->ncounts; i++)
		if (sf->counts[i] >= minw)
			out[(*n)++] = sf->counts[i];
	if (sf->nremoved) {
		/* One of each count removed, which is there if it is at least
		 * minw: it was dropped only below the smallest drawn. */
		size_t m = 0, j = 0;
		sort_array(out, *n, sizeof(*out), by_value);
		for (size_t i = 0; i < *n; i++) {
			while (j < sf->nremoved && sf->removed[j] < out[i])
				j++;
			if (j < sf->nremoved && sf->removed[j] == out[i])
				j++;
			else
				out[m++] = out[i];
		}
		*n = m;
	}
	return out;
}

/* A frame drawn, and what its children's x starts from. */
struct ancestor {
	uint32_t id;
	double x, self;
};

/* Left to right, parents first: the tree's order of the frames drawn,
 * whose counts are above 0. */
static int by_place(const void *a, const void *b)
{
	const struct drawn_frame *x = a, *y = b;

	if (x->x != y->x)
		return x->x < y->x ? -1 : 1;
	return (x->depth > y->depth) - (x->depth < y->depth);
}

static void kept_walk(const struct frame_source *src, double minw, frame_fn fn, void *ctx)
{
	const struct sorted_frames *sf = src->data;
	struct ancestor *up = NULL;
	size_t cap = 0, filled = 1; /* up[0..filled) were drawn */
	struct drawn_frame fr = { .name = "all", .len = 3, .count = sf->total,
				  .blocked = sf->root.blocked > 0 && sf->root.blocked == sf->total };
	/* Frames that came after siblings they sort before are drawn
	 * where they belong, once all are placed. */
	struct drawn_frame *drawn = NULL;
	size_t ndrawn = 0, drawn_cap = 0;

	if (sf->total < minw || sf->total <= 0)
		return;
	if (sf->moved)
		drawn = xreserve(drawn, &drawn_cap, ++ndrawn, sizeof(*drawn)), drawn[0] = fr;
	else
		fn(ctx, &fr);
	up = xreserve(up, &cap, 1, sizeof(*up));
	up[0] = (struct ancestor){ sf->root.id, 0, sf->root.self };
	for (size_t i = 0; i < sf->nkept; i++) {
		const struct kept_frame *k = &sf->kept[i];
		const struct ancestor *p;
		/* Under a frame drawn, and wide enough itself: the last frame
		 * drawn a depth up is its parent if its parent was drawn. */
		if (k->count < minw || k->count <= 0 || k->depth > filled)
			continue;
		p = &up[k->depth - 1];
		if (p->id != k->parent)
			continue;
		fr = (struct drawn_frame){ .name = sf->names + k->name, .len = k->len,
					   .count = k->count, .x = p->x + p->self + k->rel,
					   .depth = k->depth, .blocked = k->blocked };
		if (sf->moved) {
			drawn = xreserve(drawn, &drawn_cap, ndrawn + 1, sizeof(*drawn));
			drawn[ndrawn++] = fr;
		} else {
			fn(ctx, &fr);
		}
		up = xreserve(up, &cap, k->depth + 1, sizeof(*up));
		up[k->depth] = (struct ancestor){ k->id, fr.x, k->self };
		filled = k->depth + 1;
	}
	free(up);
	if (sf->moved) {
		sort_array(drawn, ndrawn, sizeof(*drawn), by_place);
		for (size_t i = 0; i < ndrawn; i++)
			fn(ctx, &drawn[i]);
		free(drawn);
	}
}

const char *sorted_frames_read(struct sorted_frames *sf, struct line_reader *r,
			       struct folded_stats *st)
{
	struct folded_time time = { 0 };

	if (!folded_read_each(r, FOLDED_ANY, st, &time, each_stack, sf) || !end_frames(sf, 0))
		return sf->why;
	/* A time line after the last stack: the tree says what came before
	 * the first. */
	if (time.timed)
		return "time lines: a heatmap";
	if (sf->total > 0)
		sf->nonzero++;
	sort_array(sf->kept, sf->nkept, sizeof(*sf->kept), by_id);
	sort_array(sf->removed, sf->nremoved, sizeof(*sf->removed), by_value);
	sf->src = (struct frame_source){ .total = sf->total, .kinds = sf->kinds,
					 .nonzero = sf->nonzero, .counts = kept_counts,
					 .walk = kept_walk, .data = sf };
	return NULL;
}

const struct frame_source *sorted_frames_source(struct sorted_frames *sf)
{
	return &sf->src;
}
