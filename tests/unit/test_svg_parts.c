/* Unit tests of prof-svg's parts: line parsing, the frame tree, escaping,
 * count, number and time formatting, colours and attribute sanitising. */
#include "unit.h"

#include <math.h>
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

#include "folded_read.h"
#include "frame_tree.h"
#include "name_attr.h"
#include "name_table.h"
#include "number_text.h"
#include "palette.h"
#include "svg_write.h"
#include "time_text.h"
#include "xml_text.h"

static char *escaped(const char *s, size_t len)
{
	static char buf[1024];
	FILE *f = fmemopen(buf, sizeof(buf), "w");

	xml_put(f, s, len);
	fclose(f);
	return buf;
}

/* folded_read() over text: the stats and the tree it leaves. */
static struct frame_tree *read_text(const char *text, enum folded_role role,
				    struct folded_stats *st)
{
	struct frame_tree *t = ft_new(false, false);
	struct line_reader r;
	int fd = memfd_create("folded", MFD_CLOEXEC);

	if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text) ||
	    lseek(fd, 0, SEEK_SET) != 0)
		abort();
	lr_init(&r, fd, "text");
	folded_read(&r, t, role, false, st, NULL);
	lr_free(&r);
	close(fd);
	return t;
}

TEST(read_one_column)
{
	struct folded_stats st = { 0 };
	struct frame_tree *t = read_text("# count: ns\na;b 1.5\n\na;c 12 3\nbad\n", FOLDED_ANY, &st);

	CHECK_INT(st.columns, 1);
	CHECK_INT(st.lines, 2);
	CHECK(t->nodes[0].count == 4.5); /* decimals kept; "c 12" a name */
	CHECK(!t->diff);
	CHECK_INT(st.bad, 1);
	CHECK_INT(st.first_bad, 5);
	CHECK_STR(st.unit, "ns");
	ft_free(t);
}

/* prof-fold's unit line, "[count: UNIT] 0": the unit, not a frame; a
 * line like it that counts is a stack as any other. */
TEST(read_unit_line)
{
	struct folded_stats st = { 0 };
	struct frame_tree *t = read_text("[count: nanoseconds] 0\na;b 3\na;c 4\n", FOLDED_ANY, &st);

	CHECK_STR(st.unit, "nanoseconds");
	CHECK_INT(st.columns, 1);
	CHECK_INT(st.lines, 2);
	CHECK_INT(st.bad, 0);
	CHECK(t->nodes[0].count == 7);
	CHECK_INT(t->n, 4); /* root a b c: no "[count: nanoseconds]" frame */
	CHECK(!t->diff);
	ft_free(t);
	/* Before a differential file's lines it is the unit too, and does not
	 * make the file one of one column. */
	memset(&st, 0, sizeof(st));
	t = read_text("[count: ns] 0\na;b 1 2\n", FOLDED_ANY, &st);
	CHECK_STR(st.unit, "ns");
	CHECK_INT(st.columns, 2);
	CHECK(t->diff);
	CHECK_INT(st.lines, 1);
	CHECK_INT(st.bad, 0);
	CHECK(t->nodes[0].count == 2);
	ft_free(t);
	/* As is a --diff file's, and a later one's. */
	memset(&st, 0, sizeof(st));
	t = read_text("a;b 5\n[count: ms] 0\n", FOLDED_AFTER, &st);
	CHECK_STR(st.unit, "ms");
	CHECK_INT(st.lines, 1);
	CHECK(t->nodes[0].count == 5);
	ft_free(t);
	/* A count that is not 0, or not a plain word: a stack, no unit. */
	memset(&st, 0, sizeof(st));
	t = read_text("[count: nanoseconds] 5\n[count: two words] 0\n", FOLDED_ANY, &st);
	CHECK_STR(st.unit, "");
	CHECK_INT(st.lines, 2);
	CHECK_INT(t->n, 3); /* root and two frames */
	CHECK(t->nodes[0].count == 5);
	ft_free(t);
}

