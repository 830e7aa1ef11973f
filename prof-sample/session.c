#include "session.h"

#include <bpf/libbpf.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "clock.h"
#include "diag.h"
#include "offcpu_words.h"
#include "privileges.h"
#include "proc_maps.h"
#include "profile.h"
#include "profile.skel.h"
#include "recorder.h"
#include "sigbus_guard.h"
#include "waits.h"

/* Storing in the build-id cache goes this long at a time between reads of
 * the rings: a host's libraries at the start of a capture take a second. */
#define CACHE_SLICE_NS (5 * 1000000ull)

/* The process events ring is read at least this often, so that it does
 * not fill up, and the command's exit is noticed. */
#define POLL_MS 100

static const char *cache_dir(const struct options *o, char *buf, size_t size)
{
	return o->build_id_dir ? o->build_id_dir : build_id_cache_dir(buf, size);
}

/* The build-id cache, if its keeper could be started. */
static struct build_id_cache *cache(struct session *s)
{
	return s->have_cache ? &s->cache : NULL;
}

static bool start_cache(struct build_id_cache *c, const struct options *o)
{
	char buf[4096];
	const char *dir = cache_dir(o, buf, sizeof(buf));

	if (!dir) {
		warnx("no build-id cache (no HOME): files that go away stay unresolved");
		return false;
	}
	return build_id_cache_start(c, dir, o->build_id_cache_size);
}

bool session_open(struct session *s, struct profile_bpf *skel, const struct source_ops *src,
		  const struct options *o, struct sink *out)
{
	bool have_ksyms;

	memset(s, 0, sizeof(*s));
	s->opt = o;
	s->skel = skel;
	s->src = src;
	s->out = out;
	s->opener.h.sock = -1;
	s->cache.keeper.sock = -1;
	s->sb.map_fd = -1;
	s->cgroups.root = -1;
	s->show_progress = !o->quiet && isatty(STDERR_FILENO);

	have_ksyms = kallsyms_load(&s->ksyms, "/proc/kallsyms");
	if (!have_ksyms)
		warn("/proc/kallsyms: kernel frames will stay unresolved");
	/* Before any helper is forked: which user namespace is the host's. */
	local_fs_init();
	/* The opener is added once forked (session_start_helpers()): no
	 * file is opened before. */
	mapped_files_init(&s->files, NULL);
	s->rec = recorder_new(have_ksyms ? &s->ksyms : NULL, &s->procs, o->verbose > 0);
	processes_init(&s->procs, &s->files);
	/* Opened while prof-sample may read every cgroup's marks: the
	 * processes already running are checked before it gives that up. */
	if (!cgroup_trust_open(&s->cgroups) && o->verbose)
		warnx("no cgroup v2 mount: the profile will have no container or unit labels");
	s->procs.cgroups = &s->cgroups;
	s->start_ns = s->file_start_ns = monotonic_ns();
	/* The scheduler's programs run: a thread they have not seen block
	 * is blocked from before, and its wait counts from the start. */
	if (o->off_cpu)
		waits_adopt(skel);
	s->have_sideband = sideband_open(&s->sb, &s->procs, &s->files) == 0;
	if (!s->have_sideband)
		warnx("processes that exit before a drain will lose their user frames");
	s->src_state = src->open(&(struct source_env){
					 .skel = skel,
					 .rec = s->rec,
					 .procs = &s->procs,
					 .files = &s->files,
					 .catch_up = s->have_sideband ? sideband_catch_up : NULL,
					 .catch_up_ctx = &s->sb,
					 .start_ns = &s->file_start_ns,
				 },
				 o);
	return s->src_state != NULL;
}

void session_close(struct session *s)
{
	if (!s->opt)
		return;
	if (s->src_state)
		s->src->close(s->src_state);
	sideband_close(&s->sb);
	processes_free(&s->procs);
	recorder_free(s->rec);
	mapped_files_free(&s->files);
	opener_stop(&s->opener);
	build_id_cache_stop(&s->cache);
	cgroup_trust_close(&s->cgroups);
	kallsyms_free(&s->ksyms);
}

static void read_line(const char *path, char *buf, size_t size)
{
	FILE *f = fopen(path, "r");

	buf[0] = '\0';
	if (f) {
		if (fgets(buf, (int)size, f))
			buf[strcspn(buf, "\n")] = '\0';
		fclose(f);
	}
}

