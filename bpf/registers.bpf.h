/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A thread's user registers: those a perf event interrupted, or those
 * saved on its entry to the kernel, in prof-sample's order.
 */
#ifndef PROF_BPF_REGISTERS_BPF_H
#define PROF_BPF_REGISTERS_BPF_H

#define PF_EXITING 0x00000004
#define PF_KTHREAD 0x00200000

#if defined(__TARGET_ARCH_x86)
/* x86-64's struct pt_regs is ABI: 21 words, r15 first.  The perf-event
 * context starts with one, and can only be read a word at a time at
 * constant offsets, so both it and the registers saved on kernel entry are
 * read as words. */
struct regs_words {
	__u64 word[21];
};
enum { W_R15, W_R14, W_R13, W_R12, W_BP, W_BX, W_R11, W_R10, W_R9, W_R8, W_AX,
       W_CX, W_DX, W_SI, W_DI, W_ORIG_AX, W_IP, W_CS, W_FLAGS, W_SP, W_SS };

/* pt_regs order to DWARF order. */
static __always_inline void dwarf_order(__u64 *regs, const __u64 *w)
{
	static const __u8 from[PROF_NR_UREGS] = {
		W_AX, W_DX, W_CX, W_BX, W_SI, W_DI, W_BP, W_SP, W_R8,
		W_R9, W_R10, W_R11, W_R12, W_R13, W_R14, W_R15, W_IP,
	};

	for (int i = 0; i < PROF_NR_UREGS; i++)
		regs[i] = w[from[i]];
}

/* The user registers task saved on entry to the kernel; false for kernel
 * threads. */
static __always_inline bool task_user_regs(struct task_struct *task, __u64 *regs)
{
	struct regs_words w;

	if (BPF_CORE_READ(task, flags) & PF_KTHREAD)
		return false;
	if (bpf_probe_read_kernel(&w, sizeof(w), (void *)bpf_task_pt_regs(task)))
		return false;
	dwarf_order(regs, w.word);
	return true;
}

/* The user registers: those interrupted if the sample hit user mode (ctx,
 * NULL when the thread is known to be in the kernel), else those saved on
 * entry to the kernel.  False for kernel threads. */
static __always_inline bool user_regs(struct bpf_perf_event_data *ctx, __u64 *regs)
{
	struct task_struct *task = bpf_get_current_task_btf();
	const struct regs_words *in = (const struct regs_words *)ctx;
	struct regs_words w;

	if (task->flags & PF_KTHREAD)
		return false;
	if (!in || (in->word[W_CS] & 3) != 3)
		return task_user_regs(task, regs);
	for (int i = 0; i < 21; i++)
		w.word[i] = in->word[i];
	dwarf_order(regs, w.word);
	return true;
}
#else
/* Other architectures' registers are not laid out for the unwinder yet:
 * prof-sample refuses --unwind=dwarf there, and never loads sample_dwarf. */
static __always_inline bool user_regs(struct bpf_perf_event_data *ctx, __u64 *regs)
{
	return false;
}

static __always_inline bool task_user_regs(struct task_struct *task, __u64 *regs)
{
	return false;
}
#endif

#endif
