#include "processes.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "diag.h"
#include "perf_map.h"
#include "proc_cgroup.h"
#include "proc_maps.h"
#include "stream.h"

/* The mappings a process had when it forked, shared by the children it
 * forked while they did not change: a server with thousands of mappings
 * forking fifty times a second must not copy them each time (a 5 s capture
 * took 39 s of CPU and 851 MB that way).  A child copies them only when it
 * is sampled; most children of a forking server never are, or exec. */
struct mapset {
	unsigned refs;
	uint64_t generation; /* as a process's: the children that share it
				share the unwinder's session for it too */
	size_t n;
	struct mapping *maps; /* paths owned by the set */
};

struct process {
	uint32_t pid;
	struct mapset *inherited; /* its parent's at the fork, before maps[] */
	uint32_t ppid;		  /* that parent, and who it was (generation's */
	uint32_t parent_id;	  /* low half): the pid may have been reused */
	uint64_t parent_epoch;	  /* the parent's epoch at the fork */
	size_t ninherited;	  /* how many it had, flattened or not */
	struct mapset *shared;	  /* inherited + maps[] as given to children */
	struct mapping *maps;
	size_t n, cap;
	uint64_t generation;
	uint64_t epoch;	/* the list was begun anew (processes_listing()) */
	uint64_t sampled_interval; /* the last one it was sampled in, plus one */
	bool sampled, exited;
	bool snapshot; /* mappings read from /proc at the start, build-ids not yet */
	uint64_t exit_interval;
	bool uid_known, perf_map_refused;
	uid_t uid;	      /* owner a perf map must have (or root) */
	bool cgroup_read;    /* cgroup below is what /proc said (NULL: nothing) */
	char *cgroup;
	uint16_t cgroup_trusted; /* how many of its names the host made */
	bool gone;	      /* not in /proc at processes_forget_gone()'s last call */
};

