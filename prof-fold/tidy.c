/*
 * Frame names: from one frame line of perf script to the folded name(s) it
 * contributes, by stackcollapse-perf.pl's rules:
 *
 *   - the symbol offset "+0x1f" is dropped;
 *   - "[unknown]" becomes the module's base name in brackets, "[libc.so.6]",
 *     with --addrs "[libc.so.6 <7f00c0de>]"; prof-symbolize's unresolved
 *     "[libc.so.6]+0x2724a" becomes "[libc.so.6]", with --addrs
 *     "[libc.so.6+0x2724a]";
 *   - "a->b->c" (Java inlining) is three frames, the later two marked _[i];
 *   - tidy_generic: ';' becomes ':', an argument list "(...)" is cut, except
 *     in Go method names "pkg.(*T).M" and "(anonymous namespace)", and
 *     quotes are removed;
 *   - tidy_java: for the process "java", "Lpkg/Class;" loses its 'L';
 *   - annotations _[k] (kernel module), _[j] (JIT map) with --kernel/--jit;
 *   - a Python frame (its address 0x80000000xxxxxxxx, prof-symbolize's; a
 *     frame-pointer walk's garbage may start with 8 too, never with 8
 *     zeros after it, nor be named) is
 *     kept whole, "name (file.py:12)", ';' written ':', and marked _[p]
 *     with --jit;
 *   - a waker's frames are marked _[w] alone: FlameGraph reads one
 *     annotation per frame, and that a frame ran in the waker says more
 *     than that it was kernel or inlined code.
 *
 * Differences from the Perl tool, each a fix of a plain bug (see the man
 * page): argument lists are found outside template brackets, so
 * "std::function<int (int)>::operator()" keeps its template; a versioned
 * vmlinux or a kernel module .ko file is kernel code; a jitdump
 * "jitted-PID-N.so" is JIT code; a module "PATH (deleted)" is one module.
 */
#include <string.h>

#include "ascii.h"
#include "fold.h"
#include "frame_kind.h"

static bool is_word(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || is_digit(c) || c == '_';
}

static bool has(const char *s, size_t len, const char *lit)
{
	size_t n = strlen(lit);

	return len >= n && memmem(s, len, lit, n) != NULL;
}

static bool ends_with(const char *s, size_t len, const char *lit)
{
	size_t n = strlen(lit);

	return len >= n && memcmp(s + len - n, lit, n) == 0;
}

/* Fills f: the address is s[pc..p), the symbol s[fs..sp) (sp is the space
 * before the module's '(' at s[k]), the module s[k + 1..close). */
static void set_frame(const char *s, size_t pc, size_t p, size_t fs, size_t sp, size_t k,
		      size_t close, struct frame_line *f)
{
	f->pc = s + pc;
	f->pc_len = p - pc;
	f->func = s + fs;
	f->func_len = sp - fs;
	f->mod = s + k + 1;
	f->mod_len = close - k - 1;
}

/* The same for a line that ends with the module's ')': the Perl pattern
 * gives the symbol at least the character before the space. */
static void set_frame_at_end(const char *s, size_t len, size_t pc, size_t p, size_t w, size_t k,
			     struct frame_line *f)
{
	size_t sp = k - 1;

	set_frame(s, pc, p, w < sp ? w : sp - 1, sp, k, len - 1, f);
}

/* perf and prof-symbolize name a file deleted since it was mapped
 * "PATH (deleted)": "ADDR SYMBOL (PATH (deleted))".  The Perl pattern
 * takes "deleted" for the module and leaves "SYMBOL (PATH" for the
 * symbol; here the module is the whole "PATH (deleted)". */
static bool deleted_module(const char *s, size_t len, size_t pc, size_t p, size_t w,
			   struct frame_line *f)
{
	static const char tail[] = " (deleted))";
	size_t n = sizeof(tail) - 1;

	if (len < p + n + 3 || memcmp(s + len - n, tail, n) != 0)
		return false;
	const char *end = s + len - n, *open = memrchr(s + p + 1, '(', (size_t)(end - s - p - 1));
	if (!open || open[-1] != ' ' || open + 1 == end || (size_t)(open - s) < p + 2 ||
	    memchr(open, ' ', (size_t)(end - open)) || memchr(open, '\t', (size_t)(end - open)))
		return false;
	set_frame_at_end(s, len, pc, p, w, (size_t)(open - s), f);
	return true;
}

