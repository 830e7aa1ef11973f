/*
 * prof-symbolize: turn a raw capture into symbolized frames, a subset of
 * perf script's output that prof-fold and stackcollapse-perf.pl read.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "capture.h"
#include "diag.h"
#include "stream.h"
#include "symbolizer.h"

static const char usage[] =
	"Usage: prof-symbolize [OPTION]... [CAPTURE]\n"
	"Symbolize a capture written by prof-sample (stdin if CAPTURE is absent or -)\n"
	"into perf-script-style frames.\n"
	"\n"
	"  -o, --output FILE   write to FILE instead of stdout\n"
	"  -v, --verbose       report frame and loss totals on stderr\n"
	"  -h, --help          show this help and exit\n"
	"  -V, --version       show the version and exit\n"
	"\n"
	"Exit status: 0 success, 1 the capture was truncated or corrupt (everything\n"
	"before the damage was symbolized), 2 usage error or not a capture.\n";

struct options {
	const char *input, *output;
	bool verbose;
};

static void parse_options(int argc, char **argv, struct options *o)
{
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ 0 },
	};
	int c;

	*o = (struct options){ 0 };
	while ((c = getopt_long(argc, argv, "o:vhV", longopts, NULL)) != -1) {
		switch (c) {
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
	if (argc - optind > 1)
		errx(EXIT_USAGE, "more than one capture given");
	if (optind < argc)
		o->input = argv[optind];
}

static void report(const struct symbolizer *s, bool verbose)
{
	uint64_t lost = s->lost[CAP_LOSS_COUNT_MAP];

	if (lost)
		warnx("the capture lost %" PRIu64 " samples (count map full)", lost);
	if (s->lost[CAP_LOSS_KSTACK] || s->lost[CAP_LOSS_USTACK])
		warnx("the capture lost %" PRIu64 " kernel and %" PRIu64 " user stacks",
		      s->lost[CAP_LOSS_KSTACK], s->lost[CAP_LOSS_USTACK]);
	if (verbose)
		warnx("%" PRIu64 " samples, %" PRIu64 " frames, %" PRIu64 " unresolved",
		      s->samples, s->frames, s->unresolved);
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
	in = input_open(opt.input);
	name = input_name(opt.input);
	st = capr_open(&r, in);
	if (st != CAPR_OK)
		errx(EXIT_USAGE, "%s: %s", name, r.error);
	out = output_open(opt.output, false);

	symbolizer_init(&s, out);
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
	report(&s, opt.verbose);

	symbolizer_free(&s);
	capr_free(&r);
	if (in != stdin)
		fclose(in);
	if (!output_close(out, opt.output))
		status = EXIT_USAGE;
	return status;
}
