#include "diag.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

void print_version(void)
{
	printf("%s %s\n", program_invocation_short_name, PROF_VERSION);
}

void usage_exit(const char *text, int status)
{
	FILE *f = status ? stderr : stdout;

	if (status)
		fprintf(f, "Try '%s --help' for more information.\n",
			program_invocation_short_name);
	else
		fputs(text, f);
	exit(status);
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
