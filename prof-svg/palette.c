#include "palette.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#define XXH_INLINE_ALL
#include <xxhash.h>

static const char *const NAMES[PAL_COUNT] = {
	"hot", "mem", "io", "wakeup", "chain", "java", "js", "perl",
	"red", "green", "blue", "aqua", "yellow", "purple", "orange",
};

int palette_from_name(const char *name)
{
	for (int i = 0; i < PAL_COUNT; i++)
		if (strcmp(name, NAMES[i]) == 0)
			return i;
	return -1;
}

const char *palette_name(int pal)
{
	return pal >= 0 && pal < PAL_COUNT ? NAMES[pal] : "?";
}

double palette_perl_namehash(const char *s, size_t len, bool reversed)
{
	double vector = 0, weight = 1, max = 1;
	int mod = 10;
	size_t start = 0;

	/* A "module`function" name is hashed from after the module (the
	 * backtick must not be the first character). */
	if (!reversed)
		for (size_t i = 1; i < len; i++)
			if (s[i] == '`') {
				start = i + 1;
				break;
			}
	for (size_t k = start; k < len; k++) {
		unsigned char c = (unsigned char)(reversed ? s[len - 1 - (k - start)] : s[k]);
		int i = c % mod;
		vector += ((double)i / (mod - 1)) * weight;
		mod++;
		max += weight;
		weight *= 0.70;
		if (mod > 12)
			break;
	}
	return 1 - vector / max;
}

static struct rgb rgb(int r, int g, int b)
{
	return (struct rgb){ (uint8_t)r, (uint8_t)g, (uint8_t)b };
}

static bool contains(const char *s, size_t len, const char *needle)
{
	return memmem(s, len, needle, strlen(needle)) != NULL;
}

/* The multi palettes pick a single-hue palette by what the name looks like. */
static int resolve(int pal, const char *s, size_t len)
{
	size_t shown;
	enum frame_kind kind = frame_kind_of(s, len, &shown);

	/* Waker frames stand for another thread's stack, not for time it
	 * ran: in the palettes with a legend they have a colour of their own,
	 * which no other kind there takes. */
	if (kind == KIND_WAKER && palette_uses_kinds(pal))
		return PAL_YELLOW;
	/* Python frames are the program's own, drawn apart from the
	 * interpreter's: purple, which no other kind takes. */
	if (kind == KIND_PYTHON && palette_uses_kinds(pal))
		return PAL_PURPLE;
	switch (pal) {
	case PAL_HOT:
		if (kind == KIND_KERNEL)
			return PAL_ORANGE;
		if (kind == KIND_JIT)
			return PAL_GREEN;
		if (kind == KIND_INLINED)
			return PAL_AQUA;
		return PAL_HOT;
	case PAL_JAVA: {
		static const char *const pkgs[] = { "java/", "javax/", "jdk/", "net/", "org/",
						    "com/", "io/", "sun/" };
		const char *p = s;
		size_t n = len;
		if (kind == KIND_JIT)
			return PAL_GREEN;
		if (kind == KIND_INLINED)
			return PAL_AQUA;
		if (n && *p == 'L')
			p++, n--;
		for (size_t i = 0; i < sizeof(pkgs) / sizeof(*pkgs); i++)
			if (n >= strlen(pkgs[i]) && memcmp(p, pkgs[i], strlen(pkgs[i])) == 0)
				return PAL_GREEN;
		if (contains(s, len, ":::"))
			return PAL_GREEN;
		if (kind == KIND_KERNEL)
			return PAL_ORANGE;
		if (contains(s, len, "::"))
			return PAL_YELLOW;
		return PAL_RED;
	}
	case PAL_PERL:
		if (contains(s, len, "::"))
			return PAL_YELLOW;
		if (contains(s, len, "Perl") || contains(s, len, ".pl"))
			return PAL_GREEN;
		if (kind == KIND_KERNEL)
			return PAL_ORANGE;
		return PAL_RED;
	case PAL_JS: {
		/* flamegraph.pl draws JIT frames without a '/' aqua, the
		 * colour of inlined frames: one colour here, the legend's. */
		if (kind == KIND_JIT)
			return PAL_GREEN;
		if (kind == KIND_INLINED)
			return PAL_AQUA;
		if (contains(s, len, "::"))
			return PAL_YELLOW;
		const char *slash = memchr(s, '/', len);
		if (slash && memmem(slash, len - (size_t)(slash - s), ".js", 3))
			return PAL_GREEN;
		if (memchr(s, ':', len))
			return PAL_AQUA;
		if (len == 1 && s[0] == ' ')
			return PAL_GREEN;
		if (contains(s, len, frame_kind_suffix(KIND_KERNEL)))
			return PAL_ORANGE;
		return PAL_RED;
	}
	case PAL_WAKEUP:
		return PAL_AQUA;
	case PAL_CHAIN:
		return contains(s, len, frame_kind_suffix(KIND_WAKER)) ? PAL_AQUA : PAL_BLUE;
	}
	return pal;
}

