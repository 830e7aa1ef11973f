/*
 * prof-fold's parsers through their real code: event lines, frame lines,
 * frame-name tidying, module classification, format detection and the
 * line reader.
 */
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fold.h"
#include "frame_cache.h"
#include "unit.h"

#define EV(line) parse_event_line(line, strlen(line), &e, NULL)

TEST(event_line_default_perf)
{
	struct event_line e;

	CHECK(EV("java 25607 4794564.109216: cycles:"));
	CHECK_STR(str(e.comm, e.comm_len), "java");
	CHECK_STR(str(e.pid, e.pid_len), "?");
	CHECK_STR(str(e.tid, e.tid_len), "25607");
	CHECK_STR(str(e.event, e.event_len), "cycles");
	CHECK_INT(e.period, 1);
}

TEST(event_line_pid_tid_cpu_period)
{
	struct event_line e;

	CHECK(EV("V8 WorkerThread 24636/25607 [000] 94564.109216:     1234 cpu-clock:uhH: "));
	CHECK_STR(str(e.comm, e.comm_len), "V8 WorkerThread");
	CHECK_STR(str(e.pid, e.pid_len), "24636");
	CHECK_STR(str(e.tid, e.tid_len), "25607");
	CHECK_STR(str(e.event, e.event_len), "cpu-clock:uhH");
	CHECK_INT(e.period, 1234);
	CHECK(e.rest == NULL);
}

TEST(event_line_prof_symbolize)
{
	struct event_line e;

	CHECK(EV("kworker/0:1 17/18 1.000000: 37 cpu-clock:"));
	CHECK_STR(str(e.comm, e.comm_len), "kworker/0:1");
	CHECK_STR(str(e.pid, e.pid_len), "17");
	CHECK_STR(str(e.tid, e.tid_len), "18");
	CHECK_INT(e.period, 37);
}

TEST(event_line_quirks)
{
	struct event_line e;

	/* One-letter command (the Perl pattern wants two). */
	CHECK(EV("X 7 1.0: 3 cycles:"));
	CHECK_STR(str(e.comm, e.comm_len), "X");
	/* A TID of 0 is no TID, as in the Perl tool. */
	CHECK(EV("swapper 0/0 [000] 1.0: cycles:"));
	CHECK_STR(str(e.pid, e.pid_len), "?");
	CHECK_STR(str(e.tid, e.tid_len), "0");
	/* Period 0 counts as 1. */
	CHECK(EV("a 1 1.0: 0 cycles:"));
	CHECK_INT(e.period, 1);
	/* No event name at all: still an event line. */
	CHECK(EV("java 19983 cycles:"));
	CHECK(e.event == NULL);
	CHECK_INT(e.period, 1);
	/* A frame on the event line. */
	CHECK(EV("false 39654 19115.489713:          1 cycles:u:  ffffffff9b201293 [unknown] ([unknown])"));
	CHECK_STR(str(e.event, e.event_len), "cycles:u");
	CHECK_STR(str(e.rest, e.rest_len), "ffffffff9b201293 [unknown] ([unknown])");
	CHECK(!EV("\tffffffff8103ce3b native_safe_halt ([kernel.kallsyms])"));
	CHECK(!EV("ffffffff8103d0ca native_write_msr_safe ([kernel.kallsyms])"));
	CHECK(!EV(""));
}

#define WK(line) parse_waker_line(line, strlen(line), &e)

