/*
 * prof-fold: fold stack samples into FlameGraph's folded format.
 *
 * Reads prof-symbolize frames, perf script output or folded stacks, from
 * files or stdin, and writes one "root;...;leaf COUNT" line per distinct
 * stack, bytewise sorted.  See prof-fold(1).
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "fold.h"
#include "seconds.h"
#include "stream.h"

/* prof-sample's default time resolution: finer slots would be empty in
 * between. */
#define DEFAULT_SLOT_NS 10000000ull

static const char usage[] =
	"Usage: prof-fold [OPTION]... [FILE]...\n"
	"Fold prof-symbolize frames, perf script output or folded stacks into\n"
	"folded stacks (root;...;leaf COUNT), bytewise sorted.  With no FILE,\n"
	"or when FILE is -, read standard input.\n"
	"\n"
	"  --pid                root frame is COMM-PID\n"
	"  --tid                root frame is COMM-PID/TID\n"
	"  --kernel             annotate kernel frames with _[k]\n"
	"  --jit                annotate JIT frames with _[j]\n"
	"  --all                both --kernel and --jit\n"
	"  --addrs              show the address of unresolved frames\n"
	"  --inline             annotate inlined frames with _[i]\n"
	"  --context            append FILE:LINE to frames (perf script -F+srcline)\n"
	"  --event-filter=EVENT fold only samples of EVENT (default: the first seen)\n"
	"  --skip-after=FUNC    drop the callers of FUNC, and the root (repeatable)\n"
	"  --no-comm            no process root frame\n"
	"  --cgroup             first frame is the sample's cgroup ([unknown] if none)\n"
	"  --filter=REGEX       keep only stacks matching REGEX (repeatable)\n"
	"  --exclude=REGEX      drop stacks matching REGEX (repeatable)\n"
	"  --period-unit        say the unit of summed perf script periods (as\n"
	"                       nanoseconds for cpu-clock) in a first line\n"
	"  --timed[=TIME]       timed folded stacks: the stacks of each slot of\n"
	"                       TIME (default 10ms) after a \"[time: START LENGTH] 0\"\n"
	"                       line, for prof-svg's heatmap\n"
	"  --diff BEFORE AFTER  each frame's change of share, with its interval;\n"
	"                       \"*\" marks those beyond sampling noise\n"
	"  --threshold=PCT      with --diff, exit 3 when a frame's share rose beyond\n"
	"                       noise by more than PCT points (default 0)\n"
	"  --input=FORMAT       auto (default), perf or folded\n"
	"  --strict             stop at the first unparsable line\n"
	"  -o, --output=FILE    write FILE instead of standard output\n"
	"  -h, --help           show this help and exit\n"
	"  -V, --version        show the version and exit\n"
	"\n"
	"Exit status: 0 ok, 1 unparsable lines were skipped or a count passed\n"
	"2^64-1, 2 usage error, unreadable input or unwritable output, 3 (--diff)\n"
	"a frame's share rose by more than the threshold.\n";

struct options {
	struct fold_opts fold;
	const char *output;
	bool period_unit, diff, filtered;
	double threshold; /* --diff: a share */
};

/* --diff: a regression. */
#define EXIT_REGRESSION 3

static void add_regex(struct fold_agg *agg, const char *re, bool exclude)
{
	char msg[256];

	if (!agg_add_regex(agg, re, exclude, msg, sizeof(msg)))
		errx(EXIT_USAGE, "--%s=%s: %s", exclude ? "exclude" : "filter",
		     re, msg);
}