static void write_info(struct session *s)
{
	const struct options *o = s->opt;
	struct utsname u;
	struct timespec now;
	char boot_id[64];

	uname(&u);
	read_line("/proc/sys/kernel/random/boot_id", boot_id, sizeof(boot_id));
	/* The file's start, which its sample times count from, not this
	 * moment: attaching the events, or finishing the file before, may
	 * have taken a while. */
	clock_gettime(CLOCK_REALTIME, &now);
	recorder_info(s->rec, &(struct cap_info){
				      .start_ns = (uint64_t)now.tv_sec * 1000000000u +
						  (uint64_t)now.tv_nsec -
						  (monotonic_ns() - s->file_start_ns),
				      .freq = o->freq,
				      .period = o->period,
				      .ncpus = (uint32_t)s->ncpus,
				      .event = cap_cstr(!o->off_cpu ? EVENT_ON_CPU
							: o->on_cpu   ? EVENT_WALL
								      : EVENT_OFF_CPU),
				      .hostname = cap_cstr(u.nodename),
				      .release = cap_cstr(u.release),
				      .boot_id = cap_cstr(boot_id),
				      .min_block_ns = o->off_cpu ? o->min_block_ns : 0,
				      .max_block_ns = o->off_cpu ? o->max_block_ns : 0,
				      .states = o->off_cpu ? o->states : 0,
				      .wakeup_depth = o->off_cpu ? o->wakeup_depth : 0,
				      .time_resolution_ns = o->time_resolution_ns,
			      },
		      s->file_start_ns);
}

/* The mappings of the processes already running, while prof-sample may
 * still read anyone's /proc/PID/maps; those started later come from the
 * mmap events.  A command's processes all start later (without -a). */
static void snapshot_processes(struct session *s)
{
	const struct options *o = s->opt;
	const struct targets *t = &o->targets;

	if (o->command && !o->all)
		return;
	if (!t->npids && !t->ntids) {
		processes_snapshot_all(&s->procs);
		return;
	}
	for (size_t i = 0; i < t->npids; i++)
		processes_snapshot(&s->procs, t->pids[i]);
	for (size_t i = 0; i < t->ntids; i++)
		processes_snapshot(&s->procs, proc_tgid(t->tids[i]));
}

void session_start_helpers(struct session *s)
{
	const struct options *o = s->opt;

	if (opener_start(&s->opener))
		s->files.opener = &s->opener;
	else
		warnx("files only their owners may read will stay unresolved");
	s->have_cache = o->build_id_cache && start_cache(&s->cache, o);
	recorder_keep_files(s->rec, cache(s));
}

void session_begin(struct session *s, int ncpus)
{
	const struct options *o = s->opt;

	s->ncpus = ncpus;
	recorder_next_file(s->rec, sink_file(s->out), o->output);
	write_info(s);
	snapshot_processes(s);
	s->next_drain_ns = s->start_ns + (uint64_t)(o->interval * 1e9);
	s->deadline_ns = o->duration ? s->start_ns + (uint64_t)(o->duration * 1e9) : UINT64_MAX;
	s->next_rotation_ns = o->rotate ? s->start_ns + o->rotate * 1000000000ull : UINT64_MAX;
}

bool session_drop_privileges(struct session *s)
{
	/* Everything privileged is done: what parses untrusted input from
	 * here on (ELF files, perf maps) runs without it, and files only
	 * privilege may open come through the opener.  The maps are drained
	 * with bpf() calls on descriptors already held: without CAP_BPF
	 * where the kernel allows it. */
	if (!drop_privileges(!bpf_maps_work_unprivileged(bpf_map__fd(s->skel->maps.counts0))))
		return false;
	/* Paths, and files not on a local file system, from here on: by a
	 * helper as unprivileged as the main process, that can be killed. */
	mapped_files_start_reader(&s->files);
	return true;
}

