#include "sideband.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/mman.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "clock.h"
#include "diag.h"
#include "sort.h"

/* The kernel's record layouts (include/uapi/linux/perf_event.h), for the
 * record types the dummy event is asked for. */
struct rec_mmap2 {
	struct perf_event_header h;
	uint32_t pid, tid;
	uint64_t addr, len, pgoff;
	union {
		struct {
			uint32_t maj, min;
			uint64_t ino, ino_generation;
		};
		struct {
			uint8_t build_id_size, reserved1;
			uint16_t reserved2;
			uint8_t build_id[20];
		};
	};
	uint32_t prot, flags;
	char filename[];
};

struct rec_task {
	struct perf_event_header h;
	uint32_t pid, ppid, tid, ptid;
	uint64_t time;
};

struct rec_lost {
	struct perf_event_header h;
	uint64_t id, lost;
};

/* Ring pages per CPU: 256 KiB holds about 2000 mmap records, the burst of
 * a hundred processes starting at once. */
#define SIDEBAND_PAGES 64

static void on_mmap2(struct sideband *sb, const struct rec_mmap2 *r)
{
	size_t max = r->h.size - sizeof(*r);
	struct mapping m = {
		.start = r->addr,
		.end = r->addr + r->len,
		.pgoff = r->pgoff,
	};

	if (!(r->prot & PROT_EXEC) || r->h.size < sizeof(*r) || !memchr(r->filename, 0, max))
		return;
	m.path = (char *)r->filename;
	if (r->h.misc & PERF_RECORD_MISC_MMAP_BUILD_ID) {
		m.build_id_len = r->build_id_size <= sizeof(r->build_id) ? r->build_id_size : 0;
		memcpy(m.build_id, r->build_id, m.build_id_len);
	} else {
		m.dev = makedev(r->maj, r->min);
		m.inode = r->ino;
	}
	/* The file is opened now, while the process surely maps it: what
	 * the kernel could not tell (the build-id, when its page was not
	 * cached; the inode, when it gave the build-id) and who controls the
	 * file are read from it. */
	mapped_files_identify(sb->mf, r->pid, &m);
	processes_mmap(sb->ps, r->pid, &m);
}

static void handle(struct sideband *sb, const struct perf_event_header *h)
{
	const struct rec_task *t = (const void *)h;

	switch (h->type) {
	case PERF_RECORD_MMAP2:
		on_mmap2(sb, (const void *)h);
		break;
	case PERF_RECORD_FORK:
		/* A new process, not a new thread. */
		if (h->size >= sizeof(*t) && t->pid == t->tid && t->pid != t->ppid)
			processes_fork(sb->ps, t->ppid, t->pid);
		break;
	case PERF_RECORD_EXIT:
		if (h->size >= sizeof(*t) && t->pid == t->tid)
			processes_exit(sb->ps, t->pid);
		break;
	}
}

/* The bytes an event's copy takes: copies start 8-byte aligned, as the
 * records' fields are. */
static size_t copy_room(uint32_t size)
{
	return ((size_t)size + 7) & ~(size_t)7;
}

/* Copies the event for handle_ordered(): libbpf's copy of an event that
 * wraps the ring lasts only as long as this call. */
static enum bpf_perf_event_ret on_event(void *ctx, int cpu, struct perf_event_header *h)
{
	struct sideband *sb = ctx;
	struct sideband_event *e;
	uint64_t time;

	(void)cpu;
	if (h->type == PERF_RECORD_LOST) {
		if (h->size >= sizeof(struct rec_lost))
			sb->lost += ((const struct rec_lost *)h)->lost;
		return LIBBPF_PERF_EVENT_CONT;
	}
	/* sample_id_all with PERF_SAMPLE_TIME alone: each event ends in its
	 * time. */
	if (h->size < sizeof(*h) + sizeof(time))
		return LIBBPF_PERF_EVENT_CONT;
	memcpy(&time, (const char *)h + h->size - sizeof(time), sizeof(time));
	sb->bytes = xreserve(sb->bytes, &sb->bytes_cap, sb->nbytes + copy_room(h->size), 1);
	sb->events = xreserve(sb->events, &sb->events_cap, sb->nevents + 1, sizeof(*sb->events));
	memcpy(sb->bytes + sb->nbytes, h, h->size);
	e = &sb->events[sb->nevents++];
	*e = (struct sideband_event){ time, sb->seq++, sb->nbytes, h->size, false };
	sb->nbytes += copy_room(h->size);
	return LIBBPF_PERF_EVENT_CONT;
}

