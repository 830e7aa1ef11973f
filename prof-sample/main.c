/*
 * prof-sample: sample on-CPU stacks with eBPF and write a raw capture.
 *
 * Shape as libbpf-tools' bootstrap: open the skeleton, configure it, load,
 * attach, then loop draining the maps until the duration ends or a signal
 * arrives; one cleanup path.
 */
#include <bpf/libbpf.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "capture.h"
#include "diag.h"
#include "drain.h"
#include "kallsyms.h"
#include "perf_events.h"
#include "profile.skel.h"
#include "stream.h"
#include "targets.h"

static const char usage[] =
	"Usage: prof-sample [OPTION]... > CAPTURE\n"
	"Sample on-CPU stacks of the whole system, or of the given processes, and\n"
	"write a raw capture (see prof-symbolize(1)).\n"
	"\n"
	"  -F, --frequency HZ     samples per second per CPU (default 99)\n"
	"  -d, --duration SECS    stop after SECS seconds (fractions allowed);\n"
	"                         default: until SIGINT or SIGTERM\n"
	"  -p, --pid PID[,PID]... sample only these processes (all their threads);\n"
	"                         repeatable\n"
	"      --idle             include the idle task (excluded by default)\n"
	"      --interval SECS    drain and flush the capture every SECS (default 1)\n"
	"  -o, --output FILE      write to FILE instead of stdout\n"
	"  -v, --verbose          show libbpf messages and a summary\n"
	"  -h, --help             show this help and exit\n"
	"  -V, --version          show the version and exit\n"
	"\n"
	"Exit status: 0 capture complete, 1 capture cut short (output closed or\n"
	"unwritable), 2 usage error or the profiler could not start.\n";

struct options {
	uint32_t freq;
	double duration, interval;
	const char *output;
	bool idle, verbose;
	struct targets targets;
};

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

static double parse_seconds(const char *arg, const char *what)
{
	char *end;
	double v = strtod(arg, &end);

	if (end == arg || *end || !isfinite(v) || v <= 0 || v > 1e7)
		errx(EXIT_USAGE, "invalid %s: '%s'", what, arg);
	return v;
}

static void parse_options(int argc, char **argv, struct options *o)
{
	enum { OPT_IDLE = 256, OPT_INTERVAL };
	static const struct option longopts[] = {
		{ "frequency", required_argument, NULL, 'F' },
		{ "duration", required_argument, NULL, 'd' },
		{ "pid", required_argument, NULL, 'p' },
		{ "idle", no_argument, NULL, OPT_IDLE },
		{ "interval", required_argument, NULL, OPT_INTERVAL },
		{ "output", required_argument, NULL, 'o' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ 0 },
	};
	int c;

	*o = (struct options){ .freq = 99, .interval = 1.0 };
	while ((c = getopt_long(argc, argv, "F:d:p:o:vhV", longopts, NULL)) != -1) {
		switch (c) {
		case 'F': {
			char *end;
			unsigned long v = strtoul(optarg, &end, 10);
			if (end == optarg || *end || v == 0 || v > 100000)
				errx(EXIT_USAGE, "invalid frequency: '%s' (1 to 100000 Hz)", optarg);
			o->freq = (uint32_t)v;
			break;
		}
		case 'd':
			o->duration = parse_seconds(optarg, "duration");
			break;
		case 'p':
			targets_add_pids(&o->targets, optarg);
			break;
		case OPT_IDLE:
			o->idle = true;
			break;
		case OPT_INTERVAL:
			o->interval = parse_seconds(optarg, "interval");
			break;
		case 'o':
			o->output = optarg;
			break;
		case 'v':
			o->verbose = true;
			break;
		case 'h':
			usage_exit(usage, EXIT_OK);
		case 'V':
			print_version();
			exit(EXIT_OK);
		default:
			usage_exit(usage, EXIT_USAGE);
		}
	}
	if (optind < argc)
		errx(EXIT_USAGE, "unexpected argument '%s'", argv[optind]);
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
			     .ncpus = (uint32_t)ncpus,
			     .event = cap_cstr("cpu-clock"),
			     .hostname = cap_cstr(u.nodename),
			     .release = cap_cstr(u.release),
			     .boot_id = cap_cstr(boot_id),
		     });
}

