/*
 * One Dwfl per process, holding a module for each file it maps (and the
 * vDSO), kept until the process's mappings change: libdwfl parses a file's
 * CFI lazily and caches it in the module, so a process sampled a thousand
 * times looks each FDE up once, where perf script builds a Dwfl per sample.
 *
 * libdwfl falls back to the frame pointer when no CFI describes a frame.
 * In a file that is the wrong answer: code without CFI is exactly the code
 * that may not keep a frame pointer, and a garbage rbp yields callers that
 * look real.  So the walk stops at such a frame and the sample is counted
 * as truncated.  The fallback is left to run only in anonymous executable
 * memory (JIT code, which has no CFI but whose runtimes keep frame pointers
 * for profilers), and the caller it finds must be executable code.
 */
#include "unwind.h"

#include <dwarf.h>
#include <elfutils/libdwfl.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <unistd.h>

#include "diag.h"
#include "htab.h"
#include "profile.h"
#include "stream.h"

/* The sample being unwound, and what happened to it. */
struct walk {
	const struct unwind_input *in;
	const struct mapping *maps;
	size_t nmaps;
	uint64_t *ips;
	uint32_t nr, max;
	bool read_past_copy; /* the CFI wanted stack the copy does not have */
	bool fp_step;	     /* the last step used the frame pointer */
	enum unwind_status status;
	bool stopped;
};

struct proc_dwfl {
	Dwfl *dwfl;
	uint64_t generation;
	struct walk *walk; /* the callbacks' view of the current sample */
};

struct unwinder {
	struct processes *ps;
	struct htab *procs; /* pid -> struct proc_dwfl */
	int vdso_fd;	    /* a copy of the vDSO, which has CFI but no file */
};

static int no_elf(Dwfl_Module *mod, void **userdata, const char *name, Dwarf_Addr base,
		  char **file_name, Elf **elfp)
{
	(void)mod, (void)userdata, (void)name, (void)base, (void)file_name, (void)elfp;
	return -1;
}

static const Dwfl_Callbacks dwfl_callbacks = {
	.find_elf = no_elf,
	/* Local build-id directories only: a network lookup per module in
	 * the middle of a capture would stall the rings. */
	.find_debuginfo = dwfl_build_id_find_debuginfo,
};

static pid_t next_thread(Dwfl *dwfl, void *arg, void **thread_argp)
{
	struct proc_dwfl *pd = arg;

	(void)dwfl;
	if (*thread_argp)
		return 0;
	*thread_argp = pd;
	return (pid_t)pd->walk->in->tid;
}

static bool get_thread(Dwfl *dwfl, pid_t tid, void *arg, void **thread_argp)
{
	(void)dwfl, (void)tid;
	*thread_argp = arg;
	return true;
}

static bool memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result, void *arg)
{
	const struct walk *w = ((struct proc_dwfl *)arg)->walk;
	uint64_t sp = w->in->regs[PROF_UREG_SP];

	(void)dwfl;
	if (addr >= sp && w->in->stack_len >= sizeof(*result) &&
	    addr - sp <= w->in->stack_len - sizeof(*result)) {
		memcpy(result, w->in->stack + (addr - sp), sizeof(*result));
		return true;
	}
	if (addr >= sp)
		((struct proc_dwfl *)arg)->walk->read_past_copy = true;
	return false;
}

static bool set_initial_registers(Dwfl_Thread *thread, void *arg)
{
	const struct walk *w = ((struct proc_dwfl *)arg)->walk;
	Dwarf_Word regs[PROF_NR_UREGS];

	memcpy(regs, w->in->regs, sizeof(regs));
	return dwfl_thread_state_registers(thread, 0, PROF_NR_UREGS, regs);
}

static const Dwfl_Thread_Callbacks thread_callbacks = {
	.next_thread = next_thread,
	.get_thread = get_thread,
	.memory_read = memory_read,
	.set_initial_registers = set_initial_registers,
};

/* The vDSO is the same in every 64-bit process: ours, copied to a memfd,
 * stands for all of them. */
static int copy_vdso(void)
{
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)getauxval(AT_SYSINFO_EHDR);
	size_t size;
	int fd;

	if (!eh || memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0)
		return -1;
	size = eh->e_shoff + (size_t)eh->e_shnum * eh->e_shentsize;
	fd = memfd_create("vdso", MFD_CLOEXEC);
	if (fd >= 0 && write(fd, eh, size) != (ssize_t)size) {
		close(fd);
		fd = -1;
	}
	return fd;
}

struct unwinder *unwinder_new(struct processes *ps)
{
	struct unwinder *u = xcalloc(1, sizeof(*u));