/* The BPF program's counters become loss records as they grow. */
static void record_losses(struct session *s)
{
	static const struct {
		enum prof_counter counter;
		enum cap_loss_cause cause;
	} map[] = {
		{ PROF_LOST_KSTACK, CAP_LOSS_KSTACK },
		{ PROF_LOST_USTACK, CAP_LOSS_USTACK },
		{ PROF_LOST_COUNT, CAP_LOSS_COUNT_MAP },
		{ PROF_LOST_RING, CAP_LOSS_RING },
		{ PROF_LOST_SWITCH, CAP_LOSS_SWITCH },
		{ PROF_WAKE_CUT, CAP_LOSS_WAKE_CHAIN },
		{ PROF_LOST_WSTACK, CAP_LOSS_WAKER_STACK },
		{ PROF_LOST_BLOCK_USTACK, CAP_LOSS_BLOCK_USTACK },
		{ PROF_BLOCK_FALLBACK, CAP_LOSS_BLOCK_FALLBACK },
	};
	volatile __u64 *c = s->skel->bss->counters;

	recorder_taken(s->rec, c[PROF_SEEN]);
	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++) {
		uint64_t now = c[map[i].counter];
		recorder_loss(s->rec, map[i].cause, now - s->counters[map[i].counter]);
		s->counters[map[i].counter] = now;
	}
	if (s->have_sideband) {
		recorder_loss(s->rec, CAP_LOSS_MMAP_EVENTS, s->sb.lost - s->sideband_reported);
		s->sideband_reported = s->sb.lost;
	}
}

/* How often the processes whose exit was never seen (their events were
 * lost) are looked for: a process is forgotten when gone at two sweeps
 * in a row and not sampled between them. */
#define GONE_SWEEP_NS (60 * 1000000000ull)

/* Moves the samples of the interval that ended into the capture. */
static bool drain(struct session *s, bool last)
{
	enum drain_result r;

	mapped_files_poll(&s->files, 0);
	r = s->src->drain(s->src_state, monotonic_ns() - s->file_start_ns, last);

	if (r == DRAIN_ERROR)
		return false;
	record_losses(s);
	processes_next_interval(&s->procs);
	/* A process is forgotten once its last sample has been handled:
	 * samples behind in the source delay it to a later drain.  So are
	 * the files nobody has asked for since, unless the build-id cache
	 * has yet to store them. */
	if (r == DRAIN_COMPLETE) {
		processes_reap(&s->procs);
		if (monotonic_ns() >= s->next_sweep_ns) {
			processes_forget_gone(&s->procs);
			s->next_sweep_ns = monotonic_ns() + GONE_SWEEP_NS;
		}
		build_id_cache_touch(cache(s), &s->files);
		mapped_files_sweep(&s->files);
	}
	return true;
}

/* Ends the file being written and goes on in a new one, whose
 * interval starts now: its own INFO, and everything its samples need
 * said again as they come. */
static bool rotate(struct session *s)
{
	uint64_t now = monotonic_ns();

	recorder_end(s->rec, now - s->file_start_ns);
	if (!sink_next(s->out, recorder_stats(s->rec)->samples))
		return false;
	recorder_next_file(s->rec, sink_file(s->out), s->opt->output);
	s->file_start_ns = now;
	write_info(s);
	while (s->next_rotation_ns <= now)
		s->next_rotation_ns += s->opt->rotate * 1000000000ull;
	return true;
}

static uint64_t total_lost(const struct recorder_stats *st)
{
	uint64_t n = 0;

	for (int c = 1; c < CAP_LOSS_MAX; c++)
		n += st->lost[c];
	return n;
}

static void progress(const struct session *s, bool final)
{
	struct recorder_stats run, *st = &run;

	recorder_run_stats(s->rec, &run);
	fprintf(stderr, "\rprof-sample: %.0fs, %" PRIu64 " samples, %u stacks, %" PRIu64 " lost%s",
		(double)(monotonic_ns() - s->start_ns) / 1e9, st->samples, st->stacks,
		total_lost(st), final ? "\n" : "  ");
}

enum step session_step(struct session *s)
{
	uint64_t now = monotonic_ns();

	if (now >= s->deadline_ns)
		return STEP_DONE;
	if (now < s->next_drain_ns) {
		uint64_t until = s->next_drain_ns < s->deadline_ns ? s->next_drain_ns : s->deadline_ns;
		uint64_t ms = (until - now) / 1000000 + 1;
		int most = s->src->poll_ms < POLL_MS ? s->src->poll_ms : POLL_MS;

		sideband_poll(&s->sb, ms > (uint64_t)most ? most : (int)ms);
		mapped_files_poll(&s->files, 0);
		if (s->src->poll && !s->src->poll(s->src_state))
			return STEP_FAILED;
		build_id_cache_work(cache(s), &s->files, CACHE_SLICE_NS);
		return STEP_ON;
	}
	uint64_t due = s->next_drain_ns;
	bool file_ends = due >= s->next_rotation_ns;