TEST(read_two_columns)
{
	struct folded_stats st = { 0 };
	struct frame_tree *t = read_text("a;b 31 56\na;c 1\nx 2 3\n", FOLDED_ANY, &st);

	/* The first stack line decides: two columns, and a line with one
	 * is malformed. */
	CHECK_INT(st.columns, 2);
	CHECK(t->diff);
	CHECK_INT(st.lines, 2);
	CHECK_INT(st.bad, 1);
	CHECK_INT(st.first_bad, 2);
	CHECK(t->nodes[0].count == 59);
	ft_free(t);
	/* With --diff each file has one column: "31" is a name. */
	memset(&st, 0, sizeof(st));
	t = read_text("a;b 31 56\n", FOLDED_AFTER, &st);
	CHECK_INT(st.columns, 0);
	CHECK(t->nodes[0].count == 56);
	ft_free(t);
}

TEST(tree_merges_and_sorts)
{
	struct frame_tree *t = ft_new(false, false);
	size_t len;
	uint32_t root_kids[4], k = 0;

	ft_add(t, "m;b;x", 5, false, 3, 0);
	ft_add(t, "m;a", 3, false, 2, 0);
	ft_add(t, "m;b;x", 5, false, 1, 0);
	ft_add(t, "m", 1, false, 4, 0);
	CHECK_INT(t->n, 5); /* root m b x a */
	CHECK_INT(t->nodes[0].count, 10);
	uint32_t m = t->nodes[0].child;
	CHECK(!strncmp(ft_name(t, m, &len), "m", 1) && len == 1);
	CHECK_INT(t->nodes[m].count, 10);
	ft_sort_children(t, m);
	for (uint32_t c = t->nodes[m].child; c != FT_NONE && k < 4; c = t->nodes[c].sibling)
		root_kids[k++] = c;
	CHECK_INT(k, 2);
	CHECK(!strncmp(ft_name(t, root_kids[0], &len), "a", 1) && len == 1);
	CHECK(!strncmp(ft_name(t, root_kids[1], &len), "b", 1) && len == 1);
	CHECK_INT(t->nodes[root_kids[1]].count, 4);
	CHECK(!strncmp(ft_name(t, 0, &len), "all", 3) && len == 3);
	ft_free(t);
}

/* Bytewise sorted lines can still revisit a frame: "m;a+" sorts between
 * "m;a" and "m;a;c", so m's newest child is not always its greatest. */
TEST(tree_merges_sorted_revisits)
{
	struct frame_tree *t = ft_new(false, false);

	ft_add(t, "m;a", 3, false, 1, 0);
	ft_add(t, "m;a+;b", 6, false, 2, 0);
	ft_add(t, "m;a;c", 5, false, 4, 0);
	ft_add(t, "m;a+;b", 6, false, 8, 0); /* unsorted from here */
	ft_add(t, "m;a", 3, false, 16, 0);
	ft_add(t, "m;0", 3, false, 32, 0);
	CHECK_INT(t->n, 7); /* root m a a+ b c 0 */
	uint32_t m = t->nodes[0].child, a = FT_NONE, plus = FT_NONE;
	for (uint32_t c = t->nodes[m].child; c != FT_NONE; c = t->nodes[c].sibling) {
		size_t len;
		const char *s = ft_name(t, c, &len);
		if (len == 1 && s[0] == 'a')
			a = c;
		if (len == 2 && !strncmp(s, "a+", 2))
			plus = c;
	}
	CHECK(a != FT_NONE && plus != FT_NONE);
	CHECK_INT(t->nodes[a].count, 21);
	CHECK_INT(t->nodes[plus].count, 10);
	CHECK_INT(t->nodes[m].count, 63);
	ft_free(t);
}

