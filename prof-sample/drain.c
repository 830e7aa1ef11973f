#include "drain.h"

#include <bpf/bpf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "diag.h"
#include "profile.h"
#include "profile.skel.h"
#include "proc_maps.h"

_Static_assert(PROF_NR_COUNTERS <= 8, "drainer.counters is too small");

uint64_t monotonic_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void drainer_init(struct drainer *d, struct profile_bpf *skel, struct cap_writer *w,
		  struct kallsyms *ksyms, uint64_t start_ns)
{
	memset(d, 0, sizeof(*d));
	d->skel = skel;
	d->w = w;
	d->ksyms = ksyms;
	d->start_ns = start_ns;
	d->stacks = htab_new();
	d->threads = htab_new();
	d->procs = htab_new();
	d->build_ids = htab_new();
}

void drainer_free(struct drainer *d)
{
	struct htab_entry *e = htab_entries(d->threads);

	for (size_t i = 0; i < htab_count(d->threads); i++)
		free(e[i].val.p);
	htab_free(d->stacks);
	htab_free(d->threads);
	htab_free(d->procs);
	proc_ids_free(d->build_ids);
}

static void write_ksyms(struct drainer *d, const uint64_t *ips, uint32_t nr)
{
	for (uint32_t i = 0; i < nr && d->ksyms; i++) {
		struct ksym *k = kallsyms_find(d->ksyms, ips[i]);
		if (k && !k->written) {
			capw_ksym(d->w, k->start, k->end, k->name, k->module);
			k->written = true;
		}
	}
}

/* Maps a stack-map id of the drained set to a capture stack id, writing the
 * STACK record (and the KSYMs it needs) the first time its contents are
 * seen.  0 when the sample has no such stack. */
static uint32_t capture_stack(struct drainer *d, int map_fd, int32_t id, bool kernel)
{
	uint64_t ips[PROF_MAX_STACK] = { 0 };
	uint32_t nr = 0;
	bool created;
	struct htab_entry *e;

	if (id < 0 || bpf_map_lookup_elem(map_fd, &id, ips) != 0)
		return 0;
	while (nr < PROF_MAX_STACK && ips[nr])
		nr++;
	if (nr == 0)
		return 0;
	e = htab_upsert(d->stacks, ips, nr * sizeof(ips[0]), &created);
	if (created) {
		e->val.u = ++d->stats.stacks;
		if (kernel)
			write_ksyms(d, ips, nr);
		capw_stack(d->w, (uint32_t)e->val.u, nr, ips);
	}
	return (uint32_t)e->val.u;
}

static void note_thread(struct drainer *d, const struct sample_key *k)
{
	bool created;
	struct htab_entry *e = htab_upsert(d->threads, &k->tid, sizeof(k->tid), &created);
	char comm[PROF_COMM_LEN + 1] = { 0 };

	memcpy(comm, k->comm, PROF_COMM_LEN);
	if (created)
		e->val.p = xcalloc(1, sizeof(comm));
	else if (strcmp(e->val.p, comm) == 0)
		return;
	memcpy(e->val.p, comm, sizeof(comm));
	capw_comm(d->w, k->pid, k->tid, comm);
}

static void note_process(struct drainer *d, uint32_t pid)
{
	bool created;

	htab_upsert(d->procs, &pid, sizeof(pid), &created);
	if (!created || pid == 0)
		return;
	if (!proc_write_maps(d->w, pid, d->build_ids)) {
		d->stats.lost[CAP_LOSS_PROC]++;
		capw_loss(d->w, CAP_LOSS_PROC, 1);
		if (d->verbose)
			warn("/proc/%u/maps", pid);
	}
}

static void account_losses(struct drainer *d)
{
	static const struct {
		enum prof_counter counter;
		enum cap_loss_cause cause;
	} map[] = {
		{ PROF_LOST_KSTACK, CAP_LOSS_KSTACK },
		{ PROF_LOST_USTACK, CAP_LOSS_USTACK },
		{ PROF_LOST_COUNT, CAP_LOSS_COUNT_MAP },
	};
	volatile __u64 *c = d->skel->bss->counters;

	d->stats.seen = c[PROF_SEEN];
	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++) {
		uint64_t now = c[map[i].counter], delta = now - d->counters[map[i].counter];
		if (!delta)
			continue;
		d->counters[map[i].counter] = now;
		d->stats.lost[map[i].cause] += delta;
		capw_loss(d->w, map[i].cause, delta);
	}
}

/* Every key of a map, read before any is deleted: deleting while walking
 * with get_next_key would restart the walk. */
static size_t map_keys(int fd, void *keys, size_t key_size, size_t max)
{
	size_t n = 0;
	char *prev = NULL, *k = keys;

	while (n < max && bpf_map_get_next_key(fd, prev, k + n * key_size) == 0) {
		prev = k + n * key_size;
		n++;
	}
	return n;
}

bool drain(struct drainer *d)
{
	struct profile_bpf *s = d->skel;
	uint32_t set = s->bss->active;
	int counts_fd = bpf_map__fd(set ? s->maps.counts1 : s->maps.counts0);
	int stacks_fd = bpf_map__fd(set ? s->maps.stacks1 : s->maps.stacks0);
	size_t max_counts = bpf_map__max_entries(s->maps.counts0);
	size_t max_stacks = bpf_map__max_entries(s->maps.stacks0);
	struct sample_key *keys = xcalloc(max_counts, sizeof(*keys));
	uint32_t *ids = xcalloc(max_stacks, sizeof(*ids));
	uint64_t now = monotonic_ns() - d->start_ns;
	bool ok = true;
	size_t n;

	/* Flip, then give programs that read the old value time to finish;
	 * they run for microseconds in interrupt context. */
	__atomic_store_n(&s->bss->active, set ^ 1, __ATOMIC_SEQ_CST);
	usleep(2000);

	n = map_keys(counts_fd, keys, sizeof(*keys), max_counts);
	for (size_t i = 0; i < n; i++) {
		struct sample_key *k = &keys[i];
		uint64_t count;
		if (bpf_map_lookup_and_delete_elem(counts_fd, k, &count) != 0) {
			warn("draining the count map");
			ok = false;
			continue;
		}
		note_process(d, k->pid);
		note_thread(d, k);
		struct cap_sample smp = {
			.pid = k->pid,
			.tid = k->tid,
			.kstack = capture_stack(d, stacks_fd, k->kstack, true),
			.ustack = capture_stack(d, stacks_fd, k->ustack, false),
			.count = count,
			.time_ns = now,
		};
		capw_sample(d->w, &smp);
		d->stats.samples += count;
	}

	n = map_keys(stacks_fd, ids, sizeof(*ids), max_stacks);
	for (size_t i = 0; i < n; i++)
		bpf_map_delete_elem(stacks_fd, &ids[i]);

	account_losses(d);
	free(keys);
	free(ids);
	return ok;
}
