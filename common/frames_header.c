#include "frames_header.h"

#include <string.h>

#define MAGIC "# prof-symbolize frames v"
#define VERSION "1"

enum frames_header frames_header_parse(const char *s, size_t len)
{
	const size_t m = sizeof(MAGIC) - 1, v = sizeof(VERSION) - 1;

	if (len < m || memcmp(s, MAGIC, m) != 0)
		return FRAMES_HEADER_NONE;
	s += m;
	len -= m;
	/* The version number ends the line, or the input read so far. */
	if (len < v || memcmp(s, VERSION, v) != 0 ||
	    (len > v && s[v] != '\n' && s[v] != '\r' && s[v] != ' '))
		return FRAMES_HEADER_UNKNOWN;
	return FRAMES_HEADER_KNOWN;
}

void frames_header_write(FILE *out)
{
	fputs(MAGIC VERSION "\n", out);
}
