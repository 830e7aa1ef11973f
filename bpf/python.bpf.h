/*
 * The walk of a CPython thread's frames (python.h says what and why),
 * included by profile.bpf.c: run for a sample of a process prof-sample
 * has marked as Python, into the sample's py_stack.
 *
 * Everything read is the process's own memory, which it controls: every
 * read may fail or return garbage, every loop is bounded, and nothing read
 * is used as more than an address to read from next or a value copied out
 * for prof-sample, which checks it.
 */
#ifndef PROF_PYTHON_BPF_H
#define PROF_PYTHON_BPF_H

#include "python.h"

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 8192);
	__type(key, __u32); /* tgid */
	__type(value, struct py_proc);
} py_procs SEC(".maps");

/* The code objects whose names were sent: each is sent once (while it
 * stays in here), with the first sample that has it. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 16384);
	__type(key, struct py_code_key);
	__type(value, __u8);
} py_codes_sent SEC(".maps");

static __always_inline __u64 py_read_ptr(__u64 addr)
{
	__u64 v = 0;

	if (bpf_probe_read_user(&v, sizeof(v), (void *)addr))
		return 0;
	return v;
}

static __always_inline __u64 py_field(__u64 obj, __u32 off)
{
	return obj && off != PY_NONE ? py_read_ptr(obj + off) : 0;
}

/* A compact string's characters (python.h: struct py_code), at most max
 * bytes of them. */
static __always_inline void py_read_str(const struct py_offsets *o, __u64 str, __u8 *dst,
					__u32 max, __u32 *len, __u8 *kind)
{
	__u32 state = 0;
	__u64 n = 0, bytes;

	*len = 0;
	*kind = 1;
	if (!str || bpf_probe_read_user(&state, sizeof(state), (void *)(str + o->str_state)) ||
	    bpf_probe_read_user(&n, sizeof(n), (void *)(str + 16)))
		return;
	/* compact (bit 5) only: a legacy string keeps its characters
	 * elsewhere, and no code object's name is one. */
	if (!(state & (1 << 5)))
		return;
	*kind = (state >> 2) & 7;
	if (*kind != 1 && *kind != 2 && *kind != 4)
		return;
	bytes = n * *kind;
	if (bytes > max)
		bytes = max;
	bytes &= 0xff;
	if (bytes > max)
		return;
	if (bpf_probe_read_user(dst, bytes, (void *)(str + ((state & (1 << 6)) ? o->str_ascii_data
										      : o->str_data))))
		return;
	*len = bytes / *kind;
}

/* Copies what the code object of f says of itself into s, unless sent
 * before. */
static __always_inline void py_new_code(const struct py_offsets *o, struct py_stack *s,
					const struct py_frame *f, __u32 pid)
{
	struct py_code_key k = {
		.pid = pid, .firstlineno = f->firstlineno, .code = f->code,
		.name = f->name, .file = f->file, .name_hash = f->name_hash,
	};
	__u8 one = 1;
	__u32 i = s->nnew;

	if (i >= PY_MAX_NEW_CODES || bpf_map_lookup_elem(&py_codes_sent, &k))
		return;
	struct py_code *c = &s->new_codes[i];

	c->key = k;
	py_read_str(o, f->name, c->name, PY_NAME_MAX, &c->name_len, &c->name_kind);
	py_read_str(o, f->file, c->file, PY_FILE_MAX, &c->file_len, &c->file_kind);
	/* A page of the strings not yet in memory (a frozen module's, in
	 * the interpreter's file) cannot be read here: sent again with the
	 * next sample that has the code, until it can. */
	if (!c->name_len)
		return;
	/* The line table, a bytes object: its size, then its bytes. */
	__u64 table = py_field(f->code, o->co_linetable), n = 0;

	c->table_len = 0;
	if (table && !bpf_probe_read_user(&n, sizeof(n), (void *)(table + 16))) {
		if (n > PY_TABLE_MAX)
			n = PY_TABLE_MAX;
		n &= 0x3ff;
		if (n <= PY_TABLE_MAX && !bpf_probe_read_user(c->table, n, (void *)(table + 32)))
			c->table_len = n;
	}
	bpf_map_update_elem(&py_codes_sent, &k, &one, BPF_ANY);
	s->nnew = i + 1;
}

/* The thread state of the current thread: the one whose thread_id is its
 * pthread_self(), which glibc makes its fs base. */