	elf_version(EV_CURRENT);
	u->ps = ps;
	u->procs = htab_new();
	u->vdso_fd = copy_vdso();
	return u;
}

static void free_proc(struct proc_dwfl *pd)
{
	dwfl_end(pd->dwfl);
	free(pd);
}

void unwinder_free(struct unwinder *u)
{
	struct htab_entry *e;

	if (!u)
		return;
	e = htab_entries(u->procs);
	for (size_t i = 0; i < htab_count(u->procs); i++)
		free_proc(e[i].val.p);
	htab_free(u->procs);
	if (u->vdso_fd >= 0)
		close(u->vdso_fd);
	free(u);
}

/* The load bias of the file mapped by m: what its addresses are offset by
 * in memory.  The segment holding file offset m->pgoff is at m->start. */
static bool load_bias(int fd, const struct mapping *m, GElf_Addr *bias)
{
	Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	size_t phnum;
	bool found = false;

	if (!elf || elf_getphdrnum(elf, &phnum) != 0)
		goto out;
	for (size_t i = 0; i < phnum && !found; i++) {
		GElf_Phdr ph;
		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if (m->pgoff >= (ph.p_offset & ~(uint64_t)(PROF_PAGE - 1)) &&
		    m->pgoff < ph.p_offset + ph.p_filesz) {
			*bias = m->start - m->pgoff - ph.p_vaddr + ph.p_offset;
			found = true;
		}
	}
out:
	elf_end(elf);
	return found;
}

/* Opens the file of m as pid sees it: through its root, so files in other
 * mount namespaces are found, and only if it is a regular file (a FIFO
 * swapped in by the process's owner would block the capture). */
static int open_mapped(uint32_t pid, const struct mapping *m)
{
	char path[4200];
	int fd;

	snprintf(path, sizeof(path), "/proc/%" PRIu32 "/root%s", pid, m->path);
	fd = open_regular(path, 0);
	return fd >= 0 ? fd : open_regular(m->path, 0);
}

/* Named "//anon" by mmap events, "" or "[anon:NAME]" by /proc. */
static bool anonymous(const struct mapping *m)
{
	return !m->path[0] || strcmp(m->path, "//anon") == 0 || strncmp(m->path, "[anon:", 6) == 0;
}

static void report(Dwfl *dwfl, int fd, const struct mapping *m, const char *name)
{
	char path[64];
	GElf_Addr bias;

	if (!load_bias(fd, m, &bias))
		return;
	/* libdwfl opens the file by name: the descriptor's /proc entry
	 * names exactly the file checked above. */
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	dwfl_report_elf(dwfl, name, path, -1, bias, true);
}

static Dwfl *build(struct unwinder *u, struct proc_dwfl *pd, uint32_t pid,
		   const struct mapping *maps, size_t n)
{
	Dwfl *dwfl = dwfl_begin(&dwfl_callbacks);

	if (!dwfl)
		return NULL;
	dwfl_report_begin(dwfl);
	for (size_t i = 0; i < n; i++) {
		const struct mapping *m = &maps[i];
		const char *base = strrchr(m->path, '/');
		if (m->path[0] == '/' && !anonymous(m)) {
			int fd = open_mapped(pid, m);
			if (fd >= 0) {
				report(dwfl, fd, m, base + 1);
				close(fd);
			}
		} else if (strcmp(m->path, "[vdso]") == 0 && u->vdso_fd >= 0) {
			report(dwfl, u->vdso_fd, m, "[vdso]");
		}
	}
	dwfl_report_end(dwfl, NULL, NULL);
	if (!dwfl_attach_state(dwfl, NULL, (pid_t)pid, &thread_callbacks, pd)) {
		dwfl_end(dwfl);
		return NULL;
	}
	return dwfl;
}

/* The process's Dwfl, built anew when its mappings have changed. */
static struct proc_dwfl *proc_dwfl(struct unwinder *u, uint32_t pid, const struct mapping *maps,
				   size_t n, uint64_t generation)
{
	bool created;
	struct htab_entry *e = htab_upsert(u->procs, &pid, sizeof(pid), &created);
	struct proc_dwfl *pd;

	if (created)
		e->val.p = xcalloc(1, sizeof(struct proc_dwfl));
	pd = e->val.p;
	if (pd->dwfl && pd->generation == generation)
		return pd;
	dwfl_end(pd->dwfl);
	pd->generation = generation;
	pd->dwfl = build(u, pd, pid, maps, n);
	return pd;
}

