/*
 * Input format detection, from the first lines of an input.
 *
 * prof-symbolize frames announce themselves in their first line.  Otherwise
 * the first line that is neither a comment nor blank decides: a folded line
 * (common/folded.c) ends with white space and a count and is not followed
 * by an indented frame line; anything else is read as perf script output,
 * whose reader reports what it cannot parse.  A capture, a perf.data file
 * or an SVG is refused by name.
 */
#include <string.h>

#include "fold.h"
#include "folded.h"
#include "frames_header.h"
#include "input_kind.h"

static const char *next_line(const char *p, const char *end, size_t *len)
{
	const char *nl = memchr(p, '\n', (size_t)(end - p));

	*len = (size_t)((nl ? nl : end) - p);
	if (*len && p[*len - 1] == '\r')
		(*len)--;
	return nl ? nl + 1 : end;
}

enum fold_format detect_format(const char *buf, size_t len, const char **refuse)
{
	const char *p = buf, *end = buf + len, *line = NULL;
	size_t n, first_len = 0;

	enum input_kind k = input_kind(buf, len);
	*refuse = k == INPUT_FRAMES ? NULL : input_kind_hint(k);
	if (*refuse)
		return FMT_PERF;
	switch (frames_header_parse(buf, len)) {
	case FRAMES_HEADER_KNOWN:
		return FMT_PERF;
	case FRAMES_HEADER_UNKNOWN:
		*refuse = "unsupported prof-symbolize frames version (this reader knows v1)";
		return FMT_PERF;
	case FRAMES_HEADER_NONE:
		break;
	}
	while (p < end) {
		const char *s = p;
		struct folded_line l;
		p = next_line(p, end, &n);
		enum folded_kind kind = folded_parse(s, n, 1, &l);
		if (kind == FOLDED_BLANK || kind == FOLDED_COMMENT)
			continue;
		if (!line) {
			line = s;
			first_len = n;
			if (s[0] == ' ' || s[0] == '\t')
				return FMT_PERF;
			if (kind == FOLDED_STACK)
				continue;
			/* A first line longer than what was read (a huge
			 * folded stack) cannot show its count: it is perf
			 * script only if it starts like an event line. */
			if (p == end && s + n == end) {
				struct event_line e;
				return parse_event_line(s, n, &e, NULL) ? FMT_PERF : FMT_FOLDED;
			}
			return FMT_PERF;
		}
		/* The line after a candidate: a frame line means perf. */
		return (s[0] == ' ' || s[0] == '\t') ? FMT_PERF : FMT_FOLDED;
	}
	return line && first_len ? FMT_FOLDED : FMT_PERF;
}