	s->next_drain_ns += (uint64_t)(s->opt->interval * 1e9);
	/* The waits going on are this file's up to now: in the drain. */
	if (file_ends && s->opt->off_cpu)
		waits_cut(s->skel);
	if (!drain(s, false) || !recorder_flush(s->rec) || (file_ends && !rotate(s)))
		return STEP_FAILED;
	if (s->show_progress)
		progress(s, false);
	return STEP_ON;
}

/* What the file reader may still be reading is waited for this long at
 * the end: sampling has stopped, nothing is held up. */
#define SETTLE_MS 3000

void session_finish(struct session *s)
{
	if (s->opt->off_cpu)
		waits_cut(s->skel);
	drain(s, true);
	mapped_files_poll(&s->files, SETTLE_MS);
	build_id_cache_work(cache(s), &s->files, 0);
	recorder_end(s->rec, monotonic_ns() - s->file_start_ns);
}

/* What off-CPU time counted and left out (-v); losses are report_losses'. */
static void report_blocks(const struct session *s, const struct recorder_stats *st)
{
	volatile const __u64 *c = s->skel->bss->counters;

	warnx("%" PRIu64 " blocks, %.3f s off-CPU; not counted: %llu shorter than "
	      "--min-block, %llu longer than --max-block",
	      st->blocks, (double)st->weight / 1e9, (unsigned long long)c[PROF_SHORT_BLOCKS],
	      (unsigned long long)c[PROF_LONG_BLOCKS]);
	warnx("waits in progress: %llu thread(s) blocked when the capture started, "
	      "counted from then; %llu wait(s) going on at the end of a file, counted "
	      "up to it",
	      (unsigned long long)c[PROF_ADOPTED_WAITS], (unsigned long long)c[PROF_CUT_WAITS]);
	if (s->opt->dwarf)
		warnx("blocks' user stacks walked whole by the unwind tables: %llu; copied "
		      "instead: %llu cut short by them, %llu of processes without tables yet; "
		      "of those, counted with the walk when the copy could not be made: %llu; "
		      "walks of children forked and not known yet, by their parent's tables: %llu",
		      (unsigned long long)c[PROF_TABLE_WHOLE], (unsigned long long)c[PROF_TABLE_CUT],
		      (unsigned long long)c[PROF_TABLE_NONE],
		      (unsigned long long)c[PROF_BLOCK_FALLBACK],
		      (unsigned long long)c[PROF_TABLE_PARENT]);
}

/* Each cause of loss, in common/capture.c's words, with what only this
 * run knows: the samples taken, the options that add causes. */
static void report_losses(const struct recorder_stats *st, const struct options *o,
			  bool verbose)
{
	for (uint32_t c = 1; c < CAP_LOSS_MAX; c++) {
		const struct cap_loss_info *li = cap_loss_info(c);
		const char *also = "";
		char of[32] = "";

		if (!st->lost[c] || li->kind == CAP_LOSS_CUT ||
		    (li->kind == CAP_LOSS_ASKED && !verbose))
			continue;
		if (c == CAP_LOSS_COUNT_MAP || c == CAP_LOSS_RING)
			snprintf(of, sizeof(of), " of %" PRIu64, st->taken);
		if ((c == CAP_LOSS_KSTACK || c == CAP_LOSS_USTACK) && o->off_cpu)
			also = ", or dropped from the blocks' stacks before their block ended";
		if (c == CAP_LOSS_PROC && o->wakeup_depth)
			also = " (or, wakers, were not targets)";
		warnx("lost %" PRIu64 "%s %s: %s%s%s%s%s", st->lost[c], of, li->what, li->why,
		      li->remedy ? " (" : "", li->remedy ? li->remedy : "", li->remedy ? ")" : "",
		      also);
	}
}

static void report_samples(const struct recorder_stats *st, const struct options *o,
			   bool verbose, bool say_empty)
{
	if (verbose)
		warnx("%" PRIu64 " samples, %u distinct stacks", st->samples, st->stacks);
	if (st->taken == 0 && say_empty)
		warnx("no samples were taken: the targets %s while sampling%s",
		      !o->off_cpu  ? "never ran on a CPU"
		      : o->on_cpu ? "neither ran on a CPU nor blocked"
				  : "never blocked",
		      !o->off_cpu ? " (time spent blocked or asleep is not sampled: see --off-cpu "
				    "and --wall)"
				  : "");
	report_losses(st, o, verbose);
	uint64_t cut = cap_loss_cut(st->lost);
	if (verbose ? cut > 0 : cut_matters(cut, st->taken)) {
		char said[256];

		cap_loss_cut_said(st->lost, said, sizeof(said));
		warnx("user stacks cut short: %s", said);
	}
}

