/*
 * Lines of /proc/kallsyms, "ADDR TYPE NAME" for the kernel image and
 * "ADDR TYPE NAME\t[MODULE]" for a module, as the kernel writes them: the
 * one reader of the format, for prof-sample (which carries the symbols a
 * capture needs in it) and prof-symbolize (--kallsyms, or the host's own).
 * A copy of the file may come from anywhere, so a line is bounded: a longer
 * one, or a name longer than the kernel allows, is no symbol.
 */
#ifndef PROF_KALLSYMS_LINE_H
#define PROF_KALLSYMS_LINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define KALLSYMS_NAME_MAX   511	 /* the kernel's KSYM_NAME_LEN, less its NUL */
#define KALLSYMS_MODULE_MAX 127	 /* more than the kernel's MODULE_NAME_LEN */
#define KALLSYMS_LINE_MAX   1024 /* room for every field at its longest */

struct kallsyms_line {
	uint64_t addr;
	char type;	  /* nm's letter: 't' or 'T' for code, and so on */
	const char *name; /* not NUL-terminated */
	size_t name_len;
	const char *module; /* "" for the kernel image; not NUL-terminated */
	size_t module_len;
};

/* Parses one line (without its newline); false if it is none of the
 * two forms.  The strings point into s. */
bool kallsyms_line_parse(const char *s, size_t len, struct kallsyms_line *l);

/* Reads the next symbol of code (types t, T, w and W: those sampled
 * addresses fall in) from f into *l, whose strings point into buf
 * (KALLSYMS_LINE_MAX bytes); false at the end of f.  Other lines are
 * skipped. */
bool kallsyms_line_next_code(FILE *f, char *buf, struct kallsyms_line *l);

/* kallsyms gives no sizes: a symbol ends where the next one starts, and
 * the last one gets a page, as perf assumes, short of wrapping around. */
static inline uint64_t kallsyms_last_end(uint64_t start)
{
	return start > UINT64_MAX - 4096 ? UINT64_MAX : start + 4096;
}

#endif
