/*
 * perf script output (and prof-symbolize frames, its documented subset) to
 * folded stacks.
 *
 * A sample is an event line, "COMM PID/TID ... TIME: PERIOD EVENT:", then
 * one frame line per frame, leaf first, then a blank line.  The root frame
 * is the command name (spaces become '_'), with --pid "COMM-PID" and with
 * --tid "COMM-PID/TID"; each sample weighs its period, as in
 * stackcollapse-perf.pl.  Only samples of one event are folded: the one
 * given by --event-filter, or else the first one seen (and with a clock
 * event, off-CPU time: both are nanoseconds).
 *
 * Time spent blocked (the event offcpu-time, prof-symbolize's and perf
 * record --off-cpu's) ends with the frame [off-cpu].  prof-symbolize's
 * waker lines, "-- woken by COMM PID/TID", each followed by that thread's
 * frames, fold after it as bcc's offwaketime prints them: "--", then the
 * waker's frames leaf first and its name, each marked _[w].
 */
#include <stdlib.h>
#include <string.h>

#include "ascii.h"
#include "diag.h"
#include "offcpu_words.h"
#include "fold.h"
#include "folded.h"
#include "frame_cache.h"
#include "frame_kind.h"
#include "frames_header.h"

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
#define MEMO_TEXT 52
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
	/* This input is prof-symbolize frames; its header said the counts'
	 * unit ("# count:"). */
	bool frames_input, unit_declared;
	uint64_t period;
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
	bool offcpu; /* time blocked: [off-cpu] after the leaf */
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
	uint64_t idhash; /* of the ids so far, as stack_ids_mix() makes it */
	struct name_memo *memo; /* thread names' ids, by their thread */
	uint32_t *idkey;
	size_t idkey_cap;

	struct event_select sel;
	struct event_memo event_memo;
};

static void *grow(void *p, size_t *cap, size_t need, size_t size)
{
	if (need <= *cap)
		return p;
	while (*cap < need)
		*cap = *cap ? *cap * 2 : 256;
	return xreallocarray(p, *cap, size);
}

struct perf_parser *perf_parser_new(const struct fold_opts *o,
				    struct fold_agg *agg)
{
	struct perf_parser *p = xcalloc(1, sizeof(*p));

	p->o = o;
	p->agg = agg;
	p->pname_id = p->cgname_id = NO_ID;
	if (o->nskip_after == 0) {
		p->cache = frame_cache_new();
		p->ids = stack_ids_new();
		p->memo = xcalloc(MEMO_SLOTS, sizeof(*p->memo));
	}
	event_select_init(&p->sel, o->event_filter);
	return p;
}

void perf_parser_report(const struct perf_parser *p)
{
	event_select_report(&p->sel);
}

void perf_parser_free(struct perf_parser *p)
{
	if (!p)
		return;
	event_select_free(&p->sel);
	free(p->pname);
	free(p->cgname);
	free(p->frames);
	free(p->groups);
	free(p->key);
	free(p->name);
	free(p->waker);
	free(p->idkey);
	frame_cache_free(p->cache);
	stack_ids_free(p->ids);
	free(p->memo);
	free(p);
}

const char *perf_parser_unit(const struct perf_parser *p)
{
	if (p->weighted && p->unweighted)
		return NULL;
	if (!p->weighted)
		return p->unweighted ? "samples" : NULL;
	return event_select_unit(&p->sel);
}

static inline struct group *new_group(struct perf_parser *p, size_t len, uint32_t id)
{
	struct group *g;

	if (p->ngroups == p->groups_cap)
		p->groups = grow(p->groups, &p->groups_cap, p->ngroups + 1,
				 sizeof(*p->groups));
	g = &p->groups[p->ngroups++];
	g->off = p->frames_len;
	g->len = len;
	g->id = id;
	p->text_len += len;
	return g;
}

/* A group of the len bytes just written at the end of p->frames. */
static void add_group(struct perf_parser *p, size_t len)
{
	new_group(p, len, NO_ID);
	p->frames_len += len;
	p->ntext++;
}

static const char *group_text(struct perf_parser *p, const struct group *g)
{
	size_t len;

	return g->id == NO_ID ? p->frames + g->off : stack_ids_text(p->ids, g->id, &len);
}

