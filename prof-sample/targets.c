#include "targets.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/pidfd.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>
#include <linux/magic.h>

#include "diag.h"
#include "proc_maps.h"
#include "profile.h"
#include "profile.skel.h"

static void add_ids(uint32_t **ids, size_t *n, const char *list, const char *what)
{
	char *copy = xstrdup(list), *save = NULL;

	for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *end;
		unsigned long id = strtoul(tok, &end, 10);
		if (end == tok || *end || id == 0 || id > INT32_MAX)
			errx(EXIT_USAGE, "invalid %s: '%s'", what, tok);
		*ids = xreallocarray(*ids, *n + 1, sizeof(**ids));
		(*ids)[(*n)++] = (uint32_t)id;
	}
	free(copy);
}

void targets_add_pids(struct targets *t, const char *list)
{
	add_ids(&t->pids, &t->npids, list, "PID");
}

void targets_add_tids(struct targets *t, const char *list)
{
	add_ids(&t->tids, &t->ntids, list, "TID");
}

bool parse_cpu_list(const char *list, bool *cpus, int max)
{
	const char *p = list;

	do {
		char *end;
		long a = strtol(p, &end, 10), b = a;
		if (end == p || a < 0)
			return false;
		if (*end == '-') {
			p = end + 1;
			b = strtol(p, &end, 10);
			if (end == p || b < a)
				return false;
		}
		if (b >= max)
			return false;
		for (long c = a; c <= b; c++)
			cpus[c] = true;
		p = end;
	} while (*p == ',' && *++p);
	return *p == '\0' || *p == '\n';
}

void targets_set_cpus(struct targets *t, const char *list)
{
	t->ncpus = libbpf_num_possible_cpus();
	if (t->ncpus <= 0)
		errx(EXIT_USAGE, "cannot count the CPUs");
	free(t->cpus);
	t->cpus = xcalloc((size_t)t->ncpus, sizeof(*t->cpus));
	if (!parse_cpu_list(list, t->cpus, t->ncpus))
		errx(EXIT_USAGE, "invalid CPU list: '%s' (CPUs are 0 to %d)", list, t->ncpus - 1);
}

static bool has_id(const uint32_t *ids, size_t n, uint32_t id)
{
	for (size_t i = 0; i < n; i++)
		if (ids[i] == id)
			return true;
	return false;
}

void targets_check(struct targets *t)
{
	char path[64];
	struct statfs fs;

	t->pidfds = t->npids ? xreallocarray(NULL, t->npids, sizeof(*t->pidfds)) : NULL;
	for (size_t i = 0; i < t->npids; i++) {
		if (kill((pid_t)t->pids[i], 0) != 0 && errno == ESRCH)
			errx(EXIT_USAGE, "no such process: %u", t->pids[i]);
		/* Its exit is then seen even if the PID is reused. */
		t->pidfds[i] = pidfd_open((pid_t)t->pids[i], 0);
	}
	for (size_t i = 0; i < t->ntids; i++) {
		/* /proc/TID exists for every thread, listed or not. */
		snprintf(path, sizeof(path), "/proc/%u", t->tids[i]);
		if (access(path, F_OK) != 0)
			errx(EXIT_USAGE, "no such thread: %u", t->tids[i]);
		if (t->npids && !has_id(t->pids, t->npids, proc_tgid(t->tids[i])))
			errx(EXIT_USAGE, "thread %u is in none of the -p processes: with both -p "
					 "and -t, only the listed threads of the listed processes "
					 "are sampled", t->tids[i]);
	}
	t->cgroup_fd = -1;
	if (t->cgroup) {
		t->cgroup_fd = open(t->cgroup, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (t->cgroup_fd < 0)
			err(EXIT_USAGE, "%s", t->cgroup);
		if (fstatfs(t->cgroup_fd, &fs) != 0 || fs.f_type != CGROUP2_SUPER_MAGIC)
			errx(EXIT_USAGE, "%s: not a cgroup v2 directory", t->cgroup);
	}
}

static bool process_alive(const struct targets *t, size_t i)
{
	if (t->pidfds[i] >= 0) {
		/* A pidfd turns readable when its process has exited. */
		struct pollfd p = { .fd = t->pidfds[i], .events = POLLIN };
		int r;
		do
			r = poll(&p, 1, 0);
		while (r < 0 && errno == EINTR);
		return r != 1;
	}
	return kill((pid_t)t->pids[i], 0) == 0 || errno == EPERM;
}

bool targets_gone(const struct targets *t)
{
	char path[64];

	if (!t->npids && !t->ntids)
		return false;
	for (size_t i = 0; i < t->npids; i++)
		if (process_alive(t, i))
			return false;
	for (size_t i = 0; i < t->ntids; i++) {
		snprintf(path, sizeof(path), "/proc/%u", t->tids[i]);
		if (access(path, F_OK) == 0)
			return false;
	}
	return true;
}

void targets_configure(const struct targets *t, struct profile_bpf *skel)
{
	struct stat st;

	skel->rodata->filter_pids = t->npids > 0;
	skel->rodata->filter_tids = t->ntids > 0;
	skel->rodata->filter_cgroup = t->cgroup != NULL;
	/* A cgroup v2 directory's inode number is the cgroup's id, which
	 * the BPF program needs for threads other than the current one. */
	if (t->cgroup && fstat(t->cgroup_fd, &st) == 0)
		skel->rodata->target_cgroup_id = st.st_ino;
}

static bool fill(int fd, const uint32_t *ids, size_t n, const char *what, uint8_t value)
{
	for (size_t i = 0; i < n; i++) {
		if (bpf_map_update_elem(fd, &ids[i], &value, BPF_ANY) != 0) {
			warn("adding %s %u to the filter", what, ids[i]);
			return false;
		}
	}
	return true;
}

bool targets_install(const struct targets *t, struct profile_bpf *skel)
{
	uint32_t zero = 0;

	if (!fill(bpf_map__fd(skel->maps.pids), t->pids, t->npids, "PID", PROF_PID_TARGET) ||
	    !fill(bpf_map__fd(skel->maps.tids), t->tids, t->ntids, "TID", 1))
		return false;
	if (t->cgroup && bpf_map_update_elem(bpf_map__fd(skel->maps.cgroups), &zero,
					     &t->cgroup_fd, BPF_ANY) != 0) {
		warn("%s: cannot filter on this cgroup", t->cgroup);
		return false;
	}
	return true;
}

bool targets_follow(struct profile_bpf *skel, uint32_t pid)
{
	return fill(bpf_map__fd(skel->maps.pids), &pid, 1, "PID", PROF_PID_AT_EXEC);
}

void targets_free(struct targets *t)
{
	for (size_t i = 0; t->pidfds && i < t->npids; i++)
		if (t->pidfds[i] >= 0)
			close(t->pidfds[i]);
	free(t->pidfds);
	free(t->pids);
	free(t->tids);
	free(t->cpus);
	if (t->cgroup && t->cgroup_fd >= 0)
		close(t->cgroup_fd);
	memset(t, 0, sizeof(*t));
}