/* Two parses of an event line agree when they do every field. */
static bool same_event(const struct event_line *a, const char *sa, const struct event_line *b,
		       const char *sb)
{
#define SAME(f) (a->f##_len == b->f##_len && (!a->f) == (!b->f) && \
		 (!a->f || a->f - sa == b->f - sb || memcmp(a->f, b->f, a->f##_len) == 0))
	return SAME(comm) && SAME(pid) && SAME(tid) && SAME(event) && SAME(rest) &&
	       SAME(cgroup) && a->period == b->period && a->has_period == b->has_period &&
	       a->period_saturated == b->period_saturated;
#undef SAME
}

/* An event line read after any other, with what the reader kept of the
 * other's end, reads as it does alone. */
TEST(event_memo)
{
	static const char *const lines[] = {
		"ls  3482 [000]    96.789458:     200040 cpu-clock:ppp: ",
		"python3  3483 [001]    96.789459:     200040 cpu-clock:ppp: ",
		"my app 12/13 [001] 7.5:     200040 cpu-clock:ppp: ",
		"x 1 2.0: 200040 cpu-clock:ppp:",
		"swapper 0/0 [000] 1.0: cycles:",
		"java 25607 4794564.109216: cycles:",
		"big 1/1 1.0: 99999999999999999999999 cycles:",
		"big 1/1 2.0: 99999999999999999999999 cycles:",
		"cg 1/2 1.0: 3 cpu-clock: /sys/fs/cgroup/a b",
		"cg 1/2 2.0: 3 cpu-clock: unknown",
		"one 5 1.0: 1 cycles:  4005d0 main+0x10 (/bin/x)",
		":     200040 cpu-clock:ppp: ",
		"a 1 1.0:     200040 cpu-clock:ppp: trailing",
		"z 9 3.0: 7 cpu-clock:ppp:",
	};
	size_t n = sizeof(lines) / sizeof(*lines);

	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < n; j++) {
			struct event_memo m = { 0 };
			struct event_line alone, after;
			bool ok_alone, ok_after;
			parse_event_line(lines[i], strlen(lines[i]), &after, &m);
			ok_after = parse_event_line(lines[j], strlen(lines[j]), &after, &m);
			ok_alone = parse_event_line(lines[j], strlen(lines[j]), &alone, NULL);
			if (ok_after != ok_alone || (ok_alone && !same_event(&alone, lines[j], &after, lines[j]))) {
				printf("#   after \"%s\", \"%s\" reads otherwise\n", lines[i], lines[j]);
				CHECK(false);
			}
		}
}

TEST(waker_line)
{
	struct event_line e;

	CHECK_INT(WK("-- woken by writer 600/601"), WAKER_LINE);
	CHECK_STR(str(e.comm, e.comm_len), "writer");
	CHECK_STR(str(e.pid, e.pid_len), "600");
	CHECK_STR(str(e.tid, e.tid_len), "601");
	CHECK(e.event == NULL);
	/* A name with spaces, even digits: PID/TID is the last field. */
	CHECK_INT(WK("-- woken by V8 Worker 2 12/13  "), WAKER_LINE);
	CHECK_STR(str(e.comm, e.comm_len), "V8 Worker 2");
	CHECK_STR(str(e.tid, e.tid_len), "13");
	CHECK_INT(WK("-- woken by swapper/1 0/0"), WAKER_LINE);
	CHECK_STR(str(e.comm, e.comm_len), "swapper/1");
	CHECK_INT(WK("-- woken by"), WAKER_MALFORMED);
	CHECK_INT(WK("-- woken by "), WAKER_MALFORMED);
	CHECK_INT(WK("-- woken by 1/2"), WAKER_MALFORMED);
	CHECK_INT(WK("-- woken by w"), WAKER_MALFORMED);
	CHECK_INT(WK("-- woken by w 12"), WAKER_MALFORMED);
	CHECK_INT(WK("-- woken by w 12/"), WAKER_MALFORMED);
	CHECK_INT(WK("-- woken by w /12"), WAKER_MALFORMED);
	CHECK_INT(WK("-- woken by w 1/2/3"), WAKER_MALFORMED);
	CHECK_INT(WK("-- woken by w 1x/2"), WAKER_MALFORMED);
	CHECK_INT(WK("-- woken byw 1/2"), WAKER_MALFORMED);
	CHECK_INT(WK("ffffffff81000000 f (/x)"), WAKER_NONE);
	CHECK_INT(WK("-- woke"), WAKER_NONE);
	CHECK_INT(WK(""), WAKER_NONE);
}

#define FR(line) parse_frame_line(line, strlen(line), &f)

TEST(frame_line)
{
	struct frame_line f;

	CHECK(FR("\t    55d0c1a2b3c4 burn+0x14 (/usr/local/bin/demo)"));
	CHECK_STR(str(f.pc, f.pc_len), "55d0c1a2b3c4");
	CHECK_STR(str(f.func, f.func_len), "burn+0x14");
	CHECK_STR(str(f.mod, f.mod_len), "/usr/local/bin/demo");
	CHECK(FR("7f72421d2d76 JavaCalls::call_helper(JavaValue, Thread) (/x/libjvm.so)"));
	CHECK_STR(str(f.func, f.func_len), "JavaCalls::call_helper(JavaValue, Thread)");
	/* Two spaces and no symbol: the Perl pattern makes it " ". */
	CHECK(FR("\t7f1e2215d058  (/lib/libc-2.15.so)"));
	CHECK_STR(str(f.func, f.func_len), " ");
	/* A file deleted while mapped is one module (the Perl pattern
	 * reads symbol "f (/tmp/a" of module "deleted"). */
	CHECK(FR("\t1 f+0x1c (/tmp/a (deleted))"));
	CHECK_STR(str(f.func, f.func_len), "f+0x1c");
	CHECK_STR(str(f.mod, f.mod_len), "/tmp/a (deleted)");
	/* Another module with a space: the last " (...)" wins. */
	CHECK(FR("\t1 f (/tmp/a (old))"));
	CHECK_STR(str(f.func, f.func_len), "f (/tmp/a");
	CHECK_STR(str(f.mod, f.mod_len), "old)");
	/* Trailing text after the module is ignored. */
	CHECK(FR("\t1 g (/x) tail"));
	CHECK_STR(str(f.mod, f.mod_len), "/x");
	CHECK_STR(str(f.func, f.func_len), "g");
	CHECK(!FR("\tTHIS_IS_A_WEIRD_LINE"));
	CHECK(!FR("  /src/f.c:12"));
	CHECK(!FR(""));
}

TEST(strip_offset)
{
	CHECK_INT(strip_offset("main+0x40", 9), 4);
	CHECK_INT(strip_offset("main+0x", 7), 7);
	CHECK_INT(strip_offset("main+0x4G", 9), 9);
	CHECK_INT(strip_offset("main+0xAB", 9), 9); /* lowercase only */
	CHECK_INT(strip_offset("f", 1), 1);
}

#define CUT(s) str(s, tidy_cut_args(s, strlen(s)))

TEST(cut_args)
{
	CHECK_STR(CUT("JavaCalls::call_helper(JavaValue, Thread)"), "JavaCalls::call_helper");
	CHECK_STR(CUT("net/http.(*Client).Do"), "net/http.(*Client).Do");
	CHECK_STR(CUT("ns::(anonymous namespace)::f(int)"), "ns::(anonymous namespace)::f");
	CHECK_STR(CUT("std::function<int (int, int)>::operator()"), "std::function<int (int, int)>::operator");
	CHECK_STR(CUT("std::function<int (int)>::operator()(int) const"), "std::function<int (int)>::operator()");
	CHECK_STR(CUT("std::ostream& operator<< <char>(std::ostream&, char)"), "std::ostream& operator<< <char>");
	CHECK_STR(CUT("operator<(a, b)"), "operator<");
	CHECK_STR(CUT("{lambda(int)#1}::operator()(int) const"), "{lambda(int)#1}::operator()");
	/* Unbalanced brackets: the Perl rule. */
	CHECK_STR(CUT("Lfoo;.<init(I)V"), "Lfoo;.<init");
	CHECK_STR(CUT("plain"), "plain");
}

TEST(modules)
{
	CHECK(mod_is_kernel("[kernel.kallsyms]", 17));
	CHECK(mod_is_kernel("[nf_tables]", 11));
	CHECK(!mod_is_kernel("[unknown]", 9));
	CHECK(mod_is_kernel("/lib/modules/4.1.0/build/vmlinux", 32));
	CHECK(mod_is_kernel("/usr/lib/debug/boot/vmlinux-5.4.14-cf-2020.1.11", 47));
	CHECK(mod_is_kernel("/lib/modules/5.4/kernel/mlx5_core.ko", 36));
	CHECK(!mod_is_kernel("/usr/bin/vmlinux-tool/x", 23));
	CHECK(!mod_is_kernel("/usr/lib/libc.so.6", 18));
	CHECK(mod_is_jit("/tmp/perf-19982.map", 19));
	CHECK(!mod_is_jit("/tmp/perf-.map", 14));
	CHECK(mod_is_jit("/tmp/jitted-31714-4145673320.so", 31));
	CHECK(!mod_is_jit("/usr/lib/libjitted.so", 21));
}

static char *tidy(const char *line, bool java, const struct fold_opts *o)
{
	static char out[1024];
	struct frame_line f;

	if (!parse_frame_line(line, strlen(line), &f))
		return "(unparsable)";
	size_t flen = strip_offset(f.func, f.func_len);
	CHECK(tidy_frame_bound(&f, flen) < sizeof(out));
	size_t n = tidy_frame(&f, f.func, flen, java, false, o, out);
	out[n] = '\0';
	return out;
}

TEST(tidy_frame)
{
	struct fold_opts o = { 0 }, all = { .annotate_kernel = true,
					    .annotate_jit = true,
					    .include_addrs = true };

	CHECK_STR(tidy("\t1 [unknown] (/usr/lib/libc.so.6)", false, &o), "[libc.so.6]");
	CHECK_STR(tidy("\t1 [unknown] ([unknown])", false, &o), "[unknown]");
	CHECK_STR(tidy("\tab [unknown] ([unknown])", false, &all), "[unknown <ab>]");
	CHECK_STR(tidy("\t1 LFoo;.bar(I)V (/tmp/perf-1.map)", false, &o), "LFoo:.bar");
	CHECK_STR(tidy("\t1 Lorg/Foo;.bar(I)V (/tmp/perf-1.map)", true, &o), "org/Foo:.bar");
	CHECK_STR(tidy("\t1 Lorg/Foo;.bar(I)V (/tmp/perf-1.map)", true, &all), "org/Foo:.bar_[j]");
	CHECK_STR(tidy("\t1 RegExp:[&<>\"'] (/tmp/perf-1.map)", false, &o), "RegExp:[&<>]");
	CHECK_STR(tidy("\t1 a->b->c (/x)", false, &o), "a;b_[i];c_[i]");
	CHECK_STR(tidy("\t1 a-> (/x)", false, &o), "a");
	CHECK_STR(tidy("\t1 f+0x1f ([kernel.kallsyms])", false, &all), "f_[k]");
	CHECK_STR(tidy("\t1 [unknown] ([kernel.kallsyms])", false, &o), "[[kernel.kallsyms]]");
}

static char *waker(const char *names)
{
	static char out[256];
	size_t len = strlen(names);

	CHECK(tidy_waker_bound(names, len) < sizeof(out));
	out[tidy_waker(names, len, out)] = '\0';
	return out;
}

TEST(tidy_waker)
{
	CHECK_STR(waker("f"), "f_[w]");
	CHECK_STR(waker(""), "_[w]");
	/* One annotation per frame: _[w] replaces the others. */
	CHECK_STR(waker("f_[k]"), "f_[w]");
	CHECK_STR(waker("f_[w]"), "f_[w]");
	CHECK_STR(waker("f_[x]"), "f_[x]_[w]");
	/* Java's inlined pieces, caller first, become leaf first. */
	CHECK_STR(waker("a;b_[i];c_[i]"), "c_[w];b_[w];a_[w]");
	CHECK_STR(waker(";a_[i]"), "a_[w];_[w]");
	CHECK_INT(tidy_waker_bound("a;b;c", 5), 5 + 3 * 4);
}

TEST(detect)
{
	const char *bad;
	const char *sym = "# prof-symbolize frames v1\ndemo 1/1 1.0: 1 cpu-clock:\n";
	const char *perf = "# ====\n#\nperf 977/977 [000] 1.0: cycles: \n\tffff f (x)\n";
	const char *folded = "a;b;c 12\na;b 3\n";
	const char *tricky = "a;b 12\n\t1 f (/x)\n";

	CHECK_INT(detect_format(sym, strlen(sym), &bad), FMT_PERF);
	CHECK(bad == NULL);
	CHECK_INT(detect_format("# prof-symbolize frames v2\n", 27, &bad), FMT_PERF);
	CHECK(bad && strstr(bad, "unsupported prof-symbolize frames version"));
	CHECK_INT(detect_format("# prof-symbolize frames v12\n", 28, &bad), FMT_PERF);
	CHECK(bad != NULL);
	CHECK_INT(detect_format(perf, strlen(perf), &bad), FMT_PERF);
	CHECK(bad == NULL);
	CHECK_INT(detect_format(folded, strlen(folded), &bad), FMT_FOLDED);
	CHECK_INT(detect_format("x 1\n", 4, &bad), FMT_FOLDED);
	CHECK_INT(detect_format(tricky, strlen(tricky), &bad), FMT_PERF);
	CHECK_INT(detect_format("", 0, &bad), FMT_PERF);
	CHECK(bad == NULL);
	/* Known inputs that are not stacks are named. */
	detect_format("PROFCAP\0\1\0", 10, &bad);
	CHECK(bad && strstr(bad, "run prof-symbolize on it first"));
	detect_format("PERFILE2\x68", 9, &bad);
	CHECK(bad && strstr(bad, "run perf script on it first"));
	detect_format("<?xml version=\"1.0\"?>\n<svg", 27, &bad);
	CHECK(bad && strstr(bad, "SVG"));
}

/* Opens a line reader over a file holding text. */
static void reader_over(const char *path, const char *text, size_t len,
			struct line_reader *r)
{
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);

	CHECK(fd >= 0);
	CHECK(write(fd, text, len) == (ssize_t)len);
	lseek(fd, 0, SEEK_SET);
	lr_init(r, fd, path);
}

