#include "options.h"

#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture.h"
#include "diag.h"
#include "kernel_tables.h"
#include "profile.h"
#include "rotation.h"
#include "seconds.h"
#include "unwind.h"

static const char usage[] =
	"Usage: prof-sample [OPTION]... [-- COMMAND [ARG]...] > CAPTURE\n"
	"  or:  prof-sample --rotate SECS -o PATTERN [OPTION]... [-- COMMAND...]\n"
	"Sample on-CPU stacks (or time off-CPU) with eBPF and write a raw capture\n"
	"(see prof-symbolize(1)): of the whole system, or of the given targets.\n"
	"\n"
	"Targets (combined, they must all match):\n"
	"  -p, --pid PID[,PID]...   these processes, all their threads; repeatable\n"
	"  -t, --tid TID[,TID]...   these threads; repeatable\n"
	"  -C, --cpu LIST           only these CPUs, e.g. 0-3,6\n"
	"      --cgroup PATH        processes in this cgroup v2 directory or below\n"
	"  -- COMMAND [ARG]...      run COMMAND, sample it and its descendants, stop\n"
	"                           when it exits and exit with its status\n"
	"  -a, --all-cpus           every process (the default without targets);\n"
	"                           with COMMAND, the whole system while it runs\n"
	"\n"
	"Sampling:\n"
	"  -F, --frequency HZ       samples per second per CPU (default 99)\n"
	"  -c, --period NS          sample every NS nanoseconds of CPU time instead\n"
	"  -d, --duration SECS      stop after SECS seconds (fractions allowed);\n"
	"                           default: until SIGINT/SIGTERM or COMMAND exits\n"
	"      --kernel-only        sample only while in the kernel\n"
	"      --user-only          sample only while in user space\n"
	"      --idle               include the idle task (excluded by default)\n"
	"      --unwind MODE        how user stacks are walked: dwarf (the default:\n"
	"                           call-frame information, right on code built\n"
	"                           without frame pointers) or fp (frame pointers:\n"
	"                           the cheapest, right only where code keeps them)\n"
	"      --stack-size BYTES   user stack copied per sample with --unwind=dwarf\n"
	"                           (default 32768, at most 65536)\n"
	"      --call-graph MODE[,BYTES]  perf's spelling of --unwind and\n"
	"                           --stack-size (dwarf,16384 or fp)\n"
	"  -g                       accepted for perf's users: stacks are always\n"
	"                           recorded\n"
	"\n"
	"Off-CPU time:\n"
	"      --off-cpu            record the time threads spend blocked instead of\n"
	"                           on-CPU samples: each block from switch-out to\n"
	"                           switch-in, with the stacks it blocked in\n"
	"      --wall               both: on-CPU samples and off-CPU time\n"
	"      --state STATES       the blocks counted: S (sleeping), D\n"
	"                           (uninterruptible) or SD (the default); time\n"
	"                           preempted is never off-CPU\n"
	"      --unwind-table-rows N  rows of the unwind tables blocked and waking\n"
	"                           threads' user stacks are walked by, 8 bytes each\n"
	"                           (default 2097152; with --unwind=dwarf)\n"
	"      --min-block TIME     ignore blocks shorter than TIME (default 1us;\n"
	"                           units ns, us, ms, s)\n"
	"      --max-block TIME     ignore blocks longer than TIME (default: none)\n"
	"      --wakeups            name the thread that woke each block, with its\n"
	"                           stacks when it did\n"
	"      --wakeup-depth N     and the thread that had woken that one, and so\n"
	"                           on, N wakers deep (1 to 4; default 1; implies\n"
	"                           --wakeups)\n"
	"\n"
	"Capture:\n"
	"  -o, --output FILE        write to FILE instead of stdout\n"
	"      --interval SECS      drain and flush every SECS (default 1)\n"
	"      --time-resolution TIME  date samples and blocks to TIME (default 10ms;\n"
	"                           1ms to 1s; coarser keeps the capture smaller)\n"
	"      --stack-storage-size N  distinct stacks per interval, with --unwind=fp\n"
	"                           or --kernel-only (default 16384)\n"
	"      --count-storage-size N  distinct samples per interval and slot of\n"
	"                           time (default 131072, memory as used)\n"
	"      --keep-stack-bytes   with --unwind=dwarf, also write each sample's\n"
	"                           registers and stack bytes (RAWSTACK records)\n"
	"      --no-python          with --unwind=dwarf, show the interpreter's frames\n"
	"                           of CPython programs, not their Python functions\n"
	"  -N, --no-build-id-cache  do not keep the sampled files' symbols and debug\n"
	"                           information in the build-id cache\n"
	"      --build-id-dir DIR   the build-id cache (default /var/cache/prof for\n"
	"                           root, else ~/.cache/prof; $PROF_BUILD_ID_DIR)\n"
	"      --build-id-cache-size SIZE  its limit, least recently used entries\n"
	"                           deleted past it (default 2G; K, M, G suffixes)\n"
	"      --build-id-cache-list  list the cache's entries, least recently used\n"
	"                           first (\"LAST-USED BYTES PATH\"), and exit\n"
	"      --build-id-cache-prune SIZE  delete its least recently used entries\n"
	"                           until it holds at most SIZE (0 empties it), and exit\n"
	"      --rotate SECS        a new capture file every SECS seconds (a whole\n"
	"                           number), named by -o PATTERN and its strftime(3)\n"
	"                           fields at the file's start (e.g.\n"
	"                           /var/lib/prof/%Y%m%d-%H%M%S.cap; none in its\n"
	"                           directory); each finished file's path is\n"
	"                           printed on stdout (a reader gone from it ends\n"
	"                           the capture, status 2)\n"
	"      --keep N             with --rotate, keep the newest N files this run\n"
	"                           wrote, deleting older ones\n"
	"  -q, --quiet              no progress line on a terminal\n"
	"  -v, --verbose            a summary at the end; twice, libbpf's messages\n"
	"  -h, --help               show this help and exit\n"
	"  -V, --version            show the version and exit\n"
	"\n"
	"Exit status: 0 capture complete, 1 samples lost (maps or ring full) or\n"
	"capture cut short (samples could not be read; with --rotate, a file lost\n"
	"or not printed), 2 usage error, the\n"
	"profiler could not start or the capture (with --rotate, a file's path on\n"
	"stdout) could not be written; with COMMAND, the command's own status\n"
	"unless prof-sample failed with 2.\n";

