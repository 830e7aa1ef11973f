/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Which threads are sampled: -p, -t, -G and -- COMMAND, read by every
 * program of the sample sources, and the programs that keep the list of
 * a command's processes as they fork, exec and exit.
 */
#ifndef PROF_BPF_TARGETS_BPF_H
#define PROF_BPF_TARGETS_BPF_H

const volatile bool filter_pids = false;
const volatile bool filter_tids = false;
const volatile bool filter_cgroup = false;
const volatile bool include_idle = false;
/* -G's cgroup, for threads other than the current one. */
const volatile __u64 target_cgroup_id = 0;

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 8192);
	__type(key, __u32);
	__type(value, __u8);
} pids SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__type(key, __u32);
	__type(value, __u8);
} tids SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_CGROUP_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} cgroups SEC(".maps");

/* Whether the current thread is one of the targets'. */
static __always_inline bool is_target(__u32 pid, __u32 tid)
{
	if (tid == 0 && !include_idle)
		return false;
	if (filter_pids) {
		__u8 *v = bpf_map_lookup_elem(&pids, &pid);

		if (!v || *v != PROF_PID_TARGET)
			return false;
	}
	if (filter_tids && !bpf_map_lookup_elem(&tids, &tid))
		return false;
	if (filter_cgroup && bpf_current_task_under_cgroup(&cgroups, 0) != 1)
		return false;
	return true;
}


extern struct cgroup *bpf_cgroup_from_id(u64 cgid) __ksym __weak;
extern void bpf_cgroup_release(struct cgroup *cgrp) __ksym __weak;
extern long bpf_task_under_cgroup(struct task_struct *task, struct cgroup *ancestor) __ksym __weak;

/* is_target, of any thread. */
static __always_inline bool task_is_target(struct task_struct *t)
{
	__u32 pid = BPF_CORE_READ(t, tgid), tid = BPF_CORE_READ(t, pid);
	struct cgroup *cg;
	bool in;

	if (tid == 0)
		return false;
	if (filter_pids) {
		__u8 *v = bpf_map_lookup_elem(&pids, &pid);

		if (!v || *v != PROF_PID_TARGET)
			return false;
	}
	if (filter_tids && !bpf_map_lookup_elem(&tids, &tid))
		return false;
	if (filter_cgroup) {
		/* Linux 6.5: before, no wait in progress is taken on. */
		if (!bpf_ksym_exists(bpf_cgroup_from_id) || !bpf_ksym_exists(bpf_task_under_cgroup))
			return false;
		cg = bpf_cgroup_from_id(target_cgroup_id);
		if (!cg)
			return false;
		in = bpf_task_under_cgroup(t, cg);
		bpf_cgroup_release(cg);
		if (!in)
			return false;
	}
	return true;
}

/* With -- COMMAND, children of sampled processes are sampled too: added to
 * the filter in the fork itself, before the child can run. */
SEC("tp_btf/sched_process_fork")
int BPF_PROG(follow_fork, struct task_struct *parent, struct task_struct *child)
{
	__u32 ptgid = BPF_CORE_READ(parent, tgid), ctgid = BPF_CORE_READ(child, tgid);
	__u8 target = PROF_PID_TARGET;

	if (ptgid != ctgid && bpf_map_lookup_elem(&pids, &ptgid))
		bpf_map_update_elem(&pids, &ctgid, &target, BPF_ANY);
	return 0;
}

/* The command becomes a target in its exec, once it runs its own code
 * under its own name. */
SEC("tp_btf/sched_process_exec")
int BPF_PROG(command_exec, struct task_struct *p, pid_t old_pid, struct linux_binprm *bprm)
{
	__u32 tgid = BPF_CORE_READ(p, tgid);
	__u8 *v = bpf_map_lookup_elem(&pids, &tgid);

	if (v && *v == PROF_PID_AT_EXEC)
		*v = PROF_PID_TARGET;
	return 0;
}

/* A sampled process that exits leaves the filter, so a new process that
 * reuses its PID is not sampled by mistake. */
SEC("tp_btf/sched_process_exit")
int BPF_PROG(forget_exit, struct task_struct *task)
{
	__u32 pid = BPF_CORE_READ(task, pid), tgid = BPF_CORE_READ(task, tgid);

	if (pid == tgid)
		bpf_map_delete_elem(&pids, &tgid);
	return 0;
}

#endif
