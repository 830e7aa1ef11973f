#include "debuginfod_load.h"

#include <dlfcn.h>
#include <elfutils/debuginfod.h>
#include <stdio.h>

/* The soname of the ABI the header declares, as libdw itself opens it. */
#define LIBDEBUGINFOD "libdebuginfod.so.1"

static struct {
	__typeof__(debuginfod_begin) *begin;
	__typeof__(debuginfod_find_debuginfo) *find_debuginfo;
	__typeof__(debuginfod_end) *end;
} lib;

static int load(char *why, size_t whylen)
{
	void *h;
	const char *e;

	if (lib.begin)
		return 0;
	if (!(h = dlopen(LIBDEBUGINFOD, RTLD_NOW | RTLD_LOCAL))) {
		e = dlerror();
		snprintf(why, whylen, "%s", e ? e : LIBDEBUGINFOD ": cannot be loaded");
		return -1;
	}
	/* POSIX leaves object-to-function pointer casts to the platform;
	 * glibc's dlsym is made for them. */
	*(void **)&lib.find_debuginfo = dlsym(h, "debuginfod_find_debuginfo");
	*(void **)&lib.end = dlsym(h, "debuginfod_end");
	*(void **)&lib.begin = dlsym(h, "debuginfod_begin");
	if (!lib.begin || !lib.find_debuginfo || !lib.end) {
		snprintf(why, whylen, "%s: a symbol is missing", LIBDEBUGINFOD);
		lib.begin = NULL;
		dlclose(h);
		return -1;
	}
	return 0;
}

struct debuginfod_client *dfd_begin(char *why, size_t whylen)
{
	struct debuginfod_client *c;

	if (load(why, whylen) < 0)
		return NULL;
	if (!(c = lib.begin()))
		snprintf(why, whylen, "%s: debuginfod_begin failed", LIBDEBUGINFOD);
	return c;
}

int dfd_find_debuginfo(struct debuginfod_client *c, const unsigned char *id, int idlen,
		       char **path)
{
	return lib.find_debuginfo(c, id, idlen, path);
}

void dfd_end(struct debuginfod_client *c)
{
	lib.end(c);
}
