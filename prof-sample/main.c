/*
 * prof-sample: sample on-CPU stacks with eBPF and write a raw capture.
 *
 * Shape as libbpf-tools' bootstrap: open the skeleton, configure it, load,
 * attach, then loop draining the maps until the duration ends, a signal
 * arrives or the command exits; one cleanup path.
 */
#include <bpf/libbpf.h>
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "build_id.h"
#include "build_id_cache.h"
#include "capture.h"
#include "command.h"
#include "diag.h"
#include "drain.h"
#include "kallsyms.h"
#include "mapped_files.h"
#include "opener.h"
#include "options.h"
#include "perf_events.h"
#include "privileges.h"
#include "profile.h"
#include "proc_maps.h"
#include "processes.h"
#include "raw_samples.h"
#include "profile.skel.h"
#include "sideband.h"
#include "stream.h"

static volatile sig_atomic_t exiting;

static void on_signal(int sig)
{
	(void)sig;
	exiting = 1;
}

static bool verbose_libbpf;

static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	(void)level;
	return verbose_libbpf ? vfprintf(stderr, fmt, ap) : 0;
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

static void write_info(struct cap_writer *w, const struct options *o, int ncpus)
{
	struct utsname u;
	struct timespec now;
	char boot_id[64];

	uname(&u);
	clock_gettime(CLOCK_REALTIME, &now);
	read_line("/proc/sys/kernel/random/boot_id", boot_id, sizeof(boot_id));
	capw_info(w, &(struct cap_info){
			     .start_ns = (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec,
			     .freq = o->freq,
			     .period = o->period,
			     .ncpus = (uint32_t)ncpus,
			     .event = cap_cstr("cpu-clock"),
			     .hostname = cap_cstr(u.nodename),
			     .release = cap_cstr(u.release),
			     .boot_id = cap_cstr(boot_id),
		     });
}

/* Flushes the capture; false once the reader has gone or the disk is full. */
static bool flush_output(FILE *out)
{
	if (fflush(out) == 0)
		return true;
	if (errno == EPIPE)
		warnx("output closed by its reader; stopping");
	else
		warn("write error; stopping");
	return false;
}

static uint64_t total_lost(const struct drain_stats *st)
{
	uint64_t n = 0;

	for (int c = 1; c < CAP_LOSS_MAX; c++)
		n += st->lost[c];
	return n;
}

static void progress(const struct drainer *d, bool final)
{
	fprintf(stderr, "\rprof-sample: %.0fs, %" PRIu64 " samples, %u stacks, %" PRIu64 " lost%s",
		(double)(monotonic_ns() - d->start_ns) / 1e9, d->stats.samples, d->stats.stacks,
		total_lost(&d->stats), final ? "\n" : "  ");
}

static void report(const struct drain_stats *st, bool verbose)
{
	if (verbose)
		warnx("%" PRIu64 " samples, %u distinct stacks", st->samples, st->stacks);
	if (st->seen == 0)
		warnx("no samples were taken: the targets never ran on a CPU while "
		      "sampling (time spent blocked or asleep is not sampled)");
	if (st->lost[CAP_LOSS_COUNT_MAP])
		warnx("lost %" PRIu64 " of %" PRIu64 " samples: count map full "
		      "(raise --count-storage-size)",
		      st->lost[CAP_LOSS_COUNT_MAP], st->seen);
	if (st->lost[CAP_LOSS_KSTACK] || st->lost[CAP_LOSS_USTACK])
		warnx("lost %" PRIu64 " kernel and %" PRIu64 " user stacks: stack map full "
		      "(raise --stack-storage-size)",
		      st->lost[CAP_LOSS_KSTACK], st->lost[CAP_LOSS_USTACK]);
	if (st->lost[CAP_LOSS_PROC])
		warnx("%" PRIu64 " process(es) exited before their mappings were known",
		      st->lost[CAP_LOSS_PROC]);
	if (st->lost[CAP_LOSS_MMAP_EVENTS])
		warnx("lost %" PRIu64 " mmap events", st->lost[CAP_LOSS_MMAP_EVENTS]);
	if (st->lost[CAP_LOSS_RING])
		warnx("lost %" PRIu64 " of %" PRIu64 " samples: ring buffer full "
		      "(prof-sample could not unwind as fast as samples came)",
		      st->lost[CAP_LOSS_RING], st->seen);
	if (st->lost[CAP_LOSS_TRUNC_NO_CFI] || st->lost[CAP_LOSS_TRUNC_STACK] ||
	    st->lost[CAP_LOSS_TRUNC_ERROR])
		warnx("user stacks cut short: %" PRIu64 " at code without CFI, %" PRIu64
		      " at the end of the stack copy (see --stack-size), %" PRIu64
		      " at CFI that could not be evaluated",
		      st->lost[CAP_LOSS_TRUNC_NO_CFI], st->lost[CAP_LOSS_TRUNC_STACK],
		      st->lost[CAP_LOSS_TRUNC_ERROR]);
}

/* Storing in the build-id cache goes this long at a time between reads of
 * the rings: a host's libraries at the start of a capture take a second. */
#define CACHE_SLICE_NS (5 * 1000000ull)

static bool start_cache(struct build_id_cache *c, const struct options *o)
{
	char buf[4096];
	const char *dir = o->build_id_dir ? o->build_id_dir : build_id_cache_dir(buf, sizeof(buf));

	if (!dir) {
		warnx("no build-id cache (no HOME): files that go away stay unresolved");
		return false;
	}
	return build_id_cache_start(c, dir, o->build_id_cache_size);
}

static void report_cache(const struct build_id_cache_stats *st, bool verbose)
{
	if (verbose)
		warnx("build-id cache: %" PRIu64 " file(s) stored (%" PRIu64 " KiB in %.0f ms), "
		      "%" PRIu64 " there already",
		      st->stored, st->bytes >> 10, (double)st->ns / 1e6, st->present);
	if (st->full)
		warnx("build-id cache full: %" PRIu64 " file(s) not stored "
		      "(raise --build-id-cache-size)",
		      st->full);
	if (st->failed && verbose)
		warnx("build-id cache: %" PRIu64 " file(s) could not be read", st->failed);
}

/* Samples lost whole, as opposed to stacks lost or cut short. */
static uint64_t samples_lost(const struct drain_stats *st)
{
	return st->lost[CAP_LOSS_COUNT_MAP] + st->lost[CAP_LOSS_RING];
}

/* The mappings of the processes already running, while prof-sample may
 * still read anyone's /proc/PID/maps; those started later come from the
 * mmap events.  A command's processes all start later (without -a). */
static void snapshot_processes(struct processes *procs, const struct options *o)
{
	const struct targets *t = &o->targets;

	if (o->command && !o->all)
		return;
	if (!t->npids && !t->ntids) {
		processes_snapshot_all(procs);
		return;
	}
	for (size_t i = 0; i < t->npids; i++)
		processes_snapshot(procs, t->pids[i]);
	for (size_t i = 0; i < t->ntids; i++)
		processes_snapshot(procs, proc_tgid(t->tids[i]));
}

/* The ring holds what comes in 128 ms (at least 32 samples) per CPU, between
 * reads every 10 ms: 16 MiB on two CPUs at 999 Hz with the default 32 KiB
 * of stack, 4 MiB at 99 Hz.  Its pages are mapped twice (so that records
 * can wrap), which doubles what it adds to prof-sample's RSS. */
static uint32_t ring_size(const struct options *o)
{
	double rate = o->freq ? o->freq : 1e9 / (double)o->period;
	double per_cpu = rate * 0.128 > 32 ? rate * 0.128 : 32;
	double want = libbpf_num_possible_cpus() * per_cpu * (PROF_RAW_HEADER + o->stack_size);
	uint32_t size = 1u << 20;

	while (size < want && size < (1u << 30))
		size <<= 1;
	return size;
}

static void set_map_sizes(struct profile_bpf *skel, const struct options *o)
{
	/* In dwarf mode the stack and count maps stay empty. */
	uint32_t stacks = o->dwarf ? 1 : o->stack_entries, counts = o->dwarf ? 1 : o->count_entries;

	bpf_map__set_max_entries(skel->maps.stacks0, stacks);
	bpf_map__set_max_entries(skel->maps.stacks1, stacks);
	bpf_map__set_max_entries(skel->maps.counts0, counts);
	bpf_map__set_max_entries(skel->maps.counts1, counts);
	if (o->dwarf) {
		bpf_map__set_max_entries(skel->maps.raw_samples, ring_size(o));
		bpf_map__set_max_entries(skel->maps.raw_scratch, libbpf_num_possible_cpus());
	}
}

int main(int argc, char **argv)
{
	struct options opt;
	struct profile_bpf *skel = NULL;
	struct perf_events events = { 0 };
	struct command cmd = { 0 };
	struct kallsyms ksyms = { 0 };
	struct processes procs;
	struct opener opener = { .h.sock = -1 };
	struct build_id_cache cache = { .keeper.sock = -1 };
	struct mapped_files files;
	struct sideband sb = { .map_fd = -1 };
	struct cap_writer w;
	struct drainer d;
	bool have_ksyms, show_progress;
	FILE *out;
	int status = EXIT_OK, err;

	/* A Ctrl-C at any moment, even before sampling starts, gives a
	 * complete (maybe empty) capture and status 0. */
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	signal(SIGPIPE, SIG_IGN);
	parse_options(argc, argv, &opt);
	verbose_libbpf = opt.verbose > 1;
	libbpf_set_print(libbpf_print);
	out = output_open(opt.output, true);
	targets_check(&opt.targets);
	if (access("/sys/kernel/btf/vmlinux", R_OK) != 0)
		errx(EXIT_USAGE, "this kernel has no BTF (/sys/kernel/btf/vmlinux): "
				 "it needs CONFIG_DEBUG_INFO_BTF=y");
	show_progress = !opt.quiet && isatty(STDERR_FILENO);

	/* The command is forked first, held before its exec, so that its PID
	 * is in the filter before it runs. */
	if (opt.command)
		command_spawn(&cmd, opt.command, out == stdout);

	skel = profile_bpf__open();
	if (!skel)
		errx(EXIT_USAGE, "cannot open the BPF program: %s", strerror(errno));
	targets_configure(&opt.targets, skel);
	/* A command is sampled with its descendants, or with -a the whole
	 * system while it runs (perf record -a -- COMMAND). */
	bool follow = opt.command && !opt.all;
	skel->rodata->filter_pids |= follow;
	skel->rodata->include_idle = opt.idle;
	skel->rodata->kernel_stacks = opt.kernel;
	skel->rodata->user_stacks = opt.user;
	skel->rodata->dwarf_unwind = opt.dwarf;
	skel->rodata->stack_copy_size = opt.stack_size;
	set_map_sizes(skel, &opt);
	bpf_program__set_autoload(skel->progs.follow_fork, follow);
	bpf_program__set_autoload(skel->progs.forget_exit, skel->rodata->filter_pids);
	err = profile_bpf__load(skel);
	if (err) {
		warnx("cannot load the BPF program: %s%s", strerror(-err),
		      -err == EPERM || -err == EACCES ? " (run as root, or grant CAP_BPF and "
							 "CAP_PERFMON)"
						       : "");
		status = EXIT_USAGE;
		goto cleanup;
	}
	if (!targets_install(&opt.targets, skel) ||
	    (follow && !targets_follow(skel, (uint32_t)cmd.pid))) {
		status = EXIT_USAGE;
		goto cleanup;
	}
	err = profile_bpf__attach(skel);
	if (err) {
		warnx("cannot attach the process tracepoints: %s", strerror(-err));
		status = EXIT_USAGE;
		goto cleanup;
	}
	have_ksyms = kallsyms_load(&ksyms, "/proc/kallsyms");
	if (!have_ksyms)
		warn("/proc/kallsyms: kernel frames will stay unresolved");

	/* Forked while prof-sample may still give it what it keeps. */
	bool have_opener = opener_start(&opener);
	if (!have_opener)
		warnx("files only their owners may read will stay unresolved");

	bool have_cache = opt.build_id_cache && start_cache(&cache, &opt);

	capw_init(&w, out);
	mapped_files_init(&files, have_opener ? &opener : NULL);
	processes_init(&procs, &w, &files);
	procs.cache = have_cache ? &cache : NULL;
	uint64_t start = monotonic_ns();
	drainer_init(&d, skel, &w, have_ksyms ? &ksyms : NULL, &procs, start);
	d.verbose = opt.verbose > 0;
	if (sideband_open(&sb, &procs, &d.interval) == 0) {
		d.sideband_lost = &sb.lost;
		d.catch_up = sideband_catch_up;
		d.catch_up_ctx = &sb;
	} else
		warnx("processes that exit before a drain will lose their user frames");
	if (opt.dwarf) {
		d.raw = raw_samples_open(bpf_map__fd(skel->maps.raw_samples), &d,
					 opt.keep_stack_bytes);
		if (!d.raw) {
			status = EXIT_USAGE;
			goto cleanup_capture;
		}
	}
	err = perf_events_attach(&events, skel->progs.do_sample,
				 &(struct sample_clock){ opt.freq, opt.period, opt.user, opt.kernel,
							 opt.targets.cpus, opt.targets.ncpus });
	if (err) {
		status = EXIT_USAGE;
		goto cleanup_capture;
	}
	write_info(&w, &opt, events.nattached);
	snapshot_processes(&procs, &opt);
	/* Everything privileged is done: what parses untrusted input from
	 * here on (ELF files, perf maps) runs without it, and files only
	 * privilege may open come through the opener. */
	if (!drop_privileges(!bpf_maps_work_unprivileged(bpf_map__fd(skel->maps.counts0)))) {
		status = EXIT_USAGE;
		goto cleanup_capture;
	}
	files.by_path = true;
	if (opt.command)
		command_start(&cmd);

	uint64_t interval = (uint64_t)(opt.interval * 1e9);
	uint64_t deadline = opt.duration ? start + (uint64_t)(opt.duration * 1e9) : UINT64_MAX;
	uint64_t next = start + interval;
	while (!exiting && !(opt.command && command_done(&cmd)) && !targets_gone(&opt.targets)) {
		uint64_t now = monotonic_ns();
		if (now >= deadline)
			break;
		if (now < next) {
			uint64_t until = next < deadline ? next : deadline;
			/* Wake at least every 100 ms to keep the mmap-event
			 * rings from filling up, and to notice the command
			 * exiting; every 10 ms to unwind samples as they
			 * come. */
			uint64_t ms = (until - now) / 1000000 + 1, most = d.raw ? 10 : 100;
			sideband_poll(&sb, ms > most ? (int)most : (int)ms);
			if (d.raw && !raw_samples_consume(d.raw)) {
				status = EXIT_PARTIAL;
				break;
			}
			build_id_cache_work(procs.cache, &files, CACHE_SLICE_NS);
			continue;
		}
		next += interval;
		if (!drain(&d) || !flush_output(out)) {
			status = EXIT_PARTIAL;
			break;
		}
		if (show_progress)
			progress(&d, false);
	}

	/* Stop sampling first so the last drain sees every sample taken. */
	perf_events_detach(&events);
	if (status == EXIT_OK) {
		d.last = true;
		drain(&d);
		build_id_cache_work(procs.cache, &files, 0);
		capw_end(&w, &(struct cap_end){
				     .duration_ns = monotonic_ns() - start,
				     .samples = d.stats.samples,
				     .lost = samples_lost(&d.stats),
				     .stacks = d.stats.stacks,
				     .taken = d.stats.seen,
			     });
		if (!output_close(out, opt.output))
			status = EXIT_PARTIAL;
		out = NULL;
	}
	if (show_progress)
		progress(&d, true);
	report(&d.stats, opt.verbose > 0);
	if (have_cache)
		report_cache(&cache.stats, opt.verbose > 0);

cleanup_capture:
	raw_samples_close(d.raw);
	sideband_close(&sb);
	drainer_free(&d);
	processes_free(&procs);
	mapped_files_free(&files);
	opener_stop(&opener);
	build_id_cache_stop(&cache);
	capw_free(&w);
	kallsyms_free(&ksyms);
cleanup:
	perf_events_detach(&events);
	profile_bpf__destroy(skel);
	targets_free(&opt.targets);
	if (out)
		fclose(out);
	if (opt.command) {
		if (status == EXIT_USAGE) {
			command_abort(&cmd);
			return status;
		}
		/* Sampling ended before the command (-d, a signal): wait for
		 * it, as a shell would. */
		while (!command_done(&cmd))
			usleep(10000);
		return command_exit_status(&cmd);
	}
	return status;
}
