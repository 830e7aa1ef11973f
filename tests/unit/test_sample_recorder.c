/*
 * The recorder, prof-sample's one capture writer: what it writes for the
 * stacks, samples and losses a sample source hands it, read back with the
 * capture reader prof-symbolize uses.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

#include "profile.h"
#include "recorder_fixture.h"

static struct sample_key key(uint32_t pid, uint32_t tid, const char *comm, uint64_t ustack)
{
	struct sample_key k = { .pid = pid, .tid = tid, .ustack = ustack };

	strncpy((char *)k.comm, comm, sizeof(k.comm));
	return k;
}

TEST(each_distinct_stack_is_written_once)
{
	struct fixture f;
	const uint64_t a[] = { 0x1000, 0x2000 }, b[] = { 0x3000 };

	fixture_init(&f);
	uint32_t ida = recorder_stack(f.rec, 11, a, 2);
	CHECK_INT(recorder_stack(f.rec, 11, a, 2), ida);
	uint32_t idb = recorder_stack(f.rec, 22, b, 1);
	CHECK(ida != 0 && idb != 0 && ida != idb);
	CHECK_INT(recorder_stack_id(f.rec, 11), ida);
	CHECK_INT(recorder_stack_id(f.rec, 33), 0);
	CHECK_INT(recorder_stack_id(f.rec, 0), 0);
	CHECK_INT(recorder_stats(f.rec)->stacks, 2);
	read_back(&f, NULL, NULL);
	CHECK_INT(f.counts[CAP_STACK], 2);
	fixture_free(&f);
}

struct seen {
	uint32_t comms;
	char last_comm[32];
	uint64_t samples;
	struct cap_sample last_sample;
	struct cap_end end;
	uint64_t lost[CAP_LOSS_MAX];
};

static void note(const struct cap_record *rec, void *ctx)
{
	struct seen *s = ctx;

	switch (rec->type) {
	case CAP_COMM:
		s->comms++;
		snprintf(s->last_comm, sizeof(s->last_comm), "%.*s", (int)rec->u.comm.comm.len,
			 rec->u.comm.comm.s);
		break;
	case CAP_SAMPLE:
		s->samples += rec->u.sample.count;
		s->last_sample = rec->u.sample;
		break;
	case CAP_LOSS:
		if (rec->u.loss.cause < CAP_LOSS_MAX)
			s->lost[rec->u.loss.cause] += rec->u.loss.count;
		break;
	case CAP_END:
		s->end = rec->u.end;
		break;
	}
}

static void put(struct recorder *rec, const struct sample_key *k, uint32_t ustack, uint64_t count,
		uint64_t time_ns)
{
	recorder_sample(rec, &(struct taken_sample){ .key = k, .ustack = ustack, .count = count,
						     .time_ns = time_ns });
}

TEST(a_process_mappings_come_before_its_first_sample_and_a_name_when_it_changes)
{
	struct fixture f;
	struct seen s = { 0 };
	uint32_t pid = (uint32_t)getpid();
	const uint64_t ips[] = { 0x1234 };

	fixture_init(&f);
	uint32_t u = recorder_stack(f.rec, 7, ips, 1);
	struct sample_key k = key(pid, pid, "before", 7);
	put(f.rec, &k, u, 3, 100);
	put(f.rec, &k, u, 2, 200);
	k = key(pid, pid, "after", 7);
	put(f.rec, &k, u, 1, 300);
	recorder_taken(f.rec, 8);
	recorder_loss(f.rec, CAP_LOSS_RING, 2);
	recorder_loss(f.rec, CAP_LOSS_COUNT_MAP, 0);
	recorder_end(f.rec, 1000);
	read_back(&f, note, &s);
	/* This process's own mappings, read from /proc. */
	CHECK(f.counts[CAP_MAP] > 0);
	CHECK(f.first[CAP_MAP] < f.first[CAP_SAMPLE]);
	CHECK_INT(s.comms, 2);
	CHECK_STR(s.last_comm, "after");
	CHECK_INT(s.samples, 6);
	CHECK_INT(f.counts[CAP_LOSS], 1);
	CHECK_INT(s.lost[CAP_LOSS_RING], 2);
	CHECK_INT(s.end.samples, 6);
	CHECK_INT(s.end.taken, 8);
	CHECK_INT(s.end.lost, 2);
	CHECK_INT(s.end.stacks, 1);
	CHECK_INT(s.end.duration_ns, 1000);
	CHECK_INT(f.counts[CAP_END], 1);
	fixture_free(&f);
}

