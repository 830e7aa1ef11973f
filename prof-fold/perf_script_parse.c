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
#include "ascii.h"
#include "folded.h"
#include "frame_cache.h"
#include "frame_kind.h"
#include "frames_header.h"
#include "offcpu_words.h"
#include "perf_parser.h"

struct perf_parser *perf_parser_new(const struct fold_opts *o, struct fold_agg *agg)
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

bool perf_parser_blocked_time(const struct perf_parser *p)
{
	return p->blocked_time;
}

const char *perf_parser_unit(const struct perf_parser *p)
{
	if (p->weighted && p->unweighted)
		return NULL;
	if (!p->weighted)
		return p->unweighted ? "samples" : NULL;
	return event_select_unit(&p->sel);
}

#define TOO_LONG "frame name too long once expanded"

/* perf 6.3 to 6.5 printed -F +cgroup's path on a line of its own after
 * the stack, where it cannot be told from garbage; perf 6.6 moved it to
 * the event line. */
#define CGROUP_AFTER "cgroup after the frames (perf 6.3 to 6.5), not on the event line"

/* The frame that names the thread of an event or waker line: its name,
 * with --pid "NAME-PID", with --tid "NAME-PID/TID".  Sets p->java, which
 * changes how the thread's frames are tidied.  Returns the frame's length
 * at (*buf)[0], which has room for extra more bytes after it. */
static size_t thread_frame(struct perf_parser *p, const struct event_line *e, char **buf,
			   size_t *cap, size_t extra)
{
	char *out = *buf =
	    xreserve(*buf, cap, e->comm_len + e->pid_len + e->tid_len + 2 + extra, 1);
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
	p->cgname = xreserve(p->cgname, &p->cgname_cap, len, 1);
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
	p->blocked_time |= p->offcpu;
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
			parsed_frame(p, &f, e->rest, e->rest_len);
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
	if (d == end || d <= i + 1 || s[d - 1] != ':' || memchr(s + i, ' ', end - i) ||
	    memchr(s + i, '\t', end - i) || (d - 3 >= i && memcmp(s + d - 3, "??:", 3) == 0))
		return true;
	const char *slash = memrchr(s + i, '/', end - i);
	*src = slash ? slash + 1 : s + i;
	*slen = (size_t)(s + end - *src);
	return true;
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

/* "# blocks N": the next event line, of time blocked, stands for N blocks
 * (prof-symbolize merges those of one stack and slots). */
static void blocks_comment(struct perf_parser *p, const char *s, size_t len)
{
	const size_t n = sizeof(BLOCKS_COMMENT) - 1;
	uint64_t v = 0;
	size_t i = n;

	if (len <= n || memcmp(s, BLOCKS_COMMENT, n) != 0)
		return;
	for (; i < len && is_digit(s[i]); i++)
		if (__builtin_mul_overflow(v, 10, &v) || __builtin_add_overflow(v, (uint64_t)(s[i] - '0'), &v))
			return;
	if (i == len && v > 0)
		p->next_blocks = v;
}

/* Starts the sample of event line s; with --timed, one without a time is
 * skipped, and said. */
static void on_event(struct perf_parser *p, struct fold_diag *d, uint64_t lineno, const char *s,
		     const struct event_line *e)
{
	bool untimed = p->o->slot_ns && !event_time(s, e, &p->time_ns);

	p->blocks = p->next_blocks ? p->next_blocks : 1;
	p->next_blocks = 0;

	start_sample(p, e);
	if (untimed && p->keep) {
		p->keep = false;
		diag_bad_line(d, p->o, lineno, "event line without a time (--timed)");
	}
}

uint64_t perf_parse_input(struct perf_parser *p, struct line_reader *r)
{
	struct fold_diag d = {.name = r->name};
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
			} else if (p->o->slot_ns) {
				blocks_comment(p, s, len);
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
				on_event(p, &d, r->lineno, s, &e);
			} else if (p->in_sample && parse_frame_line(s, len, &f)) {
				if (!parsed_frame(p, &f, s, len))
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
				if (!parsed_frame(p, &f, s + i, len - i))
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
			on_event(p, &d, r->lineno, s + i, &e);
		} else if (parse_waker_line(s + i, len - i, &e) != WAKER_NONE)
			diag_bad_line(&d, p->o, r->lineno, "waker line outside a sample");
		else
			diag_bad_line(&d, p->o, r->lineno,
				      parse_frame_line(s, len, &f) ? "frame line outside a sample"
								   : "unrecognized line");
	}
	end_sample(p); /* a last sample with no blank line after it */
	if (p->agg->saturated != sat)
		diag_saturated(&d, r->lineno);
	if (p->agg->not_text != nt)
		diag_not_text(&d, r->lineno, p->agg->not_text - nt);
	return diag_report(&d);
}