/*
 * The Perl pattern is /^\s*(\w+)\s*(.+) \((\S*)\)/: the address is the
 * leading word, the module is in the last " (...)" whose text has no
 * white space and which is closed by a ')', and the symbol is everything
 * between (at least one character, so "ADDR  (dso)" has the symbol " ").
 */
bool parse_frame_line(const char *s, size_t len, struct frame_line *f)
{
	size_t i = 0, pc, p, w, close = 0;
	bool have_close = false;

	while (i < len && is_space(s[i]))
		i++;
	pc = i;
	while (i < len && is_word(s[i]))
		i++;
	if (i == pc)
		return false;
	p = i;
	while (i < len && is_space(s[i]))
		i++;
	w = i;
	if (deleted_module(s, len, pc, p, w, f))
		return true;
	/* The common case: "... (DSO)" with no space in DSO. */
	if (len > p + 3 && s[len - 1] == ')') {
		const char *open = memrchr(s + p + 2, '(', len - p - 3);
		if (open && open[-1] == ' ' && !memchr(open, ' ', (size_t)(s + len - open)) &&
		    !memchr(open, '\t', (size_t)(s + len - open))) {
			set_frame_at_end(s, len, pc, p, w, (size_t)(open - s), f);
			return true;
		}
	}
	/* Right to left: remember the last ')' of the current run of
	 * non-space characters; a '(' after a space in that run opens the
	 * module. */
	for (size_t k = len; k-- > p + 1;) {
		char c = s[k];
		if (is_space(c)) {
			have_close = false;
		} else if (c == ')' && !have_close) {
			have_close = true;
			close = k;
		} else if (c == '(' && s[k - 1] == ' ' && have_close && close > k) {
			size_t sp = k - 1; /* the space before '(' */
			if (sp < p + 1) {
				/* Only the address precedes: the regex gives
				 * its last character to the symbol. */
				if (sp != p || p - pc < 2)
					return false;
				p--;
			}
			size_t fs = w < sp ? w : sp - 1;
			if (fs < p)
				fs = p;
			set_frame(s, pc, p, fs, sp, k, close, f);
			return true;
		}
	}
	return false;
}

/* perf script -F without dso: "ADDR SYMBOL" or "ADDR" alone.  The address
 * must be hexadecimal, so that a stray word is not taken for a frame. */
bool parse_frame_line_nodso(const char *s, size_t len, struct frame_line *f)
{
	size_t i = 0, pc, e;

	while (i < len && is_space(s[i]))
		i++;
	pc = i;
	while (i < len && is_xdigit_lower(s[i]))
		i++;
	if (i == pc || (i < len && !is_space(s[i])))
		return false;
	f->pc = s + pc;
	f->pc_len = i - pc;
	while (i < len && is_space(s[i]))
		i++;
	e = len;
	while (e > i && is_space(s[e - 1]))
		e--;
	f->func = i < e ? s + i : "[unknown]";
	f->func_len = i < e ? e - i : 9;
	f->mod = "[unknown]";
	f->mod_len = 9;
	return true;
}

size_t strip_offset(const char *func, size_t len)
{
	size_t i = len;

	while (i > 0 && is_xdigit_lower(func[i - 1]))
		i--;
	if (i < len && i >= 3 && memcmp(func + i - 3, "+0x", 3) == 0)
		return i - 3;
	return len;
}

/* "vmlinux" possibly followed by a version: "vmlinux-5.4.14-cloud.1". */
static bool is_vmlinux(const char *mod, size_t len)
{
	const char *v = NULL;

	for (const char *q = mod; (q = memmem(q, len - (size_t)(q - mod),
					      "vmlinux", 7)) != NULL; q++)
		v = q;
	if (!v)
		return false;
	for (const char *q = v + 7; q < mod + len; q++)
		if (!is_word(*q) && *q != '-' && *q != '.')
			return false;
	return true;
}

bool mod_is_kernel(const char *mod, size_t len)
{
	if (has(mod, len, "unknown"))
		return false;
	return (len > 0 && mod[0] == '[') || is_vmlinux(mod, len) ||
	       ends_with(mod, len, ".ko") || has(mod, len, ".ko.");
}

bool mod_is_jit(const char *mod, size_t len)
{
	const char *q = mod, *end = mod + len;

	while ((q = memmem(q, (size_t)(end - q), "/tmp/perf-", 10)) != NULL) {
		const char *d = q + 10, *e = d;
		while (e < end && is_digit(*e))
			e++;
		if (e > d && end - e >= 4 && memcmp(e, ".map", 4) == 0)
			return true;
		q++;
	}
	return has(mod, len, "/jitted-") && ends_with(mod, len, ".so");
}

