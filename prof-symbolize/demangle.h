/*
 * C++ and Rust (legacy and v0) symbol demangling, through libiberty's
 * cplus_demangle: the demangler binutils' addr2line -C and c++filt use.
 */
#ifndef PROF_SYMBOLIZE_DEMANGLE_H
#define PROF_SYMBOLIZE_DEMANGLE_H

/* The demangled form of name, with parameter lists (free it), or NULL when
 * name is not a mangled C++ or Rust name. */
char *demangle(const char *name);

/* demangle() remembered by name: a C++ program's functions come back in
 * stack after stack, and demangling one costs microseconds (an eighth of
 * prof-symbolize's time on a capture of g++, before). */
struct demangler;
struct demangler *demangler_new(void);
void demangler_free(struct demangler *d);

/* name's demangled form, or name itself when it is not mangled; valid
 * while d lives. */
const char *demangled(struct demangler *d, const char *name);

#endif
