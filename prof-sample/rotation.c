#include "rotation.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "diag.h"
#include "privileges.h"
#include "stream.h"

enum { ROT_NEXT = 1, ROT_FINISH };

struct rot_request {
	uint32_t op;
};

struct rot_reply {
	int32_t err; /* 0, or an errno value */
	char path[PATH_MAX];
};

/* Making and renaming files may wait on a slow disk or network file
 * system longer than a helper's usual second. */
#define ROTATION_TIMEOUT_MS 30000

/* A name collision is resolved this many times over before giving up. */
#define MAX_SUFFIX 10000

/* A file renamed into place, as it was there: its inode, and since a
 * file system may give a freed inode to the next file made, its size and
 * modification time. */
struct placed {
	char *path;
	struct stat st;
};

/* The helper's state: only it knows the names. */
struct keeper {
	const char *pattern;
	uint32_t keep;
	bool open;
	char tmp[PATH_MAX], name[PATH_MAX];
	dev_t dev; /* the open file's */
	ino_t ino;
	struct placed *kept; /* ring of the last keep files renamed into place */
	size_t first, n;
};

/* The file's name at its start, and its temporary name beside it: hidden,
 * and unique (mkstemps) so that nothing of anyone else's is truncated. */
static int make_file(struct keeper *k)
{
	char dir[PATH_MAX], base[PATH_MAX];
	time_t now = time(NULL);
	struct stat st;
	struct tm tm;
	int fd;

	if (!localtime_r(&now, &tm) || strftime(k->name, sizeof(k->name), k->pattern, &tm) == 0)
		return -ENAMETOOLONG;
	snprintf(dir, sizeof(dir), "%s", k->name);
	snprintf(base, sizeof(base), "%s", k->name);
	if ((size_t)snprintf(k->tmp, sizeof(k->tmp), "%s/.%s.XXXXXX.tmp", dirname(dir),
			     basename(base)) >= sizeof(k->tmp))
		return -ENAMETOOLONG;
	fd = mkstemps(k->tmp, 4);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) != 0) {
		int e = errno;
		unlink(k->tmp);
		close(fd);
		return -e;
	}
	k->dev = st.st_dev;
	k->ino = st.st_ino;
	k->open = true;
	return fd;
}

/* Renames without ever replacing a file: renameat2's RENAME_NOREPLACE, or
 * where the file system lacks it, a hard link then the unlink. */
static int place(const char *from, const char *to)
{
	if (renameat2(AT_FDCWD, from, AT_FDCWD, to, RENAME_NOREPLACE) == 0)
		return 0;
	if (errno != EINVAL && errno != ENOSYS)
		return -errno;
	if (link(from, to) != 0)
		return -errno;
	unlink(from);
	return 0;
}

static bool same_file(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino && a->st_size == b->st_size &&
	       a->st_mtim.tv_sec == b->st_mtim.tv_sec && a->st_mtim.tv_nsec == b->st_mtim.tv_nsec;
}

/* Only if the path is still the file placed there: the consumer may have
 * moved or deleted it, and something else may have taken its name since.
 * That may still happen between the check and the unlink (there is no
 * unlink by descriptor), by someone who may write in the directory. */
