/*
 * Frame lines, "  ADDR SYMBOL+0xOFF (DSO)", to the groups of folded names
 * they add to a sample: parsed and tidied (tidy.c) the first time, from
 * the frame cache (frame_cache.h) after, most often read back to back by
 * frame_run().
 */
#include "ascii.h"
#include "frame_cache.h"
#include "perf_parser.h"

/* The cache key of a frame line (leading white space already skipped):
 * the line after its address, since the address changes nothing in the
 * folded name, unless --addrs shows it or the address is not plain hex.
 * Fewer bytes to hash, and lines that differ only by address share an
 * entry. */
static inline const char *frame_key_at(const struct perf_parser *p, const char *s, size_t len,
				       size_t i, size_t *klen)
{
	*klen = len;
	if (p->o->include_addrs)
		return s;
	if (i == 0 || (i < len && !is_space(s[i])) ||
	    (i + 1 < len && s[i] == ' ' && s[i + 1] == '('))
		return s;
	*klen = len - i;
	return s + i;
}

/* s[0..i) is the line's hex address, s[i] what follows it. */
static const char *frame_key(const struct perf_parser *p, const char *s, size_t len, size_t *klen)
{
	return frame_key_at(p, s, len, skip_xdigit_lower(s, 0, len), klen);
}

/* prof-symbolize writes code of a known file that has no symbol there
 * "[FILE]+0xOFF" (the offset in the file): flen is the length without the
 * offset. */
static bool unresolved_in_file(const char *func, size_t flen, size_t len)
{
	return flen < len && flen >= 3 && func[0] == '[' && func[flen - 1] == ']';
}

/* Adds the frame of a parsed frame line; line[0..len) is its cache key.
 * Returns false if the frame is too long to fold. */
static bool add_frame(struct perf_parser *p, const struct frame_line *f, const char *line,
		      size_t len)
{
	size_t flen = strip_offset(f->func, f->func_len), n = 0, pieces = 0;
	const char *func = f->func;
	bool inlined = false;

	if (p->o->include_addrs && unresolved_in_file(f->func, flen, f->func_len)) {
		/* "[FILE]+0xOFF" is shown "[FILE+0xOFF]". */
		p->name = xreserve(p->name, &p->name_cap, f->func_len, 1);
		memcpy(p->name, f->func, flen - 1);
		memcpy(p->name + flen - 1, f->func + flen, f->func_len - flen);
		p->name[f->func_len - 1] = ']';
		func = p->name;
		flen = f->func_len;
	}

	/* perf script prints an inlined function "ADDR NAME (inlined)". */
	if (f->mod_len == 7 && memcmp(f->mod, "inlined", 7) == 0)
		inlined = p->o->inline_annotate;
	/* Perl skips "(...)" symbols (process names); like its split, it
	 * finds no frame in a symbol that is only "->"s. */
	if (!(flen > 0 && func[0] == '(')) {
		pieces = flen;
		while (pieces >= 2 && func[pieces - 2] == '-' && func[pieces - 1] == '>')
			pieces -= 2;
	}
	if (pieces > 0) {
		size_t bound = tidy_frame_bound(f, flen);
		if (bound > FRAME_MAX_BYTES || p->text_len + bound > STACK_MAX_BYTES)
			return false;
		p->frames = xreserve(p->frames, &p->frames_cap, p->frames_len + bound, 1);
		n = tidy_frame(f, func, flen, p->java, inlined, p->o, p->frames + p->frames_len);
		add_group(p, n);
	}
	if (p->cache) {
		size_t klen;
		const char *key = frame_key(p, line, len, &klen);
		if (frame_cache_takes(p->cache, klen, n)) {
			uint32_t id = NO_ID;
			if (pieces > 0) {
				id = stack_ids_name(p->ids, p->frames + p->frames_len - n, n);
				/* The sample goes by ids from its first time. */
				p->groups[p->ngroups - 1].id = id;
				p->ntext--;
				hash_id(p, id);
			}
			frame_cache_put(p->cache, p->java, key, klen, id, n, pieces > 0);
		}
	}
	if (pieces > 0 && p->section == SEC_WAKER)
		waker_group(p);
	for (size_t i = 0; i < p->o->nskip_after; i++)
		if (strlen(p->o->skip_after[i]) == flen &&
		    memcmp(p->o->skip_after[i], f->func, flen) == 0)
			p->skip_rest = true;
	return true;
}

