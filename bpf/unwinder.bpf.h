/* SPDX-License-Identifier: GPL-2.0 */
/*
 * User stacks walked in the kernel by the unwind tables prof-sample fills
 * (unwind_table.h): where a frame's code has a row, its caller is found by
 * the row's rule; where it has none (JIT code, a file without CFI or not
 * tabled yet), by the frame pointer, as bpf_get_stack() would.
 *
 * Each step is two binary searches (the process's mappings, then the
 * file's rows) and two or three 8-byte reads of the user stack: a stack of
 * 30 frames costs a few microseconds, where copying 32 KiB for prof-sample
 * to unwind costs more and the copy must then be sent and unwound.
 */
#ifndef PROF_BPF_UNWINDER_BPF_H
#define PROF_BPF_UNWINDER_BPF_H

#include "unwind_table.h"

/* Set by prof-sample when it fills the tables (--unwind=dwarf). */
const volatile bool table_unwinding = false;

/* Sized by prof-sample before loading, and written by it through a
 * mapping of its memory: a syscall per row cost more than reading them. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct unwind_row);
} unwind_rows SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 1);
	__type(key, __u32); /* pid */
	__type(value, struct unwind_process);
} unwind_processes SEC(".maps");

/* Set by a walk that reaches a mapping whose file's rows are wanted
 * (unwind_table.h); read by prof-sample through the map's memory. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, PROF_UNWIND_WANTED);
	__type(key, __u32);
	__type(value, __u64); /* an array's values are 8 bytes apart */
} unwind_wanted SEC(".maps");

/* A frame's stack goes no further than this below its caller's. */
#define MAX_FRAME_BYTES (8u << 20)

/* The walk in progress: the registers the unwinder knows in the frame it
 * is at (pc, rsp, rbp), whose process it is and in which scratch slot the
 * frames found are.  Each step looks both up again rather than keep the
 * pointers here: the verifier can follow map values through a bpf_loop
 * context, but on 6.18 that made offcpu_switch take 0.18-0.24 s to load
 * instead of 0.08 s, which is more CPU than the lookups cost in a storm
 * of 200k switches a second. */
struct walk {
	__u64 pc, sp, bp;
	__u32 pid, slot;
	__u32 parent; /* whose tables serve while pid has none (tables_parent) */
	bool complete; /* the outermost frame was reached */
};

static __always_inline const struct unwind_mapping *find_mapping(const struct unwind_process *p,
								 __u64 pc)
{
	__u32 lo = 0, hi = p->n < PROF_UNWIND_MAPPINGS ? p->n : PROF_UNWIND_MAPPINGS;

	for (int i = 0; i < 8; i++) { /* log2(PROF_UNWIND_MAPPINGS) + 1 */
		/* Below hi, so below PROF_UNWIND_MAPPINGS (a power of two):
		 * the mask is for the verifier. */
		__u32 mid = ((lo + hi) / 2) & (PROF_UNWIND_MAPPINGS - 1);
		if (lo >= hi)
			break;
		if (pc < p->m[mid].start)
			hi = mid;
		else if (pc >= p->m[mid].end)
			lo = mid + 1;
		else
			return &p->m[mid];
	}
	return NULL;
}

/* The index of the last row of m's at or before file address addr, or
 * -1. */
static __always_inline int find_row(const struct unwind_mapping *m, __u64 addr)
{
	__u32 lo = m->first, hi = m->first + m->n; /* the answer is below hi */
	int found = -1;

	for (int i = 0; i < 24; i++) { /* 2^24 rows at most */
		__u32 mid = lo + (hi - lo) / 2;
		const struct unwind_row *r;
		if (lo >= hi)
			break;
		r = bpf_map_lookup_elem(&unwind_rows, &mid);
		if (!r)
			return -1;
		if (r->pc <= addr) {
			found = mid;
			lo = mid + 1;
		} else {
			hi = mid;
		}
	}
	return found;
}

