/*
 * C++ and Rust (legacy and v0) symbol demangling, through libiberty's
 * cplus_demangle: the demangler binutils' addr2line -C and c++filt use.
 */
#ifndef PROF_SYMBOLIZE_DEMANGLE_H
#define PROF_SYMBOLIZE_DEMANGLE_H

/* The demangled form of name, with parameter lists (free it), or NULL when
 * name is not a mangled C++ or Rust name. */
char *demangle(const char *name);

#endif
