#include "frame_tree.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "big_alloc.h"
#include "diag.h"
#include "frame_kind.h"
#include "offcpu_words.h"
#include "sort.h"
#include "stack_order.h"
#include "tagged_slots.h"

#define MAX_DEPTH_HINT 64

/* The frame that ends the blocked part of a stack of off-CPU time. */
static const char MARKER[] = OFF_CPU_MARKER;
#define MARKER_LEN (sizeof(MARKER) - 1)

struct frame_tree *ft_new(bool chart, bool diff)
{
	struct frame_tree *t = xcalloc(1, sizeof(*t));

	t->names = nt_new();
	t->chart = chart;
	t->diff = diff;
	t->cap = 1024;
	t->nodes = big_zalloc(t->cap * sizeof(*t->nodes));
	if (diff)
		t->before = big_zalloc(t->cap * sizeof(double));
	if (chart)
		t->start = big_zalloc(t->cap * sizeof(double));
	t->hashed = big_zalloc(t->cap / 8);
	t->marker = FT_NONE;
	t->path_marker = SIZE_MAX;
	t->nodes[0] = (struct ft_node){ FT_NONE, FT_NONE, FT_NONE, FT_NONE, 0 };
	if (diff)
		t->before[0] = 0;
	if (chart)
		t->start[0] = 0;
	t->n = 1;
	return t;
}

void ft_free(struct frame_tree *t)
{
	if (!t)
		return;
	nt_free(t->names);
	big_free(t->nodes, t->cap * sizeof(*t->nodes));
	big_free(t->before, t->cap * sizeof(double));
	big_free(t->start, t->cap * sizeof(double));
	big_free(t->blocked, t->cap * sizeof(double));
	big_free(t->slots, t->nslots * sizeof(*t->slots));
	big_free(t->hashed, t->cap / 8);
	free(t->prev);
	free(t->path);
	free(t->path_end);
	free(t->new_keys);
	free(t->new_names);
	free(t->new_created);
	free(t);
}

static inline uint64_t key_hash(uint32_t parent, uint32_t name)
{
	uint64_t k = (uint64_t)parent << 32 | name;

	/* murmur3's finaliser: every input bit reaches every output bit */
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdull;
	k ^= k >> 33;
	k *= 0xc4ceb9fe1a85ec53ull;
	k ^= k >> 33;
	return k;
}

void ft_reserve(struct frame_tree *t, size_t nodes)
{
	size_t old = t->cap, cap = old;

	while (cap < nodes && cap < (size_t)UINT32_MAX / 2)
		cap *= 2;
	if (cap == old)
		return;
	t->cap = cap;
	t->nodes = big_zrealloc(t->nodes, old * sizeof(*t->nodes), cap * sizeof(*t->nodes));
	if (t->before)
		t->before = big_zrealloc(t->before, old * sizeof(double), cap * sizeof(double));
	if (t->start)
		t->start = big_zrealloc(t->start, old * sizeof(double), cap * sizeof(double));
	if (t->blocked)
		t->blocked = big_zrealloc(t->blocked, old * sizeof(double), cap * sizeof(double));
	t->hashed = big_zrealloc(t->hashed, old / 8, cap / 8);
}

static uint32_t new_node(struct frame_tree *t, uint32_t parent, uint32_t name)
{
	uint32_t i;

	if (t->n == t->cap) {
		if (t->cap >= UINT32_MAX / 2)
			errx(EXIT_USAGE, "too many distinct frames");
		ft_reserve(t, t->cap + 1);
	}
	i = (uint32_t)t->n++;
	t->nodes[i] = (struct ft_node){ name, parent, FT_NONE, t->nodes[parent].child, 0 };
	t->nodes[parent].child = i;
	if (t->before)
		t->before[i] = 0;
	if (t->start)
		t->start[i] = t->time;
	/* blocked[i] is 0: new bytes of big_zrealloc() */
	return i;
}

static inline bool hashed(const struct frame_tree *t, uint32_t node)
{
	return t->hashed[node / 64] >> (node % 64) & 1;
}

