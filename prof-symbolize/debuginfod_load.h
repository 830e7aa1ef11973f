/*
 * libdebuginfod, opened when a lookup first needs it.  Linked, it and
 * what it needs (libcurl, GnuTLS, Kerberos: some thirty libraries) cost
 * every run of prof-symbolize 3.3 ms of start-up, five times the rest of
 * it, where most runs never ask a server.
 */
#ifndef PROF_DEBUGINFOD_LOAD_H
#define PROF_DEBUGINFOD_LOAD_H

#include <stddef.h>

struct debuginfod_client;

/* debuginfod_begin(), once the library is loaded; NULL on failure, with
 * why in why[0..whylen). */
struct debuginfod_client *dfd_begin(char *why, size_t whylen);
/* debuginfod_find_debuginfo() of a client dfd_begin() made. */
int dfd_find_debuginfo(struct debuginfod_client *c, const unsigned char *id, int idlen,
		       char **path);
void dfd_end(struct debuginfod_client *c);

#endif