/* A frame line of the current sample; false if it cannot be folded. */
bool parsed_frame(struct perf_parser *p, const struct frame_line *f, const char *line, size_t len)
{
	p->after_frame = true;
	if (!p->keep || p->skip_rest)
		return true;
	return add_frame(p, f, line, len);
}

/* A frame line seen before, by its cache key: its names come from the
 * cache. */
static bool cached_key(struct perf_parser *p, const char *key, size_t klen)
{
	const struct fc_entry *e = frame_cache_get(p->cache, p->java, key, klen);

	if (!e)
		return false;
	p->after_frame = true;
	if (!p->keep || p->skip_rest || !(e->klen & FC_GROUP))
		return true;
	new_group(p, e->tlen, e->id);
	hash_id(p, e->id);
	if (p->section == SEC_WAKER)
		waker_group(p);
	return true;
}

bool cached_frame(struct perf_parser *p, const char *s, size_t len)
{
	const char *key;
	size_t klen;

	if (!p->cache)
		return false;
	key = frame_key(p, s, len, &klen);
	return cached_key(p, key, klen);
}

/*
 * The cache key of a frame line as perf script and prof-symbolize write
 * it, a tab, the address and the rest, found without reading the line
 * byte by byte; NULL for any other line.  The common case, in the order
 * of the general one: a line with a tab first is neither blank, nor a
 * comment, nor a srcline.  Inlined: gcc keeps it a call, used twice,
 * and it is on every frame line.
 */
static inline __attribute__((always_inline)) const char *
laid_out_key(const struct perf_parser *p, const char *s, size_t len, size_t *klen)
{
	size_t addr, end;

	if (len < 32 || s[0] != '\t' || !ascii_indent_and_address(s, &addr, &end))
		return NULL;
	return frame_key_at(p, s + addr, len - addr, end - addr, klen);
}

/* A frame line laid out as perf writes it, looked up in the frame cache.
 * FAST_MISS: it was looked up, and is not there. */
static inline enum fast fast_frame(struct perf_parser *p, const char *s, size_t len)
{
	size_t klen;
	const char *key;

	if (!p->cache || !(key = laid_out_key(p, s, len, &klen)))
		return FAST_NONE;
	return cached_key(p, key, klen) ? FAST_HIT : FAST_MISS;
}

/*
 * The frame lines of a sample, back to back, while fast_frame() finds
 * them: most lines of an input.  None of them can end a sample or change
 * the aggregate, so the general loop's tests are left out, and so is
 * what cannot change from one to the next in the common case (a sample
 * kept, of one thread's stack).  Returns the first line that is not
 * one, with what fast_frame() said of it; NULL at the end of the input.
 */
const char *frame_run(struct perf_parser *p, struct line_reader *r, const char *s, size_t *len,
		      enum fast *fast)
{
	size_t klen;
	const char *key;
	const struct fc_entry *e;

	if (!p->cache || !p->keep || p->skip_rest || p->section != SEC_BLOCKED ||
	    p->o->include_addrs) {
		*fast = fast_frame(p, s, *len);
		return s;
	}
	for (;; s = lr_next(r, len)) {
		if (!s)
			return NULL;
		*fast = FAST_NONE;
		if (!(key = laid_out_key(p, s, *len, &klen)))
			return s;
		*fast = FAST_MISS;
		if (!(e = frame_cache_get(p->cache, p->java, key, klen)))
			return s;
		p->after_frame = true;
		if (e->klen & FC_GROUP) {
			new_group(p, e->tlen, e->id);
			hash_id(p, e->id);
		}
	}
}