/* Skips a C++ operator name after "operator" at s[i]; returns the index
 * after it. */
static size_t skip_operator(const char *s, size_t len, size_t i)
{
	/* "operator()(int)" is named "operator()"; in "operator()" alone
	 * the parentheses are the argument list. */
	if (i + 2 < len && s[i] == '(' && s[i + 1] == ')' && s[i + 2] == '(')
		return i + 2;
	while (i < len && s[i] && strchr("<>=!+-*/%^&|~[],", s[i]))
		i++;
	return i;
}

#define ANON "(anonymous namespace)"

size_t tidy_cut_args(const char *s, size_t len)
{
	const char *go = memmem(s, len, ".(", 2);
	size_t perl_cut = len, cut = len;
	int depth = 0;
	bool unbalanced = false;

	/* A Go method name "net/http.(*Client).Do" keeps its parentheses. */
	if (go && memmem(go + 2, len - (size_t)(go + 2 - s), ").", 2))
		return len;
	/* The Perl rule: the first '(' that does not open an anonymous
	 * namespace cuts the name. */
	for (size_t i = 0; i < len; i++) {
		if (s[i] != '(')
			continue;
		if (len - i >= sizeof(ANON) - 1 &&
		    memcmp(s + i, ANON, sizeof(ANON) - 1) == 0)
			continue;
		perl_cut = i;
		break;
	}
	if (perl_cut == len)
		return len;
	/* The fix: only a '(' outside <>, {} and [] starts the arguments. */
	for (size_t i = 0; i < len && cut == len; i++) {
		switch (s[i]) {
		case 'o':
			if (len - i > 8 && memcmp(s + i, "operator", 8) == 0 &&
			    (i == 0 || !is_word(s[i - 1])) && !is_word(s[i + 8]))
				i = skip_operator(s, len, i + 8) - 1;
			break;
		case '<': case '{': case '[':
			depth++;
			break;
		case '>': case '}': case ']': case ')':
			if (depth == 0)
				unbalanced = true;
			else
				depth--;
			break;
		case '(':
			if (len - i >= sizeof(ANON) - 1 &&
			    memcmp(s + i, ANON, sizeof(ANON) - 1) == 0)
				i += sizeof(ANON) - 2;
			else if (depth == 0)
				cut = i;
			else
				depth++;
			break;
		}
	}
	if (unbalanced || (cut == len && depth != 0))
		return perl_cut;
	return cut;
}

enum {
	C_ARROW = 1, /* '-', maybe "->" */
	C_PAREN = 2, /* '(' */
	C_EDIT = 4,  /* ';', '"', '\'' */
};

static unsigned char char_class[256] = {
	['-'] = C_ARROW, ['('] = C_PAREN, [';'] = C_EDIT, ['"'] = C_EDIT,
	['\''] = C_EDIT,
};

static unsigned classify(const char *s, size_t len)
{
	unsigned m = 0;

	for (size_t i = 0; i < len; i++)
		m |= char_class[(unsigned char)s[i]];
	return m;
}

/* tidy_generic and tidy_java on out[0..len); returns the new length.
 * mask tells which special characters the name may hold. */
static size_t tidy_name(char *out, size_t len, bool java, unsigned mask)
{
	size_t j = len;

	if (mask & C_PAREN)
		j = len = tidy_cut_args(out, len);
	if (mask & C_EDIT) {
		j = 0;
		for (size_t i = 0; i < len; i++) {
			char c = out[i];
			if (c == '"' || c == '\'')
				continue;
			out[j++] = c == ';' ? ':' : c;
		}
	}
	if (java && j > 0 && out[0] == 'L' && memchr(out, '/', j)) {
		memmove(out, out + 1, j - 1);
		j--;
	}
	return j;
}

static char *put(char *o, const char *s, size_t n)
{
	memcpy(o, s, n);
	return o + n;
}

size_t tidy_frame_bound(const struct frame_line *f, size_t func_len)
{
	/* Each "->" piece may grow by a separator and an annotation; each
	 * "[unknown]" piece by the module name and the address. */
	const char *p = f->func, *end = f->func + func_len;
	size_t bound = func_len + 16;

	for (;;) {
		const char *arrow = memmem(p, (size_t)(end - p), "->", 2);
		const char *pe = arrow ? arrow : end;
		bound += 8;
		if (pe - p == 9 && memcmp(p, "[unknown]", 9) == 0)
			bound += f->mod_len + f->pc_len + 8;
		if (!arrow)
			return bound;
		p = arrow + 2;
	}
}