/* Asks prof-sample for the file in wanted slot slot (0: none). */
static __always_inline void want(__u32 slot)
{
	__u64 *wanted;

	if (!slot)
		return;
	wanted = bpf_map_lookup_elem(&unwind_wanted, &slot);
	if (wanted)
		*wanted = 1;
}

/*
 * The index of proc's row for pc (at: the address looked up, pc or just
 * before it), or -1: none, and a file not read yet is asked for.
 *
 * A global function, which the verifier checks once, on its own: inlined
 * in the walk's step, its two searches were checked again for each state
 * the walk's callers could be in, which took offcpu_switch past the
 * verifier's million instructions on 6.18.44 (it loaded in 0.1 s on
 * earlier 6.18 kernels).
 */
__noinline int row_for(const struct unwind_process *proc, __u64 pc, __u64 at)
{
	const struct unwind_mapping *m;

	if (!proc)
		return -1;
	m = find_mapping(proc, pc);
	if (!m)
		return -1;
	if (!m->n) {
		if (m->wanted) {
			want(m->wanted);
			want(proc->roots[0]);
			want(proc->roots[1]);
		}
		return -1;
	}
	return at >= m->bias ? find_row(m, at - m->bias) : -1;
}

/* One step to the caller: false when the walk ends. */
static long unwind_step(__u32 i, void *arg)
{
	struct walk *w = arg;
	const struct unwind_process *proc = bpf_map_lookup_elem(&unwind_processes, &w->pid);
	struct stack_trace *st = bpf_map_lookup_elem(&scratch, &w->slot);
	const struct unwind_row *r = NULL;
	__u64 cfa, ra, bp = w->bp, n;
	__u32 kind, row;
	int found;

	if (!proc)
		proc = bpf_map_lookup_elem(&unwind_processes, &w->parent);
	/* A caller's pc is a return address, which may be past the end of
	 * its function (a call that does not return): its row is the call's. */
	found = row_for(proc, w->pc, i ? w->pc - 1 : w->pc);
	if (found >= 0) {
		row = (__u32)found;
		r = bpf_map_lookup_elem(&unwind_rows, &row);
	}
	kind = r ? r->kind : PROF_CFA_NONE;
	if (!st)
		return 1;
	if (kind == PROF_CFA_END) {
		w->complete = true;
		return 1;
	}
	if (kind == PROF_CFA_RSP) {
		cfa = w->sp + r->cfa;
	} else if (kind == PROF_CFA_RBP) {
		cfa = w->bp + r->cfa;
	} else if (kind == PROF_CFA_PLT) {
		cfa = w->sp + 8 + ((w->pc & 15) >= r->cfa ? 8 : 0);
	} else {
		/* The frame pointer's: rbp 0 ends the chain (_start and
		 * clone clear it for the outermost frame). */
		if (!w->bp) {
			w->complete = true;
			return 1;
		}
		if (w->bp < w->sp || w->bp - w->sp > MAX_FRAME_BYTES)
			return 1;
		cfa = w->bp + 16;
		if (bpf_probe_read_user(&bp, sizeof(bp), (void *)w->bp))
			return 1;
	}
	if (r && r->rbp && bpf_probe_read_user(&bp, sizeof(bp), (void *)(cfa + r->rbp * 8)))
		return 1;
	if (cfa <= w->sp || cfa - w->sp > MAX_FRAME_BYTES ||
	    bpf_probe_read_user(&ra, sizeof(ra), (void *)(cfa - 8)))
		return 1;
	if (!ra) {
		w->complete = true;
		return 1;
	}
	n = st->nr;
	if (n >= PROF_MAX_STACK)
		return 1;
	st->ip[n] = ra;
	st->nr = n + 1;
	w->pc = ra;
	w->sp = cfa;
	w->bp = bp;
	return 0;
}

enum table_walk {
	WALK_NO_TABLES, /* the process has none (yet) */
	WALK_CUT,	/* the walk stopped before the outermost frame */
	WALK_WHOLE,
};