static int by_time(const void *a, const void *b)
{
	const struct sideband_event *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int by_seq(const void *a, const void *b)
{
	const struct sideband_event *x = a, *y = b;

	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Handles, oldest first, the events stamped at or before read_ns (when the
 * rings began to be read, so that every ring's events up to then are in),
 * and those held from an earlier read whatever their stamp (a clock gone
 * wrong delays an event once, and never keeps it).  The others stay. */
static void handle_ordered(struct sideband *sb, uint64_t read_ns)
{
	size_t kept = 0, nbytes = 0;

	sort_array(sb->events, sb->nevents, sizeof(*sb->events), by_time);
	for (size_t i = 0; i < sb->nevents; i++) {
		struct sideband_event *e = &sb->events[i];
		if (e->time > read_ns && !e->held) {
			e->held = true;
			sb->events[kept++] = *e;
			continue;
		}
		handle(sb, (const void *)(sb->bytes + e->off));
	}
	/* The held ones' copies to the front of the bytes, taken in the order
	 * they were made so that none is overwritten before it moves. */
	sort_array(sb->events, kept, sizeof(*sb->events), by_seq);
	for (size_t i = 0; i < kept; i++) {
		struct sideband_event *e = &sb->events[i];
		memmove(sb->bytes + nbytes, sb->bytes + e->off, e->size);
		e->off = nbytes;
		nbytes += copy_room(e->size);
	}
	sb->nevents = kept;
	sb->nbytes = nbytes;
}

int sideband_open(struct sideband *sb, struct processes *ps, struct mapped_files *mf)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_DUMMY,
		.size = sizeof(attr),
		.mmap = 1,
		.mmap2 = 1,
		.task = 1,
		.build_id = 1,
		/* Every event stamped, on the capture's clock. */
		.sample_id_all = 1,
		.sample_type = PERF_SAMPLE_TIME,
		.use_clockid = 1,
		.clockid = CLOCK_MONOTONIC,
		.watermark = 1,
		.wakeup_watermark = SIDEBAND_PAGES * 4096 / 4,
	};
	int ncpus = libbpf_num_possible_cpus();

	memset(sb, 0, sizeof(*sb));
	sb->ps = ps;
	sb->mf = mf;
	sb->map_fd = bpf_map_create(BPF_MAP_TYPE_PERF_EVENT_ARRAY, "sideband", sizeof(int),
				    sizeof(int), (uint32_t)ncpus, NULL);
	if (sb->map_fd < 0) {
		int e = errno;
		warnx("cannot create the mmap-event map: %s", strerror(e));
		return -e;
	}
	sb->pb = perf_buffer__new_raw(sb->map_fd, SIDEBAND_PAGES, &attr, on_event, sb, NULL);
	if (!sb->pb) {
		int e = errno;
		warnx("cannot open mmap events: %s", strerror(e));
		close(sb->map_fd);
		sb->map_fd = -1;
		return -e;
	}
	return 0;
}

void sideband_close(struct sideband *sb)
{
	perf_buffer__free(sb->pb);
	free(sb->events);
	free(sb->bytes);
	sb->events = NULL;
	sb->bytes = NULL;
	sb->nevents = sb->events_cap = sb->nbytes = sb->bytes_cap = 0;
	if (sb->map_fd >= 0)
		close(sb->map_fd);
	sb->pb = NULL;
	sb->map_fd = -1;
}

void sideband_poll(struct sideband *sb, int timeout_ms)
{
	uint64_t read_ns;

	/* Without events the wait still paces the main loop. */
	if (!sb->pb) {
		poll(NULL, 0, timeout_ms);
		return;
	}
	/* poll() only wakes at the watermark; consume() then takes what
	 * every ring holds, however little. */
	perf_buffer__poll(sb->pb, timeout_ms);
	read_ns = monotonic_ns();
	perf_buffer__consume(sb->pb);
	handle_ordered(sb, read_ns);
}

void sideband_catch_up(void *ctx)
{
	sideband_poll(ctx, 0);
}