static void forget_oldest(struct keeper *k)
{
	struct placed *old = &k->kept[k->first];
	struct stat st;

	if (fstatat(AT_FDCWD, old->path, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	    same_file(&st, &old->st) && unlinkat(AT_FDCWD, old->path, 0) != 0 && errno != ENOENT)
		warn("%s", old->path);
	free(old->path);
	k->first = (k->first + 1) % k->keep;
	k->n--;
}

static int finish_file(struct keeper *k, char *path, size_t size)
{
	struct stat st;
	int err = -EEXIST;

	if (!k->open)
		return -EINVAL;
	for (unsigned i = 0; err == -EEXIST && i < MAX_SUFFIX; i++) {
		if ((size_t)(i ? snprintf(path, size, "%s.%u", k->name, i)
			       : snprintf(path, size, "%s", k->name)) >= size)
			return -ENAMETOOLONG;
		err = place(k->tmp, path);
	}
	if (err)
		return err;
	k->open = false;
	/* Complete, the main process having closed it.  Swapped since it
	 * was made, it is not this run's to delete. */
	if (k->keep && fstatat(AT_FDCWD, path, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	    st.st_dev == k->dev && st.st_ino == k->ino) {
		if (k->n == k->keep)
			forget_oldest(k);
		k->kept[(k->first + k->n++) % k->keep] = (struct placed){ xstrdup(path), st };
	}
	return 0;
}

static void give_up(struct keeper *k, char *path, size_t size)
{
	struct stat st;

	if (stat(k->tmp, &st) == 0 && st.st_size == 0)
		unlink(k->tmp);
	else
		finish_file(k, path, size);
}

static void serve(int sock, void *arg)
{
	struct keeper *k = arg;
	struct rot_request rq;
	struct rot_reply *rp = xcalloc(1, sizeof(*rp));
	ssize_t n;
	int fd;

	while ((n = helper_recv(sock, &rq, sizeof(rq), &fd)) > 0) {
		int ret = -EINVAL;
		if (fd >= 0)
			close(fd);
		memset(rp, 0, sizeof(*rp));
		if (n == sizeof(rq) && rq.op == ROT_NEXT)
			ret = k->open ? -EBUSY : make_file(k);
		else if (n == sizeof(rq) && rq.op == ROT_FINISH)
			ret = finish_file(k, rp->path, sizeof(rp->path));
		rp->err = ret < 0 ? -ret : 0;
		helper_send(sock, rp, sizeof(*rp), ret > 0 ? ret : -1);
		if (ret > 0)
			close(ret);
	}
	/* The main process gave up on the file, or died (killed, or a
	 * crash): what it holds is valid up to where it stops, and nothing
	 * if it is empty (sampling never started). */
	if (k->open)
		give_up(k, rp->path, sizeof(rp->path));
	free(rp);
}

static bool confine(void *arg)
{
	(void)arg;
	return keep_only(NULL, 0, false);
}

bool rotation_start(struct rotation *r, const char *pattern, uint32_t keep)
{
	/* Set up before the fork: the helper allocates only what it keeps. */
	static struct keeper k;

	k = (struct keeper){ .pattern = pattern, .keep = keep };
	k.kept = keep ? xcalloc(keep, sizeof(*k.kept)) : NULL;
	memset(r, 0, sizeof(*r));
	/* Killed with the main process, it would leave the file being
	 * written under its temporary name for good. */
	if (!helper_spawn(&r->h, "file rotation", confine, serve, &k, true))
		return false;
	free(k.kept); /* the helper's copy is its own */
	r->h.timeout_ms = ROTATION_TIMEOUT_MS;
	return true;
}

static bool call(struct rotation *r, uint32_t op, struct rot_reply *rp, int *fd)
{
	struct rot_request rq = { op };

	if (!helper_call(&r->h, &rq, sizeof(rq), -1, rp, sizeof(*rp), fd))
		return false;
	if (rp->err) {
		errno = rp->err;
		return false;
	}
	return true;
}

FILE *rotation_next(struct rotation *r)
{
	struct rot_reply *rp = xcalloc(1, sizeof(*rp));
	FILE *f = NULL;
	int fd = -1;

	if (!call(r, ROT_NEXT, rp, &fd) || fd < 0) {
		if (rp->err)
			warn("a new capture file");
	} else if (!(f = fdopen(fd, "w"))) {
		warn("a new capture file");
		close(fd);
	}
	free(rp);
	return f;
}

bool rotation_finish(struct rotation *r, FILE *f)
{
	struct rot_reply *rp;
	bool ok;

	if (!output_close(f, "the capture file"))
		return false;
	rp = xcalloc(1, sizeof(*rp));
	ok = call(r, ROT_FINISH, rp, NULL);
	if (!ok && rp->err)
		warn("renaming the capture file into place");
	if (ok) {
		snprintf(r->path, sizeof(r->path), "%s", rp->path);
		/* For a reader that ships each file as it comes: a line at
		 * once.  Once that reader is gone, nothing would ship the
		 * files, nor tell a service manager: the capture ends, as
		 * one written to a closed pipe does. */
		if (printf("%s\n", r->path) < 0 || fflush(stdout) != 0) {
			warn("stdout");
			ok = false;
		}
	}
	free(rp);
	return ok;
}

void rotation_stop(struct rotation *r)
{
	helper_stop(&r->h);
}