static void report_cache(const struct build_id_cache_stats *st, const struct options *o,
			 bool verbose)
{
	char buf[4096];

	/* Where it is and how far it may grow, said where -v users see it. */
	if (verbose)
		warnx("build-id cache: %s, up to %" PRIu64 " KiB (least recently used entries "
		      "deleted past it; --build-id-cache-list, --build-id-cache-prune): %" PRIu64
		      " file(s) stored (%" PRIu64 " KiB in %.0f ms), %" PRIu64 " there already, "
		      "%" PRIu64 " mapping(s) of files whose owner could not be told",
		      cache_dir(o, buf, sizeof(buf)), o->build_id_cache_size >> 10, st->stored,
		      st->bytes >> 10, (double)st->ns / 1e6, st->present, st->untold);
	if (st->full)
		warnx("build-id cache full: %" PRIu64 " file(s) not stored "
		      "(raise --build-id-cache-size)",
		      st->full);
	if (st->useless)
		warnx("build-id cache: %" PRIu64 " file(s) not stored: no symbols within an entry's "
		      "limit (256 MiB and an eighth of --build-id-cache-size)",
		      st->useless);
	if (st->cut)
		warnx("build-id cache: %" PRIu64 " file(s) stored without sections past the limits, "
		      "or that are holes in the file",
		      st->cut);
	if (st->failed && verbose)
		warnx("build-id cache: %" PRIu64 " file(s) could not be read", st->failed);
}

static void report_files(const struct mapped_files *f, bool verbose)
{
	const struct file_reader_stats *r = f->reader ? file_reader_stats(f->reader) : NULL;
	uint64_t zeroed;

	if (verbose)
		warnx("mapped files: %" PRIu64 " opened through processes, %" PRIu64
		      " by path, %" PRIu64 " copied from file systems that are not local, %" PRIu64
		      " unreadable, %" PRIu64 " not the file mapped; "
		      "%" PRIu64 " let go of, %zu kept at the end (%zu open)",
		      f->opened_privileged, f->opened_by_path, f->copied, f->unreadable,
		      f->mismatched, f->released, f->n, f->open_fds);
	if ((zeroed = sigbus_guard_pages(NULL)))
		warnx("%" PRIu64 " page(s) of mapped files read as zeros: they could not be read "
		      "any more (their owners truncated them, or their file system failed); "
		      "frames in them may be misnamed, or their walks cut short", zeroed);
	if (r && r->given_up)
		warnx("%" PRIu64 " file(s) given up after %d s on a file system that did not "
		      "answer (a FUSE server stopped?): their frames stay unresolved",
		      r->given_up, FILE_READER_TIMEOUT_MS / 1000);
}

bool session_report(struct session *s, bool say_empty)
{
	bool verbose = s->opt->verbose > 0;
	struct recorder_stats run;

	if (s->show_progress)
		progress(s, true);
	recorder_run_stats(s->rec, &run);
	report_samples(&run, s->opt, verbose, say_empty);
	if (verbose && s->skel->rodata->ticks_when_due)
		warnx("clock ticks delivered after a switch: %llu due while a target ran, "
		      "charged to it where it was switched out; %llu due before a target was "
		      "switched in, left out",
		      (unsigned long long)s->skel->bss->counters[PROF_LATE_TICKS],
		      (unsigned long long)s->skel->bss->counters[PROF_EARLY_TICKS]);
	if (s->src->report && s->src_state)
		s->src->report(s->src_state, verbose);
	if (s->opt->off_cpu && verbose)
		report_blocks(s, &run);
	if (s->have_cache)
		report_cache(&s->cache.stats, s->opt, verbose);
	report_files(&s->files, verbose);
	for (uint32_t c = 1; c < CAP_LOSS_MAX; c++)
		if (run.lost[c] && cap_loss_info(c)->kind == CAP_LOSS_PARTIAL)
			return true;
	return false;
}
