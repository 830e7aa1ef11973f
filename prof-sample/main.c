/*
 * prof-sample: sample on-CPU stacks with eBPF and write a raw capture.
 *
 * Shape as libbpf-bootstrap's bootstrap.c: open the skeleton, configure
 * it, load, attach, then run the capture session until the duration ends,
 * a signal arrives or the targets are gone; stop, finish, one cleanup
 * path.  How samples are taken is the sample source's (source.h); what the
 * capture says is the recorder's (recorder.h); where it goes, the sink's
 * (sink.h).
 */
#include <bpf/libbpf.h>
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "build_id.h"
#include "cache_keeper.h"
#include "command.h"
#include "diag.h"
#include "options.h"
#include "perf_events.h"
#include "profile.skel.h"
#include "recorder.h"
#include "session.h"
#include "sigbus_guard.h"
#include "sink.h"
#include "source.h"
#include "targets.h"

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

static void require_btf(void)
{
	if (access("/sys/kernel/btf/vmlinux", R_OK) != 0)
		errx(EXIT_USAGE, "this kernel has no BTF (/sys/kernel/btf/vmlinux): "
				 "it needs CONFIG_DEBUG_INFO_BTF=y");
}

/* Off-CPU time is taken by the scheduler's programs, whichever source
 * hands the blocks over. */
static void configure_off_cpu(struct profile_bpf *skel, const struct options *o)
{
	bpf_program__set_autoload(skel->progs.offcpu_switch, o->off_cpu);
	bpf_program__set_autoload(skel->progs.offcpu_syscall_exit, o->off_cpu && o->dwarf);
	bpf_program__set_autoload(skel->progs.offcpu_waking, o->off_cpu && o->wakeup_depth);
	bpf_program__set_autoload(skel->progs.offcpu_exit, o->off_cpu && o->wakeup_depth);
	bpf_program__set_autoload(skel->progs.waits_in_progress, o->off_cpu);
	skel->rodata->unwind_dwarf = o->dwarf;
	skel->rodata->min_block_ns = o->min_block_ns;
	skel->rodata->max_block_ns = o->max_block_ns;
	skel->rodata->block_states = o->states;
	skel->rodata->wakeup_depth = o->wakeup_depth;
}

/* A targeted capture samples with one clock per CPU (a clock per target
 * thread would cost an event per thread and per CPU).  Its ticks are
 * delivered late, after a switch as often as not: the BPF programs charge
 * each to the task that ran when it fell due, so that a target is charged
 * for its own time only, as perf record -p's per-task clock means to.
 * System-wide, every tick is someone's, and costs no program per switch. */
static void configure_ticks(struct profile_bpf *skel, const struct options *o)
{
	bool targeted = skel->rodata->filter_pids || skel->rodata->filter_tids ||
			skel->rodata->filter_cgroup;

	skel->rodata->ticks_when_due = o->on_cpu && targeted;
	bpf_program__set_autoload(skel->progs.oncpu_switch, skel->rodata->ticks_when_due);
}

/* The held stacks are those of blocks and wakers (off-CPU: the map's own
 * size), and of ticks charged at a switch (tens a second, read at the
 * next drain); with neither, none (a map cannot have 0 entries). */
static void size_held_stacks(struct profile_bpf *skel, const struct options *o)
{
	if (!o->off_cpu)
		bpf_map__set_max_entries(skel->maps.held_stacks,
					 skel->rodata->ticks_when_due ? 1024 : 1);
}

/* What the options ask of the BPF program, before it is loaded. */
static void configure(struct profile_bpf *skel, const struct options *o,
		      const struct source_ops *src, bool follow)
{
	targets_configure(&o->targets, skel);
	/* A command is sampled with its descendants, or with -a the whole
	 * system while it runs (perf record -a -- COMMAND). */
	skel->rodata->filter_pids |= follow;
	skel->rodata->include_idle = o->idle;
	skel->rodata->kernel_stacks = o->kernel;
	skel->rodata->user_stacks = o->user;
	skel->rodata->stack_copy_size = o->stack_size;
	skel->rodata->slot_ns = o->time_resolution_ns;
	bpf_program__set_autoload(skel->progs.follow_fork, follow);
	bpf_program__set_autoload(skel->progs.command_exec, follow);
	bpf_program__set_autoload(skel->progs.forget_exit, skel->rodata->filter_pids);
	configure_off_cpu(skel, o);
	configure_ticks(skel, o);
	size_held_stacks(skel, o);
	src->configure(skel, o);
}

/* The scheduler's program follows pointers to the clock's events: told
 * first that they are going (they are freed after a grace period, which
 * any run of it that saw them still running ends within). */
static void stop_clock(struct profile_bpf *skel, struct perf_events *events)
{
	if (skel && skel->bss)
		skel->bss->clock_running = 0;
	perf_events_detach(events);
}

static bool finished(const struct options *o, struct command *cmd)
{
	return exiting || (o->command && command_done(cmd)) || targets_gone(&o->targets);
}

/* --build-id-cache-list, --build-id-cache-prune: the cache alone. */
static int tend_cache(const struct options *o)
{
	char buf[4096];
	const char *dir = o->build_id_dir ? o->build_id_dir : build_id_cache_dir(buf, sizeof(buf));

	if (!dir)
		errx(EXIT_USAGE, "no build-id cache (no HOME)");
	if (!cache_keeper_tend(dir, o->build_id_cache_size, o->cache_list ? stdout : NULL))
		return EXIT_USAGE;
	if (fflush(stdout) != 0 || ferror(stdout)) {
		warn("standard output");
		return EXIT_USAGE;
	}
	return EXIT_OK;
}

