/*
 * prof-svg: folded stacks in, a standalone interactive SVG flame graph out.
 *
 *	prof-svg [options] [FILE...] > graph.svg
 *	prof-svg --diff BEFORE AFTER > diff.svg
 */
#include <ctype.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "diag.h"
#include "folded_read.h"
#include "frame_tree.h"
#include "input_kind.h"
#include "name_attr.h"
#include "palette.h"
#include "palette_map.h"
#include "sorted_frames.h"
#include "stream.h"
#include "svg_opts.h"
#include "svg_write.h"
#include "time_text.h"

static const char usage[] =
	"Usage: prof-svg [options] [FILE...]\n"
	"       prof-svg --diff [options] BEFORE AFTER\n"
	"Draw folded stacks (\"a;b;c COUNT\") as an interactive SVG flame graph.\n"
	"\n"
	"  -o, --output FILE    write to FILE instead of stdout\n"
	"      --title TEXT     title (default \"Flame Graph\")\n"
	"      --subtitle TEXT  second title line\n"
	"      --width PX       image width (1200)\n"
	"      --height PX      height of one frame (16)\n"
	"      --minwidth N     omit frames narrower than N pixels, or N% (0.1)\n"
	"      --maxframes N    without --minwidth, widen it so that at most N\n"
	"                       frames are drawn, for fast loading (4000; 0: all)\n"
	"      --fonttype FONT  font family (Verdana)\n"
	"      --fontsize PX    font size (12)\n"
	"      --fontwidth F    average character width / font size (0.59)\n"
	"      --countname S    what a count is (default: the input's \"# count:\"\n"
	"                       line, prof-fold's, else samples); counts of\n"
	"                       nanoseconds, us, ms or seconds are shown as times\n"
	"      --nametype S     label of a frame in the details line (Function:)\n"
	"      --colors PAL     hot (default), mem, io, wakeup, chain, java, js, perl,\n"
	"                       red, green, blue, aqua, yellow, purple, orange\n"
	"      --bgcolors C     background: yellow, blue, green, grey or #rrggbb\n"
	"      --hash           colours from flamegraph.pl's name hash\n"
	"      --random         random colours (the output is then not reproducible)\n"
	"      --cp             consistent palette: keep colours in ./palette.map\n"
	"      --palfile FILE   consistent palette kept in FILE\n"
	"      --reverse        reverse each stack (leaf becomes root)\n"
	"      --inverted       icicle graph: root at the top\n"
	"      --flamechart     x axis is input order, stacks are not sorted\n"
	"      --negate         swap differential colours (blue for growth)\n"
	"      --notes TEXT     notes kept in the SVG\n"
	"      --nameattr FILE  extra attributes per frame name\n"
	"      --total N        scale to N samples instead of the input's total\n"
	"      --factor F       multiply displayed counts by F\n"
	"      --diff           two inputs, BEFORE and AFTER: a differential graph\n"
	"      --normalize      differential: scale BEFORE to AFTER's total\n"
	"  -h, --help           show this help and exit\n"
	"  -V, --version        show the version and exit\n"
	"\n"
	"Exit status: 0 ok, 1 some lines were skipped, 2 usage error, unreadable\n"
	"or empty input, or unwritable output.\n";

/* A number within [lo, hi], or a usage error naming the option. */
static double number(const char *opt, const char *s, double lo, double hi, bool *pct)
{
	char *end;
	double v = strtod(s, &end);

	if (pct && *end == '%')
		*pct = true, end++;
	if (end == s || *end || !(v >= lo && v <= hi))
		errx(EXIT_USAGE, "--%s: \"%s\" is not a number from %g to %g", opt, s, lo, hi);
	return v;
}

/* Keeps what a CSS font-family list can hold safely. */
static void set_font(char *out, size_t size, const char *s)
{
	size_t n = 0;

	for (; *s && n + 1 < size; s++)
		if (isalnum((unsigned char)*s) || strchr(" ,-_.", *s))
			out[n++] = *s;
	out[n] = '\0';
	if (!n)
		snprintf(out, size, "Verdana");
}