/* Fills opt; --filter and --exclude go straight into agg. */
static void parse_options(int argc, char **argv, struct options *opt, struct fold_agg *agg)
{
	enum {
		OPT_PID = 256, OPT_TID, OPT_KERNEL, OPT_JIT, OPT_ALL, OPT_ADDRS,
		OPT_INLINE, OPT_CONTEXT, OPT_EVENT, OPT_SKIP, OPT_NOCOMM, OPT_CGROUP,
		OPT_FILTER,
		OPT_EXCLUDE, OPT_INPUT, OPT_STRICT, OPT_PERIOD_UNIT, OPT_TIMED, OPT_DIFF,
		OPT_THRESHOLD,
	};
	static const struct option longopts[] = {
		{ "pid", no_argument, NULL, OPT_PID },
		{ "tid", no_argument, NULL, OPT_TID },
		{ "kernel", no_argument, NULL, OPT_KERNEL },
		{ "jit", no_argument, NULL, OPT_JIT },
		{ "all", no_argument, NULL, OPT_ALL },
		{ "addrs", no_argument, NULL, OPT_ADDRS },
		{ "inline", no_argument, NULL, OPT_INLINE },
		{ "context", no_argument, NULL, OPT_CONTEXT },
		{ "event-filter", required_argument, NULL, OPT_EVENT },
		{ "skip-after", required_argument, NULL, OPT_SKIP },
		{ "no-comm", no_argument, NULL, OPT_NOCOMM },
		{ "cgroup", no_argument, NULL, OPT_CGROUP },
		{ "filter", required_argument, NULL, OPT_FILTER },
		{ "exclude", required_argument, NULL, OPT_EXCLUDE },
		{ "input", required_argument, NULL, OPT_INPUT },
		{ "period-unit", no_argument, NULL, OPT_PERIOD_UNIT },
		{ "timed", optional_argument, NULL, OPT_TIMED },
		{ "diff", no_argument, NULL, OPT_DIFF },
		{ "threshold", required_argument, NULL, OPT_THRESHOLD },
		{ "strict", no_argument, NULL, OPT_STRICT },
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ 0 },
	};
	struct fold_opts *o = &opt->fold;
	int c;

	*opt = (struct options){ .fold.format = FMT_AUTO };
	while ((c = getopt_long(argc, argv, "o:hV", longopts, NULL)) != -1) {
		switch (c) {
		case OPT_PID: o->include_pid = true; break;
		case OPT_TID: o->include_tid = true; break;
		case OPT_KERNEL: o->annotate_kernel = true; break;
		case OPT_JIT: o->annotate_jit = true; break;
		case OPT_ALL: o->annotate_kernel = o->annotate_jit = true; break;
		case OPT_ADDRS: o->include_addrs = true; break;
		case OPT_INLINE: o->inline_annotate = true; break;
		case OPT_CONTEXT: o->context = true; break;
		case OPT_EVENT: o->event_filter = optarg; break;
		case OPT_SKIP:
			o->skip_after = xreallocarray(o->skip_after, o->nskip_after + 1,
						      sizeof(*o->skip_after));
			o->skip_after[o->nskip_after++] = optarg;
			break;
		case OPT_NOCOMM: o->no_comm = true; break;
		case OPT_CGROUP: o->cgroup = true; break;
		case OPT_FILTER: add_regex(agg, optarg, false); opt->filtered = true; break;
		case OPT_EXCLUDE: add_regex(agg, optarg, true); opt->filtered = true; break;
		case OPT_DIFF: opt->diff = true; break;
		case OPT_THRESHOLD: {
			char *end;
			double v = strtod(optarg, &end);
			if (end == optarg || (*end && strcmp(end, "%") != 0) || !(v >= 0 && v < 100))
				errx(EXIT_USAGE, "--threshold=%s: expected a share from 0 to 100, in "
				     "points (%%)", optarg);
			opt->threshold = v / 100;
			break;
		}
		case OPT_INPUT:
			if (strcmp(optarg, "auto") == 0)
				o->format = FMT_AUTO;
			else if (strcmp(optarg, "perf") == 0)
				o->format = FMT_PERF;
			else if (strcmp(optarg, "folded") == 0)
				o->format = FMT_FOLDED;
			else
				errx(EXIT_USAGE, "--input=%s: expected auto, perf or folded", optarg);
			break;
		case OPT_STRICT: o->strict = true; break;
		case OPT_PERIOD_UNIT: opt->period_unit = true; break;
		case OPT_TIMED:
			o->slot_ns = DEFAULT_SLOT_NS;
			if (optarg && (!duration_parse(optarg, &o->slot_ns) || o->slot_ns < 1000 ||
				       o->slot_ns > 3600000000000ull))
				errx(EXIT_USAGE, "--timed=%s: expected a time from 1us to 1h, "
				     "with its unit (ns, us, ms or s)", optarg);
			agg->slot_ns = o->slot_ns;
			break;
		case 'o': opt->output = optarg; break;
		case 'h': help_exit(usage);
		case 'V': version_exit();
		default: usage_hint_exit();
		}
	}
}