static double parse_seconds(const char *arg, const char *what)
{
	char *end;
	double v = strtod(arg, &end);

	if (end == arg || *end || !isfinite(v) || v <= 0 || v > 1e7)
		errx(EXIT_USAGE, "invalid %s: '%s'", what, arg);
	return v;
}

static uint64_t parse_size(const char *arg, const char *what)
{
	char *end;
	unsigned long long v = strtoull(arg, &end, 10);
	int shift = 0;

	switch (*end) {
	case 'K': case 'k': shift = 10; end++; break;
	case 'M': case 'm': shift = 20; end++; break;
	case 'G': case 'g': shift = 30; end++; break;
	}
	if (end == arg || *end || arg[0] == '-' || v == 0 || v > (1ull << 50) >> shift)
		errx(EXIT_USAGE, "invalid %s: '%s' (bytes, with a K, M or G suffix)", what, arg);
	return (uint64_t)v << shift;
}

/* A duration with a unit: 500us, 2ms, 1s, 100ns. */
static uint64_t parse_time(const char *arg, const char *what)
{
	uint64_t ns;

	if (!duration_parse(arg, &ns))
		errx(EXIT_USAGE, "invalid %s: '%s' (a time with a unit: ns, us, ms or s)", what, arg);
	return ns;
}

static uint32_t parse_states(const char *arg)
{
	if (strcmp(arg, "S") == 0)
		return CAP_STATE_SLEEPING;
	if (strcmp(arg, "D") == 0)
		return CAP_STATE_UNINTERRUPTIBLE;
	if (strcmp(arg, "SD") == 0 || strcmp(arg, "DS") == 0)
		return CAP_STATE_SLEEPING | CAP_STATE_UNINTERRUPTIBLE;
	errx(EXIT_USAGE, "invalid state list: '%s' (S, D or SD)", arg);
}

static uint64_t parse_count(const char *arg, const char *what, uint64_t min, uint64_t max)
{
	char *end;
	unsigned long long v = strtoull(arg, &end, 10);

	if (end == arg || *end || arg[0] == '-' || v < min || v > max)
		errx(EXIT_USAGE, "invalid %s: '%s' (%llu to %llu)", what, arg,
		     (unsigned long long)min, (unsigned long long)max);
	return v;
}

