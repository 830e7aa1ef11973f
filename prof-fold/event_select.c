/*
 * Which samples prof-fold folds: those of one event, the one given by
 * --event-filter or else the first one seen, with its modifiers or
 * without ("cycles:u" is a "cycles" event); by default a clock event
 * and offcpu-time together, both nanoseconds.  And what the folded
 * counts of that event are.
 */
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "fold.h"
#include "folded.h"
#include "offcpu_words.h"

void event_select_init(struct event_select *s, const char *filter)
{
	*s = (struct event_select){ 0 };
	if (filter) {
		s->event = xstrdup(filter);
		s->event_len = strlen(s->event);
	}
}

void event_select_free(struct event_select *s)
{
	free((void *)s->filtered_event_name);
	free(s->event);
}

void event_select_report(const struct event_select *s)
{
	if (s->filtered && s->event_defaulted)
		warnx("folded only the first event seen, '%.*s'; skipped %llu "
		      "sample%s of other events such as '%s' (see --event-filter)",
		      (int)s->event_len, s->event, (unsigned long long)s->filtered,
		      s->filtered == 1 ? "" : "s",
		      s->filtered_event_name ? s->filtered_event_name : "?");
}

/* The event name without its modifiers: "cycles:u" is a "cycles" event. */
static size_t event_base(const char *ev, size_t len)
{
	const char *colon = memchr(ev, ':', len);

	return colon ? (size_t)(colon - ev) : len;
}

static bool is_event(const char *ev, size_t base, const char *name)
{
	return base == strlen(name) && memcmp(ev, name, base) == 0;
}

/* The events whose periods are nanoseconds. */
static bool is_clock(const char *ev, size_t base)
{
	return is_event(ev, base, "cpu-clock") || is_event(ev, base, "task-clock");
}

/* ev[0..len) is offcpu-time, with or without modifiers (without
 * event_base(): this is asked of every sample). */
bool is_offcpu(const char *ev, size_t len)
{
	const size_t n = sizeof(EVENT_OFF_CPU) - 1;

	return len >= n && memcmp(ev, EVENT_OFF_CPU, n) == 0 && (len == n || ev[n] == ':');
}

const char *event_select_unit(const struct event_select *s)
{
	static char unit[FOLDED_UNIT_MAX + 1];
	size_t base;

	if (!s->event)
		return "events";
	base = event_base(s->event, s->event_len);
	if (is_clock(s->event, base) || is_offcpu(s->event, base))
		return "nanoseconds";
	/* The event's name, if it is a plain one. */
	if (!folded_unit_ok(s->event, base))
		return "events";
	memcpy(unit, s->event, base);
	unit[base] = '\0';
	return unit;
}

/* Time on the CPU (a clock event's periods) and time off it are both
 * nanoseconds: by default they fold together, a wall-clock profile
 * (prof-sample --wall, perf record --off-cpu -e cpu-clock).  Only one
 * clock event does, as only one event would. */
static bool wall_partner(struct event_select *s, const char *ev, size_t base)
{
	size_t first = event_base(s->event, s->event_len);

	if (is_offcpu(ev, base))
		return is_clock(s->event, first);
	if (!is_clock(ev, base) || !is_offcpu(s->event, first))
		return false;
	if (!s->clock)
		s->clock = is_event(ev, base, "cpu-clock") ? "cpu-clock" : "task-clock";
	return is_event(ev, base, s->clock);
}

bool event_wanted(struct event_select *s, const struct event_line *e)
{
	size_t base;

	if (!e->event)
		return true; /* no event name: as the Perl tool, keep it */
	if (!s->event) {
		/* Not strndup: a name may hold a NUL byte. */
		s->event = xmalloc(e->event_len + 1);
		memcpy(s->event, e->event, e->event_len);
		s->event[e->event_len] = '\0';
		s->event_len = e->event_len;
		s->event_defaulted = true;
		return true;
	}
	if (e->event_len == s->event_len &&
	    memcmp(e->event, s->event, e->event_len) == 0)
		return true;
	base = event_base(e->event, e->event_len);
	if (base == event_base(s->event, s->event_len) &&
	    memcmp(e->event, s->event, base) == 0 &&
	    (s->event_defaulted || base == s->event_len))
		return true;
	if (s->event_defaulted && wall_partner(s, e->event, base))
		return true;
	s->filtered++;
	if (!s->filtered_event_name)
		s->filtered_event_name = xstrndup(e->event, e->event_len);
	return false;
}