/* The process whose tables serve a child forked a moment ago that has not
 * called exec, until prof-sample learns of it (milliseconds in which a
 * forking server's or a shell's children would have their stacks
 * copied): its parent, whose memory it is a copy of until exec, and whose
 * executable is the same open file, which exec replaces even by the same
 * program.  0 for any other. */
static __always_inline __u32 tables_parent(struct task_struct *task)
{
	struct file *exe = BPF_CORE_READ(task, mm, exe_file);

	return exe && exe == BPF_CORE_READ(task, real_parent, mm, exe_file)
		       ? BPF_CORE_READ(task, real_parent, tgid)
		       : 0;
}

/* The user stack of task (current), from its registers saved on entry to
 * the kernel, walked by the tables into st (scratch[slot]; untouched when
 * the process has no tables). */
static __always_inline enum table_walk unwind_by_tables(struct task_struct *task,
							struct stack_trace *st, __u32 slot)
{
	struct walk w = { .pid = task->tgid, .slot = slot };
	struct pt_regs *regs;

	if (!table_unwinding || (task->flags & PF_KTHREAD))
		return WALK_NO_TABLES;
	if (!bpf_map_lookup_elem(&unwind_processes, &w.pid)) {
		w.parent = tables_parent(task);
		if (!w.parent || !bpf_map_lookup_elem(&unwind_processes, &w.parent))
			return WALK_NO_TABLES;
		count(PROF_TABLE_PARENT);
	}
	regs = (struct pt_regs *)bpf_task_pt_regs(task);
	w.pc = BPF_CORE_READ(regs, ip);
	w.sp = BPF_CORE_READ(regs, sp);
	w.bp = BPF_CORE_READ(regs, bp);
	st->ip[0] = w.pc;
	st->nr = 1;
	bpf_loop(PROF_MAX_STACK - 1, unwind_step, &w, 0);
	return w.complete ? WALK_WHOLE : WALK_CUT;
}

/* The current thread's user stack, by the tables where its process has
 * them, stored in stacks: its hash, or 0 (none, or lost and counted). */
static __always_inline __u64 store_user_stack(void *ctx, void *stacks, enum prof_counter lost,
					      __u32 slot)
{
	struct stack_trace *st = bpf_map_lookup_elem(&scratch, &slot);

	if (!st)
		return 0;
	if (unwind_by_tables(bpf_get_current_task_btf(), st, slot) == WALK_NO_TABLES)
		return store_stack(ctx, stacks, false, lost, slot);
	return keep_stack(stacks, st, false, lost);
}

/* The current thread's whole user stack by the tables, stored in stacks:
 * its hash, or 0 when the tables do not take it to its outermost frame
 * or it could not be stored, for the stack copy to do better (so not
 * keep_stack(), which would count a stack lost that is not).  Then
 * *fallback is what the copy falls back on: the walk as far as it went,
 * or the frame pointers' where the process has no tables yet (0 if it
 * could not be stored). */
static __always_inline __u64 store_whole_user_stack(void *ctx, void *stacks, __u32 slot,
						    __u64 *fallback)
{
	struct stack_trace *st = bpf_map_lookup_elem(&scratch, &slot);
	enum table_walk walk;
	__u64 h;

	*fallback = 0;
	if (!st)
		return 0;
	walk = unwind_by_tables(bpf_get_current_task_btf(), st, slot);
	count(walk == WALK_WHOLE ? PROF_TABLE_WHOLE : walk == WALK_CUT ? PROF_TABLE_CUT : PROF_TABLE_NONE);
	if (walk == WALK_NO_TABLES && !take_stack(ctx, st, false))
		return 0;
	h = prof_stack_key(st->ip, st->nr, false);
	if (!lookup_or_try_init(stacks, &h, st))
		return 0;
	if (walk == WALK_WHOLE)
		return h;
	*fallback = h;
	return 0;
}

#endif
