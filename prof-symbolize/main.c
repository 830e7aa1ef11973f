/*
 * prof-symbolize: turn a raw capture into symbolized frames, a subset of
 * perf script's output that prof-fold and stackcollapse-perf.pl read, or
 * into a pprof profile.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "build_id.h"
#include "capture.h"
#include "diag.h"
#include "file_reader.h"
#include "frames_text.h"
#include "modules.h"
#include "pprof_sink.h"
#include "sigbus_guard.h"
#include "stream.h"
#include "symbolizer.h"

static const char usage[] =
	"Usage: prof-symbolize [OPTION]... [CAPTURE]\n"
	"Symbolize a capture written by prof-sample (stdin if CAPTURE is absent or -)\n"
	"into perf-script-style frames, or into a pprof profile.\n"
	"\n"
	"  -o, --output FILE      write to FILE instead of stdout\n"
	"  -f, --format FORMAT    perf (frames, the default) or pprof (a gzipped\n"
	"                         profile.proto, never written to a terminal)\n"
	"  -i, --inline           add the inlined functions of each frame (DWARF)\n"
	"  -l, --lines            add each frame's source file and line (DWARF)\n"
	"      --no-demangle      print C++ and Rust symbols as they are mangled\n"
	"      --cgroup           end each event line with its process's cgroup, as\n"
	"                         perf script -F +cgroup (for prof-fold --cgroup)\n"
	"      --each-sample      an event line for each sample (each block), as\n"
	"                         perf script prints them, for readers that count\n"
	"                         lines, such as FlameScope\n"
	"      --sysroot DIR      look for the capture's files under DIR\n"
	"      --debug-dir DIR    look for separate debug files under DIR too\n"
	"                         (DIR/.build-id/xx/yyyy.debug, DIR/PATH/debuglink)\n"
	"      --kallsyms FILE    kernel symbols of the capture's host, for kernel\n"
	"                         addresses the capture does not name\n"
	"      --no-debuginfod    do not ask debuginfod servers (DEBUGINFOD_URLS)\n"
	"      --bare-unresolved  pprof: leave unresolved addresses without a\n"
	"                         function (named [FILE] by default), for a server\n"
	"                         that symbolizes them by build-id\n"
	"      --build-ids        list the files the samples ran in, \"BUILD-ID PATH\"\n"
	"                         (as perf buildid-list), instead of the frames\n"
	"  -v, --verbose          report frame and loss totals on stderr, and the\n"
	"                         files whose frames stay unresolved, and why\n"
	"  -h, --help             show this help and exit\n"
	"  -V, --version          show the version and exit\n"
	"\n"
	"Exit status: 0 success, 1 the capture was truncated or corrupt (everything\n"
	"before the damage was symbolized) or some of it was left out, 2 usage\n"
	"error, not a capture, or unwritable output (a pprof profile to a terminal\n"
	"included).\n";

struct options {
	const char *input, *output;
	bool verbose, build_ids, pprof;
	struct symbolize_opts sym;
};

enum {
	OPT_NO_DEMANGLE = 256,
	OPT_SYSROOT,
	OPT_DEBUG_DIR,
	OPT_KALLSYMS,
	OPT_NO_DEBUGINFOD,
	OPT_BUILD_IDS,
	OPT_CGROUP,
	OPT_EACH_SAMPLE,
	OPT_BARE_UNRESOLVED,
};

static void parse_options(int argc, char **argv, struct options *o)
{
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "format", required_argument, NULL, 'f' },
		{ "inline", no_argument, NULL, 'i' },
		{ "lines", no_argument, NULL, 'l' },
		{ "no-demangle", no_argument, NULL, OPT_NO_DEMANGLE },
		{ "sysroot", required_argument, NULL, OPT_SYSROOT },
		{ "debug-dir", required_argument, NULL, OPT_DEBUG_DIR },
		{ "kallsyms", required_argument, NULL, OPT_KALLSYMS },
		{ "no-debuginfod", no_argument, NULL, OPT_NO_DEBUGINFOD },
		{ "build-ids", no_argument, NULL, OPT_BUILD_IDS },
		{ "bare-unresolved", no_argument, NULL, OPT_BARE_UNRESOLVED },
		{ "cgroup", no_argument, NULL, OPT_CGROUP },
		{ "each-sample", no_argument, NULL, OPT_EACH_SAMPLE },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ 0 },
	};
	int c;

	*o = (struct options){ 0 };
	o->sym.demangle = o->sym.debuginfod = true;
	o->sym.debug_dirs = xcalloc((size_t)argc, sizeof(char *));
	while ((c = getopt_long(argc, argv, "o:f:ilvhV", longopts, NULL)) != -1) {
		switch (c) {
		case 'o':
			o->output = optarg;
			break;
		case 'f':
			if (strcmp(optarg, "pprof") != 0 && strcmp(optarg, "perf") != 0)
				errx(EXIT_USAGE, "unknown format '%s' (perf or pprof)", optarg);
			o->pprof = strcmp(optarg, "pprof") == 0;
			break;
		case 'i':
			o->sym.inline_frames = true;
			break;
		case 'l':
			o->sym.lines = true;
			break;
		case OPT_NO_DEMANGLE:
			o->sym.demangle = false;
			break;
		case OPT_SYSROOT:
			o->sym.sysroot = optarg;
			break;
		case OPT_DEBUG_DIR:
			o->sym.debug_dirs[o->sym.ndebug_dirs++] = optarg;
			break;
		case OPT_KALLSYMS:
			o->sym.kallsyms = optarg;
			break;
		case OPT_NO_DEBUGINFOD:
			o->sym.debuginfod = false;
			break;
		case OPT_BARE_UNRESOLVED:
			o->sym.bare_unresolved = true;
			break;
		case OPT_CGROUP:
			o->sym.cgroup = true;
			break;
		case OPT_EACH_SAMPLE:
			o->sym.each_sample = true;
			break;
		case OPT_BUILD_IDS:
			o->build_ids = true;
			break;
		case 'v':
			o->verbose = true;
			break;
		case 'h':
			help_exit(usage);
		case 'V':
			version_exit();
		default:
			usage_hint_exit();
		}
	}
	if (argc - optind > 1)
		errx(EXIT_USAGE, "more than one capture given");
	if (optind < argc)
		o->input = argv[optind];
}

/* With -v: the files with unresolved frames, most first, and why; and
 * where their debug files may be found. */