size_t tidy_frame(const struct frame_line *f, const char *func, size_t func_len,
		  bool java, bool inlined_frame, const struct fold_opts *o,
		  char *out)
{
	const char *p = func, *end = func + func_len;
	char *w = out;
	int idx = 0;
	unsigned mask;

	/* A Python function (an address no user code has, FORMATS.md):
	 * "qualname (file.py:line)" is its name, parentheses and all. */
	if (f->pc_len == 16 && memcmp(f->pc, "80000000", 8) == 0 &&
	    !(func_len == 9 && memcmp(func, "[unknown]", 9) == 0)) {
		/* Its parts come from the program: a ';' would split it. */
		for (size_t i = 0; i < func_len; i++)
			*w++ = func[i] == ';' ? ':' : func[i];
		if (o->annotate_jit && !has(out, func_len, frame_kind_suffix(KIND_PYTHON)))
			w += frame_kind_put(w, KIND_PYTHON);
		return (size_t)(w - out);
	}
	mask = classify(func, func_len);

	/* Like Perl's split, trailing empty pieces are no frames. */
	while (end - p >= 2 && end[-2] == '-' && end[-1] == '>')
		end -= 2;
	if (p == end)
		return 0;
	for (;; idx++) {
		const char *arrow = (mask & C_ARROW)
			? memmem(p, (size_t)(end - p), "->", 2) : NULL;
		const char *pe = arrow ? arrow : end;
		char *start = w;
		unsigned m = mask;

		if (idx > 0)
			*w++ = ';', start = w;
		if (pe - p == 9 && memcmp(p, "[unknown]", 9) == 0) {
			const char *name = "unknown";
			size_t nlen = 7;
			if (!(f->mod_len == 9 && memcmp(f->mod, "[unknown]", 9) == 0)) {
				size_t mlen = f->mod_len;
				if (ends_with(f->mod, mlen, " (deleted)"))
					mlen -= 10;
				const char *slash = memrchr(f->mod, '/', mlen);
				name = slash ? slash + 1 : f->mod;
				nlen = mlen - (size_t)(name - f->mod);
			}
			*w++ = '[';
			w = put(w, name, nlen);
			if (o->include_addrs) {
				w = put(w, " <", 2);
				w = put(w, f->pc, f->pc_len);
				*w++ = '>';
			}
			*w++ = ']';
			m = classify(start, (size_t)(w - start));
		} else {
			w = put(w, p, (size_t)(pe - p));
		}
		if (m & (C_PAREN | C_EDIT) || (java && *start == 'L'))
			w = start + tidy_name(start, (size_t)(w - start), java, m);
		enum frame_kind kind = KIND_USER;
		if (idx > 0 || inlined_frame)
			kind = KIND_INLINED;
		else if (o->annotate_kernel && mod_is_kernel(f->mod, f->mod_len))
			kind = KIND_KERNEL;
		else if (o->annotate_jit && mod_is_jit(f->mod, f->mod_len))
			kind = KIND_JIT;
		/* As in the Perl tool, a name that holds its inlined or JIT
		 * annotation already does not get it twice. */
		if (kind == KIND_KERNEL ||
		    (kind != KIND_USER && !has(start, (size_t)(w - start), frame_kind_suffix(kind))))
			w += frame_kind_put(w, kind);
		if (!arrow)
			break;
		p = arrow + 2;
	}
	return (size_t)(w - out);
}

size_t tidy_waker_bound(const char *names, size_t len)
{
	size_t bound = len + FRAME_KIND_SUFFIX_LEN;

	for (const char *q = names; (q = memchr(q, ';', len - (size_t)(q - names))) != NULL; q++)
		bound += FRAME_KIND_SUFFIX_LEN;
	return bound;
}

size_t tidy_waker(const char *names, size_t len, char *out)
{
	const char *end = names + len;
	char *w = out;

	for (;;) {
		const char *semi = memrchr(names, ';', (size_t)(end - names));
		const char *piece = semi ? semi + 1 : names;
		size_t shown;

		frame_kind_of(piece, (size_t)(end - piece), &shown);
		w = put(w, piece, shown);
		w += frame_kind_put(w, KIND_WAKER);
		if (!semi)
			return (size_t)(w - out);
		*w++ = ';';
		end = semi;
	}
}
