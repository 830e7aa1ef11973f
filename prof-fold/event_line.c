/*
 * Event lines of perf script: "COMM PID/TID [CPU] TIME: PERIOD EVENT:", in
 * every variant perf has printed (no PID, no CPU, no period, a multi-word
 * command, an event with modifiers "cycles:u:"), read as
 * stackcollapse-perf.pl reads them, with the cgroup that perf script
 * -F +cgroup and prof-symbolize write after the event; and the waker lines
 * of prof-symbolize frames, which name a thread as an event line does.
 */
#include <string.h>

#include "ascii.h"
#include "fold.h"
#include "offcpu_words.h"
#include "seconds.h"

/* period * 10 + digit, kept at UINT64_MAX past it.  The overflow is the
 * multiplication's and addition's own: a test by division, a digit at a
 * time, cost more than the rest of the event line. */
static void add_digit(struct event_line *e, char c)
{
	uint64_t v;

	if (__builtin_mul_overflow(e->period, 10, &v) ||
	    __builtin_add_overflow(v, (uint64_t)(c - '0'), &v)) {
		e->period = UINT64_MAX;
		e->period_saturated = true;
	} else {
		e->period = v;
	}
}

/* The "TIME: PERIOD EVENT:" end of an event line, as the Perl pattern
 * /:\s*(\d+)*\s+(\S+):\s*$/ reads it; *from is the first byte it read
 * (the time's colon, or the period's when it has none). */
static bool read_event_tail(const char *s, size_t len, struct event_line *e, size_t *from)
{
	size_t end = len, ts, i;

	while (end > 0 && is_space(s[end - 1]))
		end--;
	if (end < 2 || s[end - 1] != ':')
		return false;
	ts = end - 1;
	while (ts > 0 && !is_space(s[ts - 1]))
		ts--;
	if (ts == 0 || ts == end - 1)
		return false;
	i = ts;
	while (i > 0 && is_space(s[i - 1]))
		i--;
	if (i == 0)
		return false;
	e->period = 0;
	e->period_saturated = false;
	*from = i - 1;
	if (s[i - 1] != ':') {
		size_t d = i;
		while (d > 0 && is_digit(s[d - 1]))
			d--;
		if (d == i)
			return false;
		size_t c = d;
		while (c > 0 && is_space(s[c - 1]))
			c--;
		if (c == 0 || s[c - 1] != ':')
			return false;
		for (size_t k = d; k < i; k++)
			add_digit(e, s[k]);
		*from = c - 1;
	}
	e->event = s + ts;
	e->event_len = end - 1 - ts;
	return true;
}

/* read_event_tail(), or what it said of the last line that ended with
 * the same bytes: it reads nothing before them, so it would say it
 * again. */
static bool parse_event_tail(const char *s, size_t len, struct event_line *e,
			     struct event_memo *m)
{
	size_t from;

	if (m && m->len && m->len <= len && memcmp(s + len - m->len, m->tail, m->len) == 0) {
		e->event = s + len - m->event_back;
		e->event_len = m->event_len;
		e->period = m->period;
		e->period_saturated = m->saturated;
		e->time_colon = len - m->len;
		return true;
	}
	if (!read_event_tail(s, len, e, &from))
		return false;
	e->time_colon = from;
	if (m && len - from <= sizeof(m->tail)) {
		m->len = len - from;
		memcpy(m->tail, s + from, m->len);
		m->event_back = (size_t)(s + len - e->event);
		m->event_len = e->event_len;
		m->period = e->period;
		m->saturated = e->period_saturated;
	}
	return true;
}

/*
 * The cgroup at the end of an event line (prof-symbolize --cgroup, perf
 * script -F +cgroup): "SECONDS: [PERIOD] EVENT: CGROUP", the path right
 * after the event's colon, absolute, or the word "unknown", perf's name
 * for a cgroup it could not find.  Only there: what follows other
 * colons (a tracepoint's payload) is not a cgroup, even if it starts
 * with '/'.  A path may hold spaces and colons, so it runs to the end of
 * the line ("unknown" leaves e->cgroup NULL).  Returns where the event
 * line proper ends (after the event's colon), or len without a cgroup.
 */
static size_t split_cgroup(const char *s, size_t len, size_t from, struct event_line *e)
{
	static const char unknown[] = "unknown";
	const size_t n = sizeof(unknown) - 1;
	size_t i = from, t;
	int field = 0; /* 0: before the time, 1: after it, 2: after the period */

	/* Most lines have neither: they are not read token by token. */
	if (!memchr(s + from, '/', len - from) &&
	    !(len - from >= n && memcmp(s + len - n, unknown, n) == 0))
		return len;
	for (;;) {
		while (i < len && is_space(s[i]))
			i++;
		if (i == len)
			return len;
		for (t = i; i < len && !is_space(s[i]); i++)
			;
		bool colon = s[i - 1] == ':', digits = true, time = colon && i - t >= 2;
		for (size_t k = t; k < i - colon; k++) {
			digits = digits && is_digit(s[k]);
			time = time && (is_digit(s[k]) || (s[k] == '.' && k > t));
		}
		if (field == 0) {
			field = time;
		} else if (field == 1 && digits && !colon) {
			field = 2;
		} else {
			/* The event: the cgroup, if any, follows it. */
			if (!colon)
				return len;
			size_t p = i;
			while (p < len && is_space(s[p]))
				p++;
			if (p == i || p == len)
				return len;
			if (s[p] == '/') {
				e->cgroup = s + p;
				e->cgroup_len = len - p;
			} else if (!(len - p == n && memcmp(s + p, unknown, n) == 0)) {
				return len;
			}
			return i;
		}
	}
}