static void report_files(struct symbolizer *s)
{
	size_t n, shown = 0;
	struct module **v = modules_used(&s->modules, &n);
	bool by_id = false;

	for (size_t i = 0; i < n && v[i]->unresolved; i++) {
		by_id = by_id || (v[i]->loaded && v[i]->build_id_len);
		if (shown++ == 10)
			continue;
		char *path = xstrdup(v[i]->path);
		printable(path, strlen(path));
		warnx("%s: %" PRIu64 " of its %" PRIu64 " frames unresolved: %s", path,
		      v[i]->unresolved, v[i]->lookups,
		      v[i]->why ? v[i]->why : "no symbol covers them (stripped; no debug file found)");
		free(path);
	}
	if (shown > 10)
		warnx("and %zu more files with unresolved frames (--build-ids lists every file)",
		      shown - 10);
	/* A server down, or no network, must not read as "no debug file". */
	const struct debug_search *ds = &s->modules.ds;
	for (uint64_t i = 0; i < ds->dfd_failed && i < DEBUGINFOD_FAILURES_KEPT; i++) {
		const struct debuginfod_failure *f = &ds->dfd_failures[i];
		warnx("debuginfod (%s): build-id %s: %s", getenv("DEBUGINFOD_URLS"), f->build_id,
		      f->error == ENOENT ? "not found" : strerror(f->error));
	}
	if (ds->dfd_failed > DEBUGINFOD_FAILURES_KEPT)
		warnx("debuginfod: %" PRIu64 " more lookups failed (%" PRIu64 " of %" PRIu64 ")",
		      ds->dfd_failed - DEBUGINFOD_FAILURES_KEPT, ds->dfd_failed, ds->dfd_asked);
	if (by_id && !getenv("DEBUGINFOD_URLS"))
		warnx("debug files may be fetched by build-id: set DEBUGINFOD_URLS (Debian's: "
		      "https://debuginfod.debian.net), or install the -dbgsym packages");
	free(v);
}

