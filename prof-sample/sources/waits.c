#include "waits.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <unistd.h>

#include "diag.h"
#include "profile.h"
#include "profile.skel.h"

/* Runs the iterator over every thread once, in mode: it writes nothing to
 * read, its work is done as it goes. */
static bool run(struct profile_bpf *skel, enum prof_waits_mode mode)
{
	char buf[64];
	ssize_t n;
	int fd;

	if (!skel->links.waits_in_progress)
		return true;
	skel->bss->waits_mode = mode;
	fd = bpf_iter_create(bpf_link__fd(skel->links.waits_in_progress));
	if (fd < 0) {
		warn("cannot walk the threads for waits in progress");
		return false;
	}
	while ((n = read(fd, buf, sizeof(buf))) > 0 || (n < 0 && errno == EINTR))
		;
	if (n < 0)
		warn("cannot walk the threads for waits in progress");
	close(fd);
	return n == 0;
}

bool waits_adopt(struct profile_bpf *skel)
{
	return run(skel, PROF_WAITS_ADOPT);
}

bool waits_cut(struct profile_bpf *skel)
{
	return run(skel, PROF_WAITS_CUT);
}
