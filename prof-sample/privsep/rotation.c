#include "rotation.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "diag.h"
#include "privileges.h"
#include "stream.h"

enum { ROT_NEXT = 1, ROT_FINISH };

/* What became of a finished file. */
enum { FILE_PRINTED, FILE_UNPRINTED, FILE_LOST };

struct rot_request {
	uint32_t op;
};

struct rot_reply {
	int32_t err;   /* 0, or an errno value */
	uint32_t fate; /* ROT_FINISH: FILE_* */
	char path[PATH_MAX];
};

/* Making and naming files may wait on a slow disk or network file system
 * longer than a helper's usual second. */
#define ROTATION_TIMEOUT_MS 30000

/* A name taken is followed by NAME.1 to NAME.9 (the pattern giving one
 * name twice, as a static one does), then by random suffixes: names
 * someone else made in advance cannot run them out. */
#define SEQUENCE_SUFFIXES 9
#define RANDOM_SUFFIXES	  32
#define SUFFIX_ROOM	  (sizeof(".tmp") + 2 + 8) /* ".NAME.XXXXXXXX.tmp" */

/* A file named by the helper, as it was then: its inode, and since a file
 * system may give a freed inode to the next file made, its size and
 * modification time. */
struct placed {
	char *name;
	struct stat st;
};

/* The helper's state: only it knows the names. */
struct keeper {
	char dir[PATH_MAX];    /* the pattern's directory ("." for none) */
	char prefix[PATH_MAX]; /* what a printed path starts with: "", "/" or "DIR/" */
	const char *base;      /* the pattern's last component */
	uint32_t keep;
	int dfd; /* the directory, opened at the start; -1 if it could not be */
	struct stat dst;
	int fd; /* the file being written, or -1 */
	struct stat st;
	char name[NAME_MAX + 1]; /* its name from the pattern */
	char tmp[NAME_MAX + 1];	 /* its temporary name; "" when it has none */
	struct placed *kept;	 /* ring of the last keep files named */
	size_t first, n;
};

/* The pattern's directory, with "%%" as the "%" it stands for, and its
 * last component; NULL, or what is wrong with the pattern. */
static const char *split_pattern(const char *pattern, char *dir, char *prefix, const char **base)
{
	const char *slash = strrchr(pattern, '/');
	size_t len = slash ? (size_t)(slash - pattern) + 1 : 0, o = 0;

	*base = pattern + len;
	if (!**base)
		return "it names a directory, not the files in it";
	if (len > PATH_MAX - NAME_MAX - 2)
		return "its directory's path is too long";
	for (size_t i = 0; i < len; i++) {
		if (pattern[i] == '%' && pattern[++i] != '%')
			return "time fields go in the file's name only: a run's files are all "
			       "in one directory";
		prefix[o++] = pattern[i];
	}
	prefix[o] = '\0';
	/* The directory as messages name it: without its last '/', but
	 * for the root itself. */
	if (o)
		snprintf(dir, PATH_MAX, "%.*s", (int)(o > 1 ? o - 1 : o), prefix);
	else
		snprintf(dir, PATH_MAX, ".");
	return NULL;
}

/* The pattern's last component at tm, in name; false if that is no name. */
static bool expand(const char *base, const struct tm *tm, char *name)
{
	size_t n = strftime(name, NAME_MAX + 1 - SUFFIX_ROOM, base, tm);

	return n > 0 && !strchr(name, '/') && strcmp(name, ".") != 0 && strcmp(name, "..") != 0;
}

bool rotation_pattern_ok(const char *pattern)
{
	char dir[PATH_MAX], prefix[PATH_MAX], name[NAME_MAX + 1];
	const char *base, *wrong = split_pattern(pattern, dir, prefix, &base);
	time_t now = time(NULL);
	struct tm tm;

	if (wrong) {
		warnx("--rotate: %s: %s", pattern, wrong);
		return false;
	}
	/* In the C locale, the fields that give a '/' (%D, %x) always do. */
	if (!localtime_r(&now, &tm) || !expand(base, &tm, name)) {
		warnx("--rotate: %s: its last component must give a file name, of at most %zu "
		      "bytes and without a '/' (%%D, %%x)",
		      pattern, NAME_MAX - SUFFIX_ROOM);
		return false;
	}
	return true;
}