/* Folds one input into agg; returns its number of unparsable lines. */
static uint64_t fold_input(const char *path, const struct fold_opts *o,
			   struct perf_parser *perf, struct fold_agg *agg)
{
	FILE *f = input_open(path);
	struct line_reader r;
	enum fold_format fmt = o->format;
	uint64_t bad;

	lr_init(&r, fileno(f), input_name(path));
	if (fmt == FMT_AUTO) {
		size_t len;
		const char *refuse, *head = lr_peek(&r, &len);
		fmt = detect_format(head, len, &refuse);
		if (refuse)
			errx(EXIT_USAGE, "%s:1: %s", r.name, refuse);
	}
	/* Folded stacks have lost their event lines, and so their cgroups:
	 * a stack without the frame asked for would pass for one with it. */
	if (fmt == FMT_FOLDED && o->cgroup)
		errx(EXIT_USAGE, "%s:1: --cgroup: folded stacks carry no cgroup "
		     "(fold the frames or perf script output instead)", r.name);
	if (fmt == FMT_FOLDED)
		bad = folded_parse_input(o, agg, &r);
	else
		bad = perf_parse_input(perf, &r);
	lr_finish(&r);
	if (f != stdin)
		fclose(f);
	return bad;
}

/* --diff BEFORE AFTER: each folded timed on its own, then compared. */
static int compare(struct options *opt, char **files)
{
	struct fold_agg agg[2];
	const char *names[2];
	uint64_t bad = 0;
	FILE *out;

	if (!opt->fold.slot_ns)
		opt->fold.slot_ns = DEFAULT_SLOT_NS;
	for (int k = 0; k < 2; k++) {
		agg_init(&agg[k]);
		agg[k].slot_ns = opt->fold.slot_ns;
		struct perf_parser *perf = perf_parser_new(&opt->fold, &agg[k]);
		bad += fold_input(files[k], &opt->fold, perf, &agg[k]);
		perf_parser_report(perf);
		perf_parser_free(perf);
		names[k] = input_name(files[k]);
	}
	out = output_open(opt->output, false);
	bool failed = fold_compare(&agg[0], &agg[1], names, opt->threshold, out);
	bool written = output_close(out, opt->output);
	for (int k = 0; k < 2; k++)
		agg_free(&agg[k]);
	if (!written)
		return EXIT_USAGE;
	return failed ? EXIT_REGRESSION : bad ? EXIT_PARTIAL : EXIT_OK;
}

int main(int argc, char **argv)
{
	struct options opt;
	struct fold_agg agg;
	struct perf_parser *perf;
	uint64_t bad = 0;
	FILE *out;

	agg_init(&agg);
	parse_options(argc, argv, &opt, &agg);
	if (opt.diff) {
		if (argc - optind != 2)
			errx(EXIT_USAGE, "--diff needs exactly two inputs, BEFORE and AFTER");
		if (opt.filtered)
			errx(EXIT_USAGE, "--diff compares whole profiles: no --filter or --exclude");
		agg_free(&agg);
		return compare(&opt, argv + optind);
	}
	if (opt.threshold > 0)
		errx(EXIT_USAGE, "--threshold is for --diff");

	perf = perf_parser_new(&opt.fold, &agg);
	if (optind == argc)
		bad += fold_input("-", &opt.fold, perf, &agg);
	for (int i = optind; i < argc; i++)
		bad += fold_input(argv[i], &opt.fold, perf, &agg);
	perf_parser_report(perf);
	/* stackcollapse-perf.pl sums periods without a word on their unit,
	 * and prof-fold's output is byte for byte its own unless asked; time
	 * blocked, which it does not know, always says it is time.  Another
	 * input that said its unit (folded, or frames with "# count:") is
	 * checked against it all the same: samples or periods are not said to
	 * be that unit when they are not. */
	const char *unit = perf_parser_unit(perf);
	if (unit && (opt.period_unit || perf_parser_blocked_time(perf) || agg.unit))
		agg_note_unit(&agg, unit);
	perf_parser_free(perf);

	/* The output is opened last, so "-o FILE" may also be an input. */
	out = output_open(opt.output, false);
	agg_write(&agg, out);
	bool written = output_close(out, opt.output);
	agg_free(&agg);
	free(opt.fold.skip_after);
	if (!written)
		return EXIT_USAGE;
	return bad ? EXIT_PARTIAL : EXIT_OK;
}
