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
#include "raw_samples.h"

_Static_assert(PROF_NR_COUNTERS <= 8, "drainer.counters is too small");

uint64_t monotonic_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void drainer_init(struct drainer *d, struct profile_bpf *skel, struct cap_writer *w,
		  struct kallsyms *ksyms, struct processes *procs, uint64_t start_ns)
{
	memset(d, 0, sizeof(*d));
	d->skel = skel;
	d->w = w;
	d->ksyms = ksyms;
	d->procs = procs;
	d->start_ns = start_ns;
	d->stacks = htab_new();
	d->threads = htab_new();
	d->max_stacks = bpf_map__max_entries(skel->maps.stacks0);
	d->max_counts = bpf_map__max_entries(skel->maps.counts0);
	/* Allocated once: only the pages a drain fills are ever touched. */
	d->stack_keys = xcalloc(d->max_stacks, sizeof(*d->stack_keys));
	d->stack_vals = xcalloc(d->max_stacks, sizeof(*d->stack_vals));
	d->count_keys = xcalloc(d->max_counts, sizeof(*d->count_keys));
	d->count_vals = xcalloc(d->max_counts, sizeof(*d->count_vals));
}

void drainer_free(struct drainer *d)
{
	struct htab_entry *e = htab_entries(d->threads);

	for (size_t i = 0; i < htab_count(d->threads); i++)
		free(e[i].val.p);
	htab_free(d->stacks);
	htab_free(d->threads);
	free(d->stack_keys);
	free(d->stack_vals);
	free(d->count_keys);
	free(d->count_vals);
}

/* Reads and deletes every entry of a map nobody writes to any more.
 * Returns the number of entries, or -errno. */
static long take_all(int fd, void *keys, size_t key_size, void *vals, size_t val_size,
		     uint32_t max)
{
	LIBBPF_OPTS(bpf_map_batch_opts, opts);
	/* Batch tokens are opaque; hash maps use a bucket index. */
	uint64_t in[8], out[8];
	uint32_t total = 0;
	bool first = true;

	while (total < max) {
		uint32_t n = max - total;
		int err = bpf_map_lookup_and_delete_batch(fd, first ? NULL : in, out,
							  (char *)keys + total * key_size,
							  (char *)vals + total * val_size, &n, &opts);
		total += n;
		if (err)
			return errno == ENOENT ? (long)total : -errno;
		memcpy(in, out, sizeof(in));
		first = false;
	}
	return total;
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

uint32_t drain_stack(struct drainer *d, uint64_t key, const uint64_t *ips, uint32_t nr)
{
	bool created;
	struct htab_entry *e = htab_upsert(d->stacks, &key, sizeof(key), &created);

	if (!created)
		return (uint32_t)e->val.u;
	e->val.u = ++d->stats.stacks;
	if (key & PROF_KERNEL_STACK)
		write_ksyms(d, ips, nr);
	capw_stack(d->w, (uint32_t)e->val.u, nr, ips);
	return (uint32_t)e->val.u;
}

static uint32_t stack_id(struct drainer *d, uint64_t hash)
{
	struct htab_entry *e = hash ? htab_find(d->stacks, &hash, sizeof(hash)) : NULL;

	return e ? (uint32_t)e->val.u : 0;
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

void drain_loss(struct drainer *d, enum cap_loss_cause cause, uint64_t n)
{
	if (!n)
		return;
	d->stats.lost[cause] += n;
	capw_loss(d->w, cause, n);
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
		{ PROF_LOST_RING, CAP_LOSS_RING },
	};
	volatile __u64 *c = d->skel->bss->counters;

	d->stats.seen = c[PROF_SEEN];
	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++) {
		uint64_t now = c[map[i].counter];
		drain_loss(d, map[i].cause, now - d->counters[map[i].counter]);
		d->counters[map[i].counter] = now;
	}
	if (d->sideband_lost) {
		drain_loss(d, CAP_LOSS_MMAP_EVENTS, *d->sideband_lost - d->sideband_reported);
		d->sideband_reported = *d->sideband_lost;
	}
}

bool drain_process(struct drainer *d, uint32_t pid, const char *comm)
{
	if (processes_sampled(d->procs, pid))
		return true;
	drain_loss(d, CAP_LOSS_PROC, 1);
	if (d->verbose) {
		char shown[PROF_COMM_LEN + 1];
		snprintf(shown, sizeof(shown), "%s", comm);
		printable(shown, strlen(shown));
		warnx("process %u (%s) exited before its mappings were known", pid, shown);
	}
	return false;
}

void drain_sample(struct drainer *d, const struct sample_key *k, uint32_t kstack, uint32_t ustack,
		  uint64_t count, uint64_t now)
{
	/* Only user frames need the mappings. */
	if (k->ustack) {
		drain_process(d, k->pid, k->comm);
		processes_perf_map(d->procs, k->pid, d->interval);
	}
	note_thread(d, k);
	capw_sample(d->w, &(struct cap_sample){
				  .pid = k->pid,
				  .tid = k->tid,
				  .kstack = kstack,
				  .ustack = ustack,
				  .count = count,
				  .time_ns = now,
			  });
	d->stats.samples += count;
}

bool drain(struct drainer *d)
{
	struct profile_bpf *s = d->skel;
	uint32_t set = s->bss->active;
	int counts_fd = bpf_map__fd(set ? s->maps.counts1 : s->maps.counts0);
	int stacks_fd = bpf_map__fd(set ? s->maps.stacks1 : s->maps.stacks0);
	uint64_t now = monotonic_ns() - d->start_ns;
	long nstacks, ncounts;

	/* Flip, then give programs that read the old value time to finish;
	 * they run for microseconds in interrupt context.  A Ctrl-C must not
	 * cut the wait short: this may be the last drain. */
	__atomic_store_n(&s->bss->active, set ^ 1, __ATOMIC_SEQ_CST);
	struct timespec wait = { 0, 2000000 };
	while (nanosleep(&wait, &wait) != 0 && errno == EINTR)
		;
	if (d->catch_up)
		d->catch_up(d->catch_up_ctx);

	nstacks = take_all(stacks_fd, d->stack_keys, sizeof(*d->stack_keys), d->stack_vals,
			   sizeof(*d->stack_vals), d->max_stacks);
	ncounts = take_all(counts_fd, d->count_keys, sizeof(*d->count_keys), d->count_vals,
			   sizeof(*d->count_vals), d->max_counts);
	if (nstacks < 0 || ncounts < 0) {
		errno = (int)-(nstacks < 0 ? nstacks : ncounts);
		warn("draining the BPF maps");
		return false;
	}
	for (long i = 0; i < nstacks; i++) {
		const struct stack_trace *st = &d->stack_vals[i];
		drain_stack(d, d->stack_keys[i], (const uint64_t *)st->ip,
			    st->nr < PROF_MAX_STACK ? (uint32_t)st->nr : PROF_MAX_STACK);
	}
	for (long i = 0; i < ncounts; i++) {
		const struct sample_key *k = &d->count_keys[i];
		drain_sample(d, k, stack_id(d, k->kstack), stack_id(d, k->ustack), d->count_vals[i],
			     now);
	}
	bool all_handled = !d->raw || raw_samples_drain(d->raw, now, d->last);
	account_losses(d);
	/* A process is forgotten once its last sample has been handled:
	 * samples behind in the ring delay it to a later drain. */
	++d->interval;
	if (all_handled) {
		processes_reap(d->procs, d->interval);
		if (d->raw)
			raw_samples_sweep(d->raw);
	}
	return true;
}