/* The child named name among parent's, or FT_NONE; and how many there are. */
static uint32_t kid(const struct frame_tree *t, uint32_t parent, const char *name, size_t *n)
{
	uint32_t found = FT_NONE;

	*n = 0;
	for (uint32_t c = t->nodes[parent].child; c != FT_NONE; c = t->nodes[c].sibling, (*n)++) {
		size_t len;
		const char *s = ft_name(t, c, &len);
		if (len == strlen(name) && !memcmp(s, name, len))
			found = c;
	}
	return found;
}

/* A stack's first frame past those it shares with the one before is
 * known to sort after that one's from the byte where the two differ, a
 * frame's end sorting first and bytes unsigned: told wrong, a frame seen
 * before would be added again as a new child. */
TEST(tree_orders_frames_by_their_first_difference)
{
	struct frame_tree *t = ft_new(false, false);
	size_t n;

	ft_add(t, "m;f;g", 5, false, 1, 0);
	ft_add(t, "m;f1;g", 6, false, 2, 0); /* f ended: f1 sorts after */
	ft_add(t, "m;f;h", 5, false, 4, 0);  /* f1 did not: f sorts before */
	ft_add(t, "y;z", 3, false, 8, 0);
	ft_add(t, "y;\xc3\xa9", 4, false, 16, 0); /* 0xc3 sorts after 'z' */
	ft_add(t, "y;z", 3, false, 32, 0);
	uint32_t m = kid(t, 0, "m", &n), y = kid(t, 0, "y", &n);
	CHECK_INT(n, 2);
	CHECK(m != FT_NONE && y != FT_NONE);
	uint32_t f = kid(t, m, "f", &n);
	CHECK_INT(n, 2);
	CHECK(f != FT_NONE && kid(t, m, "f1", &n) != FT_NONE);
	CHECK_INT(t->nodes[f].count, 5);
	kid(t, f, "g", &n);
	CHECK_INT(n, 2);
	uint32_t z = kid(t, y, "z", &n);
	CHECK_INT(n, 2);
	CHECK(z != FT_NONE && kid(t, y, "\xc3\xa9", &n) != FT_NONE);
	CHECK_INT(t->nodes[z].count, 40);
	CHECK_INT(t->n, 10); /* root m f g h f1 g y z é */
	ft_free(t);
}

TEST(tree_reverse_and_chart)
{
	struct frame_tree *t = ft_new(true, false);
	size_t len;

	ft_add(t, "a;b", 3, true, 2, 0); /* reversed: b;a */
	uint32_t b = t->nodes[0].child;
	CHECK(!strncmp(ft_name(t, b, &len), "b", 1) && len == 1);
	ft_add(t, "x", 1, false, 1, 0);
	ft_add(t, "b", 1, false, 1, 0); /* not merged: not the latest sibling */
	CHECK_INT(t->n, 5);
	CHECK(t->start[t->nodes[0].child] == 3);
	ft_free(t);
}

/* The node at path "a;b;c" from the root, or FT_NONE. */
static uint32_t node_at(const struct frame_tree *t, const char *path)
{
	uint32_t i = 0;

	for (const char *p = path; i != FT_NONE && *p;) {
		size_t n = strcspn(p, ";"), len;
		uint32_t c;
		for (c = t->nodes[i].child; c != FT_NONE; c = t->nodes[c].sibling) {
			const char *name = ft_name(t, c, &len);
			if (len == n && !memcmp(name, p, n))
				break;
		}
		i = c;
		p += n + (p[n] == ';');
	}
	return i;
}

static bool blocked_at(const struct frame_tree *t, const char *path)
{
	uint32_t i = node_at(t, path);

	CHECK(i != FT_NONE);
	return i != FT_NONE && ft_blocked(t, i);
}

