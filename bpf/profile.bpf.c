// SPDX-License-Identifier: GPL-2.0
/*
 * On-CPU stack sampling, attached to a cpu-clock perf event on each sampled
 * CPU, and off-CPU time, timed at the scheduler's switches.  One program
 * per sample source (prof-sample/sources/source.h), sharing the target filter;
 * prof-sample loads only the ones it uses:
 *
 * - sample_fp (--unwind=fp) counts (thread, name, kernel stack, user stack)
 *   tuples in a hash map and stores each distinct stack once, keyed by a
 *   64-bit hash of its frames, for prof-sample to drain.
 * - sample_dwarf (--unwind=dwarf) sends each sample's kernel stack, user
 *   registers and user stack bytes through a ring buffer, for prof-sample
 *   to unwind.
 *
 * - offcpu_switch, offcpu_syscall_exit, offcpu_waking and offcpu_exit
 *   (--off-cpu, --wall, --wakeups) time the blocks of the targets'
 *   threads and hand each one over as sample_fp or sample_dwarf would a
 *   sample, weighted by its duration.
 *   They need tracepoints with BTF (tp_btf) only: no tracefs, no kprobes,
 *   no fentry (all three missing on some hosts and in many containers).
 *
 * Stacks are kept in a plain hash map rather than a STACK_TRACE map: the
 * latter has one bucket per entry and fails (-EEXIST) when two different
 * stacks hash to the same bucket, which measured here loses about one stack
 * per 200 distinct ones at 99 Hz, and more as the rate grows.  A 64-bit hash
 * key makes such a collision practically impossible, so the only stack loss
 * left is a full map, which is counted.
 *
 * The maps are double-buffered.  prof-sample flips `active` at each drain
 * and then reads and empties the idle set while this program fills the
 * other.  A perf-event program runs to completion with preemption disabled,
 * so once the flip is visible no writer is left on the idle set: the drain
 * loses no count between read and delete, and it can clear the idle stack
 * map every interval.
 *
 * One object, one skeleton; the code is in headers by concern, included
 * below in the order they build on each other: targets.bpf.h (who is
 * sampled), stacks.bpf.h (stacks and counts), registers.bpf.h,
 * unwinder.bpf.h (user stacks walked by prof-sample's unwind tables) and
 * stack_copy.bpf.h (--unwind=dwarf's raw samples), ticks.bpf.h (the
 * clock's programs), blocks.bpf.h, wakeups.bpf.h and offcpu.bpf.h
 * (off-CPU time), waits.bpf.h (waits in progress); python.bpf.h walks
 * CPython's frames.
 */
#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "profile.h"
#include "python.bpf.h"

/* libbpf 1.2's, for Debian 12's 1.1. */
#ifndef bpf_ksym_exists
#define bpf_ksym_exists(sym) (!!&(sym))
#endif

/* Scratch slots: a perf-event program runs in NMI and may interrupt a
 * tracepoint program on its CPU, so each has its own. */
#define SLOT_NMI 0
#define SLOT_TP 1
/* The task iterator sleeps (faulting user pages in), and the scheduler's
 * programs run on its CPU meanwhile. */
#define SLOT_ITER 2

/* Written by prof-sample (mmaped .bss): which map set is being filled. */
__u32 active = 0;
/* Totals since the start; prof-sample reads deltas. */
__u64 counters[PROF_NR_COUNTERS] = {};

static __always_inline void count(enum prof_counter c)
{
	__sync_fetch_and_add(&counters[c], 1);
}

#include "maps.bpf.h"
#include "targets.bpf.h"
#include "stacks.bpf.h"
#include "registers.bpf.h"
#include "unwinder.bpf.h"
#include "stack_copy.bpf.h"
#include "ticks.bpf.h"
#include "blocks.bpf.h"
#include "wakeups.bpf.h"
#include "offcpu.bpf.h"
#include "waits.bpf.h"

char LICENSE[] SEC("license") = "GPL";
