#include "capture.h"

#include <endian.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "input_kind.h"

/* docs/FORMATS.md's table of LOSS causes, as prof-sample and
 * prof-symbolize both say them. */
static const struct cap_loss_info loss_info[CAP_LOSS_MAX] = {
	[CAP_LOSS_KSTACK] = { "kernel-stack", "kernel stacks", "stack map full",
			      "raise --stack-storage-size", CAP_LOSS_PARTIAL },
	[CAP_LOSS_USTACK] = { "user-stack", "user stacks", "stack map full",
			      "raise --stack-storage-size", CAP_LOSS_PARTIAL },
	[CAP_LOSS_COUNT_MAP] = { "count-map-full", "samples", "count map full",
				 "raise --count-storage-size", CAP_LOSS_PARTIAL },
	[CAP_LOSS_PROC] = { "proc-unreadable", "processes' mappings",
			    "the processes exited before they were read", NULL, CAP_LOSS_PART },
	[CAP_LOSS_MMAP_EVENTS] = { "mmap-events", "mmap events", "event ring full", NULL,
				   CAP_LOSS_PART },
	[CAP_LOSS_RING] = { "ring-full", "samples", "ring buffer full",
			    "prof-sample could not unwind as fast as samples came",
			    CAP_LOSS_PARTIAL },
	[CAP_LOSS_TRUNC_NO_CFI] = { "truncated-no-cfi", "user stacks cut short",
				    "at code without CFI", NULL, CAP_LOSS_CUT },
	[CAP_LOSS_TRUNC_STACK] = { "truncated-stack-copy", "user stacks cut short",
				   "at the end of the stack copy", "see --stack-size",
				   CAP_LOSS_CUT },
	[CAP_LOSS_TRUNC_ERROR] = { "truncated-unwind-error", "user stacks cut short",
				   "at CFI that could not be evaluated", NULL, CAP_LOSS_CUT },
	[CAP_LOSS_WAKE_CHAIN] = { "wakeup-chain-cut", "wakers", "beyond --wakeup-depth",
				  NULL, CAP_LOSS_ASKED },
	[CAP_LOSS_SWITCH] = { "switch-untimed", "off-CPU blocks", "switch-out not timed",
			      NULL, CAP_LOSS_PARTIAL },
	[CAP_LOSS_WAKER_STACK] = { "waker-stack", "waker stacks",
				   "dropped before their blocks were read", NULL, CAP_LOSS_PART },
	[CAP_LOSS_BLOCK_USTACK] = { "block-user-stack", "off-CPU blocks' user stacks",
				    "the thread went on from where it blocked (a page fault) "
				    "before they were copied",
				    NULL, CAP_LOSS_PART },
	[CAP_LOSS_BLOCK_FALLBACK] = { "block-stack-walked", "user stacks cut short",
				      "of blocks walked as they began, not copied (the ring "
				      "was full, or the thread had gone on)",
				      NULL, CAP_LOSS_CUT },
};

const struct cap_loss_info *cap_loss_info(uint32_t cause)
{
	return cause && cause < CAP_LOSS_MAX ? &loss_info[cause] : NULL;
}

const char *cap_loss_name(uint32_t cause)
{
	const struct cap_loss_info *li = cap_loss_info(cause);

	return li ? li->name : NULL;
}

uint64_t cap_loss_cut(const uint64_t lost[CAP_LOSS_MAX])
{
	uint64_t n = 0;

	for (uint32_t c = 1; c < CAP_LOSS_MAX; c++)
		if (loss_info[c].kind == CAP_LOSS_CUT)
			n += lost[c];
	return n;
}

void cap_loss_cut_said(const uint64_t lost[CAP_LOSS_MAX], char *buf, size_t size)
{
	size_t len = 0;

	buf[0] = '\0';
	for (uint32_t c = 1; c < CAP_LOSS_MAX && len < size; c++) {
		const struct cap_loss_info *li = &loss_info[c];
		int n;

		if (li->kind != CAP_LOSS_CUT || !lost[c])
			continue;
		n = snprintf(buf + len, size - len, "%s%" PRIu64 " %s%s%s%s", len ? ", " : "",
			     lost[c], li->why, li->remedy ? " (" : "", li->remedy ? li->remedy : "",
			     li->remedy ? ")" : "");
		if (n < 0)
			break;
		len += (size_t)n;
	}
}