TEST(tree_blocked_time)
{
	struct frame_tree *t = ft_new(false, false);

	CHECK(!blocked_at(t, ""));
	/* Sorted, as prof-fold writes it: the second and third stacks share
	 * the first's marker, the fourth only frames above it. */
	ft_add(t, "a;b;[off-cpu]", 13, false, 0.1, 0);
	ft_add(t, "a;b;[off-cpu];--;w_[w]", 22, false, 0.2, 0);
	ft_add(t, "a;b;[off-cpu];--;w_[w];x_[w]", 28, false, 0.3, 0);
	ft_add(t, "a;b;c", 5, false, 4, 0);
	ft_add(t, "a;d;[off-cpu]", 13, false, 5, 0);
	ft_add(t, "e;[off-cpu];[off-cpu]", 21, false, 6, 0);
	CHECK(blocked_at(t, "a;b;[off-cpu]"));
	CHECK(!blocked_at(t, "a;b;[off-cpu];--"));
	CHECK(!blocked_at(t, "a;b;[off-cpu];--;w_[w]"));
	CHECK(!blocked_at(t, "a;b")); /* c ran */
	CHECK(!blocked_at(t, "a;b;c"));
	CHECK(!blocked_at(t, "a"));
	CHECK(!blocked_at(t, ""));
	CHECK(blocked_at(t, "a;d"));
	CHECK(blocked_at(t, "a;d;[off-cpu]"));
	CHECK(blocked_at(t, "e"));
	CHECK(blocked_at(t, "e;[off-cpu]"));
	CHECK(!blocked_at(t, "e;[off-cpu];[off-cpu]")); /* past the first */
	/* 0.1 + 0.2 + 0.3 is no exact sum: the two sums are equal anyway */
	CHECK(t->blocked[node_at(t, "a;b;[off-cpu]")] == t->nodes[node_at(t, "a;b;[off-cpu]")].count);
	ft_free(t);

	/* Reversed, the blocked thread's frames come after the marker. */
	t = ft_new(false, false);
	ft_add(t, "a;b;[off-cpu];--;w_[w]", 22, true, 2, 0);
	ft_add(t, "a;b", 3, true, 1, 0);
	ft_add(t, "z;[off-cpu]", 11, true, 1, 0);
	CHECK(!blocked_at(t, "w_[w]"));
	CHECK(!blocked_at(t, "w_[w];--"));
	CHECK(blocked_at(t, "w_[w];--;[off-cpu]"));
	CHECK(blocked_at(t, "w_[w];--;[off-cpu];b;a"));
	CHECK(!blocked_at(t, "b"));
	CHECK(blocked_at(t, "[off-cpu]"));
	CHECK(blocked_at(t, "[off-cpu];z"));
	ft_free(t);

	/* Without a marker nothing is allocated. */
	t = ft_new(true, false);
	ft_add(t, "a;b", 3, false, 1, 0);
	CHECK(t->blocked == NULL);
	ft_add(t, "a;[off-cpu]", 11, false, 1, 0);
	CHECK(blocked_at(t, "a;[off-cpu]"));
	ft_free(t);
}

/* Names interned one at a time and in batches, past several growths of
 * the slots and of the records, with a duplicate inside a batch, an empty
 * name and one longer than the first records' array: ids dense in the
 * order first seen, each name's bytes given back whole. */
TEST(name_table_interns)
{
	struct name_table *t = nt_new();
	char name[64], *big = malloc(100000);
	struct nt_key keys[4];
	uint32_t ids[4];
	bool created, made[4];
	size_t len;

	for (uint32_t i = 0; i < 20000; i++) {
		int n = snprintf(name, sizeof(name), "ns::Class%u::method(int)", i * 7919u);
		CHECK_INT(nt_intern(t, name, (size_t)n, &created), i);
		CHECK(created);
	}
	CHECK_INT(nt_count(t), 20000);
	for (uint32_t i = 0; i < 20000; i += 997) {
		int n = snprintf(name, sizeof(name), "ns::Class%u::method(int)", i * 7919u);
		CHECK_INT(nt_intern(t, name, (size_t)n, &created), i);
		CHECK(!created);
		const char *s = nt_name(t, i, &len);
		CHECK(len == (size_t)n && !memcmp(s, name, len));
	}
	memset(big, 'x', 100000);
	keys[0] = (struct nt_key){ "ns::Class0::method(int)", 23, 0 };
	keys[1] = (struct nt_key){ big, 100000, 0 };
	keys[2] = (struct nt_key){ "", 0, 0 };
	keys[3] = (struct nt_key){ big, 100000, 0 };
	nt_intern_many(t, keys, 4, ids, made);
	CHECK_INT(ids[0], 0);
	CHECK(!made[0]);
	CHECK_INT(ids[1], 20000);
	CHECK(made[1]);
	CHECK_INT(ids[2], 20001);
	CHECK(made[2]);
	CHECK_INT(ids[3], 20000);
	CHECK(!made[3]);
	const char *s = nt_name(t, 20000, &len);
	CHECK(len == 100000 && !memcmp(s, big, len));
	nt_name(t, 20001, &len);
	CHECK_INT(len, 0);
	/* A name that differs from one there in its last byte only. */
	big[99999] = 'y';
	CHECK_INT(nt_intern(t, big, 100000, &created), 20002);
	CHECK(created);
	free(big);
	nt_free(t);
}

