/*
 * prof-fold: the options every stage of the fold shares, and the interfaces
 * of the files that implement it.
 *
 *   detect.c             which format an input is in
 *   event_line.c         event lines: command, PID/TID, period, event;
 *                        waker lines
 *   event_select.c       which event's samples are folded, in what unit
 *   perf_script_parse.c  perf script / prof-symbolize frames -> samples
 *                        (with frame_lines.c and sample_stack.c, which
 *                        share its state in perf_parser.h)
 *   tidy.c               frame names: offsets, tidying, annotations
 *   folded_parse.c       folded stacks -> stacks (merge, re-filter)
 *   frame_cache.c        frame line -> folded name, for repeated lines
 *                        (frame_cache.h: its layout and inline lookup)
 *   stack_ids.c          folded names and stacks by id, for repeated samples
 *   fold_output.c        stack -> count aggregation, filters, sorted output
 *
 * The syntax of the formats is shared with the other programs:
 * common/line_reader.c (lines), common/folded.c (folded stacks), common/frame_kind.c (_[k] and the other
 * annotations), common/frames_header.c (prof-symbolize's first line).
 */
#ifndef PROF_FOLD_H
#define PROF_FOLD_H

#include <regex.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "htab.h"
#include "line_reader.h"

enum fold_format {
	FMT_AUTO,
	FMT_PERF,   /* perf script output, prof-symbolize frames */
	FMT_FOLDED, /* root;...;leaf COUNT */
};

struct fold_opts {
	bool include_pid, include_tid; /* root is comm-PID or comm-PID/TID */
	bool annotate_kernel, annotate_jit, include_addrs;
	bool inline_annotate; /* --inline: mark inlined frames _[i] */
	bool context;         /* --context: append srcline to frames */
	bool no_comm;         /* --no-comm: no process root frame */
	bool cgroup;          /* --cgroup: the sample's cgroup before it */
	bool strict;          /* unparsable lines are fatal */
	const char *event_filter; /* NULL: the first event seen */
	uint64_t slot_ns;     /* --timed: slots of this many ns; 0 untimed */
	const char **skip_after;  /* stop at these functions */
	size_t nskip_after;
	enum fold_format format;
};

/* --- detect.c ----------------------------------------------------------- */

/* Guesses the format from the start of an input.  Sets *refuse to what
 * to say when it is one prof-fold refuses (a capture, an SVG, or
 * prof-symbolize frames of another version), else to NULL. */
enum fold_format detect_format(const char *buf, size_t len, const char **refuse);

/* --- fold_output.c ------------------------------------------------------ */

/* --timed: count of stack (an index of the aggregate's, then, for the
 * output, its rank in bytewise order) in slot (time / slot_ns). */
struct agg_timed {
	uint64_t slot;
	size_t stack;
	uint64_t count;
};

struct fold_agg {
	struct htab *stacks;
	uint64_t slot_ns;	   /* --timed; 0 untimed */
	struct agg_timed *timed;   /* one per sample (or slot of a block) */
	size_t ntimed, timed_cap;
	char *unit;	    /* what the counts are, when known and not samples */
	bool unit_conflict; /* inputs in different units */
	uint64_t saturated; /* additions that passed UINT64_MAX */
	uint64_t not_text;  /* distinct stacks with a NUL byte or invalid UTF-8 */
	regex_t *filters, *excludes;
	size_t nfilters, nexcludes;
	char *text; /* a stack, NUL-terminated, for the regexes */
	size_t text_cap;
};

void agg_init(struct fold_agg *a);
void agg_free(struct fold_agg *a);
/* Adds count to stack (bytes, no terminator needed); a sum past
 * UINT64_MAX stays at UINT64_MAX and counts in a->saturated.  A new stack
 * that is not text (a NUL byte, invalid UTF-8) counts in a->not_text: it
 * is kept as it is, as stackcollapse-perf.pl keeps it, but said.  Returns
 * the stack's index, valid for the aggregate's life. */
size_t agg_add(struct fold_agg *a, const char *stack, size_t len, uint64_t count);
/* Adds count to the stack agg_add() returned index of, as it does. */
void agg_add_at(struct fold_agg *a, size_t idx, uint64_t count);
/* --timed: charges count of the stack of index idx to the slot that holds
 * end_ns - 1; with blocks, count nanoseconds of time blocked by that many
 * blocks of one length that ended at end_ns, to the slots of that time
 * (fold_timed.c). */
void agg_time(struct fold_agg *a, size_t idx, uint64_t end_ns, uint64_t count, uint64_t blocks);
/* Writes the n stacks of sorted (bytewise order, those kept) slot by
 * slot, each slot after its time line. */