struct cap_str cap_cstr(const char *s)
{
	size_t n = s ? strlen(s) : 0;

	return (struct cap_str){ s ? s : "", n > UINT16_MAX ? UINT16_MAX : (uint16_t)n };
}

/* Little-endian loads, so the format does not depend on the
 * host's byte order.  The loads of whole words are one instruction each
 * on the hosts that matter: readers decode every field of every record. */
static inline uint64_t le_get(const uint8_t *p, int n)
{
	uint64_t v = 0;
	uint32_t w;
	uint16_t h;

	switch (n) {
	case 8:
		memcpy(&v, p, 8);
		return le64toh(v);
	case 4:
		memcpy(&w, p, 4);
		return le32toh(w);
	case 2:
		memcpy(&h, p, 2);
		return le16toh(h);
	}
	for (int i = n - 1; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

uint64_t cap_stack_ip(const struct cap_stack *s, uint32_t i)
{
	return le_get(s->ips + (size_t)i * 8, 8);
}

uint64_t cap_rawstack_reg(const struct cap_rawstack *r, uint32_t i)
{
	return le_get(r->regs + (size_t)i * 8, 8);
}

/* --- writing -------------------------------------------------------------- */

static void put(struct cap_writer *w, const void *p, size_t n)
{
	w->buf = xreserve_from(w->buf, &w->cap, w->len + n, 1, 4096);
	if (n)
		memcpy(w->buf + w->len, p, n);
	w->len += n;
}

static void put_le(struct cap_writer *w, uint64_t v, int n)
{
	uint8_t b[8];

	for (int i = 0; i < n; i++, v >>= 8)
		b[i] = (uint8_t)v;
	put(w, b, n);
}

#define put_u8(w, v) put_le(w, v, 1)
#define put_u16(w, v) put_le(w, v, 2)
#define put_u32(w, v) put_le(w, v, 4)
#define put_u64(w, v) put_le(w, v, 8)

static void put_str(struct cap_writer *w, struct cap_str s)
{
	put_u16(w, s.len);
	put(w, s.s, s.len);
}

/* Records are assembled in w->buf after an 8-byte placeholder header, then
 * written in one fwrite so a reader never sees half a header. */
static void begin(struct cap_writer *w)
{
	w->len = 0;
	put_u64(w, 0);
}

static void finish(struct cap_writer *w, uint32_t type)
{
	uint32_t len = (uint32_t)(w->len - CAP_RECORD_HEADER);

	for (int i = 0; i < 4; i++) {
		w->buf[i] = (uint8_t)(type >> (8 * i));
		w->buf[4 + i] = (uint8_t)(len >> (8 * i));
	}
	fwrite(w->buf, 1, w->len, w->f);
	w->bytes += w->len;
}

void capw_init(struct cap_writer *w, FILE *f)
{
	memset(w, 0, sizeof(*w));
	w->f = f;
	put(w, CAP_MAGIC, 8);
	put_u16(w, CAP_MAJOR);
	put_u16(w, CAP_MINOR);
	put_u32(w, 0);
	fwrite(w->buf, 1, w->len, f);
	w->bytes = w->len;
}

void capw_free(struct cap_writer *w)
{
	free(w->buf);
	w->buf = NULL;
}

void capw_info(struct cap_writer *w, const struct cap_info *in)
{
	begin(w);
	put_u64(w, in->start_ns);
	put_u32(w, in->freq);
	put_u64(w, in->period);
	put_u32(w, in->ncpus);
	put_str(w, in->event);
	put_str(w, in->hostname);
	put_str(w, in->release);
	put_str(w, in->boot_id);
	put_u64(w, in->min_block_ns);
	put_u64(w, in->max_block_ns);
	put_u32(w, in->states);
	put_u32(w, in->wakeup_depth);
	put_u64(w, in->time_resolution_ns);
	finish(w, CAP_INFO);
}

void capw_comm(struct cap_writer *w, uint32_t pid, uint32_t tid, const char *comm)
{
	begin(w);
	put_u32(w, pid);
	put_u32(w, tid);
	put_str(w, cap_cstr(comm));
	finish(w, CAP_COMM);
}

void capw_map(struct cap_writer *w, const struct cap_map *m)
{
	begin(w);
	put_u32(w, m->pid);
	put_u64(w, m->start);
	put_u64(w, m->end);
	put_u64(w, m->pgoff);
	put_u64(w, m->dev);
	put_u64(w, m->inode);
	put_u8(w, m->build_id_len);
	put(w, m->build_id, m->build_id_len);
	put_str(w, m->path);
	put_u32(w, m->owner);
	finish(w, CAP_MAP);
}

void capw_ksym(struct cap_writer *w, uint64_t start, uint64_t end, const char *name,
	       const char *module)
{
	begin(w);
	put_u64(w, start);
	put_u64(w, end);
	put_str(w, cap_cstr(name));
	put_str(w, cap_cstr(module));
	finish(w, CAP_KSYM);
}

void capw_stack(struct cap_writer *w, uint32_t id, uint32_t nr, const uint64_t *ips)
{
	begin(w);
	put_u32(w, id);
	put_u32(w, nr);
	for (uint32_t i = 0; i < nr; i++)
		put_u64(w, ips[i]);
	finish(w, CAP_STACK);
}

void capw_sample(struct cap_writer *w, const struct cap_sample *s)
{
	begin(w);
	put_u32(w, s->pid);
	put_u32(w, s->tid);
	put_u32(w, s->kstack);
	put_u32(w, s->ustack);
	put_u64(w, s->count);
	put_u64(w, s->time_ns);
	put_u32(w, s->kind);
	put_u64(w, s->weight);
	put_u32(w, s->nwakers);
	for (uint32_t i = 0; i < s->nwakers && i < CAP_MAX_WAKERS; i++) {
		put_u32(w, s->waker[i].pid);
		put_u32(w, s->waker[i].tid);
		put_u32(w, s->waker[i].kstack);
		put_u32(w, s->waker[i].ustack);
	}
	put_u64(w, s->begin_ns);
	finish(w, CAP_SAMPLE);
}

void capw_loss(struct cap_writer *w, uint32_t cause, uint64_t count)
{
	begin(w);
	put_u32(w, cause);
	put_u64(w, count);
	finish(w, CAP_LOSS);
}

void capw_end(struct cap_writer *w, const struct cap_end *e)
{
	begin(w);
	put_u64(w, e->duration_ns);
	put_u64(w, e->samples);
	put_u64(w, e->lost);
	put_u32(w, e->stacks);
	put_u64(w, e->taken);
	put_u64(w, e->weight);
	finish(w, CAP_END);
}

void capw_jsym(struct cap_writer *w, uint32_t pid, uint64_t start, uint64_t size, const char *name,
	       size_t namelen)
{
	begin(w);
	put_u32(w, pid);
	put_u64(w, start);
	put_u64(w, size);
	put_str(w, (struct cap_str){ name, namelen > UINT16_MAX ? UINT16_MAX : (uint16_t)namelen });
	finish(w, CAP_JSYM);
}

void capw_pysym(struct cap_writer *w, uint32_t id, int32_t line, const char *name,
		const char *file, int32_t at)
{
	begin(w);
	put_u32(w, id);
	put_u32(w, (uint32_t)line);
	put_str(w, cap_cstr(name));
	put_str(w, cap_cstr(file));
	put_u32(w, (uint32_t)at);
	finish(w, CAP_PYSYM);
}

void capw_rawstack(struct cap_writer *w, const struct cap_rawstack *r, const uint64_t *regs)
{
	begin(w);
	put_u32(w, r->pid);
	put_u32(w, r->tid);
	put_u64(w, r->time_ns);
	put_u32(w, r->ustack);
	put_le(w, r->machine, 2);
	put_le(w, r->nregs, 2);
	for (uint32_t i = 0; i < r->nregs; i++)
		put_u64(w, regs[i]);
	put_u32(w, r->stack_len);
	put(w, r->stack, r->stack_len);
	finish(w, CAP_RAWSTACK);
}

void capw_fork(struct cap_writer *w, uint32_t pid, uint32_t ppid)
{
	begin(w);
	put_u32(w, pid);
	put_u32(w, ppid);
	finish(w, CAP_FORK);
}

void capw_cgroup(struct cap_writer *w, uint32_t pid, const char *path, size_t len,
		 uint16_t trusted)
{
	begin(w);
	put_u32(w, pid);
	/* A str holds 65535 bytes; the caller bounds paths far below. */
	put_str(w, (struct cap_str){ path, (uint16_t)(len > UINT16_MAX ? UINT16_MAX : len) });
	put_u16(w, trusted);
	finish(w, CAP_CGROUP);
}

/* --- reading -------------------------------------------------------------- */

__attribute__((format(printf, 3, 4))) static enum capr_status
fail(struct cap_reader *r, enum capr_status st, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(r->error, sizeof(r->error), fmt, ap);
	va_end(ap);
	return st;
}

/* Reads exactly n bytes; returns how many were read before EOF. */
static size_t read_full(struct cap_reader *r, void *p, size_t n)
{
	/* Unlocked: a reader is one thread's, and calls this twice a record. */
	size_t got = fread_unlocked(p, 1, n, r->f);

	r->offset += got;
	return got;
}

enum capr_status capr_open(struct cap_reader *r, FILE *f)
{
	uint8_t h[CAP_HEADER_SIZE];
	size_t got;

	memset(r, 0, sizeof(*r));
	r->f = f;
	got = read_full(r, h, sizeof(h));
	if (ferror(f))
		return fail(r, CAPR_IOERR, "read error: %s", strerror(errno));
	if (got < 8 || memcmp(h, CAP_MAGIC, 8) != 0) {
		const char *hint = input_kind_hint(input_kind((const char *)h, got));
		return fail(r, CAPR_CORRUPT, "not a prof capture (bad magic)%s%s",
			    hint ? "; " : "", hint ? hint : "");
	}
	if (got < sizeof(h))
		return fail(r, CAPR_TRUNCATED, "truncated header at byte %zu", got);
	r->major = (uint16_t)le_get(h + 8, 2);
	r->minor = (uint16_t)le_get(h + 10, 2);
	if (r->major != CAP_MAJOR)
		return fail(r, CAPR_CORRUPT, "capture version %u.%u is not supported (want %u.x)",
			    r->major, r->minor, CAP_MAJOR);
	return CAPR_OK;
}

void capr_free(struct cap_reader *r)
{
	free(r->buf);
	r->buf = NULL;
}

/* A bounds-checked cursor over one payload. */
struct cursor {
	const uint8_t *p, *end;
	bool bad;
};

static inline const uint8_t *take(struct cursor *c, size_t n)
{
	const uint8_t *p = c->p;

	if (c->bad || (size_t)(c->end - c->p) < n) {
		c->bad = true;
		return NULL;
	}
	c->p += n;
	return p;
}

static inline uint64_t get(struct cursor *c, int n)
{
	const uint8_t *p = take(c, n);

	return p ? le_get(p, n) : 0;
}

/* Whether fields a later minor version added follow: a payload may end
 * before them. */
static bool more(const struct cursor *c)
{
	return !c->bad && c->p < c->end;
}

static struct cap_str get_str(struct cursor *c)
{
	uint16_t n = (uint16_t)get(c, 2);
	const uint8_t *p = take(c, n);

	return (struct cap_str){ p ? (const char *)p : "", p ? n : 0 };
}

static bool decode(struct cap_record *rec)
{
	struct cursor c = { rec->payload, rec->payload + rec->len, false };

	switch (rec->type) {
	case CAP_INFO: {
		struct cap_info *i = &rec->u.info;
		i->start_ns = get(&c, 8);
		i->freq = (uint32_t)get(&c, 4);
		i->period = get(&c, 8);
		i->ncpus = (uint32_t)get(&c, 4);
		i->event = get_str(&c);
		i->hostname = get_str(&c);
		i->release = get_str(&c);
		i->boot_id = get_str(&c);
		if (more(&c)) {
			i->min_block_ns = get(&c, 8);
			i->max_block_ns = get(&c, 8);
			i->states = (uint32_t)get(&c, 4);
			i->wakeup_depth = (uint32_t)get(&c, 4);
		}
		i->time_resolution_ns = more(&c) ? get(&c, 8) : 0;
		break;
	}
	case CAP_COMM:
		rec->u.comm.pid = (uint32_t)get(&c, 4);
		rec->u.comm.tid = (uint32_t)get(&c, 4);
		rec->u.comm.comm = get_str(&c);
		break;
	case CAP_MAP: {
		struct cap_map *m = &rec->u.map;
		m->pid = (uint32_t)get(&c, 4);
		m->start = get(&c, 8);
		m->end = get(&c, 8);
		m->pgoff = get(&c, 8);
		m->dev = get(&c, 8);
		m->inode = get(&c, 8);
		m->build_id_len = (uint8_t)get(&c, 1);
		m->build_id = take(&c, m->build_id_len);
		m->path = get_str(&c);
		m->owner = more(&c) ? (uint32_t)get(&c, 4) : CAP_OWNER_UNKNOWN;
		if (m->build_id_len > CAP_BUILD_ID_MAX || m->end < m->start)
			return false;
		break;
	}
	case CAP_KSYM:
		rec->u.ksym.start = get(&c, 8);
		rec->u.ksym.end = get(&c, 8);
		rec->u.ksym.name = get_str(&c);
		rec->u.ksym.module = get_str(&c);
		if (rec->u.ksym.end < rec->u.ksym.start)
			return false;
		break;
	case CAP_STACK:
		rec->u.stack.id = (uint32_t)get(&c, 4);
		rec->u.stack.nr = (uint32_t)get(&c, 4);
		rec->u.stack.ips = take(&c, (size_t)rec->u.stack.nr * 8);
		if (rec->u.stack.id == 0)
			return false;
		/* The whole record was checked; the root end is cut. */
		if (rec->u.stack.nr > CAP_MAX_FRAMES) {
			rec->u.stack.cut = rec->u.stack.nr - CAP_MAX_FRAMES;
			rec->u.stack.nr = CAP_MAX_FRAMES;
		}
		break;
	case CAP_SAMPLE: {
		struct cap_sample *s = &rec->u.sample;
		s->pid = (uint32_t)get(&c, 4);
		s->tid = (uint32_t)get(&c, 4);
		s->kstack = (uint32_t)get(&c, 4);
		s->ustack = (uint32_t)get(&c, 4);
		s->count = get(&c, 8);
		s->time_ns = get(&c, 8);
		if (more(&c)) {
			s->kind = (uint32_t)get(&c, 4);
			s->weight = get(&c, 8);
			s->nwakers = (uint32_t)get(&c, 4);
			if (s->kind > CAP_OFF_CPU || s->nwakers > CAP_MAX_WAKERS)
				return false;
			for (uint32_t i = 0; i < s->nwakers; i++) {
				s->waker[i].pid = (uint32_t)get(&c, 4);
				s->waker[i].tid = (uint32_t)get(&c, 4);
				s->waker[i].kstack = (uint32_t)get(&c, 4);
				s->waker[i].ustack = (uint32_t)get(&c, 4);
			}
		}
		s->begin_ns = more(&c) ? get(&c, 8) : s->time_ns;
		if (s->begin_ns > s->time_ns)
			return false;
		break;
	}
	case CAP_LOSS:
		rec->u.loss.cause = (uint32_t)get(&c, 4);
		rec->u.loss.count = get(&c, 8);
		break;
	case CAP_END:
		rec->u.end.duration_ns = get(&c, 8);
		rec->u.end.samples = get(&c, 8);
		rec->u.end.lost = get(&c, 8);
		rec->u.end.stacks = (uint32_t)get(&c, 4);
		rec->u.end.taken = get(&c, 8);
		if (more(&c))
			rec->u.end.weight = get(&c, 8);
		break;
	case CAP_JSYM:
		rec->u.jsym.pid = (uint32_t)get(&c, 4);
		rec->u.jsym.start = get(&c, 8);
		rec->u.jsym.size = get(&c, 8);
		rec->u.jsym.name = get_str(&c);
		break;
	case CAP_PYSYM:
		rec->u.pysym.id = (uint32_t)get(&c, 4);
		rec->u.pysym.line = (int32_t)(uint32_t)get(&c, 4);
		rec->u.pysym.name = get_str(&c);
		rec->u.pysym.file = get_str(&c);
		rec->u.pysym.at = (int32_t)(uint32_t)get(&c, 4);
		break;
	case CAP_FORK:
		rec->u.fork.pid = (uint32_t)get(&c, 4);
		rec->u.fork.ppid = (uint32_t)get(&c, 4);
		break;
	case CAP_CGROUP:
		rec->u.cgroup.pid = (uint32_t)get(&c, 4);
		rec->u.cgroup.path = get_str(&c);
		rec->u.cgroup.trusted = more(&c) ? (uint32_t)get(&c, 2) : CAP_CGROUP_ALL;
		break;
	case CAP_RAWSTACK: {
		struct cap_rawstack *r = &rec->u.rawstack;
		r->pid = (uint32_t)get(&c, 4);
		r->tid = (uint32_t)get(&c, 4);
		r->time_ns = get(&c, 8);
		r->ustack = (uint32_t)get(&c, 4);
		r->machine = (uint16_t)get(&c, 2);
		r->nregs = (uint16_t)get(&c, 2);
		r->regs = take(&c, (size_t)r->nregs * 8);
		r->stack_len = (uint32_t)get(&c, 4);
		r->stack = take(&c, r->stack_len);
		break;
	}
	default:
		return true;
	}
	return !c.bad;
}

enum capr_status capr_next(struct cap_reader *r, struct cap_record *rec)
{
	uint8_t h[CAP_RECORD_HEADER];
	uint64_t at = r->offset;
	size_t got;

	memset(rec, 0, sizeof(*rec));
	got = read_full(r, h, sizeof(h));
	if (ferror(r->f))
		return fail(r, CAPR_IOERR, "read error at byte %" PRIu64 ": %s", r->offset,
			    strerror(errno));
	if (got == 0)
		return CAPR_EOF;
	if (got < sizeof(h))
		return fail(r, CAPR_TRUNCATED, "truncated record header at byte %" PRIu64, at);
	rec->offset = at;
	rec->type = (uint32_t)le_get(h, 4);
	rec->len = (uint32_t)le_get(h + 4, 4);
	if (rec->len > CAP_MAX_PAYLOAD)
		return fail(r, CAPR_CORRUPT, "record at byte %" PRIu64 " claims %u bytes", at,
			    rec->len);
	if (rec->len > r->cap || !r->buf) {
		r->cap = rec->len > r->cap ? rec->len : r->cap;
		r->buf = xrealloc(r->buf, r->cap); /* never NULL, even for len 0 */
	}
	got = read_full(r, r->buf, rec->len);
	if (ferror(r->f))
		return fail(r, CAPR_IOERR, "read error at byte %" PRIu64 ": %s", r->offset,
			    strerror(errno));
	if (got < rec->len)
		return fail(r, CAPR_TRUNCATED,
			    "truncated record (type %u) at byte %" PRIu64 ": %zu of %u bytes", rec->type,
			    at, got, rec->len);
	rec->payload = r->buf;
	if (!decode(rec))
		return fail(r, CAPR_CORRUPT, "malformed record (type %u) at byte %" PRIu64, rec->type,
			    at);
	return CAPR_OK;
}
