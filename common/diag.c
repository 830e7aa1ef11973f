#include "diag.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "stream.h"

__attribute__((noreturn)) static void stdout_exit(void)
{
	exit(output_close(stdout, NULL) ? EXIT_OK : EXIT_USAGE);
}

void help_exit(const char *usage)
{
	fputs(usage, stdout);
	stdout_exit();
}

void version_exit(void)
{
	printf("%s %s\n", program_invocation_short_name, PROF_VERSION);
	stdout_exit();
}

void usage_hint_exit(void)
{
	fprintf(stderr, "Try '%s --help' for more information.\n", program_invocation_short_name);
	exit(EXIT_USAGE);
}

static void *check(void *p)
{
	if (!p)
		errx(EXIT_USAGE, "out of memory");
	return p;
}

void *xmalloc(size_t n)
{
	return check(malloc(n ? n : 1));
}

void *xcalloc(size_t n, size_t size)
{
	return check(calloc(n ? n : 1, size ? size : 1));
}

void *xrealloc(void *p, size_t n)
{
	return check(realloc(p, n ? n : 1));
}

void *xreallocarray(void *p, size_t n, size_t size)
{
	return check(reallocarray(p, n ? n : 1, size ? size : 1));
}

char *xstrdup(const char *s)
{
	return check(strdup(s));
}

char *xstrndup(const char *s, size_t n)
{
	return check(strndup(s, n));
}

/* The length of the valid UTF-8 sequence at s (n bytes left), with its code
 * point in *cp; 0 if there is none. */
static size_t utf8_at(const unsigned char *s, size_t n, uint32_t *cp)
{
	size_t len = s[0] >= 0xf0 && s[0] <= 0xf4 ? 4 : s[0] >= 0xe0 ? 3 : s[0] >= 0xc2 ? 2 : 0;

	if (!len || len > n)
		return 0;
	*cp = s[0] & (0x7f >> len);
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		*cp = *cp << 6 | (s[i] & 0x3f);
	}
	return len;
}

/* Whether the 8 bytes at p are all printable ASCII, 0x20 to 0x7e: a byte
 * below 0x20 borrows into its top bit when 0x20 is taken from it (none
 * below it borrows, being printable), and one above 0x7e has its top bit
 * set, or sets it when 1 is added. */
static bool ascii8(const unsigned char *p)
{
	const uint64_t ones = 0x0101010101010101u, tops = 0x8080808080808080u;
	uint64_t w;

	memcpy(&w, p, 8);
	return !(((w - 0x20 * ones) | w | (w + ones)) & tops);
}

void printable(char *s, size_t n)
{
	unsigned char *u = (unsigned char *)s;
	size_t i = 0;

	/* Names are nearly always plain ASCII, and prof-symbolize cleans
	 * every one it writes: skip over that a word at a time. */
	while (i + 8 <= n && ascii8(u + i))
		i += 8;
	while (i < n) {
		uint32_t cp;
		size_t len;
		if (u[i] < 0x20 || u[i] == 0x7f) {
			u[i++] = '?';
		} else if (u[i] < 0x80) {
			i++;
		} else if ((len = utf8_at(u + i, n - i, &cp)) > 0) {
			if (cp < 0xa0)
				memset(u + i, '?', len);
			i += len;
		} else {
			/* Not UTF-8: kept, but a bare C1 byte is a control. */
			if (u[i] < 0xa0)
				u[i] = '?';
			i++;
		}
	}
}