TEST(line_reader)
{
	char path[] = "/tmp/test_fold_parse.XXXXXX";
	struct line_reader r;
	const char *l;
	size_t n;
	int fd = mkstemp(path);

	close(fd);
	reader_over(path, "a\r\nb\n\nc\0d\nlast", 15, &r);
	l = lr_next(&r, &n);
	CHECK_STR(str(l, n), "a");
	l = lr_next(&r, &n);
	CHECK_STR(str(l, n), "b");
	l = lr_next(&r, &n);
	CHECK_INT(n, 0);
	l = lr_next(&r, &n);
	CHECK_INT(n, 3);
	CHECK(l && memcmp(l, "c\0d", 3) == 0);
	l = lr_next(&r, &n);
	CHECK_STR(str(l, n), "last");
	CHECK_INT(r.lineno, 5);
	CHECK(lr_next(&r, &n) == NULL);
	close(r.fd);
	lr_free(&r);

	/* A line longer than the initial buffer grows it. */
	size_t big = 9u << 20;
	char *text = malloc(big + 3);
	memset(text, 'x', big);
	memcpy(text + big, "\ny\n", 3);
	reader_over(path, text, big + 3, &r);
	l = lr_next(&r, &n);
	CHECK_INT(n, big);
	l = lr_next(&r, &n);
	CHECK_STR(str(l, n), "y");
	CHECK(lr_next(&r, &n) == NULL);
	close(r.fd);
	lr_free(&r);
	free(text);
	unlink(path);
}

