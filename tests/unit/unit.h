/*
 * A tiny unit-test harness that speaks TAP, so tests/run counts C tests and
 * bats tests the same way.  Each TEST() is one TAP line; a failed CHECK()
 * prints the expression and both values as TAP diagnostics.
 */
#ifndef UNIT_H
#define UNIT_H

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct unit_test {
	const char *name;
	void (*fn)(void);
};

static int unit_failed_checks;
static const char *unit_skipped; /* why the running test was skipped */

/* Ends the running test as skipped (TAP "# SKIP"), for tests that need
 * what this run does not have (root); CI has it. */
#define SKIP(why)                 \
	do {                      \
		unit_skipped = (why); \
		return;           \
	} while (0)

#define UNIT_MAX 256
static struct unit_test unit_tests[UNIT_MAX];
static int unit_ntests;

#define TEST(name)                                                        \
	static void test_##name(void);                                    \
	__attribute__((constructor)) static void register_##name(void)    \
	{                                                                 \
		if (unit_ntests < UNIT_MAX)                               \
			unit_tests[unit_ntests++] =                       \
				(struct unit_test){ #name, test_##name }; \
	}                                                                 \
	static void test_##name(void)

#define CHECK(cond)                                                        \
	do {                                                               \
		if (!(cond)) {                                             \
			printf("#   %s:%d: CHECK(%s) failed\n", __FILE__,  \
			       __LINE__, #cond);                           \
			unit_failed_checks++;                              \
		}                                                          \
	} while (0)

#define CHECK_INT(a, b)                                                     \
	do {                                                                \
		long long a_ = (long long)(a), b_ = (long long)(b);         \
		if (a_ != b_) {                                             \
			printf("#   %s:%d: %s == %s: got %lld, want %lld\n",    \
			       __FILE__, __LINE__, #a, #b, a_, b_);         \
			unit_failed_checks++;                               \
		}                                                           \
	} while (0)

#define CHECK_STR(a, b)                                                     \
	do {                                                                \
		const char *a_ = (a), *b_ = (b);                            \
		if (!a_ || !b_ || strcmp(a_, b_) != 0) {                    \
			printf("#   %s:%d: %s == %s: got \"%s\", want \"%s\"\n", \
			       __FILE__, __LINE__, #a, #b, a_ ? a_ : "(null)", \
			       b_ ? b_ : "(null)");                         \
			unit_failed_checks++;                               \
		}                                                           \
	} while (0)

/* p[0..n) as a C string for CHECK_STR, in one of four buffers used in
 * turn (a CHECK_STR may compare two); "(null)" for NULL. */
static inline const char *str(const char *p, size_t n)
{
	static char bufs[4][512];
	static int k;
	char *b = bufs[k++ & 3];

	snprintf(b, sizeof(bufs[0]), "%.*s", (int)n, p ? p : "(null)");
	return b;
}

/* A new temporary file holding text, for code that reads a path (the
 * caller unlinks it); NULL if it could not be written. */
static inline const char *tmp_file(const char *text)
{
	static char path[64];
	int fd;

	strcpy(path, "/tmp/unit-test.XXXXXX");
	fd = mkstemp(path);
	if (fd < 0)
		return NULL;
	if (write(fd, text, strlen(text)) != (ssize_t)strlen(text)) {
		close(fd);
		unlink(path);
		return NULL;
	}
	close(fd);
	return path;
}

int main(void)
{
	int failed = 0;

	printf("1..%d\n", unit_ntests);
	for (int i = 0; i < unit_ntests; i++) {
		int before = unit_failed_checks;
		unit_skipped = NULL;
		unit_tests[i].fn();
		int ok = unit_failed_checks == before;
		printf("%sok %d %s%s%s\n", ok ? "" : "not ", i + 1, unit_tests[i].name,
		       unit_skipped ? " # SKIP " : "", unit_skipped ? unit_skipped : "");
		fflush(stdout);
		failed += !ok;
	}
	return failed ? 1 : 0;
}

#endif