/* The last group's text, copied to the end of p->frames to be changed. */
static struct group *own_last_group(struct perf_parser *p)
{
	struct group *g = &p->groups[p->ngroups - 1];
	size_t len;
	const char *text;

	if (g->id == NO_ID)
		return g;
	text = stack_ids_text(p->ids, g->id, &len);
	p->frames = grow(p->frames, &p->frames_cap, p->frames_len + len, 1);
	memcpy(p->frames + p->frames_len, text, len);
	g->off = p->frames_len;
	g->id = NO_ID;
	p->frames_len += len;
	p->ntext++;
	return g;
}

/* Adds a group of the len bytes at s. */
static void add_named_group(struct perf_parser *p, const char *s, size_t len)
{
	p->frames = grow(p->frames, &p->frames_cap, p->frames_len + len, 1);
	memcpy(p->frames + p->frames_len, s, len);
	add_group(p, len);
}

/* Ends the frames of the blocked stack or of a waker: a waker's name
 * comes after them, unless --skip-after cut its stack. */
static void end_section(struct perf_parser *p)
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

/* The stack so far has a group of this id after the others. */
static void hash_id(struct perf_parser *p, uint32_t id)
{
	p->idhash = stack_ids_mix(p->idhash, id);
}

/* Adds the sample's stack by its text; returns its index in the
 * aggregate, or SIZE_MAX when it has no frame at all. */