void processes_init(struct processes *ps, struct mapped_files *files)
{
	struct statx stx;

	memset(ps, 0, sizeof(*ps));
	ps->files = files;
	ps->byid = htab_new();
	/* Perf maps are looked up by name in /tmp, held open from here: on a
	 * local file system, else not at all (reading them must not wait). */
	ps->tmp_dir = open("/tmp", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (ps->tmp_dir >= 0 &&
	    (statx(ps->tmp_dir, "", AT_EMPTY_PATH | AT_STATX_DONT_SYNC, STATX_MNT_ID, &stx) != 0 ||
	     !(stx.stx_mask & STATX_MNT_ID) || local_fs(0, stx.stx_mnt_id).kind != FS_LOCAL)) {
		warnx("/tmp: not on a local file system: perf maps will not be read");
		close(ps->tmp_dir);
		ps->tmp_dir = -1;
	}
	ps->tmp_mount = ps->tmp_dir >= 0 ? stx.stx_mnt_id : 0;
}

static void unref(struct mapset *set)
{
	if (!set || --set->refs)
		return;
	for (size_t i = 0; i < set->n; i++)
		free(set->maps[i].path);
	free(set->maps);
	free(set);
}

static void free_process(void *v)
{
	struct process *p = v;

	for (size_t i = 0; i < p->n; i++)
		free(p->maps[i].path);
	free(p->maps);
	unref(p->inherited);
	unref(p->shared);
	free(p->cgroup);
	free(p);
}

void processes_free(struct processes *ps)
{
	if (!ps->byid)
		return;
	htab_free_values(ps->byid, free_process);
	if (ps->tmp_dir >= 0)
		close(ps->tmp_dir);
}

struct process *processes_get(struct processes *ps, uint32_t pid)
{
	bool created;
	struct htab_entry *e = htab_upsert(ps->byid, &pid, sizeof(pid), &created);

	if (created) {
		struct process *p = e->val.p = xcalloc(1, sizeof(struct process));
		p->pid = pid;
		p->generation = p->epoch = ++ps->generations;
	}
	return e->val.p;
}

static bool same(const struct mapping *a, const struct mapping *b)
{
	return a->start == b->start && a->end == b->end && a->pgoff == b->pgoff &&
	       strcmp(a->path, b->path) == 0;
}

/* Appends m.  The same mapping may come twice (an mmap event and /proc,
 * for a process that mapped it while the capture started): the format
 * allows it, and libdwfl takes a module reported twice as one, so only a
 * repeat of the last one is skipped, in constant time. */
static void add(struct process *p, const struct mapping *m)
{
	/* The low half tells processes apart, the high half counts changes:
	 * processes_maps' callers only compare it with the one they saw. */
	p->generation += 1ull << 32;
	if (p->shared) {
		unref(p->shared); /* the children keep theirs */
		p->shared = NULL;
	}
	if (p->n && same(&p->maps[p->n - 1], m))
		return;
	p->maps = xreserve_from(p->maps, &p->cap, p->n + 1, sizeof(*p->maps), 16);
	p->maps[p->n] = *m;
	p->maps[p->n].path = xstrdup(m->path);
	p->n++;
}

static void append_copies(struct mapping **to, size_t *n, const struct mapping *from, size_t k)
{
	for (size_t i = 0; i < k; i++) {
		(*to)[*n] = from[i];
		(*to)[(*n)++].path = xstrdup(from[i].path);
	}
}

/* Gives p its inherited mappings as its own, first, so that its own win
 * where they overlap. */
static void flatten(struct process *p)
{
	struct mapset *in = p->inherited;
	struct mapping *maps;
	size_t n = 0;

	if (!in)
		return;
	maps = xreallocarray(NULL, in->n + p->n + 1, sizeof(*maps));
	append_copies(&maps, &n, in->maps, in->n);
	memcpy(maps + n, p->maps, p->n * sizeof(*maps)); /* paths move */
	n += p->n;
	free(p->maps);
	p->maps = maps;
	p->n = p->cap = n;
	p->inherited = NULL; /* the list is the same, ninherited still first */
	unref(in);
}

/* What p's children inherit now: shared until p's mappings change. */
static struct mapset *share(struct processes *ps, struct process *p)
{
	struct mapset *set = p->shared;

	if (!set) {
		size_t k = p->inherited ? p->inherited->n : 0;
		set = p->shared = xcalloc(1, sizeof(*set));
		set->refs = 1;
		set->generation = ++ps->generations;
		set->maps = xreallocarray(NULL, k + p->n + 1, sizeof(*set->maps));
		if (k)
			append_copies(&set->maps, &set->n, p->inherited->maps, k);
		append_copies(&set->maps, &set->n, p->maps, p->n);
	}
	set->refs++;
	return set;
}

static struct process *find(struct processes *ps, uint32_t pid)
{
	struct htab_entry *e = htab_find(ps->byid, &pid, sizeof(pid));

	return e ? e->val.p : NULL;
}

void processes_mmap(struct processes *ps, uint32_t pid, const struct mapping *m)
{
	add(processes_get(ps, pid), m);
}

struct proc_ctx {
	struct processes *ps;
	struct process *p;
	uint32_t pid;
};

/* The mappings as /proc shows them: the build-ids are read later, after
 * prof-sample has dropped its privileges. */
static void from_proc_raw(void *ctx, const struct mapping *m)
{
	struct proc_ctx *c = ctx;

	add(c->p, m);
}

static void from_proc(void *ctx, const struct mapping *m)
{
	struct proc_ctx *c = ctx;
	struct mapping copy = *m;

	if (copy.inode)
		mapped_files_identify(c->ps->files, c->pid, &copy);
	add(c->p, &copy);
}

void processes_fork(struct processes *ps, uint32_t ppid, uint32_t pid)
{
	struct process *parent = find(ps, ppid), *child = processes_get(ps, pid);
	struct process from_proc_maps = { 0 };

	/* Events come from one ring per CPU, so the child's own mmap events
	 * (after an exec) and even its exit may have been read before this
	 * fork: nothing the child has is dropped, and the inherited mappings
	 * go first so that the child's own win where they overlap. */
	unref(child->inherited);
	child->inherited = NULL;
	child->ppid = 0;
	if (parent && (parent->n || parent->inherited)) {
		child->inherited = share(ps, parent);
		child->ppid = ppid;
		child->parent_id = (uint32_t)parent->generation;
		child->parent_epoch = parent->epoch;
	} else {
		/* A parent that predates the capture: its mappings, which the
		 * child shares until it execs, are in /proc while either
		 * lives. */
		if (!proc_maps_read(pid, from_proc, &(struct proc_ctx){ ps, &from_proc_maps, pid }))
			proc_maps_read(ppid, from_proc, &(struct proc_ctx){ ps, &from_proc_maps, ppid });
		if (from_proc_maps.n) {
			struct mapset *set = xcalloc(1, sizeof(*set));
			set->refs = 1;
			set->generation = ++ps->generations;
			set->maps = from_proc_maps.maps; /* paths move */
			set->n = from_proc_maps.n;
			child->inherited = set;
		} else {
			free(from_proc_maps.maps);
		}
	}
	child->ninherited = child->inherited ? child->inherited->n : 0;
	child->generation += 1ull << 32;
	if (child->shared) {
		unref(child->shared);
		child->shared = NULL;
	}
	/* Its list begins anew, the inherited ones first: a capture that
	 * told it (its samples came before its fork) tells it again. */
	if (child->inherited)
		child->epoch = ++ps->generations;
}

void processes_exit(struct processes *ps, uint32_t pid)
{
	/* Created if unknown: its fork may still be on its way, and must
	 * find it marked for reaping. */
	struct process *p = processes_get(ps, pid);

	p->exited = true;
	p->exit_interval = ps->interval;
}

/* pid's perf map, opened without walking a path: its one name looked up
 * in /tmp, and refused, before it is opened, if it is not a regular file
 * of /tmp's own mount (a user's FUSE mount on it, whose server would keep
 * a read waiting), both told without asking its file system. */
static int open_perf_map(const struct processes *ps, uint32_t pid)
{
	char name[32], self[64];
	struct statx stx;
	int pfd, fd;

	if (ps->tmp_dir < 0) {
		errno = ENOENT;
		return -1;
	}
	snprintf(name, sizeof(name), "perf-%" PRIu32 ".map", pid);
	if ((pfd = openat(ps->tmp_dir, name, O_PATH | O_NOFOLLOW | O_CLOEXEC)) < 0)
		return -1;
	if (statx(pfd, "", AT_EMPTY_PATH | AT_STATX_DONT_SYNC, STATX_TYPE | STATX_MNT_ID, &stx) != 0 ||
	    !S_ISREG(stx.stx_mode) || !(stx.stx_mask & STATX_MNT_ID) ||
	    stx.stx_mnt_id != ps->tmp_mount) {
		close(pfd);
		errno = EINVAL;
		return -1;
	}
	snprintf(self, sizeof(self), "/proc/self/fd/%d", pfd);
	fd = open(self, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	close(pfd);
	return fd;
}

void processes_perf_map(struct processes *ps, struct process *p, struct perf_map_cursor *cursor,
			uint64_t *read_in, perf_map_add_fn *fn, void *ctx)
{
	uint32_t pid = p->pid;

	if (!p->uid_known || p->perf_map_refused || *read_in == ps->interval + 1)
		return;
	*read_in = ps->interval + 1;
	uint64_t skipped = cursor->skipped;
	int fd = open_perf_map(ps, pid);
	enum perf_map_status st = fd < 0 ? (errno == EINVAL ? PERF_MAP_REFUSED : PERF_MAP_NONE)
					 : perf_map_read_fd(fd, p->uid, cursor, fn, ctx);

	if (fd >= 0)
		close(fd);
	if (!skipped && cursor->skipped)
		warnx("/tmp/perf-%" PRIu32 ".map: lines longer than %d bytes or not START SIZE "
		      "NAME skipped",
		      pid, PERF_MAP_MAX_LINE);
	if (st == PERF_MAP_REFUSED) {
		p->perf_map_refused = true;
		warnx("/tmp/perf-%" PRIu32 ".map: not a regular file of /tmp owned by the process's "
		      "user or root; ignored",
		      pid);
	}
}

uint64_t processes_id(const struct process *p)
{
	return (uint32_t)p->generation;
}

/* Its mappings: processes_maps() of a record. */
static const struct mapping *maps_of(struct process *p, size_t *n, uint64_t *generation)
{
	/* Nothing of its own: its parent's mappings, as its siblings have
	 * them. */
	if (p->inherited && !p->n) {
		*n = p->inherited->n;
		*generation = p->inherited->generation;
		return p->inherited->maps;
	}
	flatten(p);
	*n = p->n;
	*generation = p->generation;
	return p->maps;
}

void processes_listing(struct processes *ps, struct process *p, struct process_listing *l)
{
	struct process *parent;

	l->maps = maps_of(p, &l->n, &(uint64_t){ 0 });
	l->ninherited = p->ninherited <= l->n ? p->ninherited : 0;
	l->epoch = p->epoch;
	l->parent = NULL;
	parent = p->ppid && p->ninherited ? find(ps, p->ppid) : NULL;
	if (parent && parent != p && (uint32_t)parent->generation == p->parent_id &&
	    parent->epoch == p->parent_epoch) {
		l->parent = parent;
		l->ppid = p->ppid;
		l->parent_epoch = parent->epoch;
	}
}

const struct mapping *processes_maps(struct processes *ps, uint32_t pid, size_t *n,
				     uint64_t *generation)
{
	struct process *p = find(ps, pid);

	return p ? maps_of(p, n, generation) : NULL;
}

/* Once: a process moved later keeps the cgroup it was first seen in.
 * Its names are checked at once, while the cgroups exist (and, for the
 * processes already running, while prof-sample may read every mark of
 * delegation). */
static void read_cgroup(struct processes *ps, struct process *p, uint32_t pid)
{
	if (p->cgroup_read || !pid)
		return;
	p->cgroup_read = true;
	p->cgroup = proc_cgroup_read(pid);
	if (p->cgroup && ps->cgroups)
		p->cgroup_trusted = cgroup_trust_names(ps->cgroups, p->cgroup, strlen(p->cgroup));
}

const char *processes_cgroup(struct processes *ps, struct process *p, uint16_t *trusted)
{
	read_cgroup(ps, p, p->pid);
	*trusted = p->cgroup_trusted;
	return p->cgroup;
}

bool processes_sampled(struct processes *ps, struct process *p)
{
	uint32_t pid = p->pid;
	bool from_maps;

	p->sampled_interval = ps->interval + 1;
	if (p->sampled)
		return true;
	p->sampled = true;
	if (p->snapshot) {
		for (size_t i = 0; i < p->n; i++)
			if (p->maps[i].inode)
				mapped_files_identify(ps->files, pid, &p->maps[i]);
		from_maps = true;
	} else {
		/* Known from the kernel's events, or else from /proc. */
		if (!p->uid_known)
			p->uid_known = pid != 0 && perf_map_owner(pid, &p->uid);
		from_maps = pid != 0 && !p->n && !p->inherited &&
			    proc_maps_read(pid, from_proc, &(struct proc_ctx){ ps, p, pid });
	}
	return from_maps || p->n > 0 || p->inherited || pid == 0;
}

void processes_snapshot(struct processes *ps, uint32_t pid)
{
	struct process *p = processes_get(ps, pid);

	p->uid_known = perf_map_owner(pid, &p->uid);
	p->snapshot = proc_maps_read(pid, from_proc_raw, &(struct proc_ctx){ ps, p, pid });
	read_cgroup(ps, p, pid);
}

void processes_snapshot_all(struct processes *ps)
{
	DIR *proc = opendir("/proc");
	struct dirent *d;

	while (proc && (d = readdir(proc))) {
		char *end;
		unsigned long pid = strtoul(d->d_name, &end, 10);
		if (!*end && pid && pid <= UINT32_MAX)
			processes_snapshot(ps, (uint32_t)pid);
	}
	if (proc)
		closedir(proc);
}

void processes_next_interval(struct processes *ps)
{
	ps->interval++;
	if (ps->cgroups)
		cgroup_trust_forget(ps->cgroups);
}

static bool reaped(struct htab_entry *e, void *arg)
{
	const struct processes *ps = arg;
	struct process *p = e->val.p;

	if (!p->exited || p->exit_interval >= ps->interval)
		return false;
	free_process(p);
	return true;
}

void processes_reap(struct processes *ps)
{
	htab_remove_if(ps->byid, reaped, ps);
}

/* Whether the process is still there: its exit event may have been lost
 * (the events ring was full). */
static bool alive(uint32_t pid)
{
	char name[64];

	snprintf(name, sizeof(name), "/proc/%" PRIu32, pid);
	return pid == 0 || access(name, F_OK) == 0;
}

/* Not there now, nor at the last call, and not sampled since: forgotten.
 * An exit seen is for processes_reap(). */
static bool gone(struct htab_entry *e, void *arg)
{
	const struct processes *ps = arg;
	struct process *p = e->val.p;
	uint32_t pid;

	if (p->exited)
		return false;
	if (p->gone && p->sampled_interval < ps->gone_checked) {
		free_process(p);
		return true;
	}
	memcpy(&pid, e->key, sizeof(pid));
	p->gone = !alive(pid);
	return false;
}

void processes_forget_gone(struct processes *ps)
{
	htab_remove_if(ps->byid, gone, ps);
	ps->gone_checked = ps->interval + 1;
}

void processes_each(struct processes *ps, void (*fn)(void *arg, uint32_t pid), void *arg)
{
	size_t n = htab_count(ps->byid);
	uint32_t *pids = xcalloc(n ? n : 1, sizeof(*pids));
	struct htab_entry *e = htab_entries(ps->byid);

	/* fn may look pids up: not while walking the entries. */
	for (size_t i = 0; i < n; i++)
		memcpy(&pids[i], e[i].key, sizeof(pids[i]));
	for (size_t i = 0; i < n; i++)
		fn(arg, pids[i]);
	free(pids);
}