/* Lines of every length below max, some ending "\r\n", over 3 MB, read
 * from a file and from a pipe written 4093 bytes at a time: lines across
 * the 64-byte blocks the reader finds newlines in, and across its reads
 * and moves of the buffer.  From a file, every read but the last lands at
 * a 64-byte boundary: the kernel's copy to an unaligned buffer took
 * prof-fold twice as long as cat's on an AMD EPYC. */
static void read_lines(size_t max, bool pipe_it)
{
	char path[] = "/tmp/test_fold_parse.XXXXXX";
	size_t cap = 3u << 20, used = 0, nlines = 0, n;
	char *text = malloc(cap);
	struct line_reader r;
	const char *l;
	int fd = mkstemp(path), p[2];
	pid_t writer = -1;

	close(fd);
	while (used + max + 2 < cap) {
		size_t len = (nlines * 7919) % max;
		for (size_t k = 0; k < len; k++)
			text[used + k] = (char)('a' + (nlines + k) % 26);
		used += len;
		if (nlines % 5 == 0)
			text[used++] = '\r';
		text[used++] = '\n';
		nlines++;
	}
	if (pipe_it) {
		CHECK(pipe(p) == 0);
		writer = fork();
		if (writer == 0) {
			close(p[0]);
			for (size_t off = 0; off < used; off += 4093)
				if (write(p[1], text + off, used - off < 4093 ? used - off : 4093) < 0)
					_exit(1);
			_exit(0);
		}
		close(p[1]);
		lr_init(&r, p[0], "pipe");
	} else {
		reader_over(path, text, used, &r);
	}
	size_t unaligned = 0;
	for (size_t i = 0; i < nlines; i++) {
		size_t len = (i * 7919) % max;
		l = lr_next(&r, &n);
		unaligned += !pipe_it && r.bytes < used && r.end % 64 != 0;
		if (!l || n != len || (len && (l[0] != (char)('a' + i % 26) ||
					       l[len - 1] != (char)('a' + (i + len - 1) % 26)))) {
			CHECK_INT(i, nlines); /* names the first line read wrong */
			break;
		}
	}
	CHECK_INT(unaligned, 0);
	CHECK(lr_next(&r, &n) == NULL);
	CHECK_INT(r.lineno, nlines);
	close(r.fd);
	lr_free(&r);
	if (writer > 0)
		waitpid(writer, NULL, 0);
	free(text);
	unlink(path);
}

