/*
 * A sample's frames, as groups of folded names (one a frame line, or a
 * thread's name), and the stack they add to the aggregate: by the ids of
 * the groups when all of them came from the frame cache (stack_ids.c),
 * else by its text.  What srcline and waker lines change in a group is
 * done here too.
 */
#include "frame_kind.h"
#include "offcpu_words.h"
#include "perf_parser.h"

/* A group of the len bytes just written at the end of p->frames. */
void add_group(struct perf_parser *p, size_t len)
{
	new_group(p, len, NO_ID);
	p->frames_len += len;
	p->ntext++;
}

const char *group_text(struct perf_parser *p, const struct group *g)
{
	size_t len;

	return g->id == NO_ID ? p->frames + g->off : stack_ids_text(p->ids, g->id, &len);
}

/* The last group's text, copied to the end of p->frames to be changed. */
struct group *own_last_group(struct perf_parser *p)
{
	struct group *g = &p->groups[p->ngroups - 1];
	size_t len;
	const char *text;

	if (g->id == NO_ID)
		return g;
	text = stack_ids_text(p->ids, g->id, &len);
	p->frames = xreserve(p->frames, &p->frames_cap, p->frames_len + len, 1);
	memcpy(p->frames + p->frames_len, text, len);
	g->off = p->frames_len;
	g->id = NO_ID;
	p->frames_len += len;
	p->ntext++;
	return g;
}

/* Adds a group of the len bytes at s. */
void add_named_group(struct perf_parser *p, const char *s, size_t len)
{
	p->frames = xreserve(p->frames, &p->frames_cap, p->frames_len + len, 1);
	memcpy(p->frames + p->frames_len, s, len);
	add_group(p, len);
}

/* Ends the frames of the blocked stack or of a waker: a waker's name
 * comes after them, unless --skip-after cut its stack. */
void end_section(struct perf_parser *p)
{
	if (p->section == SEC_BLOCKED) {
		p->nblocked = p->ngroups;
		p->root_cut = p->skip_rest;
	} else if (p->section == SEC_WAKER && !p->skip_rest) {
		add_named_group(p, p->waker, p->waker_len);
	}
}

/* Appends frame s[0..n) to the stack at key[0..*len), after a ';' unless
 * it is the first. */
static void put_frame(char *key, size_t *len, bool *any, const char *s, size_t n)
{
	if (*any)
		key[(*len)++] = ';';
	*any = true;
	memcpy(key + *len, s, n);
	*len += n;
}

/* Adds the sample's stack by its text; returns its index in the
 * aggregate, or SIZE_MAX when it has no frame at all. */
static size_t add_stack_text(struct perf_parser *p)
{
	size_t need, len = 0;
	bool any = false;

	need = p->cgname_len + p->pname_len + p->text_len + p->ngroups + sizeof(OFF_CPU_MARKER) + 2;
	p->key = xreserve(p->key, &p->key_cap, need, 1);
	if (p->o->cgroup && !p->root_cut)
		put_frame(p->key, &len, &any, p->cgname, p->cgname_len);
	if (!p->o->no_comm && !p->root_cut)
		put_frame(p->key, &len, &any, p->pname, p->pname_len);
	for (size_t g = p->nblocked; g-- > 0;)
		put_frame(p->key, &len, &any, group_text(p, &p->groups[g]), p->groups[g].len);
	if (p->offcpu)
		put_frame(p->key, &len, &any, OFF_CPU_MARKER, sizeof(OFF_CPU_MARKER) - 1);
	for (size_t g = p->nblocked; g < p->ngroups; g++)
		put_frame(p->key, &len, &any, group_text(p, &p->groups[g]), p->groups[g].len);
	return any ? agg_add(p->agg, p->key, len, p->period) : SIZE_MAX;
}

/* Adds the stack of a sample whose frames are all groups by id, all of
 * the blocked stack (a waker's name is a group of text): by the ids, its
 * text only when they are new. */
static size_t add_stack_ids(struct perf_parser *p)
{
	size_t n = 0;
	uint32_t *idx;
	bool created;

	p->idkey = xreserve(p->idkey, &p->idkey_cap, p->ngroups + 3, sizeof(*p->idkey));
	p->idkey[n++] = p->offcpu;
	if (!p->o->no_comm)
		p->idkey[n++] = p->pname_id;
	if (p->o->cgroup)
		p->idkey[n++] = p->cgname_id;
	for (size_t g = 0; g < p->ngroups; g++)
		p->idkey[n++] = p->groups[g].id;
	idx = stack_ids_find(p->ids, p->idkey, n, p->idhash, &created);
	if (created)
		return *idx = (uint32_t)add_stack_text(p);
	agg_add_at(p->agg, *idx, p->period);
	return *idx;
}

void end_sample(struct perf_parser *p)
{
	if (!p->in_sample || !p->keep)
		goto reset;
	end_section(p);
	size_t idx;
	if (p->ids && p->ntext == 0 && p->ngroups > 0 && p->nblocked == p->ngroups)
		idx = add_stack_ids(p);
	else
		idx = add_stack_text(p);
	if (p->agg->slot_ns && idx != SIZE_MAX)
		agg_time(p->agg, idx, p->time_ns, p->period, p->offcpu ? p->blocks : 0);
reset:
	p->in_sample = p->keep = p->skip_rest = p->after_frame = false;
	p->offcpu = p->root_cut = false;
	p->section = SEC_BLOCKED;
	p->frames_len = p->ngroups = p->text_len = p->ntext = 0;
}

/* Rewrites the last group, a waker's frame, as tidy_waker() says. */
void waker_group(struct perf_parser *p)
{
	struct group *g = own_last_group(p);
	const char *names = p->frames + g->off;
	size_t n;

	p->name = xreserve(p->name, &p->name_cap, tidy_waker_bound(names, g->len), 1);
	n = tidy_waker(names, g->len, p->name);
	p->frames = xreserve(p->frames, &p->frames_cap, g->off + n, 1);
	memcpy(p->frames + g->off, p->name, n);
	p->frames_len = g->off + n;
	p->text_len = p->text_len - g->len + n;
	g->len = n;
}

void on_srcline(struct perf_parser *p, const char *src, size_t len, bool inlined)
{
	struct group *g;
	size_t shown;

	if (!p->keep || p->ngroups == 0 || p->skip_rest)
		return;
	g = &p->groups[p->ngroups - 1];
	if (g->id == NO_ID && g->off + g->len != p->frames_len)
		return;
	/* A waker's frame is marked _[w] alone. */
	bool mark = inlined && p->o->inline_annotate && p->section != SEC_WAKER &&
		    frame_kind_of(group_text(p, g), g->len, &shown) != KIND_INLINED;
	bool context = p->o->context && len > 0;
	if (!mark && !context)
		return;
	g = own_last_group(p);
	if (mark) {
		p->frames =
		    xreserve(p->frames, &p->frames_cap, p->frames_len + FRAME_KIND_SUFFIX_LEN, 1);
		size_t n = frame_kind_put(p->frames + p->frames_len, KIND_INLINED);
		p->frames_len += n;
		p->text_len += n;
		g->len += n;
	}
	if (!context)
		return;
	p->frames = xreserve(p->frames, &p->frames_cap, p->frames_len + len + 1, 1);
	p->frames[p->frames_len++] = ':';
	memcpy(p->frames + p->frames_len, src, len);
	p->frames_len += len;
	p->text_len += len + 1;
	g->len += len + 1;
}