TEST(escaping)
{
	CHECK_STR(escaped("a<b>&\"'", 7), "a&lt;b&gt;&amp;&quot;&#39;");
	CHECK_STR(escaped("]]>", 3), "]]&gt;");
	CHECK_STR(escaped("x\x01y", 3), "x\xef\xbf\xbdy");
	CHECK_STR(escaped("\xff", 1), "\xef\xbf\xbd");
	CHECK_STR(escaped("\xc3\xa9\xe2\x82\xac", 5), "\xc3\xa9\xe2\x82\xac");
	CHECK_STR(escaped("\xc0\xaf", 2), "\xef\xbf\xbd\xef\xbf\xbd"); /* overlong */
	CHECK_STR(escaped("\xed\xa0\x80", 3), "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd");
	CHECK_STR(escaped("\xe2\x82", 2), "\xef\xbf\xbd\xef\xbf\xbd"); /* cut short */
	CHECK_INT(utf8_chars("caf\xc3\xa9", 5), 4);
	CHECK_INT(utf8_prefix("\xc3\xa9\xc3\xa9x", 5, 1), 2);
}

/* The script is prof-svg/flamegraph.js as written: nothing escapes it.  "]]>"
 * would end its CDATA section, and "</script" its element in an HTML page
 * that inlines the SVG. */
TEST(script_cannot_be_closed)
{
	CHECK(strstr(svg_script_js, "]]>") == NULL);
	CHECK(strcasestr(svg_script_js, "</script") == NULL);
	CHECK(strstr(svg_script_js, "innerHTML") == NULL);
	CHECK(strstr(svg_script_js, "eval(") == NULL);
}

TEST(count_format)
{
	static const struct {
		double v;
		const char *want;
	} cases[] = {
		{ 1234567, "1,234,567" },
		{ 999, "999" },
		{ 31.23, "31.23" },
		{ 1234.5, "1,234.5" },
		{ 0, "0" },
		{ 1000, "1,000" },
		{ 999999999999999, "999,999,999,999,999" }, /* the last without printf */
		{ 1e15, "1,000,000,000,000,000" },
		{ -1234, "-1,234" },
	};
	char b[64];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		svg_format_count(b, sizeof(b), cases[i].v);
		CHECK_STR(b, cases[i].want);
	}
}

static const char *time_text(double ns)
{
	static char b[64];

	time_format(b, sizeof(b), ns);
	return b;
}