static bool has_cfi(Dwfl *dwfl, Dwarf_Addr pc)
{
	Dwfl_Module *mod = dwfl_addrmodule(dwfl, pc);
	Dwarf_CFI *cfi;
	Dwarf_Frame *frame;
	Dwarf_Addr bias;

	if (!mod)
		return false;
	cfi = dwfl_module_eh_cfi(mod, &bias);
	if (cfi && dwarf_cfi_addrframe(cfi, pc - bias, &frame) == 0) {
		free(frame);
		return true;
	}
	cfi = dwfl_module_dwarf_cfi(mod, &bias);
	if (cfi && dwarf_cfi_addrframe(cfi, pc - bias, &frame) == 0) {
		free(frame);
		return true;
	}
	return false;
}

/* Anonymous executable memory: JIT code. */
static bool in_anon_code(const struct walk *w, uint64_t pc)
{
	for (size_t i = 0; i < w->nmaps; i++)
		if (pc >= w->maps[i].start && pc < w->maps[i].end && anonymous(&w->maps[i]))
			return true;
	return false;
}

static bool in_code(Dwfl *dwfl, const struct walk *w, uint64_t pc)
{
	return dwfl_addrmodule(dwfl, pc) != NULL || in_anon_code(w, pc);
}

static int stop(struct walk *w, enum unwind_status status)
{
	w->status = status;
	w->stopped = true;
	return DWARF_CB_ABORT;
}

static int on_frame(Dwfl_Frame *state, void *arg)
{
	struct proc_dwfl *pd = arg;
	struct walk *w = pd->walk;
	Dwarf_Addr pc;
	bool activation;

	if (!dwfl_frame_pc(state, &pc, &activation))
		return stop(w, UNWIND_ERROR);
	/* A caller's pc is a return address: the call is the byte before. */
	Dwarf_Addr at = activation ? pc : pc - 1;
	if (w->fp_step && !in_code(pd->dwfl, w, at))
		return stop(w, UNWIND_NO_CFI);
	if (w->nr == w->max) {
		w->stopped = true; /* as deep as a frame-pointer walk goes */
		return DWARF_CB_ABORT;
	}
	w->ips[w->nr++] = pc;
	w->fp_step = !has_cfi(pd->dwfl, at);
	if (w->fp_step && !in_anon_code(w, at))
		return stop(w, UNWIND_NO_CFI);
	return DWARF_CB_OK;
}

enum unwind_status unwind(struct unwinder *u, const struct unwind_input *in, uint64_t *ips,
			  uint32_t max, uint32_t *nr)
{
	struct walk w = { .in = in, .ips = ips, .max = max, .status = UNWIND_COMPLETE };
	struct proc_dwfl *pd;
	uint64_t generation;
	int ret;

	w.maps = processes_maps(u->ps, in->pid, &w.nmaps, &generation);
	*nr = 0;
	if (!w.maps) {
		ips[0] = in->regs[PROF_UREG_IP];
		*nr = max ? 1 : 0;
		return UNWIND_NO_CFI;
	}
	pd = proc_dwfl(u, in->pid, w.maps, w.nmaps, generation);
	if (!pd->dwfl) {
		ips[0] = in->regs[PROF_UREG_IP];
		*nr = max ? 1 : 0;
		return UNWIND_NO_CFI;
	}
	pd->walk = &w;
	ret = dwfl_getthread_frames(pd->dwfl, (pid_t)in->tid, on_frame, pd);
	pd->walk = NULL;
	*nr = w.nr;
	if (w.nr == 0 && max) {
		/* Not even the first frame: keep the pc the sample hit. */
		ips[0] = in->regs[PROF_UREG_IP];
		*nr = 1;
	}
	if (w.stopped)
		return w.status;
	/* libdwfl ends the walk without an error when a return address
	 * cannot be read, as if the stack ended there: only the reads tell
	 * a stack cut short by the copy from one that really ends. */
	if (w.read_past_copy)
		return UNWIND_STACK_SHORT;
	return ret == 0 ? UNWIND_COMPLETE : UNWIND_ERROR;
}

void unwinder_sweep(struct unwinder *u)
{
	struct htab_entry *e = htab_entries(u->procs);

	for (size_t i = 0; i < htab_count(u->procs);) {
		uint32_t pid;
		size_t n;
		uint64_t generation;
		memcpy(&pid, e[i].key, sizeof(pid));
		if (processes_maps(u->ps, pid, &n, &generation)) {
			i++;
			continue;
		}
		free_proc(e[i].val.p);
		htab_remove(u->procs, &pid, sizeof(pid)); /* moves the last entry to i */
		e = htab_entries(u->procs);
	}
}