/* Samples are dated by their slot of time, as times since the file's
 * start: a slot straddling the start begins at 0, and none ends after the
 * drain that took it.  A block spans the slots from the one it began in. */
TEST(samples_are_dated_by_their_slot_within_the_file)
{
	struct fixture f;
	struct seen s = { 0 };
	const uint64_t ms = 1000000, start = 1005 * ms; /* the file's, monotonic */
	struct sample_key k = key(0, 100, "t", 0);

	fixture_init(&f);
	recorder_info(f.rec, &(struct cap_info){ .time_resolution_ns = 10 * ms }, start);
	k.slot = 150; /* [1500 ms, 1510 ms) */
	put(f.rec, &k, 0, 1, 600 * ms);
	read_back(&f, note, &s);
	CHECK_INT(s.last_sample.begin_ns, 495 * ms);
	CHECK_INT(s.last_sample.time_ns, 505 * ms);
	k.slot = 100; /* [1000, 1010): began before the file */
	put(f.rec, &k, 0, 1, 600 * ms);
	read_back(&f, note, &s);
	CHECK_INT(s.last_sample.begin_ns, 0);
	CHECK_INT(s.last_sample.time_ns, 5 * ms);
	k.slot = 170; /* ends after the drain */
	put(f.rec, &k, 0, 1, 601 * ms);
	read_back(&f, note, &s);
	CHECK_INT(s.last_sample.begin_ns, 601 * ms);
	CHECK_INT(s.last_sample.time_ns, 601 * ms);
	k.kind = PROF_OFF_CPU;
	k.slot = 160, k.span = 40; /* began in [1200, 1210) */
	put(f.rec, &k, 0, 1, 700 * ms);
	read_back(&f, note, &s);
	CHECK_INT(s.last_sample.begin_ns, 195 * ms);
	CHECK_INT(s.last_sample.time_ns, 605 * ms);
	k.span = 1000; /* from before the file, or forged */
	put(f.rec, &k, 0, 1, 700 * ms);
	read_back(&f, note, &s);
	CHECK_INT(s.last_sample.begin_ns, 0);
	fixture_free(&f);
}

/* A block names its wakers, whose names come before it as its own thread's
 * does; blocks count as samples in END, their time as its weight. */
TEST(an_off_cpu_block_carries_its_weight_and_wakers)
{
	struct fixture f;
	struct seen s = { 0 };
	const uint64_t ips[] = { 0xffffffff81000000ull };

	fixture_init(&f);
	uint32_t kid = recorder_stack(f.rec, 5 | (1ull << 63), ips, 1);
	struct sample_key k = key(0, 100, "reader", 0);
	k.kind = PROF_OFF_CPU;
	k.nwakers = 2;
	k.wakers[0] = (struct waker){ .pid = 0, .tid = 101, .comm = "writer" };
	k.wakers[1] = (struct waker){ .pid = 0, .tid = 102, .comm = "timer" };
	recorder_sample(f.rec, &(struct taken_sample){ .key = &k, .kstack = kid, .count = 4,
						       .weight = 4000000,
						       .waker_kstack = { kid, 0 },
						       .time_ns = 5 });
	recorder_taken(f.rec, 4);
	recorder_end(f.rec, 10);
	read_back(&f, note, &s);
	/* The thread's name, then its wakers', all before the SAMPLE. */
	CHECK_INT(s.comms, 3);
	CHECK_STR(s.last_comm, "timer");
	CHECK(f.first[CAP_COMM] < f.first[CAP_SAMPLE]);
	CHECK_INT(s.last_sample.kind, CAP_OFF_CPU);
	CHECK_INT(s.last_sample.count, 4);
	CHECK_INT(s.last_sample.weight, 4000000);
	CHECK_INT(s.last_sample.nwakers, 2);
	CHECK_INT(s.last_sample.waker[0].kstack, kid);
	CHECK_INT(s.last_sample.waker[1].kstack, 0);
	CHECK_INT(s.end.samples, 4);
	CHECK_INT(s.end.weight, 4000000);
	CHECK_INT(recorder_stats(f.rec)->blocks, 4);
	fixture_free(&f);
}

TEST(a_process_nothing_is_known_of_is_a_counted_loss)
{
	struct fixture f;
	struct seen s = { 0 };

	fixture_init(&f);
	/* No process has a PID this high (pid_max is at most 2^22). */
	CHECK(!recorder_process(f.rec, 0x7ffffff0u, "gone"));
	CHECK_INT(recorder_stats(f.rec)->lost[CAP_LOSS_PROC], 1);
	recorder_end(f.rec, 0);
	read_back(&f, note, &s);
	CHECK_INT(s.lost[CAP_LOSS_PROC], 1);
	CHECK_INT(f.counts[CAP_MAP], 0);
	fixture_free(&f);
}