TEST(time_format)
{
	CHECK(time_unit_ns("nanoseconds") == 1 && time_unit_ns("ns") == 1);
	CHECK(time_unit_ns("microseconds") == 1e3 && time_unit_ns("us") == 1e3);
	CHECK(time_unit_ns("milliseconds") == 1e6 && time_unit_ns("ms") == 1e6);
	CHECK(time_unit_ns("seconds") == 1e9 && time_unit_ns("s") == 1e9);
	CHECK(time_unit_ns("samples") == 0 && time_unit_ns("cycles") == 0);
	CHECK(time_unit_ns("Seconds") == 0 && time_unit_ns("") == 0);
	CHECK_STR(time_text(420), "420 ns");
	CHECK_STR(time_text(850000), "850 us");
	CHECK_STR(time_text(12.3e6), "12.3 ms");
	CHECK_STR(time_text(1.52e9), "1.52 s");
	CHECK_STR(time_text(1.5e9), "1.5 s");
	CHECK_STR(time_text(2e9), "2 s");
	CHECK_STR(time_text(5), "5 ns");
	CHECK_STR(time_text(0.5), "0.5 ns");
	CHECK_STR(time_text(0.001), "0 ns");
	CHECK_STR(time_text(0), "0 s");
	/* rounded to 3 digits first: the unit follows */
	CHECK_STR(time_text(999.4), "999 ns");
	CHECK_STR(time_text(999.7), "1 us");
	CHECK_STR(time_text(9996), "10 us");
	CHECK_STR(time_text(99960), "100 us");
	CHECK_STR(time_text(1.125e9), "1.13 s"); /* halves away from zero */
	CHECK_STR(time_text(1.05e6), "1.05 ms");
	CHECK_STR(time_text(999.6e9), "1000 s");
	CHECK_STR(time_text(3.6e12), "3600 s");
	CHECK_STR(time_text(1234.4e9), "1234 s");
}

/* put_fixed and put_g15 write what printf does, to the byte: over ties
 * (which printf rounds to even, by the exact binary value), values a
 * product by 100 rounds across a half, the edges of the quick path, and
 * 200,000 pseudo-random values of coordinates' and shares' range. */
static int same_as_printf(double v)
{
	char want[64], got[64];
	int bad = 0;

	for (int d = 0; d <= 3; d++) {
		FILE *f = fmemopen(got, sizeof(got), "w");
		put_fixed(f, v, d);
		fclose(f);
		snprintf(want, sizeof(want), "%.*f", d, v);
		if (strcmp(want, got) != 0 && bad++ < 3)
			fprintf(stderr, "%%.%df of %.17g: printf %s, put_fixed %s\n", d, v, want, got);
	}
	FILE *f = fmemopen(got, sizeof(got), "w");
	put_g15(f, v);
	fclose(f);
	snprintf(want, sizeof(want), "%.15g", v);
	if (strcmp(want, got) != 0 && bad++ < 3)
		fprintf(stderr, "%%.15g of %.17g: printf %s, put_g15 %s\n", v, want, got);
	return bad;
}

TEST(numbers_as_printf_writes_them)
{
	static const double edge[] = { 0,     -0.0,	   0.125,	0.375,	 2.5,	  1.005,
				       0.015, 1.015,	   1e9 - 0.005, 1e9,	 1e15 - 1, 1e15,
				       -1.5,  123456.785, 0.0049999999, 1e-300, 3e300 };
	uint64_t x = 88172645463325252ull;
	int bad = 0;

	for (size_t i = 0; i < sizeof(edge) / sizeof(edge[0]); i++)
		bad += same_as_printf(edge[i]);
	bad += same_as_printf(NAN) + same_as_printf(INFINITY);
	for (int i = 0; i < 200000 && bad < 10; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		double v = (double)(x % 2000000000) / (double)(1 + x % 1000);
		bad += same_as_printf(i % 2 ? v : floor(v) + 0.005 * (double)(x % 200));
	}
	CHECK_INT(bad, 0);
	char out[32];
	FILE *f = fmemopen(out, sizeof(out), "w");
	put_int(f, -42);
	fputc(' ', f);
	put_int(f, 0);
	fclose(f);
	CHECK_STR(out, "-42 0");
}