struct options {
	struct svg_opts svg;
	const char *output, *bgcolors, *palfile, *nameattr;
	bool reverse, diff, normalize, countname_set;
};

static void parse_options(int argc, char **argv, struct options *opt)
{
	enum {
		OPT_TITLE = 256, OPT_SUBTITLE, OPT_WIDTH, OPT_HEIGHT, OPT_MINWIDTH, OPT_FONTTYPE,
		OPT_FONTSIZE, OPT_FONTWIDTH, OPT_COUNTNAME, OPT_NAMETYPE, OPT_COLORS, OPT_BGCOLORS,
		OPT_HASH, OPT_RANDOM, OPT_CP, OPT_PALFILE, OPT_REVERSE, OPT_INVERTED, OPT_FLAMECHART,
		OPT_NEGATE, OPT_NOTES, OPT_NAMEATTR, OPT_TOTAL, OPT_FACTOR, OPT_DIFF, OPT_NORMALIZE,
		OPT_MAXFRAMES,
	};
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "title", required_argument, NULL, OPT_TITLE },
		{ "subtitle", required_argument, NULL, OPT_SUBTITLE },
		{ "width", required_argument, NULL, OPT_WIDTH },
		{ "height", required_argument, NULL, OPT_HEIGHT },
		{ "minwidth", required_argument, NULL, OPT_MINWIDTH },
		{ "maxframes", required_argument, NULL, OPT_MAXFRAMES },
		{ "fonttype", required_argument, NULL, OPT_FONTTYPE },
		{ "fontsize", required_argument, NULL, OPT_FONTSIZE },
		{ "fontwidth", required_argument, NULL, OPT_FONTWIDTH },
		{ "countname", required_argument, NULL, OPT_COUNTNAME },
		{ "nametype", required_argument, NULL, OPT_NAMETYPE },
		{ "colors", required_argument, NULL, OPT_COLORS },
		{ "bgcolors", required_argument, NULL, OPT_BGCOLORS },
		{ "hash", no_argument, NULL, OPT_HASH },
		{ "random", no_argument, NULL, OPT_RANDOM },
		{ "cp", no_argument, NULL, OPT_CP },
		{ "palfile", required_argument, NULL, OPT_PALFILE },
		{ "reverse", no_argument, NULL, OPT_REVERSE },
		{ "inverted", no_argument, NULL, OPT_INVERTED },
		{ "flamechart", no_argument, NULL, OPT_FLAMECHART },
		{ "negate", no_argument, NULL, OPT_NEGATE },
		{ "notes", required_argument, NULL, OPT_NOTES },
		{ "nameattr", required_argument, NULL, OPT_NAMEATTR },
		{ "total", required_argument, NULL, OPT_TOTAL },
		{ "factor", required_argument, NULL, OPT_FACTOR },
		{ "diff", no_argument, NULL, OPT_DIFF },
		{ "normalize", no_argument, NULL, OPT_NORMALIZE },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ 0 },
	};
	struct svg_opts *o = &opt->svg;
	int c;

	*opt = (struct options){ .svg = {
		.countname = "samples", .nametype = "Function:", .width = 1200,
		.frameheight = 16, .fontsize = 12, .fontwidth = 0.59, .minwidth = 0.1, .maxframes = 4000,
		.palette = PAL_HOT, .hash = HASH_NAME, .factor = 1,
	} };
	set_font(o->fonttype, sizeof(o->fonttype), "Verdana");
	while ((c = getopt_long(argc, argv, "o:hV", longopts, NULL)) != -1) {
		switch (c) {
		case 'o': opt->output = optarg; break;
		case OPT_TITLE: o->title = optarg; break;
		case OPT_SUBTITLE: o->subtitle = optarg; break;
		case OPT_WIDTH: o->width = number("width", optarg, 100, 1e6, NULL); break;
		case OPT_HEIGHT: o->frameheight = number("height", optarg, 2, 1000, NULL); break;
		case OPT_MINWIDTH:
			o->minwidth_pct = false;
			o->minwidth = number("minwidth", optarg, 0, 1e6, &o->minwidth_pct);
			o->minwidth_set = true;
			break;
		case OPT_MAXFRAMES: o->maxframes = number("maxframes", optarg, 0, 1e9, NULL); break;
		case OPT_FONTTYPE: set_font(o->fonttype, sizeof(o->fonttype), optarg); break;
		case OPT_FONTSIZE: o->fontsize = number("fontsize", optarg, 1, 200, NULL); break;
		case OPT_FONTWIDTH: o->fontwidth = number("fontwidth", optarg, 0.05, 5, NULL); break;
		case OPT_COUNTNAME: o->countname = optarg; opt->countname_set = true; break;
		case OPT_NAMETYPE: o->nametype = optarg; break;
		case OPT_COLORS:
			if ((o->palette = palette_from_name(optarg)) < 0)
				errx(EXIT_USAGE, "--colors: unknown palette \"%s\"", optarg);
			break;
		case OPT_BGCOLORS: opt->bgcolors = optarg; break;
		case OPT_HASH: o->hash = HASH_PERL; break;
		case OPT_RANDOM: o->hash = HASH_RANDOM; break;
		case OPT_CP: opt->palfile = opt->palfile ? opt->palfile : "palette.map"; break;
		case OPT_PALFILE: opt->palfile = optarg; break;
		case OPT_REVERSE: opt->reverse = true; break;
		case OPT_INVERTED: o->inverted = true; break;
		case OPT_FLAMECHART: o->flamechart = true; break;
		case OPT_NEGATE: o->negate = true; break;
		case OPT_NOTES: o->notes = optarg; break;
		case OPT_NAMEATTR: opt->nameattr = optarg; break;
		case OPT_TOTAL: o->total = number("total", optarg, 0, 1e300, NULL); break;
		case OPT_FACTOR: o->factor = number("factor", optarg, 0, 1e300, NULL); break;
		case OPT_DIFF: opt->diff = true; break;
		case OPT_NORMALIZE: opt->normalize = true; break;
		case 'h': help_exit(usage);
		case 'V': version_exit();
		default: usage_hint_exit();
		}
	}
	if (opt->diff && argc - optind != 2)
		errx(EXIT_USAGE, "--diff needs exactly two files, BEFORE and AFTER");
	if (!o->title)
		o->title = o->flamechart ? "Flame Chart" : o->inverted ? "Icicle Graph" : "Flame Graph";
	if (!palette_background(opt->bgcolors, o->palette, o->bg_top, o->bg_bottom))
		errx(EXIT_USAGE, "--bgcolors: \"%s\" is not yellow, blue, green, grey or a colour",
		     opt->bgcolors);
}