/* The privilege timeline, in the order docs/SECURITY.md draws it, once
 * sampling runs on ncpus CPUs: every helper forked while prof-sample still
 * holds what it keeps (the file rotation helper makes the first --rotate
 * file, as the user prof-sample was started as), the last reads that need
 * privilege (the running processes' mappings), the drop; only the file
 * reader, which is to be as unprivileged as the main process, after it. */
static bool separate_privileges(struct session *session, struct sink *out, int ncpus)
{
	if (!sink_start(out))
		return false;
	session_start_helpers(session);
	session_begin(session, ncpus);
	return session_drop_privileges(session);
}

/* How the run ends: the last drain and END record, the last file closed,
 * and the losses said.  Samples, stacks or blocks lost (a ring that
 * overflowed at a high frequency), and files lost or not printed (their
 * directory tampered with, say), make the output partial; a capture that
 * cannot be written is an error, as in every program, and samples that
 * could not be read cut it short. */
static int finish(struct session *session, struct sink *out, bool failed, bool say_empty)
{
	int status = !failed ? EXIT_OK : sink_failed(out) ? EXIT_USAGE : EXIT_PARTIAL;

	if (!failed) {
		session_finish(session);
		if (!sink_finish(out, recorder_stats(session->rec)->samples))
			status = EXIT_USAGE;
	}
	if (session_report(session, say_empty) && status == EXIT_OK)
		status = EXIT_PARTIAL;
	if (sink_report(out) && status == EXIT_OK)
		status = EXIT_PARTIAL;
	return status;
}

int main(int argc, char **argv)
{
	struct options opt;
	const struct source_ops *src;
	struct profile_bpf *skel = NULL;
	struct perf_events events = { 0 };
	struct command cmd = { 0 };
	struct session session = { 0 };
	struct sink out;
	enum step step = STEP_ON;
	bool follow;
	int status = EXIT_USAGE, err;

	/* A Ctrl-C at any moment, even before sampling starts, gives a
	 * complete (maybe empty) capture and status 0. */
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	signal(SIGPIPE, SIG_IGN);
	/* Users' files are mapped, and their owners may truncate them. */
	sigbus_guard_install();
	options_parse(argc, argv, &opt);
	if (opt.cache_list || opt.cache_prune)
		return tend_cache(&opt);
	verbose_libbpf = opt.verbose > 1;
	libbpf_set_print(libbpf_print);
	sink_init(&out, &opt);
	targets_check(&opt.targets);
	require_btf();
	src = source_for(&opt);
	follow = opt.command && !opt.all;

	/* The command is forked first, held before its exec, so that its PID
	 * is in the filter before it runs. */
	if (opt.command)
		command_spawn(&cmd, opt.command, sink_owns_stdout(&out));

	skel = profile_bpf__open();
	if (!skel) {
		warnx("cannot open the BPF program: %s", strerror(errno));
		goto cleanup;
	}
	configure(skel, &opt, src, follow);
	err = profile_bpf__load(skel);
	if (err) {
		warnx("cannot load the BPF program: %s%s", strerror(-err),
		      -err == EPERM || -err == EACCES ? " (run as root, or grant CAP_BPF and "
							 "CAP_PERFMON)"
						       : "");
		goto cleanup;
	}
	if (!targets_install(&opt.targets, skel) ||
	    (follow && !targets_follow(skel, (uint32_t)cmd.pid)))
		goto cleanup;
	err = profile_bpf__attach(skel);
	if (err) {
		warnx("cannot attach the process tracepoints: %s", strerror(-err));
		goto cleanup;
	}

	if (!session_open(&session, skel, src, &opt, &out))
		goto cleanup;
	/* Off-CPU time alone needs no clock. */
	err = src->program(skel) ? perf_events_attach(&events, src->program(skel),
						      &(struct sample_clock){
							      opt.freq, opt.period, opt.user,
							      opt.kernel, opt.targets.cpus,
							      opt.targets.ncpus })
				 : 0;
	if (err || !separate_privileges(&session, &out,
					src->program(skel) ? events.nattached
							   : libbpf_num_possible_cpus()))
		goto cleanup;
	skel->bss->clock_running = events.nattached > 0;
	if (opt.command)
		command_start(&cmd);

	while (step == STEP_ON && !finished(&opt, &cmd))
		step = session_step(&session);
	/* Stop sampling first so the last drain sees every sample taken. */
	stop_clock(skel, &events);
	status = finish(&session, &out, step == STEP_FAILED, !(opt.command && cmd.exec_failed));

cleanup:
	stop_clock(skel, &events);
	session_close(&session);
	profile_bpf__destroy(skel);
	targets_free(&opt.targets);
	sink_close(&out);
	if (opt.command) {
		/* Sampling ended before the command (-d, a signal, a failed
		 * write): wait for it, as a shell would.  It never started
		 * if prof-sample could not. */
		command_abort(&cmd);
		command_wait(&cmd);
		return status == EXIT_USAGE ? status : command_exit_status(&cmd);
	}
	return status;
}