/* Puts node, of hash h, in the empty slot j. */
static void hash_store(struct frame_tree *t, size_t j, uint64_t h, uint32_t node)
{
	t->slots[j] = SLOT_TAG(h) | ((uint64_t)node + 1);
	if (++t->nhashed * 2 > t->nslots) {
		if (t->nslots >= ((size_t)1 << 32))
			errx(EXIT_USAGE, "too many distinct frames");
		t->slots = slots_grow(t->slots, t->nslots);
		t->nslots *= 2;
	}
}

static void hash_insert(struct frame_tree *t, uint32_t parent, uint32_t name, uint32_t node)
{
	uint64_t h = key_hash(parent, name);
	size_t mask = t->nslots - 1, j = slot_home(h, t->nslots);

	while (t->slots[j])
		j = (j + 1) & mask;
	hash_store(t, j, h, node);
}

/* From now on parent's children are found by hash: its children came out
 * of order, so its newest child no longer tells which names it has. */
static void hash_children(struct frame_tree *t, uint32_t parent)
{
	if (!t->slots) {
		t->nslots = 2048;
		t->slots = big_zalloc(t->nslots * sizeof(*t->slots));
	}
	for (uint32_t c = t->nodes[parent].child; c != FT_NONE; c = t->nodes[c].sibling)
		hash_insert(t, parent, t->nodes[c].name, c);
	t->hashed[parent / 64] |= 1ull << (parent % 64);
}

/* Bytewise order of the names a and b. */
static int name_cmp(const struct frame_tree *t, uint32_t a, uint32_t b)
{
	size_t alen, blen;
	const char *as = nt_name(t->names, a, &alen), *bs = nt_name(t->names, b, &blen);
	int c = memcmp(as, bs, alen < blen ? alen : blen);

	return c ? c : (alen > blen) - (alen < blen);
}

/* The child of parent named name, created if absent; below is a node
 * whose name the caller knows name sorts after, or FT_NONE.
 *
 * Sorted input (prof-fold's) adds the children of a node in bytewise
 * order of their names, so while they keep coming so, the newest child is
 * the greatest and a name above it is new: no lookup at all, and no hash
 * slot for most nodes.  A node whose children come out of order (unsorted
 * input, or a name that sorts before "a;" as "a+" does) has them hashed
 * from then on. */
static uint32_t child_of(struct frame_tree *t, uint32_t parent, uint32_t name, uint32_t below)
{
	uint32_t c = t->nodes[parent].child;

	if (t->chart) {
		if (c != FT_NONE && t->nodes[c].name == name)
			return c;
		return new_node(t, parent, name);
	}
	if (!hashed(t, parent)) {
		if (c == FT_NONE || c == below || name_cmp(t, name, t->nodes[c].name) > 0)
			return new_node(t, parent, name);
		if (t->nodes[c].name == name)
			return c;
		hash_children(t, parent);
	}
	uint64_t h = key_hash(parent, name);
	size_t mask = t->nslots - 1, j = slot_home(h, t->nslots);
	for (;; j = (j + 1) & mask) {
		uint64_t v = t->slots[j];
		if (!v)
			break;
		if (SLOT_TAG(v) != SLOT_TAG(h))
			continue;
		const struct ft_node *nd = &t->nodes[(uint32_t)v - 1];
		if (nd->parent == parent && nd->name == name)
			return (uint32_t)v - 1;
	}
	c = new_node(t, parent, name);
	hash_store(t, j, h, c);
	return c;
}

/* Out of line: a name is new once, and intern() is the hot path. */
static __attribute__((noinline)) void new_name(struct frame_tree *t, uint32_t id, const char *s,
					       size_t len)
{
	size_t shown;

	t->kinds |= 1u << frame_kind_of(s, len, &shown);
	if (len == MARKER_LEN && !memcmp(s, MARKER, MARKER_LEN))
		t->marker = id;
}

/* Interns the n names of t->new_keys into t->new_names, at once: see
 * nt_intern_many. */