/* Nodes reserved ahead at most: 96 MiB of address space, touched only as
 * it fills, and not a mapping to refuse for a file that is mostly holes. */
#define RESERVE_MAX ((size_t)4 << 20)
/* Names reserved ahead at most: their hash slots, 1 MiB, are written
 * anywhere, so all that is reserved of them is touched. */
#define NAMES_RESERVE_MAX ((size_t)64 << 10)

/* Says what of path's lines were not stacks (counted in st since bad and
 * lines were): an error if none was. */
static void report_input(const char *path, struct folded_stats *st, size_t bad, size_t lines,
			 int *status)
{
	if (st->bad && st->lines == lines) {
		/* Nothing of it was stacks: say what it is. */
		const char *hint = input_kind_hint(input_kind(st->first_bad_text, st->first_bad_len));
		if (!hint && st->indented * 2 >= st->bad)
			hint = "perf script output or symbolized frames: run prof-fold on it first";
		if (hint)
			errx(EXIT_USAGE, "%s: %s", input_name(path), hint);
	}
	if (st->bad) {
		warnx("%s:%zu: skipped %zu line%s that %s not \"STACK COUNT\"%s", input_name(path),
		      st->first_bad, st->bad, st->bad == 1 ? "" : "s", st->bad == 1 ? "is" : "are",
		      st->bad > 1 ? " (this is the first)" : "");
		*status = EXIT_PARTIAL;
	}
	st->bad += bad;
}