/* A directory whose entries someone else may change: one another user
 * owns (who may do anything in it), or that others may write in without
 * the sticky bit (which keeps them to their own entries). */
static bool warn_weak(int fd, const char *path, int len)
{
	struct stat st;

	if (fstat(fd, &st) != 0)
		return false;
	if (st.st_uid != 0 && st.st_uid != geteuid())
		warnx("%.*s: owned by user %u, who can delete or hide the capture files written "
		      "under it",
		      len, path, (unsigned)st.st_uid);
	else if (!(st.st_mode & S_ISVTX) &&
		 ((st.st_mode & S_IWOTH) ||
		  ((st.st_mode & S_IWGRP) && st.st_gid != 0 && st.st_gid != getegid())))
		warnx("%.*s: writable by others without the sticky bit: they can delete or hide "
		      "the capture files written under it",
		      len, path);
	else
		return false;
	return true;
}

/* The directory at path, reached without following any symbolic link:
 * each component is opened O_NOFOLLOW from the one before ("/" or the
 * working directory), as openat2's RESOLVE_NO_SYMLINKS would (which
 * Linux before 5.6 lacks, and a walk is needed anyway to see who may
 * change each directory).  A link on the way fails as ELOOP; *failed is
 * then the length of path up to where it failed.  With check, the first
 * directory on the way that someone else may change is named. */