static size_t add_stack_text(struct perf_parser *p)
{
	size_t need, len = 0;
	bool any = false;

	need = p->cgname_len + p->pname_len + p->text_len + p->ngroups +
	       sizeof(OFF_CPU_MARKER) + 2;
	p->key = grow(p->key, &p->key_cap, need, 1);
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
static void add_stack_ids(struct perf_parser *p)
{
	size_t n = 0;
	uint32_t *idx;
	bool created;

	p->idkey = grow(p->idkey, &p->idkey_cap, p->ngroups + 3, sizeof(*p->idkey));
	p->idkey[n++] = p->offcpu;
	if (!p->o->no_comm)
		p->idkey[n++] = p->pname_id;
	if (p->o->cgroup)
		p->idkey[n++] = p->cgname_id;
	for (size_t g = 0; g < p->ngroups; g++)
		p->idkey[n++] = p->groups[g].id;
	idx = stack_ids_find(p->ids, p->idkey, n, p->idhash, &created);
	if (created)
		*idx = (uint32_t)add_stack_text(p);
	else
		agg_add_at(p->agg, *idx, p->period);
}

static void end_sample(struct perf_parser *p)
{
	if (!p->in_sample || !p->keep)
		goto reset;
	end_section(p);
	if (p->ids && p->ntext == 0 && p->ngroups > 0 && p->nblocked == p->ngroups)
		add_stack_ids(p);
	else
		add_stack_text(p);
reset:
	p->in_sample = p->keep = p->skip_rest = p->after_frame = false;
	p->offcpu = p->root_cut = false;
	p->section = SEC_BLOCKED;
	p->frames_len = p->ngroups = p->text_len = p->ntext = 0;
}

/* Rewrites the last group, a waker's frame, as tidy_waker() says. */
static void waker_group(struct perf_parser *p)
{
	struct group *g = own_last_group(p);
	const char *names = p->frames + g->off;
	size_t n;

	p->name = grow(p->name, &p->name_cap, tidy_waker_bound(names, g->len), 1);
	n = tidy_waker(names, g->len, p->name);
	p->frames = grow(p->frames, &p->frames_cap, g->off + n, 1);
	memcpy(p->frames + g->off, p->name, n);
	p->frames_len = g->off + n;
	p->text_len = p->text_len - g->len + n;
	g->len = n;
}

/* The cache key of a frame line (leading white space already skipped):
 * the line after its address, since the address changes nothing in the
 * folded name, unless --addrs shows it or the address is not plain hex.
 * Fewer bytes to hash, and lines that differ only by address share an
 * entry. */
static inline const char *frame_key_at(const struct perf_parser *p, const char *s,
				size_t len, size_t i, size_t *klen)
{
	*klen = len;
	if (p->o->include_addrs)
		return s;
	if (i == 0 || (i < len && !is_space(s[i])) ||
	    (i + 1 < len && s[i] == ' ' && s[i + 1] == '('))
		return s;
	*klen = len - i;
	return s + i;
}

/* s[0..i) is the line's hex address, s[i] what follows it. */
static const char *frame_key(const struct perf_parser *p, const char *s,
			     size_t len, size_t *klen)
{
	return frame_key_at(p, s, len, skip_xdigit_lower(s, 0, len), klen);
}

/* The most a frame line may expand to ("[unknown]->[unknown]->..." with a
 * long dso name), and a whole stack; a longer frame is skipped as
 * unparsable. */
#define FRAME_MAX_BYTES (64u << 20)
#define STACK_MAX_BYTES (256u << 20)
#define TOO_LONG "frame name too long once expanded"
/* perf 6.3 to 6.5 printed -F +cgroup's path on a line of its own after
 * the stack, where it cannot be told from garbage; perf 6.6 moved it to
 * the event line. */
#define CGROUP_AFTER "cgroup after the frames (perf 6.3 to 6.5), not on the event line"

/* prof-symbolize writes code of a known file that has no symbol there
 * "[FILE]+0xOFF" (the offset in the file): flen is the length without the
 * offset. */
static bool unresolved_in_file(const char *func, size_t flen, size_t len)
{
	return flen < len && flen >= 3 && func[0] == '[' && func[flen - 1] == ']';
}

/* Adds the frame of a parsed frame line; line[0..len) is its cache key.
 * Returns false if the frame is too long to fold. */
static bool add_frame(struct perf_parser *p, const struct frame_line *f,
		      const char *line, size_t len)
{
	size_t flen = strip_offset(f->func, f->func_len), n = 0, pieces = 0;
	const char *func = f->func;
	bool inlined = false;

	if (p->o->include_addrs && unresolved_in_file(f->func, flen, f->func_len)) {
		/* "[FILE]+0xOFF" is shown "[FILE+0xOFF]". */
		p->name = grow(p->name, &p->name_cap, f->func_len, 1);
		memcpy(p->name, f->func, flen - 1);
		memcpy(p->name + flen - 1, f->func + flen, f->func_len - flen);
		p->name[f->func_len - 1] = ']';
		func = p->name;
		flen = f->func_len;
	}

	/* perf script prints an inlined function "ADDR NAME (inlined)". */
	if (f->mod_len == 7 && memcmp(f->mod, "inlined", 7) == 0)
		inlined = p->o->inline_annotate;
	/* Perl skips "(...)" symbols (process names); like its split, it
	 * finds no frame in a symbol that is only "->"s. */
	if (!(flen > 0 && func[0] == '(')) {
		pieces = flen;
		while (pieces >= 2 && func[pieces - 2] == '-' &&
		       func[pieces - 1] == '>')
			pieces -= 2;
	}
	if (pieces > 0) {
		size_t bound = tidy_frame_bound(f, flen);
		if (bound > FRAME_MAX_BYTES || p->text_len + bound > STACK_MAX_BYTES)
			return false;
		p->frames = grow(p->frames, &p->frames_cap, p->frames_len + bound, 1);
		n = tidy_frame(f, func, flen, p->java, inlined, p->o, p->frames + p->frames_len);
		add_group(p, n);
	}
	if (p->cache) {
		size_t klen;
		const char *key = frame_key(p, line, len, &klen);
		if (frame_cache_takes(p->cache, klen, n)) {
			uint32_t id = NO_ID;
			if (pieces > 0) {
				id = stack_ids_name(p->ids, p->frames + p->frames_len - n, n);
				/* The sample goes by ids from its first time. */
				p->groups[p->ngroups - 1].id = id;
				p->ntext--;
				hash_id(p, id);
			}
			frame_cache_put(p->cache, p->java, key, klen, id, n, pieces > 0);
		}
	}
	if (pieces > 0 && p->section == SEC_WAKER)
		waker_group(p);
	for (size_t i = 0; i < p->o->nskip_after; i++)
		if (strlen(p->o->skip_after[i]) == flen &&
		    memcmp(p->o->skip_after[i], f->func, flen) == 0)
			p->skip_rest = true;
	return true;
}

/* A frame line of the current sample; false if it cannot be folded. */
static bool on_frame(struct perf_parser *p, const struct frame_line *f,
		     const char *line, size_t len)
{
	p->after_frame = true;
	if (!p->keep || p->skip_rest)
		return true;
	return add_frame(p, f, line, len);
}

/* A frame line seen before, by its cache key: its names come from the
 * cache. */
static bool cached_key(struct perf_parser *p, const char *key, size_t klen)
{
	const struct fc_entry *e = frame_cache_get(p->cache, p->java, key, klen);

	if (!e)
		return false;
	p->after_frame = true;
	if (!p->keep || p->skip_rest || !(e->klen & FC_GROUP))
		return true;
	new_group(p, e->tlen, e->id);
	hash_id(p, e->id);
	if (p->section == SEC_WAKER)
		waker_group(p);
	return true;
}

static bool cached_frame(struct perf_parser *p, const char *s, size_t len)
{
	const char *key;
	size_t klen;

	if (!p->cache)
		return false;
	key = frame_key(p, s, len, &klen);
	return cached_key(p, key, klen);
}

enum fast { FAST_NONE, FAST_HIT, FAST_MISS };

/*
 * The frame line of a sample as perf script and prof-symbolize write it,
 * a tab, the address and the rest, looked up in the frame cache without
 * reading it byte by byte: the common case, in the order of the general
 * one (a line with a tab first is neither blank, nor a comment, nor a
 * srcline).  FAST_MISS: it was looked up, and is not there.
 */
static inline enum fast fast_frame(struct perf_parser *p, const char *s, size_t len)
{
	size_t addr, end, klen;
	const char *key;

	if (!p->cache || len < 32 || s[0] != '\t' || !ascii_indent_and_address(s, &addr, &end))
		return FAST_NONE;
	key = frame_key_at(p, s + addr, len - addr, end - addr, &klen);
	return cached_key(p, key, klen) ? FAST_HIT : FAST_MISS;
}

/*
 * The frame lines of a sample, back to back, while fast_frame() finds
 * them: most lines of an input.  None of them can end a sample or change
 * the aggregate, so the general loop's tests are left out, and so is
 * what cannot change from one to the next in the common case (a sample
 * kept, of one thread's stack).  Returns the first line that is not
 * one, with what fast_frame() said of it; NULL at the end of the input.
 */
static const char *frame_run(struct perf_parser *p, struct line_reader *r, const char *s,
			     size_t *len, enum fast *fast)
{
	size_t addr, end, klen;
	const char *key;
	const struct fc_entry *e;

	if (!p->cache || !p->keep || p->skip_rest || p->section != SEC_BLOCKED ||
	    p->o->include_addrs) {
		*fast = fast_frame(p, s, *len);
		return s;
	}
	for (;; s = lr_next(r, len)) {
		if (!s)
			return NULL;
		*fast = FAST_NONE;
		if (*len < 32 || s[0] != '\t' || !ascii_indent_and_address(s, &addr, &end))
			return s;
		key = frame_key_at(p, s + addr, *len - addr, end - addr, &klen);
		*fast = FAST_MISS;
		if (!(e = frame_cache_get(p->cache, p->java, key, klen)))
			return s;
		p->after_frame = true;
		if (e->klen & FC_GROUP) {
			new_group(p, e->tlen, e->id);
			hash_id(p, e->id);
		}
	}
}

/* The frame that names the thread of an event or waker line: its name,
 * with --pid "NAME-PID", with --tid "NAME-PID/TID".  Sets p->java, which
 * changes how the thread's frames are tidied.  Returns the frame's length
 * at (*buf)[0], which has room for extra more bytes after it. */
static size_t thread_frame(struct perf_parser *p, const struct event_line *e, char **buf,
			   size_t *cap, size_t extra)
{
	char *out = *buf = grow(*buf, cap, e->comm_len + e->pid_len + e->tid_len + 2 + extra, 1);
	size_t len = e->comm_len;

	for (size_t i = 0; i < e->comm_len; i++)
		out[i] = e->comm[i] == ' ' ? '_' : e->comm[i] == ';' ? ':' : e->comm[i];
	p->java = e->comm_len == 4 && memcmp(e->comm, "java", 4) == 0;
	if (p->o->include_pid || p->o->include_tid) {
		out[len++] = '-';
		memcpy(out + len, e->pid, e->pid_len);
		len += e->pid_len;
	}
	if (p->o->include_tid) {
		out[len++] = '/';
		memcpy(out + len, e->tid, e->tid_len);
		len += e->tid_len;
	}
	return len;
}

/* The frame that names a sample's cgroup: its path, ';' written ':' so
 * that it stays one frame, or "[unknown]" when the line names none. */
static void cgroup_frame(struct perf_parser *p, const struct event_line *e)
{
	static const char none[] = "[unknown]";
	const char *path = e->cgroup;
	size_t len = e->cgroup_len;

	if (!path) {
		path = none;
		len = sizeof(none) - 1;
	}
	p->cgname = grow(p->cgname, &p->cgname_cap, len, 1);
	for (size_t i = 0; i < len; i++)
		p->cgname[i] = path[i] == ';' ? ':' : path[i];
	p->cgname_len = len;
}

/* The id of name text[0..len), which is most often that of the last
 * sample, last. */
static uint32_t name_id(struct perf_parser *p, uint32_t last, const char *text, size_t len)
{
	size_t n;
	const char *was;

	if (last != NO_ID) {
		was = stack_ids_text(p->ids, last, &n);
		if (n == len && memcmp(was, text, len) == 0)
			return last;
	}
	return stack_ids_name(p->ids, text, len);
}

/* The id of p->pname, the name of e's thread. */
static uint32_t thread_name_id(struct perf_parser *p, const struct event_line *e)
{
	size_t h = e->comm_len;
	struct name_memo *m;

	for (size_t i = e->tid_len > 3 ? e->tid_len - 3 : 0; i < e->tid_len; i++)
		h = h * 10 + (unsigned char)e->tid[i];
	m = &p->memo[h % MEMO_SLOTS];
	if (m->len == p->pname_len && p->pname_len <= MEMO_TEXT &&
	    memcmp(m->text, p->pname, p->pname_len) == 0)
		return m->id;
	m->id = stack_ids_name(p->ids, p->pname, p->pname_len);
	m->len = p->pname_len <= MEMO_TEXT ? (uint32_t)p->pname_len : UINT32_MAX;
	memcpy(m->text, p->pname, p->pname_len <= MEMO_TEXT ? p->pname_len : 0);
	return m->id;
}

static void start_sample(struct perf_parser *p, const struct event_line *e)
{
	if (p->in_sample)
		end_sample(p);
	p->in_sample = true;
	if (p->cache)
		frame_cache_restart(p->cache);
	p->keep = event_wanted(&p->sel, e);
	if (!p->keep)
		return;
	p->period = e->period;
	/* A period of 1 weighs as a sample does (perf's first samples at a
	 * frequency have it): only a larger one says the counts are in the
	 * event's unit.  prof-symbolize frames count samples, unless their
	 * header said what else (and that was noted). */
	if (!p->unit_declared) {
		if (!e->has_period || p->frames_input)
			p->unweighted = true;
		else if (e->period > 1)
			p->weighted = true;
	}
	p->offcpu = is_offcpu(e->event, e->event_len);
	p->pname_len = thread_frame(p, e, &p->pname, &p->pname_cap, 0);
	if (p->o->cgroup)
		cgroup_frame(p, e);
	if (p->ids) {
		p->pname_id = thread_name_id(p, e);
		if (p->o->cgroup)
			p->cgname_id = name_id(p, p->cgname_id, p->cgname, p->cgname_len);
		/* As add_stack_ids() lays the key out. */
		p->idhash = stack_ids_mix(STACK_IDS_SEED, p->offcpu);
		if (!p->o->no_comm)
			p->idhash = stack_ids_mix(p->idhash, p->pname_id);
		if (p->o->cgroup)
			p->idhash = stack_ids_mix(p->idhash, p->cgname_id);
	}
	if (e->rest) {
		struct frame_line f;
		if (parse_frame_line(e->rest, e->rest_len, &f))
			on_frame(p, &f, e->rest, e->rest_len);
		end_sample(p);
	}
}

/* perf script -F+srcline prints "  FILE:LINE" (or "  [dso][addr]" when it
 * knows none) on the line after a frame, indented by two spaces, and with
 * --inline marks an inlined frame by " (inlined)" at the end of that line
 * rather than of the frame's.  *slen is 0 when the line holds no
 * FILE:LINE.  Such a line is told from a frame by its first word, which
 * is never a bare hexadecimal address: "  libc-start.c:360 (inlined)"
 * would otherwise read as frame "libc" of module "inlined". */
static bool srcline(const char *s, size_t len, const char **src, size_t *slen, bool *inlined)
{
	static const char mark[] = " (inlined)";
	size_t i = 2, end = len, d, w = 2;

	if (len < 3 || s[0] != ' ' || s[1] != ' ' || is_space(s[2]))
		return false;
	while (w < len && is_xdigit_lower(s[w]))
		w++;
	if (w == len || is_space(s[w]))
		return false;
	while (end > i && is_space(s[end - 1]))
		end--;
	*inlined = end - i > sizeof(mark) - 1 &&
		   memcmp(s + end - (sizeof(mark) - 1), mark, sizeof(mark) - 1) == 0;
	if (*inlined)
		end -= sizeof(mark) - 1;
	d = end;
	while (d > i && is_digit(s[d - 1]))
		d--;
	*slen = 0;
	if (d == end || d <= i + 1 || s[d - 1] != ':' ||
	    memchr(s + i, ' ', end - i) || memchr(s + i, '\t', end - i) ||
	    (d - 3 >= i && memcmp(s + d - 3, "??:", 3) == 0))
		return true;
	const char *slash = memrchr(s + i, '/', end - i);
	*src = slash ? slash + 1 : s + i;
	*slen = (size_t)(s + end - *src);
	return true;
}

static void on_srcline(struct perf_parser *p, const char *src, size_t len, bool inlined)
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
		p->frames = grow(p->frames, &p->frames_cap, p->frames_len + FRAME_KIND_SUFFIX_LEN, 1);
		size_t n = frame_kind_put(p->frames + p->frames_len, KIND_INLINED);
		p->frames_len += n;
		p->text_len += n;
		g->len += n;
	}
	if (!context)
		return;
	p->frames = grow(p->frames, &p->frames_cap, p->frames_len + len + 1, 1);
	p->frames[p->frames_len++] = ':';
	memcpy(p->frames + p->frames_len, src, len);
	p->frames_len += len;
	p->text_len += len + 1;
	g->len += len + 1;
}

