/*
 * --nameattr FILE: extra attributes for the frames of given names, in
 * flamegraph.pl's format: "NAME<TAB>key=value<TAB>key=value...", keys id,
 * class, title, href, target, g_extra and a_extra (the two *_extra hold
 * raw attribute lists).  Everything is validated and escaped here: event
 * handlers, style and javascript:/data: links are dropped with a warning,
 * so the file cannot inject markup or script.
 */
#ifndef PROF_SVG_NAME_ATTR_H
#define PROF_SVG_NAME_ATTR_H

#include <stddef.h>
#include <stdio.h>

struct name_attr {
	char *id, *cls, *title, *href, *target;
	char *g_extra, *a_extra; /* " k=\"v\"..." already escaped */
};

struct name_attrs;

/* Loads path; exits EXIT_USAGE if it cannot be read.  *bad counts the
 * fields or lines skipped (each is warned about). */
struct name_attrs *name_attrs_load(const char *path, size_t *bad);
void name_attrs_free(struct name_attrs *na);

/* The attributes of frame name s[0..len), or NULL. */
const struct name_attr *name_attrs_find(struct name_attrs *na, const char *s, size_t len);

/* Parses a raw attribute list ("a=\"1\" b='2'") into an escaped one, dropping
 * (and counting in *dropped) anything unsafe or malformed.  Returns a
 * malloc'd string. */
char *name_attrs_sanitize_extra(const char *raw, size_t *dropped);

/* Whether an href is safe to keep (not javascript:, vbscript: or data:). */
int name_attrs_href_ok(const char *href);

#endif