/* Sleeps until the monotonic time `until`, or until a signal. */
static void sleep_until(uint64_t until)
{
	uint64_t now = monotonic_ns();

	if (now >= until || exiting)
		return;
	struct timespec ts = { .tv_sec = (time_t)((until - now) / 1000000000u),
			       .tv_nsec = (long)((until - now) % 1000000000u) };
	nanosleep(&ts, NULL);
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

static void report(const struct drain_stats *st, bool verbose)
{
	uint64_t lost_stacks = st->lost[CAP_LOSS_KSTACK] + st->lost[CAP_LOSS_USTACK];

	if (verbose)
		warnx("%" PRIu64 " samples, %u distinct stacks", st->samples, st->stacks);
	if (st->lost[CAP_LOSS_COUNT_MAP])
		warnx("lost %" PRIu64 " of %" PRIu64 " samples: count map full",
		      st->lost[CAP_LOSS_COUNT_MAP], st->seen);
	if (lost_stacks)
		warnx("lost %" PRIu64 " kernel and %" PRIu64 " user stacks: stack map full or "
		      "colliding",
		      st->lost[CAP_LOSS_KSTACK], st->lost[CAP_LOSS_USTACK]);
	if (st->lost[CAP_LOSS_PROC])
		warnx("%" PRIu64 " process(es) exited before their mappings could be read",
		      st->lost[CAP_LOSS_PROC]);
}

int main(int argc, char **argv)
{
	struct options opt;
	struct profile_bpf *skel = NULL;
	struct perf_events events = { 0 };
	struct kallsyms ksyms;
	bool have_ksyms;
	struct cap_writer w;
	struct drainer d;
	FILE *out;
	int status = EXIT_OK, err;

	parse_options(argc, argv, &opt);
	verbose_libbpf = opt.verbose;
	libbpf_set_print(libbpf_print);
	out = output_open(opt.output, true);
	targets_check(&opt.targets);
	if (access("/sys/kernel/btf/vmlinux", R_OK) != 0)
		errx(EXIT_USAGE, "this kernel has no BTF (/sys/kernel/btf/vmlinux): "
				 "it needs CONFIG_DEBUG_INFO_BTF=y");

	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	signal(SIGPIPE, SIG_IGN);

	skel = profile_bpf__open();
	if (!skel)
		errx(EXIT_USAGE, "cannot open the BPF program: %s", strerror(errno));
	skel->rodata->filter_pids = opt.targets.npids > 0;
	skel->rodata->include_idle = opt.idle;
	err = profile_bpf__load(skel);
	if (err) {
		warnx("cannot load the BPF program: %s%s", strerror(-err),
		      -err == EPERM || -err == EACCES ? " (run as root, or grant CAP_BPF and "
							 "CAP_PERFMON)"
						       : "");
		status = EXIT_USAGE;
		goto cleanup;
	}
	if (!targets_install(&opt.targets, bpf_map__fd(skel->maps.pids))) {
		status = EXIT_USAGE;
		goto cleanup;
	}
	have_ksyms = kallsyms_load(&ksyms, "/proc/kallsyms");
	if (!have_ksyms)
		warn("/proc/kallsyms: kernel frames will stay unresolved");

	capw_init(&w, out);
	uint64_t start = monotonic_ns();
	drainer_init(&d, skel, &w, have_ksyms ? &ksyms : NULL, start);
	d.verbose = opt.verbose;
	err = perf_events_attach(&events, skel->progs.do_sample, opt.freq, 0);
	if (err) {
		status = EXIT_USAGE;
		goto cleanup_capture;
	}
	write_info(&w, &opt, events.ncpus);

	uint64_t interval = (uint64_t)(opt.interval * 1e9);
	uint64_t deadline = opt.duration ? start + (uint64_t)(opt.duration * 1e9) : UINT64_MAX;
	uint64_t next = start + interval;
	while (!exiting && monotonic_ns() < deadline) {
		sleep_until(next < deadline ? next : deadline);
		if (exiting || monotonic_ns() < next)
			continue;
		next += interval;
		if (!drain(&d) || !flush_output(out)) {
			status = EXIT_PARTIAL;
			break;
		}
	}

	/* Stop sampling first so the last drain sees every sample taken. */
	perf_events_detach(&events);
	if (status == EXIT_OK) {
		drain(&d);
		capw_end(&w, &(struct cap_end){
				     .duration_ns = monotonic_ns() - start,
				     .samples = d.stats.samples,
				     .lost = d.stats.lost[CAP_LOSS_COUNT_MAP],
				     .stacks = d.stats.stacks,
			     });
		if (!output_close(out, opt.output))
			status = EXIT_PARTIAL;
		out = NULL;
	}
	report(&d.stats, opt.verbose);

cleanup_capture:
	drainer_free(&d);
	capw_free(&w);
	if (have_ksyms)
		kallsyms_free(&ksyms);
cleanup:
	perf_events_detach(&events);
	profile_bpf__destroy(skel);
	targets_free(&opt.targets);
	if (out)
		fclose(out);
	return status;
}