static int open_dir(const char *path, bool check, int *failed)
{
	const char *shown = path[0] == '/' ? path : ".";
	char buf[PATH_MAX], *comp, *save;
	int fd = open(shown[0] == '/' ? "/" : ".", O_PATH | O_DIRECTORY | O_CLOEXEC), len = 1;
	struct stat st;

	snprintf(buf, sizeof(buf), "%s", path);
	for (comp = strtok_r(buf, "/", &save); fd >= 0 && comp; comp = strtok_r(NULL, "/", &save)) {
		if (check)
			check = !warn_weak(fd, shown, len);
		shown = path;
		len = (int)(comp - buf + strlen(comp));
		int next = openat(fd, comp, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (next < 0 && errno == ENOTDIR &&
		    fstatat(fd, comp, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode))
			errno = ELOOP;
		int e = errno;
		close(fd);
		fd = next;
		errno = e;
	}
	if (fd >= 0 && check)
		warn_weak(fd, shown, len);
	if (failed)
		*failed = len;
	return fd;
}

/* Whether the directory at the pattern's path is still the one opened at
 * the start. */
static bool dir_is_ours(const struct keeper *k)
{
	int fd = open_dir(k->dir, false, NULL);
	struct stat st;
	bool same = fd >= 0 && fstat(fd, &st) == 0 && st.st_dev == k->dst.st_dev &&
		    st.st_ino == k->dst.st_ino;

	if (fd >= 0)
		close(fd);
	return same;
}

static bool same_inode(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino;
}

static bool same_file(const struct stat *a, const struct stat *b)
{
	return same_inode(a, b) && a->st_size == b->st_size &&
	       a->st_mtim.tv_sec == b->st_mtim.tv_sec && a->st_mtim.tv_nsec == b->st_mtim.tv_nsec;
}

/* Whether name, in the directory, is the file being written. */
static bool is_ours(const struct keeper *k, const char *name)
{
	struct stat st;

	return fstatat(k->dfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && same_inode(&st, &k->st);
}

/* Eight hex digits no one can tell in advance: from getrandom(2), or from
 * the clock early at boot, before it has entropy (a guess must then still
 * hit the nanosecond). */
static void random_hex(char *out)
{
	uint32_t v;

	if (getrandom(&v, sizeof(v), GRND_NONBLOCK) != sizeof(v))
		v = (uint32_t)(monotonic_ns() * 2654435761u) ^ (uint32_t)getpid();
	snprintf(out, 9, "%08" PRIx32, v);
}

/* The directory the files go in: the one opened at the start, unless it
 * has been removed (no entry leads to it: nothing can be made in it) and
 * its path leads, without a link, to a directory again. */
static void follow_remade(struct keeper *k)
{
	struct stat st;
	int fd;

	if (fstat(k->dfd, &st) != 0 || st.st_nlink > 0 || (fd = open_dir(k->dir, true, NULL)) < 0)
		return;
	close(k->dfd);
	k->dfd = fd;
	fstat(fd, &k->dst);
	/* What it kept went with the directory. */
	for (; k->n; k->n--, k->first = (k->first + 1) % k->keep)
		free(k->kept[k->first].name);
	warnx("%s: removed and made again since the capture started: files go to the new one",
	      k->dir);
}

/* A hidden name for the file while it is written, where the file system
 * has no O_TMPFILE: random, made O_EXCL (so never a name someone else
 * made, nor through a link put there). */
static int make_named(struct keeper *k)
{
	char hex[9];
	int fd = -1;

	errno = EEXIST;
	for (int i = 0; i < RANDOM_SUFFIXES && fd < 0 && errno == EEXIST; i++) {
		random_hex(hex);
		if ((size_t)snprintf(k->tmp, sizeof(k->tmp), ".%s.%s.tmp", k->name, hex) >=
		    sizeof(k->tmp)) {
			errno = ENAMETOOLONG;
			break;
		}
		fd = openat(k->dfd, k->tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
			    0600);
	}
	if (fd < 0)
		k->tmp[0] = '\0';
	return fd;
}

/* The file's name at its start, and the file, without a name until it is
 * complete (mode 0600, as a single capture's). */
static int make_file(struct keeper *k)
{
	time_t now = time(NULL);
	struct tm tm;
	int fd;

	if (k->dfd < 0)
		return -ENOENT;
	if (!localtime_r(&now, &tm) || !expand(k->base, &tm, k->name))
		return -ENAMETOOLONG;
	follow_remade(k);
	k->tmp[0] = '\0';
	fd = openat(k->dfd, ".", O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600);
	if (fd < 0 && (errno == EOPNOTSUPP || errno == EISDIR || errno == EINVAL))
		fd = make_named(k);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &k->st) != 0) {
		int e = errno;
		if (k->tmp[0])
			unlinkat(k->dfd, k->tmp, 0);
		close(fd);
		return -e;
	}
	k->fd = fd;
	return fd;
}

/* Gives the file the name final, never replacing anything there (a file,
 * a link, a directory): a hard link to the very file the helper holds,
 * through /proc/self/fd as open(2) shows for O_TMPFILE, fails if the name
 * is taken.  A temporary name is then removed while it still leads to the
 * file; where the file system has no hard links, it is renamed instead,
 * RENAME_NOREPLACE. */
static int link_as(struct keeper *k, const char *final)
{
	char self[32];

	snprintf(self, sizeof(self), "/proc/self/fd/%d", k->fd);
	if (linkat(AT_FDCWD, self, k->dfd, final, AT_SYMLINK_FOLLOW) == 0) {
		if (k->tmp[0] && is_ours(k, k->tmp))
			unlinkat(k->dfd, k->tmp, 0);
		return 0;
	}
	if (!k->tmp[0] || (errno != EPERM && errno != EOPNOTSUPP))
		return -errno;
	return renameat2(k->dfd, k->tmp, k->dfd, final, RENAME_NOREPLACE) == 0 ? 0 : -errno;
}

/* The file named: the pattern's name, else with a suffix. */
static int name_file(struct keeper *k, char *final)
{
	int err = -EEXIST;

	for (unsigned i = 0; err == -EEXIST && i <= SEQUENCE_SUFFIXES + RANDOM_SUFFIXES; i++) {
		char hex[9];
		int n;
		if (i == 0)
			n = snprintf(final, NAME_MAX + 1, "%s", k->name);
		else if (i <= SEQUENCE_SUFFIXES)
			n = snprintf(final, NAME_MAX + 1, "%s.%u", k->name, i);
		else {
			random_hex(hex);
			n = snprintf(final, NAME_MAX + 1, "%s.%s", k->name, hex);
		}
		/* Not with names from the pattern, which leave room (expand()). */
		if (n > NAME_MAX)
			return -ENAMETOOLONG;
		err = link_as(k, final);
	}
	return err;
}