/* --build-ids: what perf buildid-list prints, for the files the samples
 * ran in. */
static void list_build_ids(struct symbolizer *s, FILE *out)
{
	size_t n;
	struct module **v = modules_used(&s->modules, &n);
	char hex[2 * CAP_BUILD_ID_MAX + 1];

	for (size_t i = 0; i < n; i++) {
		if (v[i]->path[0] != '/' && strcmp(v[i]->path, "[vdso]") != 0)
			continue;
		if (v[i]->build_id_len)
			build_id_hex(v[i]->build_id, v[i]->build_id_len, hex);
		else
			snprintf(hex, sizeof(hex), "%s", "-");
		char *path = xstrdup(v[i]->path);
		printable(path, strlen(path));
		fprintf(out, "%s %s\n", hex, path);
		free(path);
	}
	free(v);
}

/* SAMPLE records whose counts the frames could not carry as they are: a
 * capture that is not what its INFO record says.  Returns false if there
 * were any. */
static bool report_counts(const struct symbolizer *s, const char *name)
{
	if (s->no_period)
		warnx("%s: %" PRIu64 " on-CPU SAMPLE records left out: INFO's freq and period "
		      "give no sampling period to weigh them in nanoseconds",
		      name, s->no_period);
	if (s->off_cpu_unexpected)
		warnx("%s: %" PRIu64 " off-CPU SAMPLE records left out: INFO's event says the "
		      "capture holds on-CPU samples only",
		      name, s->off_cpu_unexpected);
	if (s->saturated)
		warnx("%s: %" PRIu64 " counts past 2^64-1 nanoseconds (samples times the "
		      "sampling period) written as %" PRIu64,
		      name, s->saturated, UINT64_MAX);
	return !s->no_period && !s->off_cpu_unexpected && !s->saturated;
}

/* STACK records deeper than a reader keeps (docs/FORMATS.md): their
 * frames toward the root are in no output.  Returns false if there were
 * any. */
static bool report_cut(const struct symbolizer *s, const char *name)
{
	if (s->stacks_cut)
		warnx("%s: %" PRIu64 " stacks deeper than %u frames cut there (%" PRIu64
		      " frames toward their roots left out)",
		      name, s->stacks_cut, CAP_MAX_FRAMES, s->frames_cut);
	return !s->stacks_cut;
}