static void intern_many(struct frame_tree *t, size_t n)
{
	nt_intern_many(t->names, t->new_keys, n, t->new_names, t->new_created);
	for (size_t i = 0; i < n; i++)
		if (t->new_created[i])
			new_name(t, t->new_names[i], t->new_keys[i].s, t->new_keys[i].len);
}

static uint32_t intern(struct frame_tree *t, const char *s, size_t len)
{
	bool created;
	uint32_t id = nt_intern(t->names, s, len, &created);

	if (created)
		new_name(t, id, s, len);
	return id;
}

static void add_to(struct frame_tree *t, uint32_t node, double count, double before)
{
	t->nodes[node].count += count;
	if (t->before)
		t->before[node] += before;
}

/* The blocked counts, allocated at the first marker: most profiles have
 * none. */
static double *blocked_counts(struct frame_tree *t)
{
	if (!t->blocked)
		t->blocked = big_zalloc(t->cap * sizeof(double));
	return t->blocked;
}

static void remember(struct frame_tree *t, size_t depth, uint32_t node, size_t end)
{
	if (depth >= t->path_cap) {
		t->path_cap = t->path_cap ? t->path_cap * 2 : 64;
		t->path = xreallocarray(t->path, t->path_cap, sizeof(*t->path));
		t->path_end = xreallocarray(t->path_end, t->path_cap, sizeof(*t->path_end));
	}
	t->path[depth] = node;
	t->path_end[depth] = end;
	t->path_n = depth + 1;
}

/* How many leading frames stack shares with the previous stack; *bytes is
 * how many leading bytes. */
static size_t shared_frames(const struct frame_tree *t, const char *stack, size_t len,
			    size_t *bytes)
{
	size_t same = stack_common_bytes(stack, len, t->prev, t->prev_len), d = 0;

	*bytes = same;
	while (d < t->path_n && t->path_end[d] <= same) {
		size_t e = t->path_end[d];
		/* The frame ends at e in prev; it is the same frame only if it
		 * ends there in stack too. */
		if (e < same || e == len || (e < len && stack[e] == ';'))
			d++;
		else
			break;
	}
	return d;
}

uint32_t ft_add(struct frame_tree *t, const char *stack, size_t len, bool reverse,
		double count, double before)
{
	uint32_t node = 0;

	t->stacks++;
	add_to(t, 0, count, before);
	if (!reverse) {
		const char *p = stack, *end = stack + len;
		size_t same = 0, depth = len ? shared_frames(t, stack, len, &same) : 0;
		/* The first marker, if in the shared frames, is where it was. */
		size_t marker = t->path_marker < depth ? t->path_marker : SIZE_MAX;

		/* prev's node where stack leaves it, if stack's frame there
		 * sorts after prev's: then, while that node is still its
		 * parent's newest child, the frame is a new child, told
		 * without reading a name. */
		uint32_t below = depth < t->path_n && stack_sorts_after(stack, len, t->prev, t->prev_len, same)
					 ? t->path[depth] : FT_NONE;

		for (size_t d = 0; d < depth; d++)
			add_to(t, t->path[d], count, before);
		if (depth) {
			node = t->path[depth - 1];
			p = stack + t->path_end[depth - 1] + 1;
		}
		size_t nnew = 0;
		for (const char *q = p; q <= end && len; nnew++) {
			const char *semi = memchr(q, ';', (size_t)(end - q));
			const char *fe = semi ? semi : end;
			if (nnew == t->new_cap) {
				t->new_cap = t->new_cap ? t->new_cap * 2 : 64;
				t->new_keys = xreallocarray(t->new_keys, t->new_cap, sizeof(*t->new_keys));
				t->new_names = xreallocarray(t->new_names, t->new_cap, sizeof(*t->new_names));
				t->new_created = xreallocarray(t->new_created, t->new_cap, sizeof(*t->new_created));
			}
			t->new_keys[nnew] = (struct nt_key){ q, (size_t)(fe - q), 0 };
			q = fe + 1;
		}
		intern_many(t, nnew);
		for (size_t i = 0; i < nnew; i++) {
			uint32_t name = t->new_names[i];
			const char *fe = p + t->new_keys[i].len;
			if (name == t->marker && marker == SIZE_MAX)
				marker = depth;
			node = child_of(t, node, name, i == 0 ? below : FT_NONE);
			add_to(t, node, count, before);
			remember(t, depth++, node, (size_t)(fe - stack));
			p = fe + 1;
		}
		t->path_n = depth;
		t->path_marker = marker;
		if (marker != SIZE_MAX) {
			double *b = blocked_counts(t);
			b[0] += count;
			for (size_t d = 0; d <= marker; d++)
				b[t->path[d]] += count;
		}
		if (len > t->prev_cap) {
			t->prev_cap = len * 2;
			t->prev = xrealloc(t->prev, t->prev_cap);
		}
		/* Sorted stacks share hundreds of bytes: those are there. */
		if (len > same)
			memcpy(t->prev + same, stack + same, len - same);
		t->prev_len = len;
	} else {
		const char *end = stack + len, *p = end;
		/* Leaf first, the blocked thread's frames follow the marker. */
		bool blocked = false;
		while (len) {
			const char *fs = p;
			while (fs > stack && fs[-1] != ';')
				fs--;
			uint32_t name = intern(t, fs, (size_t)(p - fs));
			node = child_of(t, node, name, FT_NONE);
			add_to(t, node, count, before);
			if (name == t->marker && !blocked) {
				blocked = true;
				blocked_counts(t)[0] += count;
			}
			if (blocked)
				t->blocked[node] += count;
			if (fs == stack)
				break;
			p = fs - 1;
		}
	}
	t->time += count;
	return node;
}

