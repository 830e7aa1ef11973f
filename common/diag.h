/*
 * Diagnostics and exit statuses shared by the four programs.
 *
 * Messages follow err(3): "prog: context: what went wrong" on stderr, where
 * prog is program_invocation_short_name.  The exit statuses are documented
 * in every man page and must not change meaning.
 */
#ifndef PROF_DIAG_H
#define PROF_DIAG_H

#include <err.h>
#include <stdio.h>

enum {
	EXIT_OK = 0,
	EXIT_PARTIAL = 1, /* output written, but something was lost or skipped */
	EXIT_USAGE = 2,	  /* bad usage, unreadable or invalid input */
};

/* Prints "prog VERSION" on stdout, as --version does in every program. */
void print_version(void);

/* Prints the usage text on stdout (--help) and exits 0, or on stderr and
 * exits EXIT_USAGE when status is non-zero. */
void usage_exit(const char *text, int status) __attribute__((noreturn));

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

#endif