/* Reads path (open as f) into t. */
static void read_input(struct frame_tree *t, const char *path, FILE *f, enum folded_role role,
		       bool reverse, struct folded_stats *st, struct timeline *tl, int *status)
{
	struct line_reader r;
	struct stat sb;
	size_t bad = st->bad, lines = st->lines;

	lr_init(&r, fileno(f), input_name(path));
	/* A file's size bounds its frames: room for them at once, as far
	 * as RESERVE_MAX.  A node took 45 bytes of input or more in every
	 * profile measured (92 on a busy host's, where this saved 5%). */
	if (fstat(r.fd, &sb) == 0 && S_ISREG(sb.st_mode)) {
		size_t nodes = (size_t)sb.st_size / 64;
		ft_reserve(t, t->n + (nodes < RESERVE_MAX ? nodes : RESERVE_MAX));
		/* And room for about as many names as it may have, which
		 * saves the faults of the smaller tables on the way: a name
		 * came in every 576 bytes of a busy host's fold, every 1,084
		 * and 4,277 of deep C++ stacks, 32 bytes long or less. */
		size_t names = (size_t)sb.st_size / 1024;
		if (names > NAMES_RESERVE_MAX)
			names = NAMES_RESERVE_MAX;
		nt_reserve(t->names, nt_count(t->names) + names, names * 32);
	}
	st->bad = st->indented = 0;
	folded_read(&r, t, role, reverse, st, tl);
	lr_finish(&r);
	report_input(path, st, bad, lines, status);
}

static void read_path(struct frame_tree *t, const char *path, enum folded_role role,
		      bool reverse, struct folded_stats *st, struct timeline *tl, int *status)
{
	FILE *f = input_open(path);

	read_input(t, path, f, role, reverse, st, tl, status);
	if (f != stdin)
		fclose(f);
}

/* Reads path (open as f) as sorted stacks, without a tree: NULL if it is
 * not a file that can be read again from where it is, or is not sorted
 * (then it is where it was, and *st as it was). */
static struct sorted_frames *read_sorted(const char *path, FILE *f, const struct svg_opts *o,
					 struct folded_stats *st, int *status)
{
	struct folded_stats was = *st;
	struct sorted_frames *sf;
	struct line_reader r;
	struct stat sb;
	off_t at;

	if (fstat(fileno(f), &sb) != 0 || !S_ISREG(sb.st_mode) ||
	    (at = lseek(fileno(f), 0, SEEK_CUR)) < 0)
		return NULL;
	sf = sorted_frames_new(o);
	lr_init(&r, fileno(f), input_name(path));
	if (sorted_frames_read(sf, &r, st)) {
		lr_free(&r);
		sorted_frames_free(sf);
		*st = was;
		if (lseek(fileno(f), at, SEEK_SET) != at)
			err(EXIT_USAGE, "%s", input_name(path));
		return NULL;
	}
	lr_finish(&r);
	report_input(path, st, was.bad, was.lines, status);
	return sf;
}