static __always_inline __u64 py_thread_state(const struct py_offsets *o, __u64 runtime)
{
	struct task_struct *task = bpf_get_current_task_btf();
	__u64 self = BPF_CORE_READ(task, thread.fsbase);
	__u64 ts = py_field(py_field(runtime, o->interp_head), o->threads_head);

	for (int i = 0; i < PY_MAX_THREADS && ts; i++) {
		if (py_field(ts, o->ts_thread_id) == self)
			return ts;
		ts = py_field(ts, o->ts_next);
	}
	return 0;
}

/* Whether the current thread, of process pid, has a Python thread state:
 * a process may map libpython and run none (perf does). */
static __always_inline bool py_thread(__u32 pid)
{
	struct py_proc *p = bpf_map_lookup_elem(&py_procs, &pid);

	if (!p || p->version >= PY_NVERSIONS)
		return false;
	return py_thread_state(&py_offsets[p->version], p->runtime) != 0;
}

/* The walk of a thread's frame list, a frame a step of bpf_loop: the
 * verifier checks the step once rather than once a frame (unrolled, it
 * was most of the time the off-CPU programs took to load). */
struct py_frames_walk {
	struct py_stack *s;
	__u64 frame; /* the next one */
	__u32 pid, version;
};

static long py_frame_step(__u32 i, void *arg)
{
	struct py_frames_walk *w = arg;
	struct py_stack *s = w->s;
	__u64 frame = w->frame, code, instr = 0;
	const struct py_offsets *o;
	struct py_frame *f;
	__u8 flags = 0;

	if (!frame || i >= PY_MAX_FRAMES || w->version >= PY_NVERSIONS)
		return 1;
	o = &py_offsets[w->version];
	/* i is below PY_MAX_FRAMES, a power of two: the mask is for the
	 * verifier, which does not see the test above on the register the
	 * compiler indexes with; the empty asm keeps the compiler from
	 * dropping the mask as redundant. */
	asm volatile("" : "+r"(i));
	f = &s->frames[i & (PY_MAX_FRAMES - 1)];
	code = py_field(frame, o->f_code);
	f->addr = frame;
	f->flags = 0;
	f->reserved = 0;
	if (o->f_flags != PY_NONE)
		bpf_probe_read_user(&flags, sizeof(flags), (void *)(frame + o->f_flags));
	if (w->version >= PY_312 && flags == PY_OWNED_BY_CSTACK) {
		f->flags = PY_FRAME_SHIM;
		f->code = f->name = f->file = f->name_hash = 0;
		f->firstlineno = 0;
		f->instr = 0;
	} else {
		if (w->version == PY_311 && flags)
			f->flags = PY_FRAME_ENTRY;
		f->code = code;
		f->name = py_field(code, o->co_name);
		/* PyASCIIObject.hash, after refcount, type and length. */
		f->name_hash = py_field(f->name, 24);
		f->file = py_field(code, o->co_filename);
		f->firstlineno = 0;
		bpf_probe_read_user(&f->firstlineno, sizeof(f->firstlineno),
				    (void *)(code + o->co_firstlineno));
		if (w->version == PY_310) {
			__s32 lasti = 0;
			bpf_probe_read_user(&lasti, sizeof(lasti), (void *)(frame + o->f_instr));
			f->instr = lasti;
		} else {
			instr = py_field(frame, o->f_instr);
			f->instr = instr - (code + o->co_code);
		}
		py_new_code(o, s, f, w->pid);
	}
	s->nframes = i + 1;
	w->frame = py_field(frame, o->f_previous);
	return 0;
}

static __always_inline void py_walk(struct py_stack *s, __u32 pid)
{
	struct py_proc *p = bpf_map_lookup_elem(&py_procs, &pid);
	struct py_frames_walk w = { .s = s, .pid = pid };
	const struct py_offsets *o;
	__u64 ts, cframe;

	s->status = PY_NOT_PYTHON;
	s->nframes = s->nanchors = s->nnew = s->cut = 0;
	if (!p || p->version >= PY_NVERSIONS)
		return;
	o = &py_offsets[p->version];
	ts = py_thread_state(o, p->runtime);
	if (!ts) {
		s->status = PY_NO_THREAD;
		return;
	}
	cframe = py_field(ts, o->ts_cframe);
	w.frame = o->ts_frame != PY_NONE ? py_field(ts, o->ts_frame) : py_field(cframe, o->cf_frame);
	w.version = p->version;
	for (int i = 0; i < PY_MAX_ANCHORS && cframe && o->cf_previous != PY_NONE; i++) {
		s->anchors[i] = cframe;
		s->nanchors = i + 1;
		cframe = py_field(cframe, o->cf_previous);
	}
	bpf_loop(PY_MAX_FRAMES, py_frame_step, &w, 0);
	s->cut = w.frame != 0;
	s->status = PY_WALKED;
}

#endif
