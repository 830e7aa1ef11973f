/*
 * Diagnostics, exit statuses and the command-line conventions shared by the
 * four programs.
 *
 * Messages follow err(3): "prog: context: what went wrong" on stderr, where
 * prog is program_invocation_short_name.  The exit statuses are documented
 * in every man page and must not change meaning.
 *
 * Each main() first parses its options (prof-sample in options.c, the rest
 * in main.c): a getopt_long() loop over a static option table, where
 * -h/--help is help_exit(), -V/--version is version_exit(), getopt's '?'
 * (an unknown option, a missing argument) is usage_hint_exit(), and a bad
 * option value or combination is one errx(EXIT_USAGE, ...) line saying
 * what is wrong.
 */
#ifndef PROF_DIAG_H
#define PROF_DIAG_H

#include <err.h>
#include <stdio.h>

enum {
	EXIT_OK = 0,
	EXIT_PARTIAL = 1, /* output written, but something was lost or skipped */
	EXIT_USAGE = 2,	  /* bad usage, unreadable or invalid input, or an
			     output that could not be written */
};

/* Stacks cut short (partial, not lost) are said in one line without -v
 * only when they are at least 1 in CUT_WARN_SHARE of the samples: a few
 * in thousands are the normal state of distribution code, and a line on
 * every run (of a service that ships a file a minute) is noise. */
#define CUT_WARN_SHARE 100
static inline int cut_matters(unsigned long long cut, unsigned long long samples)
{
	return cut > 0 && cut * CUT_WARN_SHARE >= samples;
}

/* --help: prints usage on stdout and exits 0 (EXIT_USAGE, with a message,
 * if stdout cannot be written). */
void help_exit(const char *usage) __attribute__((noreturn));

/* --version: prints "prog VERSION" on stdout and exits as help_exit does. */
void version_exit(void) __attribute__((noreturn));

/* After getopt has reported a bad option: the way to the usage, one line
 * on stderr, and exit EXIT_USAGE. */
void usage_hint_exit(void) __attribute__((noreturn));

/* Makes the n bytes at s safe to print, in place: C0 control characters,
 * DEL and the C1 controls (U+0080 to U+009F, encoded or as bare bytes,
 * which terminals take as escape sequences) become '?', byte for byte;
 * every other byte stays, valid UTF-8 or not.  For names and paths that
 * the profiled programs chose, on stderr as in the line formats. */
void printable(char *s, size_t n);

/* Allocation that cannot fail: on exhaustion, report and exit. */
void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
void *xreallocarray(void *p, size_t n, size_t size);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);

/* p with room for need elements of size, *cap counting those it has room
 * for: doubled (from first) until they fit.  Inline: the common case, room
 * enough, is one comparison on hot paths.  A small first where there are
 * many arrays (one per process), a large one where one grows far. */
static inline void *xreserve_from(void *p, size_t *cap, size_t need, size_t size, size_t first)
{
	if (need <= *cap)
		return p;
	while (*cap < need)
		*cap = *cap ? *cap * 2 : first;
	return xreallocarray(p, *cap, size);
}

static inline void *xreserve(void *p, size_t *cap, size_t need, size_t size)
{
	return xreserve_from(p, cap, need, size, 256);
}

#endif