static struct rgb shade(int pal, double v1, double v2, double v3)
{
	switch (pal) {
	case PAL_HOT:
		return rgb(205 + (int)(50 * v3), (int)(230 * v1), (int)(55 * v2));
	case PAL_MEM:
		return rgb(0, 190 + (int)(50 * v2), (int)(210 * v1));
	case PAL_IO: {
		int r = 80 + (int)(60 * v1);
		return rgb(r, r, 190 + (int)(55 * v2));
	}
	case PAL_RED: {
		int x = 50 + (int)(80 * v1);
		return rgb(200 + (int)(55 * v1), x, x);
	}
	case PAL_GREEN: {
		int x = 50 + (int)(60 * v1);
		return rgb(x, 200 + (int)(55 * v1), x);
	}
	case PAL_BLUE: {
		int x = 80 + (int)(60 * v1);
		return rgb(x, x, 205 + (int)(50 * v1));
	}
	case PAL_YELLOW: {
		int x = 175 + (int)(55 * v1);
		return rgb(x, x, 50 + (int)(20 * v1));
	}
	case PAL_PURPLE: {
		int x = 190 + (int)(65 * v1);
		return rgb(x, 80 + (int)(60 * v1), x);
	}
	case PAL_AQUA:
		return rgb(50 + (int)(60 * v1), 165 + (int)(55 * v1), 165 + (int)(55 * v1));
	case PAL_ORANGE:
		return rgb(190 + (int)(65 * v1), 90 + (int)(65 * v1), 0);
	}
	return rgb(0, 0, 0);
}

struct rgb palette_color(int pal, enum color_hash how, const char *s, size_t len)
{
	return palette_frame_color(pal, how, s, len, false);
}

/* The shade of a name within its palette: three numbers in [0, 1). */
static void name_shade(enum color_hash how, const char *s, size_t len, double v[3])
{
	switch (how) {
	case HASH_PERL:
		v[0] = palette_perl_namehash(s, len, false);
		v[1] = v[2] = palette_perl_namehash(s, len, true);
		break;
	case HASH_RANDOM:
		v[0] = drand48();
		v[1] = drand48();
		v[2] = drand48();
		break;
	default: {
		uint64_t h = XXH3_64bits(s, len);
		v[0] = (double)(h & 0x1fffff) / 0x200000;
		v[1] = (double)(h >> 21 & 0x1fffff) / 0x200000;
		v[2] = (double)(h >> 42 & 0x1fffff) / 0x200000;
	}
	}
}

struct rgb palette_frame_color(int pal, enum color_hash how, const char *s, size_t len,
			       bool by_kind)
{
	double v[3];
	int p;

	if (len == 2 && memcmp(s, "--", 2) == 0)
		return rgb(160, 160, 160);
	if (len == 1 && s[0] == '-')
		return rgb(200, 200, 200);
	name_shade(how, s, len, v);
	p = resolve(pal, s, len);
	/* The hot palette's user frames span red to yellow through the
	 * kernel's orange: with a legend they are red, as async-profiler
	 * draws native code. */
	if (by_kind && p == PAL_HOT)
		p = PAL_RED;
	return shade(p, v[0], v[1], v[2]);
}

/* Blocked time is blue, as flamegraph.pl draws off-CPU graphs ("io",
 * "blue"); no kind of frame is blue in the palettes with a legend. */