const char *ft_name(const struct frame_tree *t, uint32_t i, size_t *len)
{
	uint32_t name = t->nodes[i].name;

	if (name == FT_NONE) {
		*len = 3;
		return "all";
	}
	return nt_name(t->names, name, len);
}

static const struct frame_tree *sort_tree;

static int cmp_children(const void *a, const void *b)
{
	const struct ft_node *nd = sort_tree->nodes;

	return name_cmp(sort_tree, nd[*(const uint32_t *)a].name, nd[*(const uint32_t *)b].name);
}

void ft_sort_children(struct frame_tree *t, uint32_t i)
{
	uint32_t stackbuf[MAX_DEPTH_HINT], *kids = stackbuf, n = 0, cap = MAX_DEPTH_HINT;
	uint32_t c;

	for (c = t->nodes[i].child; c != FT_NONE; c = t->nodes[c].sibling) {
		if (n == cap) {
			cap *= 2;
			if (kids == stackbuf) {
				kids = xreallocarray(NULL, cap, sizeof(*kids));
				memcpy(kids, stackbuf, sizeof(stackbuf));
			} else {
				kids = xreallocarray(kids, cap, sizeof(*kids));
			}
		}
		kids[n++] = c;
	}
	if (n > 1) {
		if (!hashed(t, i)) {
			/* Newest first: reversed, they are in input order
			 * (a flame chart's), which is by name unless they
			 * came out of order (see child_of). */
			for (uint32_t a = 0, b = n - 1; a < b; a++, b--) {
				uint32_t tmp = kids[a];
				kids[a] = kids[b];
				kids[b] = tmp;
			}
		} else {
			sort_tree = t;
			sort_array(kids, n, sizeof(*kids), cmp_children);
		}
		t->nodes[i].child = kids[0];
		for (uint32_t k = 0; k + 1 < n; k++)
			t->nodes[kids[k]].sibling = kids[k + 1];
		t->nodes[kids[n - 1]].sibling = FT_NONE;
	}
	if (kids != stackbuf)
		free(kids);
}

void ft_scale_before(struct frame_tree *t, double factor)
{
	if (!t->before)
		return;
	for (size_t i = 0; i < t->n; i++)
		t->before[i] *= factor;
}

void ft_enable_diff(struct frame_tree *t)
{
	if (t->diff)
		return;
	t->diff = true;
	t->before = big_zalloc(t->cap * sizeof(double));
}