/* A waker line: the frame lines after it are those of the thread that
 * woke the blocked one (or the previous waker) when it did, leaf first.
 * Returns false when its name is too long to fold. */
static bool on_waker(struct perf_parser *p, const struct event_line *w)
{
	p->after_frame = false;
	if (!p->keep || p->section == SEC_CUT)
		return true;
	if (p->text_len + w->comm_len + w->pid_len + w->tid_len > STACK_MAX_BYTES)
		return false;
	end_section(p);
	add_named_group(p, WAKER_SEPARATOR, sizeof(WAKER_SEPARATOR) - 1);
	p->waker_len = thread_frame(p, w, &p->waker, &p->waker_cap, FRAME_KIND_SUFFIX_LEN);
	p->waker_len += frame_kind_put(p->waker + p->waker_len, KIND_WAKER);
	p->section = SEC_WAKER;
	p->skip_rest = false;
	return true;
}

/* A waker line that cannot be read: whose frames follow is unknown, so
 * the sample keeps the stacks before it and drops the rest. */
static void cut_wakers(struct perf_parser *p)
{
	p->after_frame = false;
	if (!p->keep || p->section == SEC_CUT)
		return;
	end_section(p);
	p->section = SEC_CUT;
	p->skip_rest = true;
}

/* The comment after the frames header, "# count: UNIT": what this input's
 * counts are. */