TEST(line_reader_blocks)
{
	read_lines(300, false);
	read_lines(300, true);
	read_lines(70, false);
	read_lines(70, true);
}

/* frame_cache_get() as the parser used it: the id, names' length and
 * group flag of a line, or false. */
static bool fc_get(struct frame_cache *c, bool java, const char *line, size_t len,
		   uint32_t *id, size_t *tlen, bool *group)
{
	const struct fc_entry *e = frame_cache_get(c, java, line, len);

	if (!e)
		return false;
	*id = e->id;
	*tlen = e->tlen;
	*group = e->klen & FC_GROUP;
	return true;
}

TEST(frame_cache)
{
	struct frame_cache *c = frame_cache_new();
	uint32_t id;
	size_t tl;
	bool g;

	CHECK(!fc_get(c, false, "1 f (/x)", 8, &id, &tl, &g));
	CHECK(frame_cache_takes(c, 8, 1));
	frame_cache_put(c, false, "1 f (/x)", 8, 42, 1, true);
	CHECK(fc_get(c, false, "1 f (/x)", 8, &id, &tl, &g));
	CHECK_INT(id, 42);
	CHECK_INT(tl, 1);
	CHECK(g);
	/* The same line in a java process is another entry. */
	CHECK(!fc_get(c, true, "1 f (/x)", 8, &id, &tl, &g));
	CHECK(!fc_get(c, false, "1 f (/y)", 8, &id, &tl, &g));
	/* Lines of 1 to 40 bytes are told from lines that differ from them
	 * in any one byte, whichever way they are compared. */
	const char a[] = "1234567890abcdefghijklmnopqrstuvwxyzABCD";
	char b[sizeof(a)];
	for (size_t n = 1; n < sizeof(a); n++) {
		frame_cache_restart(c);
		frame_cache_put(c, false, a, n, (uint32_t)n, n, true);
		CHECK(fc_get(c, false, a, n, &id, &tl, &g));
		CHECK_INT(id, n);
		for (size_t k = 0; k < n; k++) {
			memcpy(b, a, sizeof(a));
			b[k] = '#';
			frame_cache_restart(c);
			CHECK(!fc_get(c, false, b, n, &id, &tl, &g));
		}
	}
	frame_cache_put(c, false, "1 (p) (/x)", 10, 0, 0, false);
	CHECK(fc_get(c, false, "1 (p) (/x)", 10, &id, &tl, &g));
	CHECK(!g);

	/* A stack seen again: each line after the first is found as the one
	 * that followed the line before, and one that does not follow is
	 * still found, as a java line is not taken for another's. */
	const char *st[] = { "1 a (/x)", "1 b (/x)", "1 c (/x)" };
	frame_cache_restart(c);
	for (uint32_t i = 0; i < 3; i++) {
		CHECK(!fc_get(c, false, st[i], 8, &id, &tl, &g));
		frame_cache_put(c, false, st[i], 8, 100 + i, 1, true);
	}
	for (int round = 0; round < 2; round++) {
		frame_cache_restart(c);
		for (uint32_t i = 0; i < 3; i++) {
			CHECK(fc_get(c, false, st[i], 8, &id, &tl, &g));
			CHECK_INT(id, 100 + i);
		}
	}
	frame_cache_restart(c);
	CHECK(fc_get(c, false, st[0], 8, &id, &tl, &g));
	CHECK(!fc_get(c, true, st[1], 8, &id, &tl, &g));
	CHECK(fc_get(c, false, st[2], 8, &id, &tl, &g));
	CHECK_INT(id, 102);
	/* Lines and names too long to keep. */
	CHECK(!frame_cache_takes(c, 4097, 1));
	CHECK(!frame_cache_takes(c, 8, 16385));
	frame_cache_free(c);
}