void agg_write_timed(struct fold_agg *a, FILE *out, struct htab_entry **sorted, size_t n);
/* Compiles a --filter (exclude false) or --exclude regex; returns false and
 * fills errbuf when it does not compile. */
bool agg_add_regex(struct fold_agg *a, const char *re, bool exclude,
		   char *errbuf, size_t errlen);
/* Notes that an input counts in unit ("samples", "nanoseconds", an event
 * name); inputs that disagree are said and leave the unit unknown. */
void agg_note_unit(struct fold_agg *a, const char *unit);
/* Writes "# count: UNIT" when the unit is known and not samples, then the
 * kept stacks, bytewise sorted, one "stack count" per line. */
void agg_write(struct fold_agg *a, FILE *out);

/* --- fold_compare.c ---------------------------------------------------- */

/* --diff: writes each frame's change of share from before to after with
 * its interval, marked when beyond sampling noise, rises first (both
 * aggregates timed); returns whether any rose beyond noise by more than
 * threshold (a share, 0.01 for 1%).  names are the inputs'. */
bool fold_compare(struct fold_agg *before, struct fold_agg *after, const char *names[2],
		  double threshold, FILE *out);

/* --- per-input diagnostics (shared by the two parsers) ------------------ */

struct fold_diag {
	const char *name;
	uint64_t bad_lines, first_bad;
	char first_what[96];
	uint64_t saturated, first_saturated; /* counts that overflowed */
	uint64_t not_text, first_not_text;   /* stacks that are not text */
};

/* Records an unparsable line; with --strict, reports it and exits. */
void diag_bad_line(struct fold_diag *d, const struct fold_opts *o,
		   uint64_t lineno, const char *what);
/* Records that line lineno made a stack's count overflow 64 bits. */
void diag_saturated(struct fold_diag *d, uint64_t lineno);
/* Records that line lineno added stacks that are not text; a warning, not
 * an error: they are passed through. */
void diag_not_text(struct fold_diag *d, uint64_t lineno, uint64_t n);
/* Reports the unparsable lines of an input once, and the overflowed counts;
 * returns their number. */
uint64_t diag_report(const struct fold_diag *d);

/* --- tidy.c ------------------------------------------------------------- */

struct frame_line {
	const char *pc, *func, *mod;
	size_t pc_len, func_len, mod_len;
};

/* Splits "  ADDR SYMBOL+0xOFF (DSO)" as stackcollapse-perf.pl does. */
bool parse_frame_line(const char *s, size_t len, struct frame_line *f);

/* The frame line of perf script -F without the dso field: "ADDR SYMBOL"
 * or "ADDR"; the dso is then "[unknown]". */
bool parse_frame_line_nodso(const char *s, size_t len, struct frame_line *f);

/* Strips a trailing "+0x<lowercase hex>" symbol offset; returns new length. */
size_t strip_offset(const char *func, size_t len);

bool mod_is_kernel(const char *mod, size_t len);
bool mod_is_jit(const char *mod, size_t len);

/* The capacity tidy_frame() needs for a symbol of func_len bytes. */
size_t tidy_frame_bound(const struct frame_line *f, size_t func_len);

/* Writes the folded name(s) of one frame line into out (capacity at least
 * tidy_frame_bound()): inlined pieces split on "->" are
 * joined by ';'.  Returns the length written. */
size_t tidy_frame(const struct frame_line *f, const char *func, size_t func_len,
		  bool java, bool inlined_frame, const struct fold_opts *o,
		  char *out);

/* The folded names of a waker's frame line, from those tidy_frame()
 * wrote: the pieces of "a->b" leaf first ("b;a"), as a waker's frames
 * are, each marked _[w] instead of any other annotation.  out has room
 * for tidy_waker_bound() bytes; returns the length written. */
size_t tidy_waker_bound(const char *names, size_t len);
size_t tidy_waker(const char *names, size_t len, char *out);

/* The argument-list cut of tidy_generic, on a single name; returns the
 * length to keep. */
size_t tidy_cut_args(const char *s, size_t len);

/* --- stack_ids.c -------------------------------------------------------- */

struct stack_ids {
	struct htab *names; /* text -> id (the entry's index) */
	uint64_t *slots;    /* the stacks' table: tag << 32 | record */
	unsigned shift;	    /* a hash's slot is hash >> shift */
	size_t nstacks;
	uint32_t *recs; /* the stacks' records, one after the other */
	size_t recs_len, recs_cap;
};

#define STACK_IDS_MAX (UINT32_MAX - 1) /* UINT32_MAX is no id */
#define STACK_IDS_SEED 0x2545f4914f6cdd1dull

struct stack_ids *stack_ids_new(void);
void stack_ids_free(struct stack_ids *s);
/* The id of a folded name (one frame, or several joined by ';'). */
uint32_t stack_ids_name(struct stack_ids *s, const char *text, size_t len);
/* The text of the name of that id. */
const char *stack_ids_text(struct stack_ids *s, uint32_t id, size_t *len);