static void declared_unit(struct perf_parser *p, const char *s, size_t len)
{
	struct folded_line l;
	char unit[FOLDED_UNIT_MAX + 1];

	if (folded_parse(s, len, 1, &l) != FOLDED_COMMENT || !l.unit)
		return;
	memcpy(unit, l.unit, l.unit_len);
	unit[l.unit_len] = '\0';
	agg_note_unit(p->agg, unit);
	p->unit_declared = true;
}

uint64_t perf_parse_input(struct perf_parser *p, struct line_reader *r)
{
	struct fold_diag d = { .name = r->name };
	struct event_line e;
	struct frame_line f;
	const char *s, *src = NULL;
	size_t len, slen;
	bool inlined;
	uint64_t sat = p->agg->saturated, nt = p->agg->not_text, header = 0;

	p->frames_input = p->unit_declared = false;

	while ((s = lr_next(r, &len)) != NULL) {
		size_t i;
		enum fast fast = FAST_NONE;
		/* A sample is added when the line after it ends it. */
		if (p->agg->saturated != sat) {
			sat = p->agg->saturated;
			diag_saturated(&d, r->lineno - 1);
		}
		if (p->agg->not_text != nt) {
			diag_not_text(&d, r->lineno - 1, p->agg->not_text - nt);
			nt = p->agg->not_text;
		}
		if (p->in_sample) {
			if (!(s = frame_run(p, r, s, &len, &fast)))
				break;
			if (fast == FAST_HIT)
				continue;
		}
		i = skip_space(s, 0, len);
		if (i == len) {
			end_sample(p); /* a blank line ends a sample */
			continue;
		}
		if (s[0] == '#') {
			/* prof-symbolize's count column is samples, unless
			 * the line after its header says what else. */
			if (frames_header_parse(s, len) != FRAMES_HEADER_NONE) {
				p->frames_input = true;
				header = r->lineno;
			} else if (header && r->lineno == header + 1) {
				declared_unit(p, s, len);
			}
			continue;
		}
		if (p->in_sample && p->after_frame && srcline(s, len, &src, &slen, &inlined)) {
			on_srcline(p, src, slen, inlined);
			continue;
		}
		/* The frame line of a sample, seen before. */
		if (p->in_sample && fast == FAST_NONE && cached_frame(p, s + i, len - i))
			continue;
		if (i == 0) {
			/* As in the Perl tool, an event line is tried first:
			 * old perf printed frames unindented. */
			if (parse_event_line(s, len, &e, &p->event_memo)) {
				if (e.period_saturated)
					diag_saturated(&d, r->lineno);
				start_sample(p, &e);
			}
			else if (p->in_sample && parse_frame_line(s, len, &f)) {
				if (!on_frame(p, &f, s, len))
					diag_bad_line(&d, p->o, r->lineno, TOO_LONG);
			} else if (p->o->cgroup && s[0] == '/')
				diag_bad_line(&d, p->o, r->lineno, CGROUP_AFTER);
			else
				diag_bad_line(&d, p->o, r->lineno,
					      p->in_sample ? "unrecognized frame line"
							   : "unrecognized event line");
			continue;
		}
		if (p->in_sample) {
			if (parse_frame_line(s + i, len - i, &f) ||
			    parse_frame_line_nodso(s + i, len - i, &f)) {
				if (!on_frame(p, &f, s + i, len - i))
					diag_bad_line(&d, p->o, r->lineno, TOO_LONG);
				continue;
			}
			/* No frame line starts with '-'. */
			switch (parse_waker_line(s + i, len - i, &e)) {
			case WAKER_LINE:
				if (on_waker(p, &e))
					break;
				cut_wakers(p);
				diag_bad_line(&d, p->o, r->lineno, TOO_LONG);
				break;
			case WAKER_MALFORMED:
				cut_wakers(p);
				diag_bad_line(&d, p->o, r->lineno, "malformed waker line");
				break;
			case WAKER_NONE:
				diag_bad_line(&d, p->o, r->lineno, "unrecognized frame line");
				break;
			}
			continue;
		}
		/* An indented line outside a sample: an indented event line,
		 * or a frame or waker line whose event line is missing. */
		if (parse_event_line(s + i, len - i, &e, &p->event_memo)) {
			if (e.period_saturated)
				diag_saturated(&d, r->lineno);
			start_sample(p, &e);
		}
		else if (parse_waker_line(s + i, len - i, &e) != WAKER_NONE)
			diag_bad_line(&d, p->o, r->lineno, "waker line outside a sample");
		else
			diag_bad_line(&d, p->o, r->lineno,
				      parse_frame_line(s, len, &f)
					      ? "frame line outside a sample"
					      : "unrecognized line");
	}
	end_sample(p); /* a last sample with no blank line after it */
	if (p->agg->saturated != sat)
		diag_saturated(&d, r->lineno);
	if (p->agg->not_text != nt)
		diag_not_text(&d, r->lineno, p->agg->not_text - nt);
	return diag_report(&d);
}