void options_parse(int argc, char **argv, struct options *o)
{
	enum {
		OPT_IDLE = 256,
		OPT_INTERVAL,
		OPT_CGROUP,
		OPT_KERNEL_ONLY,
		OPT_USER_ONLY,
		OPT_STACKS,
		OPT_COUNTS,
		OPT_UNWIND,
		OPT_STACK_SIZE,
		OPT_KEEP_STACK,
		OPT_NO_PYTHON,
		OPT_BUILD_ID_DIR,
		OPT_BUILD_ID_SIZE, OPT_CACHE_LIST, OPT_CACHE_PRUNE,
		OPT_CALL_GRAPH,
		OPT_OFF_CPU,
		OPT_WALL,
		OPT_STATE,
		OPT_MIN_BLOCK,
		OPT_MAX_BLOCK,
		OPT_WAKEUPS,
		OPT_WAKEUP_DEPTH,
		OPT_ROTATE,
		OPT_KEEP,
		OPT_TABLE_ROWS,
		OPT_TIME_RESOLUTION,
	};
	static const struct option longopts[] = {
		{ "pid", required_argument, NULL, 'p' },
		{ "tid", required_argument, NULL, 't' },
		{ "cpu", required_argument, NULL, 'C' },
		{ "cgroup", required_argument, NULL, OPT_CGROUP },
		{ "frequency", required_argument, NULL, 'F' },
		{ "period", required_argument, NULL, 'c' },
		{ "duration", required_argument, NULL, 'd' },
		{ "kernel-only", no_argument, NULL, OPT_KERNEL_ONLY },
		{ "user-only", no_argument, NULL, OPT_USER_ONLY },
		{ "idle", no_argument, NULL, OPT_IDLE },
		{ "output", required_argument, NULL, 'o' },
		{ "interval", required_argument, NULL, OPT_INTERVAL },
		{ "time-resolution", required_argument, NULL, OPT_TIME_RESOLUTION },
		{ "stack-storage-size", required_argument, NULL, OPT_STACKS },
		{ "count-storage-size", required_argument, NULL, OPT_COUNTS },
		{ "unwind", required_argument, NULL, OPT_UNWIND },
		{ "call-graph", required_argument, NULL, OPT_CALL_GRAPH },
		{ "all-cpus", no_argument, NULL, 'a' },
		{ "stack-size", required_argument, NULL, OPT_STACK_SIZE },
		{ "keep-stack-bytes", no_argument, NULL, OPT_KEEP_STACK },
		{ "no-python", no_argument, NULL, OPT_NO_PYTHON },
		{ "no-build-id-cache", no_argument, NULL, 'N' },
		{ "build-id-dir", required_argument, NULL, OPT_BUILD_ID_DIR },
		{ "build-id-cache-size", required_argument, NULL, OPT_BUILD_ID_SIZE },
		{ "build-id-cache-list", no_argument, NULL, OPT_CACHE_LIST },
		{ "build-id-cache-prune", required_argument, NULL, OPT_CACHE_PRUNE },
		{ "off-cpu", no_argument, NULL, OPT_OFF_CPU },
		{ "wall", no_argument, NULL, OPT_WALL },
		{ "state", required_argument, NULL, OPT_STATE },
		{ "min-block", required_argument, NULL, OPT_MIN_BLOCK },
		{ "max-block", required_argument, NULL, OPT_MAX_BLOCK },
		{ "wakeups", no_argument, NULL, OPT_WAKEUPS },
		{ "wakeup-depth", required_argument, NULL, OPT_WAKEUP_DEPTH },
		{ "rotate", required_argument, NULL, OPT_ROTATE },
		{ "keep", required_argument, NULL, OPT_KEEP },
		{ "unwind-table-rows", required_argument, NULL, OPT_TABLE_ROWS },
		{ "quiet", no_argument, NULL, 'q' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ 0 },
	};
	int c;

	*o = (struct options){ .freq = 99, .interval = 1.0, .user = true, .kernel = true,
			       .dwarf = UNWIND_SUPPORTED, .stack_entries = 16384, .count_entries = PROF_DEFAULT_COUNTS,
			       .stack_size = PROF_DEFAULT_STACK_COPY, .build_id_cache = true,
			       .table_rows = KERNEL_TABLES_ROWS,
			       .build_id_cache_size = 2ull << 30, .on_cpu = true,
			       .min_block_ns = 1000, .time_resolution_ns = PROF_DEFAULT_SLOT_NS,
			       .states = CAP_STATE_SLEEPING | CAP_STATE_UNINTERRUPTIBLE };
	bool stack_size_set = false, storage_set = false, dwarf_asked = false, rows_set = false;
	bool block_options = false, wall = false, off_only = false;
	/* "+": stop at the first non-option, so COMMAND's own options are
	 * left alone even without "--". */
	while ((c = getopt_long(argc, argv, "+p:t:C:F:c:d:o:agNqvhV", longopts, NULL)) != -1) {
		switch (c) {
		case 'p':
			targets_add_pids(&o->targets, optarg);
			break;
		case 't':
			targets_add_tids(&o->targets, optarg);
			break;
		case 'C':
			targets_set_cpus(&o->targets, optarg);
			break;
		case OPT_CGROUP:
			o->targets.cgroup = optarg;
			break;
		case 'F':
			o->freq = (uint32_t)parse_count(optarg, "frequency", 1, 100000);
			o->period = 0;
			break;
		case 'c':
			o->period = parse_count(optarg, "period", 10000, 60000000000ull);
			o->freq = 0;
			break;
		case 'd':
			o->duration = parse_seconds(optarg, "duration");
			break;
		case OPT_KERNEL_ONLY:
			o->user = false;
			break;
		case OPT_USER_ONLY:
			o->kernel = false;
			break;
		case OPT_IDLE:
			o->idle = true;
			break;
		case 'o':
			o->output = optarg;
			break;
		case OPT_INTERVAL:
			o->interval = parse_seconds(optarg, "interval");
			break;
		case OPT_STACKS:
			o->stack_entries = (uint32_t)parse_count(optarg, "stack storage size", 16, 1u << 24);
			storage_set = true;
			break;
		case OPT_TABLE_ROWS:
			o->table_rows = (uint32_t)parse_count(optarg, "unwind table rows", 4096, 1u << 24);
			rows_set = true;
			break;
		case OPT_COUNTS:
			o->count_entries = (uint32_t)parse_count(optarg, "count storage size", 16, 1u << 24);
			storage_set = true;
			break;
		case OPT_UNWIND:
			if (strcmp(optarg, "dwarf") == 0)
				o->dwarf = dwarf_asked = true;
			else if (strcmp(optarg, "fp") == 0)
				o->dwarf = false;
			else
				errx(EXIT_USAGE, "invalid unwind mode: '%s' (fp or dwarf)", optarg);
			break;
		case OPT_CALL_GRAPH:
			/* perf record's "dwarf[,SIZE]" or "fp". */
			if (strcmp(optarg, "fp") == 0) {
				o->dwarf = false;
			} else if (strncmp(optarg, "dwarf", 5) == 0 &&
				   (optarg[5] == '\0' || optarg[5] == ',')) {
				o->dwarf = dwarf_asked = true;
				if (optarg[5] == ',') {
					o->stack_size = (uint32_t)parse_count(
						optarg + 6, "stack size", 64, PROF_MAX_STACK_COPY);
					stack_size_set = true;
				}
			} else
				errx(EXIT_USAGE, "invalid call graph: '%s' (dwarf[,BYTES] or fp)",
				     optarg);
			break;
		case 'a':
			o->all = true;
			break;
		case 'g':
			break;
		case OPT_STACK_SIZE:
			o->stack_size = (uint32_t)parse_count(optarg, "stack size", 64,
							      PROF_MAX_STACK_COPY);
			stack_size_set = true;
			break;
		case OPT_NO_PYTHON:
			o->no_python = true;
			break;
		case OPT_KEEP_STACK:
			o->keep_stack_bytes = true;
			break;
		case 'N':
			o->build_id_cache = false;
			break;
		case OPT_BUILD_ID_DIR:
			o->build_id_dir = optarg;
			break;
		case OPT_BUILD_ID_SIZE:
			o->build_id_cache_size = parse_size(optarg, "build-id cache size");
			break;
		case OPT_CACHE_LIST:
			o->cache_list = true;
			break;
		case OPT_CACHE_PRUNE:
			o->cache_prune = true;
			o->build_id_cache_size =
				strcmp(optarg, "0") == 0 ? 0 : parse_size(optarg, "build-id cache size");
			break;
		case OPT_OFF_CPU:
			off_only = o->off_cpu = true;
			break;
		case OPT_WALL:
			wall = o->off_cpu = true;
			break;
		case OPT_STATE:
			o->states = parse_states(optarg);
			block_options = true;
			break;
		case OPT_MIN_BLOCK:
			o->min_block_ns = parse_time(optarg, "minimum block time");
			block_options = true;
			break;
		case OPT_MAX_BLOCK:
			o->max_block_ns = parse_time(optarg, "maximum block time");
			block_options = true;
			break;
		case OPT_WAKEUPS:
			if (!o->wakeup_depth)
				o->wakeup_depth = 1;
			block_options = true;
			break;
		case OPT_WAKEUP_DEPTH:
			o->wakeup_depth = (uint32_t)parse_count(optarg, "wakeup depth", 1,
								PROF_MAX_WAKERS);
			block_options = true;
			break;
		case OPT_TIME_RESOLUTION:
			o->time_resolution_ns = parse_time(optarg, "time resolution");
			if (o->time_resolution_ns < 1000000 || o->time_resolution_ns > 1000000000)
				errx(EXIT_USAGE, "--time-resolution: '%s' is not between 1ms and 1s",
				     optarg);
			break;
		case OPT_ROTATE:
			o->rotate = (uint32_t)parse_count(optarg, "rotation period (seconds)", 1,
							  1000000);
			break;
		case OPT_KEEP:
			o->keep = (uint32_t)parse_count(optarg, "number of files to keep", 1,
							1000000);
			break;
		case 'q':
			o->quiet = true;
			break;
		case 'v':
			o->verbose++;
			break;
		case 'h':
			help_exit(usage);
		case 'V':
			version_exit();
		default:
			usage_hint_exit();
		}
	}
	if (!o->user && !o->kernel)
		errx(EXIT_USAGE, "--kernel-only and --user-only exclude each other");
	if (wall && off_only)
		errx(EXIT_USAGE, "--off-cpu and --wall exclude each other");
	o->on_cpu = !off_only;
	if (block_options && !o->off_cpu)
		errx(EXIT_USAGE, "--state, --min-block, --max-block and --wakeups need "
				 "--off-cpu or --wall");
	if (o->max_block_ns && o->max_block_ns < o->min_block_ns)
		errx(EXIT_USAGE, "--max-block is below --min-block");
	/* Blocks are timed at every switch of every CPU: a CPU list would
	 * have to be checked at both ends of each, for time no one asked. */
	if (o->off_cpu && o->targets.ncpus)
		errx(EXIT_USAGE, "-C applies to on-CPU sampling only: off-CPU time is "
				 "a thread's, not a CPU's");
	if (dwarf_asked && !UNWIND_SUPPORTED)
		errx(EXIT_USAGE, "--unwind=dwarf is implemented for x86-64 only: "
				 "use --unwind=fp on this machine");
	/* Without user stacks there is nothing to unwind: kernel stacks are
	 * counted in the kernel, the cheapest way. */
	if (!o->user)
		o->dwarf = false;
	if (!o->dwarf && (stack_size_set || o->keep_stack_bytes || o->no_python))
		errx(EXIT_USAGE, "--stack-size, --keep-stack-bytes and --no-python need --unwind=dwarf "
				 "(and user stacks)");
	if (rows_set && !(o->dwarf && o->off_cpu))
		errx(EXIT_USAGE, "--unwind-table-rows applies to --off-cpu and --wall with "
				 "--unwind=dwarf");
	if (o->dwarf && storage_set)
		errx(EXIT_USAGE, "--stack-storage-size and --count-storage-size apply to "
				 "--unwind=fp and --kernel-only");
	if (o->rotate && (!o->output || strcmp(o->output, "-") == 0))
		errx(EXIT_USAGE, "--rotate writes files: it needs -o PATTERN (stdout gets "
				 "their names)");
	if (o->rotate && !rotation_pattern_ok(o->output))
		exit(EXIT_USAGE);
	if (o->keep && !o->rotate)
		errx(EXIT_USAGE, "--keep applies to --rotate");
	if ((o->cache_list || o->cache_prune) && (optind < argc || !o->build_id_cache))
		errx(EXIT_USAGE, "--build-id-cache-list and --build-id-cache-prune tend the cache "
				 "and exit: no COMMAND, no --no-build-id-cache");
	if (optind < argc)
		o->command = argv + optind;
	if (o->command && (o->targets.npids || o->targets.ntids))
		errx(EXIT_USAGE, "-p and -t cannot be combined with a COMMAND");
	if (o->all && (o->targets.npids || o->targets.ntids || o->targets.cgroup))
		errx(EXIT_USAGE, "-a samples every process: it cannot be combined with -p, -t "
				 "or --cgroup");
}