/* The hash of a sequence of ids, from STACK_IDS_SEED, one id at a time. */
static inline uint64_t stack_ids_mix(uint64_t h, uint32_t id)
{
	return (h ^ id) * 0x9e3779b97f4a7c15ull;
}

/* Where the aggregate index of the stack of ids[0..n), of hash h, is
 * kept; *created when it is new, for the caller to fill.  Valid until
 * the next call. */
uint32_t *stack_ids_find(struct stack_ids *s, const uint32_t *ids, size_t n, uint64_t h,
			 bool *created);

/* --- perf_script_parse.c ------------------------------------------------ */

struct event_line {
	const char *comm, *pid, *tid, *event, *rest;
	size_t comm_len, pid_len, tid_len, event_len, rest_len;
	const char *cgroup; /* the path; NULL when none or perf's "unknown" */
	size_t cgroup_len;
	uint64_t period;	/* 1 when the line has none */
	bool has_period;	/* the line gave one: counts weigh in its unit */
	bool period_saturated; /* the period passed UINT64_MAX and is that */
	size_t time_colon;	/* where the time's colon is, 0 when unknown */
};

/* The end of the last event line read, from its time's colon on, and
 * what it said: in a profile, event lines end alike ("     200040
 * cpu-clock:ppp:"), and are not read again there. */
struct event_memo {
	size_t len; /* of the tail; 0 when none */
	char tail[64];
	size_t event_back; /* the event starts this far before the end */
	size_t event_len;
	uint64_t period;
	bool saturated;
};

/* m, NULL or zeroed at first, is kept between lines. */
bool parse_event_line(const char *s, size_t len, struct event_line *e, struct event_memo *m);

/* The time of event line s, whose parse_event_line() filled e: the
 * "SECONDS:" before its period, as perf script and prof-symbolize write it.
 * False when it has none (perf script -F without time). */
bool event_time(const char *s, const struct event_line *e, uint64_t *ns);

enum waker_kind {
	WAKER_NONE,	 /* not a waker line */
	WAKER_LINE,	 /* "-- woken by COMM PID/TID" */
	WAKER_MALFORMED, /* starts as one, but is not */
};

/* A waker line (its indentation skipped): fills w's comm, pid and tid. */
enum waker_kind parse_waker_line(const char *s, size_t len, struct event_line *w);

/* --- event_select.c ---------------------------------------------------- */

/* Which event's samples are folded. */
struct event_select {
	char *event; /* NULL until given or first seen */
	size_t event_len;
	bool event_defaulted; /* the first event seen, not --event-filter */
	const char *clock; /* the clock event folded with offcpu-time first seen */
	uint64_t filtered; /* samples of other events */
	const char *filtered_event_name;
};

/* filter is --event-filter's event, or NULL for the first one seen. */
void event_select_init(struct event_select *s, const char *filter);
void event_select_free(struct event_select *s);
/* Whether the sample of event line e is folded; the first event seen
 * becomes the one folded when none was given. */
bool event_wanted(struct event_select *s, const struct event_line *e);
/* ev[0..len) is offcpu-time, with or without modifiers. */
bool is_offcpu(const char *ev, size_t len);
/* What the periods of the selected event count: "nanoseconds", the
 * event's name, or "events". */
const char *event_select_unit(const struct event_select *s);
/* Tells, once, how many samples of other events were left out. */
void event_select_report(const struct event_select *s);

struct perf_parser;

struct perf_parser *perf_parser_new(const struct fold_opts *o,
				    struct fold_agg *agg);
/* Tells, once, how many samples of other events were left out. */
void perf_parser_report(const struct perf_parser *p);
/* What the folded counts are: "samples" (prof-symbolize frames, perf
 * script lines without a period or with periods of 1), "nanoseconds"
 * (periods of cpu-clock, task-clock or offcpu-time), the event's name
 * (periods of any other event), or NULL when no sample was folded or they
 * disagree.  Frames whose header says their unit ("# count: UNIT") are
 * not counted here: that unit goes to the aggregate as it is read. */
const char *perf_parser_unit(const struct perf_parser *p);
/* Whether time blocked (offcpu-time samples) was folded. */
bool perf_parser_blocked_time(const struct perf_parser *p);
void perf_parser_free(struct perf_parser *p);
/* Folds one input; returns the number of unparsable lines. */
uint64_t perf_parse_input(struct perf_parser *p, struct line_reader *r);

/* --- folded_parse.c ----------------------------------------------------- */

uint64_t folded_parse_input(const struct fold_opts *o, struct fold_agg *agg,
			    struct line_reader *r);

#endif