/* A single-frame sample on one line (inferno's fix):
 * "COMM PID TIME: PERIOD EVENT:  ADDR SYM (DSO)". */
static bool parse_event_with_frame(const char *s, size_t len, size_t from,
				   struct event_line *e)
{
	const char *prev_end = NULL; /* the token before, if it ends with ':' */
	const char *digits = NULL, *digits_end = NULL;
	size_t i = from;

	for (;;) {
		while (i < len && is_space(s[i]))
			i++;
		if (i == len)
			return false;
		size_t t = i;
		while (i < len && !is_space(s[i]))
			i++;
		bool colon = s[i - 1] == ':';
		bool num = true;
		for (size_t k = t; k < i; k++)
			num = num && is_digit(s[k]);
		if (colon && i - t >= 2 && (prev_end || digits)) {
			struct frame_line f;
			e->event = s + t;
			e->event_len = i - 1 - t;
			e->period = 0;
			e->period_saturated = false;
			for (const char *d = digits; d && d < digits_end; d++)
				add_digit(e, *d);
			while (i < len && is_space(s[i]))
				i++;
			e->rest = s + i;
			e->rest_len = len - i;
			return parse_frame_line(e->rest, e->rest_len, &f);
		}
		if (num && prev_end) {
			digits = s + t;
			digits_end = s + i;
		} else {
			digits = NULL;
		}
		prev_end = colon ? s + i : NULL;
	}
}

/*
 * The Perl pattern /^(\S.+?)\s+(\d+)[/]*(\d+)*\s+/: the command is the
 * shortest prefix followed by white space, a number, and white space or a
 * '/' and a second number.  The Perl pattern wants two characters or more;
 * a one-character command is accepted here.
 */
bool parse_event_line(const char *s, size_t len, struct event_line *e, struct event_memo *m)
{
	size_t c;

	if (len == 0 || is_space(s[0]))
		return false;
	memset(e, 0, sizeof(*e));
	for (c = 1; c < len; c++) {
		size_t j = c, d1, d1e, d2, d2e;
		if (!is_space(s[c]))
			continue;
		while (j < len && is_space(s[j]))
			j++;
		d1 = j;
		while (j < len && is_digit(s[j]))
			j++;
		d1e = j;
		if (d1e == d1)
			goto next;
		d2 = d2e = j;
		if (j < len && s[j] == '/') {
			while (j < len && s[j] == '/')
				j++;
			d2 = j;
			while (j < len && is_digit(s[j]))
				j++;
			d2e = j;
		}
		if (j == len || !is_space(s[j]))
			goto next;
		e->comm = s;
		e->comm_len = c;
		/* Perl: with no TID (or a TID of "0") the number is the TID
		 * and the PID is "?". */
		if (d2e == d2 || (d2e - d2 == 1 && s[d2] == '0')) {
			e->pid = "?";
			e->pid_len = 1;
			e->tid = s + d1;
			e->tid_len = d1e - d1;
		} else {
			e->pid = s + d1;
			e->pid_len = d1e - d1;
			e->tid = s + d2;
			e->tid_len = d2e - d2;
		}
		size_t end = split_cgroup(s, len, j, e);
		if (!parse_event_tail(s, end, e, m) &&
		    (end < len || !parse_event_with_frame(s, len, j, e))) {
			e->event = e->rest = NULL;
			e->event_len = e->rest_len = 0;
			e->period = 0;
			e->period_saturated = false;
		}
		e->has_period = e->period != 0;
		if (e->period == 0)
			e->period = 1;
		return true;
next:
		/* The rest of this run of spaces leads to the same number. */
		while (c + 1 < len && is_space(s[c + 1]))
			c++;
	}
	return false;
}


bool event_time(const char *s, const struct event_line *e, uint64_t *ns)
{
	size_t t = e->time_colon;

	if (!e->time_colon || s[t] != ':')
		return false;
	while (t > 0 && (is_digit(s[t - 1]) || s[t - 1] == '.'))
		t--;
	if (t == e->time_colon || (t > 0 && !is_space(s[t - 1])))
		return false;
	return seconds_parse(s + t, s + e->time_colon, ns) == s + e->time_colon;
}

/*
 * A waker line of prof-symbolize frames, "-- woken by COMM PID/TID" with
 * its indentation skipped.  The name is the thread's own and may hold
 * spaces (prof-symbolize rewrites those that would read as a PID), so
 * PID/TID is the line's last field.
 */
enum waker_kind parse_waker_line(const char *s, size_t len, struct event_line *w)
{
	static const char prefix[] = WAKER_LINE_START;
	const size_t n = sizeof(prefix) - 1;
	size_t end = len, t, slash, c, i = n;

	if (len < n || memcmp(s, prefix, n) != 0)
		return WAKER_NONE;
	while (end > n && is_space(s[end - 1]))
		end--;
	t = end;
	while (t > n && !is_space(s[t - 1]))
		t--;
	for (slash = t; slash < end && is_digit(s[slash]); slash++)
		;
	if (slash == t || slash + 1 >= end || s[slash] != '/')
		return WAKER_MALFORMED;
	for (size_t k = slash + 1; k < end; k++)
		if (!is_digit(s[k]))
			return WAKER_MALFORMED;
	if (i == len || !is_space(s[i]))
		return WAKER_MALFORMED;
	while (i < t && is_space(s[i]))
		i++;
	c = t;
	while (c > i && is_space(s[c - 1]))
		c--;
	if (c == i)
		return WAKER_MALFORMED;
	memset(w, 0, sizeof(*w));
	w->comm = s + i;
	w->comm_len = c - i;
	w->pid = s + t;
	w->pid_len = slash - t;
	w->tid = s + slash + 1;
	w->tid_len = end - slash - 1;
	return WAKER_LINE;
}
