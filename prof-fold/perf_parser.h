/*
 * The perf script parser's state, shared by its three files:
 *
 *   perf_script_parse.c  the lines of an input, event and waker lines
 *   frame_lines.c        frame lines -> frame groups, parsed or cached
 *   sample_stack.c       a sample's frame groups -> the stack it adds
 *
 * Nothing here is prof-fold's interface: that is fold.h.
 */
#ifndef PROF_PERF_PARSER_H
#define PROF_PERF_PARSER_H

#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "fold.h"

/* A frame group: the folded names of one frame line, or a thread's name.
 * Its text is in p->frames at off, or, when it has an id, the frame
 * cache's names for it (and nothing at off). */
struct group {
	size_t off, len;
	uint32_t id;
};

#define NO_ID UINT32_MAX

/* The id of a thread's name, kept for its next sample: in a profile of a
 * whole system, one sample seldom follows another of the same thread. */
#define MEMO_SLOTS 256
#define MEMO_TEXT  52
struct name_memo {
	uint32_t id, len;
	char text[MEMO_TEXT];
};

/* Which stack the frame lines of a sample are of. */
enum section {
	SEC_BLOCKED, /* the sampled thread's */
	SEC_WAKER,   /* a waker's, after its waker line */
	SEC_CUT,     /* none: a waker line was malformed, the rest is dropped */
};

struct perf_parser {
	const struct fold_opts *o;
	struct fold_agg *agg;

	/* The current sample. */
	bool in_sample, keep, skip_rest, java, after_frame;
	/* Samples folded with a period (counts in the event's unit), and
	 * without one or from prof-symbolize frames (counts of samples). */
	bool weighted, unweighted;
	bool blocked_time; /* offcpu-time samples were folded */
	/* This input is prof-symbolize frames; its header said the counts'
	 * unit ("# count:"). */
	bool frames_input, unit_declared;
	uint64_t period;
	uint64_t time_ns; /* --timed: the event line's time */
	uint64_t blocks, next_blocks; /* --timed: blocks the line stands for */
	char *pname;
	size_t pname_len, pname_cap;
	char *cgname; /* --cgroup: the sample's cgroup frame */
	size_t cgname_len, cgname_cap;
	/* The frame groups' names: the blocked stack's, leaf first, then
	 * from group nblocked on, the wakers' in output order. */
	char *frames;
	size_t frames_len, frames_cap;
	struct group *groups;
	size_t ngroups, groups_cap;
	size_t text_len; /* the groups' text, with that of those by id */
	size_t ntext;	 /* groups with their text in p->frames */
	bool offcpu;	 /* time blocked: [off-cpu] after the leaf */
	enum section section;
	size_t nblocked; /* set when the blocked stack's frames end */
	bool root_cut;	 /* --skip-after cut the blocked stack: no root */
	char *waker;	 /* the current waker's name, after its frames */
	size_t waker_len, waker_cap;
	char *key;
	size_t key_cap;
	char *name; /* a frame's name rewritten before it is tidied */
	size_t name_cap;
	struct frame_cache *cache; /* NULL with --skip-after */
	/* With the cache: a sample whose groups all have ids is found by
	 * them (stack_ids.c), and so are the thread's and cgroup's names. */
	struct stack_ids *ids;
	uint32_t pname_id, cgname_id;
	uint64_t idhash;	/* of the ids so far, as stack_ids_mix() makes it */
	struct name_memo *memo; /* thread names' ids, by their thread */
	uint32_t *idkey;
	size_t idkey_cap;

	struct event_select sel;
	struct event_memo event_memo;
};

/* The most a frame line may expand to ("[unknown]->[unknown]->..." with a
 * long dso name), and a whole stack; a longer frame is skipped as
 * unparsable. */
#define FRAME_MAX_BYTES (64u << 20)
#define STACK_MAX_BYTES (256u << 20)

static inline struct group *new_group(struct perf_parser *p, size_t len, uint32_t id)
{
	struct group *g;

	if (p->ngroups == p->groups_cap)
		p->groups = xreserve(p->groups, &p->groups_cap, p->ngroups + 1, sizeof(*p->groups));
	g = &p->groups[p->ngroups++];
	g->off = p->frames_len;
	g->len = len;
	g->id = id;
	p->text_len += len;
	return g;
}

/* The stack so far has a group of this id after the others. */
static inline void hash_id(struct perf_parser *p, uint32_t id)
{
	p->idhash = stack_ids_mix(p->idhash, id);
}

/* --- sample_stack.c ----------------------------------------------------- */

/* A group of the len bytes just written at the end of p->frames. */
void add_group(struct perf_parser *p, size_t len);
/* A group's text, wherever it is. */
const char *group_text(struct perf_parser *p, const struct group *g);
/* The last group's text, copied to the end of p->frames to be changed. */
struct group *own_last_group(struct perf_parser *p);
/* Adds a group of the len bytes at s. */
void add_named_group(struct perf_parser *p, const char *s, size_t len);
/* Ends the frames of the blocked stack or of a waker. */
void end_section(struct perf_parser *p);
/* Adds the sample's stack to the aggregate, and starts over. */
void end_sample(struct perf_parser *p);
/* Rewrites the last group, a waker's frame, as tidy_waker() says. */
void waker_group(struct perf_parser *p);
/* A srcline line after the last frame: its FILE:LINE, and whether it
 * marks the frame inlined. */
void on_srcline(struct perf_parser *p, const char *src, size_t len, bool inlined);

/* --- frame_lines.c ------------------------------------------------------ */

/* A frame line of the current sample; false if it cannot be folded. */
bool parsed_frame(struct perf_parser *p, const struct frame_line *f, const char *line, size_t len);
/* A frame line seen before (leading white space skipped): its names come
 * from the cache. */
bool cached_frame(struct perf_parser *p, const char *s, size_t len);

enum fast { FAST_NONE, FAST_HIT, FAST_MISS };

/* The frame lines of a sample, back to back, while the cache finds them:
 * returns the first line that is not one, with what the cache said of
 * it (FAST_MISS: looked up, and not there); NULL at the end of input. */
const char *frame_run(struct perf_parser *p, struct line_reader *r, const char *s, size_t *len,
		      enum fast *fast);

#endif