static void report(const struct symbolizer *s, bool verbose)
{
	uint64_t cut = cap_loss_cut(s->lost), zeroed;

	/* What makes the capture partial always; what some samples are told
	 * with less of (mappings, wakers), and what the options left out,
	 * with -v, as the frames' trailer counts all. */
	for (uint32_t c = 1; c < CAP_LOSS_MAX; c++) {
		const struct cap_loss_info *li = cap_loss_info(c);

		if (s->lost[c] && (li->kind == CAP_LOSS_PARTIAL ||
				   (li->kind != CAP_LOSS_CUT && verbose)))
			warnx("the capture lost %" PRIu64 " %s (%s)", s->lost[c], li->what, li->why);
	}
	if (verbose ? cut > 0 : cut_matters(cut, s->samples)) {
		char said[256];

		cap_loss_cut_said(s->lost, said, sizeof(said));
		warnx("the capture has %" PRIu64 " of %" PRIu64 " user stacks cut short: %s", cut,
		      s->samples, said);
	}
	if (file_reader_stats(s->reader)->stalled)
		warnx("%" PRIu64 " file(s) stay unresolved on file systems that did not answer (a "
		      "FUSE server stopped?); waited %d s for them %" PRIu64 " time(s)",
		      s->modules.stalled, FILE_READER_TIMEOUT_MS / 1000,
		      file_reader_stats(s->reader)->stalled);
	if ((zeroed = sigbus_guard_pages(NULL)))
		warnx("%" PRIu64 " page(s) of mapped files read as zeros: they could not be read "
		      "any more (their owners truncated them, or their file system failed); "
		      "frames in them may be misnamed", zeroed);
	if (verbose)
		warnx("%" PRIu64 " samples, %" PRIu64 " frames, %" PRIu64 " unresolved",
		      s->samples, s->frames, s->unresolved);
	if (verbose && s->rawstacks)
		warnx("%" PRIu64 " raw stack records, %" PRIu64 " stack bytes", s->rawstacks,
		      s->rawstack_bytes);
}

int main(int argc, char **argv)
{
	struct options opt;
	struct cap_reader r;
	struct cap_record rec;
	struct symbolizer s;
	enum capr_status st;
	int status = EXIT_OK;
	FILE *in, *out;
	const char *name;

	parse_options(argc, argv, &opt);
	/* Debug files are mapped, and their owners may truncate them. */
	sigbus_guard_install();
	in = input_open(opt.input);
	name = input_name(opt.input);
	st = capr_open(&r, in);
	if (st != CAPR_OK)
		errx(EXIT_USAGE, "%s: %s", name, r.error);
	out = output_open(opt.output, false);
	/* A profile is compressed binary, as gzip's output is: not for a
	 * terminal.  (It is no capture: written as -o names it, symbolic
	 * link or not, like the frames.) */
	if (opt.pprof && !opt.build_ids && isatty(fileno(out)))
		errx(EXIT_USAGE, "refusing to write a pprof profile to a terminal "
				 "(redirect it or use -o FILE)");
	/* --build-ids symbolizes the frames only to learn the files. */
	FILE *frames = opt.build_ids ? fopen("/dev/null", "w") : out;
	if (!frames)
		err(EXIT_USAGE, "/dev/null");
	if (!symbolizer_init(&s, &opt.sym))
		exit(EXIT_USAGE);
	/* After init: nothing is written when the options fail. */
	struct sink *sink = opt.pprof && !opt.build_ids ? pprof_sink_new(out, &opt.sym)
			 : frames_text_new(frames, &opt.sym);
	s.sink = sink;
	while ((st = capr_next(&r, &rec)) == CAPR_OK)
		symbolizer_record(&s, &rec);
	if (st != CAPR_EOF) {
		warnx("%s: %s", name, r.error);
		status = EXIT_PARTIAL;
	} else if (!s.have_end) {
		warnx("%s: no end record at byte %" PRIu64 ": the capture was cut short", name,
		      r.offset);
		status = EXIT_PARTIAL;
	}
	symbolizer_finish(&s);
	if (!report_counts(&s, name))
		status = EXIT_PARTIAL;
	if (!report_cut(&s, name))
		status = EXIT_PARTIAL;
	if (status == EXIT_OK && s.samples == 0)
		warnx("%s: the capture holds no samples (its targets never ran on a CPU%s)", name,
		      s.unit.nanoseconds ? " nor blocked" : "");
	report(&s, opt.verbose);
	if (opt.verbose)
		report_files(&s);
	if (opt.build_ids) {
		list_build_ids(&s, out);
		fclose(frames);
	}

	symbolizer_free(&s);
	sink->free(sink);
	free(opt.sym.debug_dirs);
	capr_free(&r);
	if (in != stdin)
		fclose(in);
	if (!output_close(out, opt.output))
		status = EXIT_USAGE;
	return status;
}