TEST(colours)
{
	struct rgb a = palette_color(PAL_HOT, HASH_NAME, "main", 4);
	struct rgb b = palette_color(PAL_HOT, HASH_NAME, "main", 4);
	struct rgb k = palette_color(PAL_HOT, HASH_NAME, "sys_read_[k]", 12);
	struct rgb c;

	CHECK(a.r == b.r && a.g == b.g && a.b == b.b);
	CHECK(a.r >= 205 && a.g <= 230 && a.b <= 55);
	CHECK_INT(k.b, 0); /* orange */
	c = palette_color(PAL_MEM, HASH_NAME, "main", 4);
	CHECK_INT(c.r, 0);
	c = palette_color(PAL_HOT, HASH_NAME, "--", 2);
	CHECK(c.r == 160 && c.g == 160 && c.b == 160);
	/* flamegraph.pl's namehash: only the first three characters count */
	CHECK(palette_perl_namehash("abcdef", 6, false) == palette_perl_namehash("abcxyz", 6, false));
	CHECK(palette_perl_namehash("lib`abc", 7, false) == palette_perl_namehash("abc", 3, false));
	c = palette_diff_color(10, 10, false);
	CHECK(c.r == 255 && c.g == 0 && c.b == 0);
	c = palette_diff_color(-5, 10, false);
	CHECK(c.r == 105 && c.g == 105 && c.b == 255);
	c = palette_diff_color(-5, 10, true);
	CHECK(c.r == 255 && c.g == 105);
	/* A frame's change past the largest stack's (a root summing many)
	 * is the deepest colour, not wrapped around to a pale one; NaN, from
	 * infinite counts, is too. */
	c = palette_diff_color(13, 10, false);
	CHECK(c.r == 255 && c.g == 0 && c.b == 0);
	c = palette_diff_color(-1e300, 1, false);
	CHECK(c.r == 0 && c.g == 0 && c.b == 255);
	c = palette_diff_color(NAN, 1, false);
	CHECK(c.r == 255 && c.g == 255 && c.b == 255);
	c = palette_diff_color(INFINITY, INFINITY, false);
	CHECK(c.r == 255 && c.g == 0 && c.b == 0);
	CHECK(palette_parse_rgb("rgb(1,22,255)", 13, &c) && c.r == 1 && c.g == 22 && c.b == 255);
	CHECK(!palette_parse_rgb("rgb(1,22,256)", 13, &c));
	CHECK(!palette_parse_rgb("invalid(244,125,43)", 19, &c));
	/* Blocked time is blue; waker frames, in the palettes with a legend,
	 * yellow as their legend entry, in the others as before. */
	c = palette_blocked_color(HASH_NAME, "schedule_[k]", 12);
	CHECK(c.r == c.g && c.r >= 80 && c.r <= 140 && c.b >= 205);
	c = palette_blocked_swatch();
	CHECK(c.r == 110 && c.g == 110 && c.b == 230);
	for (int pal = PAL_HOT; pal < PAL_COUNT; pal++) {
		struct rgb w = palette_frame_color(pal, HASH_NAME, "pipe_write_[w]", 14, true);
		struct rgb s = palette_kind_color(pal, KIND_WAKER);
		if (palette_uses_kinds(pal))
			CHECK(w.r == w.g && w.r >= 175 && w.b <= 70 && s.r == 202 && s.b == 60);
		else if (pal == PAL_CHAIN)
			CHECK(w.g == w.b && w.g >= 165 && w.r <= 110); /* aqua */
	}
}

TEST(attribute_sanitising)
{
	size_t dropped = 0;
	char *s = name_attrs_sanitize_extra("stroke-width=\"1\" onclick=\"x()\" style='a' k=\"<&>\" junk",
					    &dropped);

	CHECK_STR(s, " stroke-width=\"1\" k=\"&lt;&amp;&gt;\"");
	CHECK_INT(dropped, 3);
	free(s);
	CHECK(name_attrs_href_ok("https://example.com/"));
	CHECK(name_attrs_href_ok("relative/page.html"));
	CHECK(!name_attrs_href_ok("javascript:alert(1)"));
	CHECK(!name_attrs_href_ok(" JaVa\tScript:alert(1)"));
	CHECK(!name_attrs_href_ok("data:text/html,x"));
}