struct rgb palette_blocked_color(enum color_hash how, const char *s, size_t len)
{
	double v[3];

	name_shade(how, s, len, v);
	return shade(PAL_BLUE, v[0], v[1], v[2]);
}

struct rgb palette_blocked_swatch(void)
{
	return shade(PAL_BLUE, 0.5, 0.5, 0.5);
}

bool palette_uses_kinds(int pal)
{
	return pal == PAL_HOT || pal == PAL_JAVA || pal == PAL_JS;
}

struct rgb palette_kind_color(int pal, enum frame_kind k)
{
	char name[16];
	int n = snprintf(name, sizeof(name), "x%s", frame_kind_suffix(k));
	int p = resolve(pal, name, (size_t)n);

	if (k == KIND_USER)
		p = PAL_RED;
	return shade(p, 0.5, 0.5, 0.5);
}

/* 210 at no change, 0 at the largest, for 210 * (max - |delta|) / max:
 * kept in [0, 210], and 0 for NaN, since a count past 2^1023 makes
 * deltas infinite and their differences NaN, and a double outside int's
 * range does not convert. */
static int diff_level(double delta, double max)
{
	double v = 210 * (max - fabs(delta)) / max;

	return v > 0 ? (int)(v < 210 ? v : 210) : 0;
}

struct rgb palette_diff_color(double delta, double max, bool negate)
{
	int r = 255, g = 255, b = 255;

	if (negate)
		delta = -delta;
	if (max > 0 && delta > 0) {
		g = b = diff_level(delta, max);
	} else if (max > 0 && delta < 0) {
		r = g = diff_level(delta, max);
	}
	return rgb(r, g, b);
}

static bool safe_css_color(const char *s)
{
	size_t n = strlen(s);
	struct rgb c;

	if (n == 0 || n > 24)
		return false;
	if (s[0] == '#') {
		if (n != 4 && n != 7)
			return false;
		for (size_t i = 1; i < n; i++)
			if (!isxdigit((unsigned char)s[i]))
				return false;
		return true;
	}
	if (palette_parse_rgb(s, n, &c))
		return true;
	for (size_t i = 0; i < n; i++)
		if (!isalpha((unsigned char)s[i]))
			return false;
	return true;
}

bool palette_background(const char *name, int pal, char top[32], char bottom[32])
{
	const char *t = "#eeeeee", *b = "#eeeeb0"; /* yellow */

	if (!name)
		name = pal < 0			? "grey"
		       : pal == PAL_MEM		? "green"
		       : pal == PAL_IO || pal == PAL_WAKEUP || pal == PAL_CHAIN ? "blue"
		       : pal >= PAL_RED		? "grey"
						: "yellow";
	if (strcmp(name, "yellow") == 0) {
	} else if (strcmp(name, "blue") == 0) {
		b = "#e0e0ff";
	} else if (strcmp(name, "green") == 0) {
		t = "#eef2ee", b = "#e0ffe0";
	} else if (strcmp(name, "grey") == 0 || strcmp(name, "gray") == 0) {
		t = "#f8f8f8", b = "#e8e8e8";
	} else if (safe_css_color(name)) {
		t = b = name;
	} else {
		return false;
	}
	snprintf(top, 32, "%s", t);
	snprintf(bottom, 32, "%s", b);
	return true;
}

bool palette_parse_rgb(const char *s, size_t len, struct rgb *out)
{
	int v[3], pos = 4;
	char buf[40];

	if (len < 10 || len >= sizeof(buf) || memcmp(s, "rgb(", 4) != 0 || s[len - 1] != ')')
		return false;
	memcpy(buf, s, len);
	buf[len] = '\0';
	for (int i = 0; i < 3; i++) {
		int n = 0, digits = 0;
		while (isdigit((unsigned char)buf[pos]) && digits < 4)
			n = n * 10 + (buf[pos++] - '0'), digits++;
		if (!digits || n > 255)
			return false;
		v[i] = n;
		if (buf[pos] != (i < 2 ? ',' : ')'))
			return false;
		pos++;
	}
	if ((size_t)pos != len)
		return false;
	*out = rgb(v[0], v[1], v[2]);
	return true;
}