int main(int argc, char **argv)
{
	struct options opt;
	struct svg_opts *o = &opt.svg;
	struct folded_stats st = { 0 };
	struct frame_tree *t = NULL;
	struct sorted_frames *sf = NULL;
	struct timeline timeline = { 0 }, *tl = NULL, tl_before = { 0 }, tl_after = { 0 };
	struct diff_noise noise;
	const char *why;
	int status = EXIT_OK;
	size_t bad = 0;
	FILE *out;

	parse_options(argc, argv, &opt);
	if (o->hash == HASH_RANDOM)
		srand48((long)time(NULL) ^ (long)getpid());
	if (opt.nameattr)
		o->nameattrs = name_attrs_load(opt.nameattr, &bad);
	if (opt.palfile)
		o->palmap = palette_map_load(opt.palfile, &bad);
	if (bad)
		status = EXIT_PARTIAL;

	/* A flame chart's x axis is already time, of another kind. */
	if (!o->flamechart)
		tl = &timeline;
	if (opt.diff) {
		t = ft_new(o->flamechart, true);
		read_path(t, argv[optind], FOLDED_BEFORE, opt.reverse, &st, &tl_before, &status);
		read_path(t, argv[optind + 1], FOLDED_AFTER, opt.reverse, &st, &tl_after, &status);
	} else if (argc - optind <= 1) {
		const char *path = optind < argc ? argv[optind] : NULL;
		FILE *f = input_open(path);
		/* One file of sorted stacks, the usual input, is drawn as it
		 * is read: the same graph, without a tree. */
		if (!opt.reverse && !o->flamechart)
			sf = read_sorted(path, f, o, &st, &status);
		if (!sf) {
			t = ft_new(o->flamechart, false);
			read_input(t, path, f, FOLDED_ANY, opt.reverse, &st, tl, &status);
		}
		if (f != stdin)
			fclose(f);
	} else {
		t = ft_new(o->flamechart, false);
		for (int i = optind; i < argc; i++)
			read_path(t, argv[i], FOLDED_ANY, opt.reverse, &st, tl, &status);
	}
	if (tl && tl->slot_ns && tl->untimed)
		warnx("%s:%zu: %zu stack%s before the first time line: in the whole graph, in no "
		      "range of time", optind < argc ? argv[optind] : input_name(NULL),
		      tl->first_untimed, tl->untimed, tl->untimed == 1 ? "" : "s");
	/* Two columns (difffolded.pl's) have no time to draw. */
	if (tl && (!t || t->diff || !tl->slot_ns))
		timeline_free(tl), tl = NULL;
	if (!opt.countname_set && st.unit[0])
		o->countname = st.unit;
	o->ns_per_count = time_unit_ns(o->countname) * o->factor;
	if (opt.normalize && t && t->before && t->before[0] > 0)
		ft_scale_before(t, t->nodes[0].count / t->before[0]);
	/* Timed inputs tell a change from noise; others colour any. */
	if (opt.diff && t->before && t->before[0] > 0 && t->nodes[0].count > 0) {
		if (diff_noise(&noise, t, &tl_before, &tl_after, &why))
			o->noise = &noise;
		else
			warnx("--diff: %s (prof-fold --timed): every change is coloured, noise or not",
			      why);
	}

	if (t && t->diff) /* differential colours read best on grey */
		palette_background(opt.bgcolors, -1, o->bg_top, o->bg_bottom);
	out = output_open(opt.output, false);
	if ((sf ? sorted_frames_source(sf)->total : t->nodes[0].count) <= 0) {
		warnx("%s: no stack counts found",
		      optind < argc ? argv[argc - 1] : input_name(NULL));
		svg_write_empty(out, o);
		status = EXIT_USAGE;
	} else if (sf) {
		svg_write_frames(out, sorted_frames_source(sf), o);
	} else {
		svg_write(out, t, o, tl);
	}
	if (!output_close(out, opt.output))
		status = EXIT_USAGE;
	if (o->palmap && !palette_map_save(o->palmap))
		status = EXIT_USAGE;
	ft_free(t);
	sorted_frames_free(sf);
	if (tl)
		timeline_free(tl);
	timeline_free(&tl_before);
	timeline_free(&tl_after);
	if (o->noise)
		diff_noise_free(&noise);
	name_attrs_free(o->nameattrs);
	palette_map_free(o->palmap);
	return status;
}