static void map(struct processes *ps, uint32_t pid, uint64_t start, const char *path)
{
	processes_mmap(ps, pid, &(struct mapping){ .start = start, .end = start + 0x1000,
						   .path = (char *)path });
}

/* pid's user stack sampled once. */
static void sample_user(struct fixture *f, uint32_t pid, uint32_t u)
{
	struct sample_key k = key(pid, pid, "p", 7);

	CHECK(recorder_process(f->rec, pid, "p"));
	put(f->rec, &k, u, 1, 0);
}

/* The next file of a --rotate capture, read back alone from here. */
static void next_file(struct fixture *f)
{
	CHECK(recorder_flush(f->rec));
	fclose(f->capture);
	free(f->buf);
	f->capture = open_memstream(&f->buf, &f->len);
	recorder_next_file(f->rec, f->capture, "memory");
	memset(f->counts, 0, sizeof(f->counts));
	memset(f->first, 0, sizeof(f->first));
}

/* What a file has said of a process is the recorder's to keep: a child's
 * inherited mappings said by one FORK, a mapping learnt after a sample said
 * before the next, nothing said twice in a file, and all of it again in the
 * next file of a rotation. */
TEST(forks_and_new_mappings_are_said_once_a_file_and_again_in_the_next)
{
	/* PIDs above pid_max: the table knows them by their events alone. */
	const uint32_t parent = 0x7fff0001u, child = 0x7fff0002u;
	const uint64_t ips[] = { 0x1234 };
	struct fixture f;
	uint32_t u;

	fixture_init(&f);
	map(&f.ps, parent, 0x10000, "/usr/bin/server");
	map(&f.ps, parent, 0x20000, "/usr/lib/libc.so.6");
	processes_fork(&f.ps, parent, child);
	u = recorder_stack(f.rec, 7, ips, 1);
	sample_user(&f, child, u);
	sample_user(&f, parent, u);
	sample_user(&f, child, u);
	read_back(&f, NULL, NULL);
	/* The child's first sample said its parent's two mappings, then the
	 * FORK that gives them to it. */
	CHECK_INT(f.counts[CAP_MAP], 2);
	CHECK_INT(f.counts[CAP_FORK], 1);
	CHECK(f.first[CAP_MAP] < f.first[CAP_FORK]);
	CHECK(f.first[CAP_FORK] < f.first[CAP_SAMPLE]);

	map(&f.ps, child, 0x30000, "/usr/lib/libplugin.so");
	sample_user(&f, child, u);
	sample_user(&f, child, u);
	memset(f.counts, 0, sizeof(f.counts));
	read_back(&f, NULL, NULL);
	CHECK_INT(f.counts[CAP_MAP], 3);
	CHECK_INT(f.counts[CAP_FORK], 1);
	CHECK_INT(f.counts[CAP_SAMPLE], 5);

	recorder_end(f.rec, 1);
	next_file(&f);
	u = recorder_stack(f.rec, 7, ips, 1);
	sample_user(&f, child, u);
	read_back(&f, NULL, NULL);
	CHECK_INT(f.counts[CAP_STACK], 1);
	CHECK_INT(f.counts[CAP_MAP], 3);
	CHECK_INT(f.counts[CAP_FORK], 1);
	CHECK_INT(f.counts[CAP_SAMPLE], 1);
	fixture_free(&f);
}

/* A fork seen after the child's samples (events come from one ring per
 * CPU) begins its list anew: said again, the inherited ones first. */
TEST(a_fork_seen_after_the_childs_samples_is_said_again)
{
	const uint32_t parent = 0x7fff0003u, child = 0x7fff0004u;
	const uint64_t ips[] = { 0x1234 };
	struct fixture f;
	uint32_t u;

	fixture_init(&f);
	map(&f.ps, parent, 0x10000, "/usr/bin/server");
	map(&f.ps, child, 0x40000, "/usr/lib/libown.so");
	u = recorder_stack(f.rec, 7, ips, 1);
	sample_user(&f, child, u);
	sample_user(&f, parent, u);
	processes_fork(&f.ps, parent, child);
	sample_user(&f, child, u);
	read_back(&f, NULL, NULL);
	/* libown, server (the parent's), then the FORK and libown again. */
	CHECK_INT(f.counts[CAP_MAP], 3);
	CHECK_INT(f.counts[CAP_FORK], 1);
	fixture_free(&f);
}