/* The hash of ids[0..n), as the parser makes it. */
static uint64_t ids_hash(const uint32_t *ids, size_t n)
{
	uint64_t h = STACK_IDS_SEED;

	for (size_t i = 0; i < n; i++)
		h = stack_ids_mix(h, ids[i]);
	return h;
}

TEST(stack_ids)
{
	struct stack_ids *s = stack_ids_new();
	uint32_t a = stack_ids_name(s, "main", 4), b = stack_ids_name(s, "f;g", 3);
	uint32_t seq[] = { a, b, a }, *idx;
	const char *t;
	size_t n;
	bool created;

	CHECK(a != b);
	CHECK_INT(stack_ids_name(s, "main", 4), a);
	t = stack_ids_text(s, b, &n);
	CHECK_STR(str(t, n), "f;g");
	idx = stack_ids_find(s, seq, 3, ids_hash(seq, 3), &created);
	CHECK(created);
	*idx = 7;
	CHECK_INT(*stack_ids_find(s, seq, 3, ids_hash(seq, 3), &created), 7);
	CHECK(!created);
	/* A prefix is another stack. */
	stack_ids_find(s, seq, 2, ids_hash(seq, 2), &created);
	CHECK(created);
	/* Stacks found again after the table grew many times, and a stack
	 * whose hash is another's is told from it by its ids. */
	for (uint32_t i = 0; i < 100000; i++) {
		uint32_t k[2] = { i, i * 7 };
		idx = stack_ids_find(s, k, 2, ids_hash(k, 2), &created);
		CHECK(created);
		*idx = i;
	}
	for (uint32_t i = 0; i < 100000; i += 997) {
		uint32_t k[2] = { i, i * 7 };
		CHECK_INT(*stack_ids_find(s, k, 2, ids_hash(k, 2), &created), i);
		CHECK(!created);
	}
	uint32_t other[] = { 5, 6 }, k5[2] = { 5, 35 };
	stack_ids_find(s, other, 2, ids_hash(k5, 2), &created);
	CHECK(created);
	CHECK_INT(*stack_ids_find(s, k5, 2, ids_hash(k5, 2), &created), 5);
	stack_ids_free(s);
}

TEST(frame_line_without_dso)
{
	struct frame_line f;

	CHECK(parse_frame_line_nodso("\tffffffff8225fd19 pvm_irq_enable", 32, &f));
	CHECK_STR(str(f.pc, f.pc_len), "ffffffff8225fd19");
	CHECK_STR(str(f.func, f.func_len), "pvm_irq_enable");
	CHECK_STR(str(f.mod, f.mod_len), "[unknown]");
	CHECK(parse_frame_line_nodso("\t1cbd1", 6, &f));
	CHECK_STR(str(f.func, f.func_len), "[unknown]");
	CHECK(!parse_frame_line_nodso("\tTHIS_IS_A_WEIRD_LINE", 21, &f));
	CHECK(!parse_frame_line_nodso("\t", 1, &f));
}