/* Only if the name is still the file named: the consumer may have moved
 * or deleted it, and something else may have taken its name since.  In a
 * directory others may change, that may still happen between the check
 * and the unlink (there is no unlink by descriptor), by someone who could
 * have deleted either anyway. */
static void forget_oldest(struct keeper *k)
{
	struct placed *old = &k->kept[k->first];
	struct stat st;

	if (fstatat(k->dfd, old->name, &st, AT_SYMLINK_NOFOLLOW) == 0 && same_file(&st, &old->st) &&
	    unlinkat(k->dfd, old->name, 0) != 0 && errno != ENOENT)
		warn("%s%s", k->prefix, old->name);
	free(old->name);
	k->first = (k->first + 1) % k->keep;
	k->n--;
}

/* Names the complete file (the main process has closed it) and keeps
 * count of it; its fate, with its path in path, or -errno. */
static int finish_file(struct keeper *k, char *path, size_t size)
{
	char final[NAME_MAX + 1];
	struct stat st;
	int err;

	if (k->fd < 0)
		return -EINVAL;
	err = name_file(k, final);
	/* Not with a prefix from the pattern, which leaves room
	 * (split_pattern()). */
	if ((size_t)snprintf(path, size, "%s%s", k->prefix, err ? k->name : final) >= size)
		path[0] = '\0';
	if (err) {
		errno = -err;
		warn("%s: the capture file could not be named there, its samples are lost", path);
		if (k->tmp[0] && is_ours(k, k->tmp))
			unlinkat(k->dfd, k->tmp, 0);
	}
	close(k->fd);
	k->fd = -1;
	if (err)
		return FILE_LOST;
	if (k->keep && fstatat(k->dfd, final, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	    same_inode(&st, &k->st)) {
		if (k->n == k->keep)
			forget_oldest(k);
		k->kept[(k->first + k->n++) % k->keep] = (struct placed){ xstrdup(final), st };
	}
	/* The path printed must lead to the file: not if the directory was
	 * moved or replaced (by a link, say) since the start, nor if the
	 * file was moved already. */
	if (!dir_is_ours(k)) {
		warnx("%s: written, not printed: %s is no longer the directory the capture "
		      "started in (moved or replaced)",
		      path, k->dir);
		return FILE_UNPRINTED;
	}
	if (!is_ours(k, final)) {
		warnx("%s: written, not printed: moved or replaced as soon as it was", path);
		return FILE_UNPRINTED;
	}
	return FILE_PRINTED;
}

/* Where the main process gave up on the file, or died (killed, or a
 * crash): what it holds is valid up to where it stops, and nothing if it
 * is empty (sampling never started). */
static void give_up(struct keeper *k, char *path, size_t size)
{
	struct stat st;

	if (fstat(k->fd, &st) == 0 && st.st_size == 0) {
		if (k->tmp[0] && is_ours(k, k->tmp))
			unlinkat(k->dfd, k->tmp, 0);
		close(k->fd);
		k->fd = -1;
	} else {
		finish_file(k, path, size);
	}
}

/* The directory, opened now and held for the run: what is said of it
 * comes before the first file. */
static void open_start_dir(struct keeper *k)
{
	int failed;

	k->dfd = open_dir(k->dir, true, &failed);
	if (k->dfd < 0 && errno == ELOOP)
		warnx("%.*s: a symbolic link: --rotate writes only where no link leads (give "
		      "the directory's real path)",
		      failed, k->dir);
	else if (k->dfd < 0)
		warn("%.*s", failed, k->dir);
	else
		fstat(k->dfd, &k->dst);
}

static void serve(int sock, void *arg)
{
	struct keeper *k = arg;
	struct rot_request rq;
	struct rot_reply *rp = xcalloc(1, sizeof(*rp));
	bool first = true;
	ssize_t n;
	int fd;

	open_start_dir(k);
	while ((n = helper_recv(sock, &rq, sizeof(rq), &fd)) > 0) {
		int ret = -EINVAL;
		if (fd >= 0)
			close(fd);
		memset(rp, 0, sizeof(*rp));
		if (n == sizeof(rq) && rq.op == ROT_NEXT) {
			ret = k->fd >= 0 ? -EBUSY : make_file(k);
			/* The first file's failure ends the capture as it
			 * starts; a later one's costs its samples. */
			errno = -ret;
			if (ret < 0 && ret != -EBUSY && k->dfd >= 0)
				warn(first ? "%s: a capture file"
					   : "%s: no capture file could be made there, the samples "
					     "until the next one are lost",
				     k->dir);
			first = false;
		} else if (n == sizeof(rq) && rq.op == ROT_FINISH) {
			ret = finish_file(k, rp->path, sizeof(rp->path));
			rp->fate = ret >= 0 ? (uint32_t)ret : 0;
			ret = ret > 0 ? 0 : ret;
		}
		rp->err = ret < 0 ? -ret : 0;
		/* The main process gets its own descriptor: the helper
		 * keeps this one, to name the file by. */
		helper_send(sock, rp, sizeof(*rp), rq.op == ROT_NEXT && ret > 0 ? ret : -1);
	}
	if (k->fd >= 0)
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

	k = (struct keeper){ .keep = keep, .dfd = -1, .fd = -1 };
	memset(r, 0, sizeof(*r));
	r->h.sock = -1;
	if (split_pattern(pattern, k.dir, k.prefix, &k.base)) {
		warnx("--rotate: %s: not a pattern for files", pattern);
		return false;
	}
	k.kept = keep ? xcalloc(keep, sizeof(*k.kept)) : NULL;
	/* Killed with the main process, it would lose the file being
	 * written. */
	if (!helper_spawn(&r->h, "file rotation", confine, serve, &k, true)) {
		free(k.kept);
		return false;
	}
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

	r->discarding = false;
	if (call(r, ROT_NEXT, rp, &fd) && fd >= 0) {
		if (!(f = fdopen(fd, "w"))) {
			warn("a new capture file");
			close(fd);
		}
	} else if (rp->err && r->started) {
		/* The helper said why.  The samples are written as to any
		 * file, and counted as lost when it ends. */
		if ((f = fopen("/dev/null", "w")))
			r->discarding = true;
		else
			warn("/dev/null");
	}
	r->started |= f != NULL;
	free(rp);
	return f;
}

bool rotation_finish(struct rotation *r, FILE *f, uint64_t samples)
{
	struct rot_reply *rp;
	bool ok;

	if (!output_close(f, "the capture file"))
		return false;
	if (r->discarding) {
		r->discarding = false;
		r->files_lost++;
		r->samples_lost += samples;
		return true;
	}
	rp = xcalloc(1, sizeof(*rp));
	ok = call(r, ROT_FINISH, rp, NULL);
	if (!ok && rp->err)
		warn("finishing the capture file");
	if (ok && rp->fate == FILE_LOST) {
		r->files_lost++;
		r->samples_lost += samples;
	} else if (ok && rp->fate == FILE_UNPRINTED) {
		r->files_unprinted++;
	} else if (ok) {
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

bool rotation_report(const struct rotation *r)
{
	if (r->files_lost)
		warnx("--rotate: %" PRIu64 " file(s) could not be made or named: %" PRIu64
		      " samples lost",
		      r->files_lost, r->samples_lost);
	if (r->files_unprinted)
		warnx("--rotate: %" PRIu64 " file(s) written but not printed (their paths led "
		      "elsewhere)",
		      r->files_unprinted);
	return r->files_lost || r->files_unprinted;
}

void rotation_stop(struct rotation *r)
{
	helper_stop(&r->h);
}
