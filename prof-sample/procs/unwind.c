/*
 * One Dwfl per set of mappings (a process's, or those a forking server's
 * children share), holding a module for each file mapped (and the vDSO),
 * kept while samples use it: libdwfl parses a file's
 * CFI lazily and caches it in the module, so a process sampled a thousand
 * times looks each FDE up once, where perf script builds a Dwfl per sample.
 * The files themselves are opened once per capture (elf_files.c), their
 * libelf descriptors shared by the Dwfls of every process that maps them.
 *
 * libdwfl falls back to the frame pointer when no CFI describes a frame.
 * Code without CFI may not keep a frame pointer, and a garbage rbp yields
 * callers that look real; yet a runtime's hand-written code (V8's builtins,
 * inside node's own binary) has no CFI and does keep one, and stopping
 * there cut most of a Node.js process's stacks.  So the fallback runs in
 * anonymous executable memory (JIT code, whose runtimes keep frame pointers
 * for profilers), where the caller it finds must be executable code; and in
 * a file's code without CFI only when rbp is sane (frame_pointer_step()):
 * within the stack copy, above the frame's stack pointer, and saving a
 * return address that follows a call instruction.  Otherwise the walk stops
 * there and the sample is counted as truncated.
 */
#include "unwind.h"

#include <dwarf.h>
#include <elfutils/libdwfl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "elf_files.h"
#include "htab.h"
#include "profile.h"

/* Bytes of entry code after the entry point: glibc's _start and ld.so's
 * _start and _dl_start_user are under 100 on x86-64. */
#define ENTRY_CODE_SIZE 128

/* The sample being unwound, and what happened to it. */
struct walk {
	const struct unwind_input *in;
	const struct mapping *maps;
	size_t nmaps;
	uint64_t *ips;
	uint32_t nr, max;
	bool read_past_copy; /* the CFI wanted stack the copy does not have */
	bool fp_step;	     /* the last step used the frame pointer */
	uint32_t fp_in_files; /* frame-pointer steps in files' code without CFI */
	enum unwind_status status;
	bool stopped;
};

struct proc_dwfl {
	Dwfl *dwfl;
	uint64_t generation;
	uint64_t used; /* the sweep it was last used after */
	struct walk *walk;   /* the callbacks' view of the current sample */
	struct htab *checks; /* pc -> enum check + 1: next_step()'s answers */
	struct elf_image **held; /* the files its modules are, until it ends */
	size_t nheld, held_cap;
	/* A file it lacks may come (the file reader brings it): built again
	 * once the reader has brought any. */
	bool incomplete;
	uint64_t files_epoch;
};

/* What next_step() found about a pc in a module. */
enum check {
	CHECK_CFI,   /* CFI describes it */
	CHECK_ENTRY, /* entry code without CFI: the outermost frame */
	CHECK_NONE,  /* no CFI */
};

struct unwinder {
	struct processes *ps;
	struct elf_files *files;
	/* Mappings' generation -> struct proc_dwfl: one session per set of
	 * mappings, shared by the processes that have the same (a forking
	 * server's children), kept while used. */
	struct htab *procs;
	uint64_t sweeps;
	struct unwinder_stats st;
};

/* Set while next_step() asks for a module's .debug_frame: see
 * find_debuginfo(). */
static bool debuginfo_wanted;

/* Each module's ELF is the shared descriptor its userdata names: another
 * reference to it, which the Dwfl's end drops. */
static int shared_elf(Dwfl_Module *mod, void **userdata, const char *name, Dwarf_Addr base,
		      char **file_name, Elf **elfp)
{
	const struct elf_image *f = *userdata;

	(void)mod, (void)name, (void)base, (void)file_name;
	*elfp = f ? elf_begin(-1, ELF_C_READ_MMAP, f->elf) : NULL;
	return -1;
}

/* Debug files, for their .debug_frame, from local build-id directories
 * only: a network lookup in the middle of a capture would stall the rings.
 * And only when next_step() asks.  libdwfl also asks, on its own, when a
 * frame's .eh_frame entry could not be evaluated; but next_step() has
 * checked that CFI covers every frame libdwfl unwinds, so the debug file
 * could not help, and opening it means decompressing its sections again
 * for every new process (libc6-dbg's made prof-sample drop most samples on
 * a host starting processes).  A module refused that way stays without
 * .debug_frame for its process. */
static int find_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname,
			  GElf_Addr base, const char *file_name, const char *debuglink_file,
			  GElf_Word debuglink_crc, char **debuginfo_file_name)
{
	if (!debuginfo_wanted)
		return -1;
	return dwfl_build_id_find_debuginfo(mod, userdata, modname, base, file_name,
					    debuglink_file, debuglink_crc, debuginfo_file_name);
}

static const Dwfl_Callbacks dwfl_callbacks = {
	.find_elf = shared_elf,
	.find_debuginfo = find_debuginfo,
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
	struct walk *w = ((struct proc_dwfl *)arg)->walk;
	uint64_t sp = w->in->regs[PROF_UREG_SP];

	(void)dwfl;
	if (addr >= sp && w->in->stack_len >= sizeof(*result) &&
	    addr - sp <= w->in->stack_len - sizeof(*result)) {
		memcpy(result, w->in->stack + (addr - sp), sizeof(*result));
		return true;
	}
	if (addr >= sp)
		w->read_past_copy = true;
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

struct unwinder *unwinder_new(struct processes *ps, struct elf_files *files)
{
	struct unwinder *u = xcalloc(1, sizeof(*u));

	u->ps = ps;
	u->files = files;
	u->procs = htab_new();
	return u;
}

static void release_files(struct proc_dwfl *pd)
{
	for (size_t i = 0; i < pd->nheld; i++)
		elf_files_release(pd->held[i]);
	pd->nheld = 0;
}

static void free_proc(void *p)
{
	struct proc_dwfl *pd = p;

	dwfl_end(pd->dwfl);
	release_files(pd);
	free(pd->held);
	htab_free(pd->checks);
	free(pd);
}

void unwinder_free(struct unwinder *u)
{
	if (!u)
		return;
	htab_free_values(u->procs, free_proc);
	free(u);
}

/* Named "//anon" by mmap events, "" or "[anon:NAME]" by /proc. */
static bool anonymous(const struct mapping *m)
{
	return !m->path[0] || strcmp(m->path, "//anon") == 0 || strncmp(m->path, "[anon:", 6) == 0;
}

/* Reports the file m maps, where m puts it. */
static void report_module(Dwfl *dwfl, const struct elf_image *f, const struct mapping *m)
{
	GElf_Addr bias;
	Dwfl_Module *mod;
	void **userdata;

	if (!f || !elf_image_bias(f, m, &bias))
		return;
	mod = dwfl_report_module(dwfl, f->name, bias + f->low, bias + f->high);
	if (mod && dwfl_module_info(mod, &userdata, NULL, NULL, NULL, NULL, NULL, NULL))
		*userdata = (void *)f;
}

/* libdwfl looks through every module reported so far for each new one:
 * a process with 20,000 mappings (a hostile one: real ones map a library's
 * code once or twice) cost seconds per session.  A session reports a file
 * at most this many times, and this many mappings in all; a walk into a
 * mapping left out stops there, counted as one without CFI. */
#define MAX_MAPPINGS_PER_FILE 8
#define MAX_MODULES 4096

static Dwfl *build(struct unwinder *u, struct proc_dwfl *pd, uint32_t pid,
		   const struct mapping *maps, size_t n)
{
	Dwfl *dwfl = dwfl_begin(&dwfl_callbacks);
	struct htab *per_file = htab_new();
	size_t reported = 0;

	if (!dwfl) {
		htab_free(per_file);
		return NULL;
	}
	dwfl_report_begin(dwfl);
	for (size_t i = 0; i < n && reported < MAX_MODULES; i++) {
		const struct mapping *m = &maps[i];
		const struct elf_image *f = NULL;
		struct elf_image *file = NULL;
		bool first;
		if (m->path[0] == '/' && !anonymous(m)) {
			f = file = elf_files_get(u->files, pid, m);
			pd->incomplete |= !f;
		} else if (strcmp(m->path, "[vdso]") == 0) {
			f = elf_files_vdso(u->files);
		}
		if (!f)
			continue;
		struct htab_entry *e = htab_upsert(per_file, &f, sizeof(f), &first);
		if (first && file) {
			pd->held = xreserve(pd->held, &pd->held_cap, pd->nheld + 1, sizeof(*pd->held));
			pd->held[pd->nheld++] = file;
			elf_files_hold(file);
		}
		if (e->val.u++ >= MAX_MAPPINGS_PER_FILE)
			continue;
		report_module(dwfl, f, m);
		reported++;
	}
	htab_free(per_file);
	dwfl_report_end(dwfl, NULL, NULL);
	if (!dwfl_attach_state(dwfl, NULL, (pid_t)pid, &thread_callbacks, pd)) {
		dwfl_end(dwfl);
		return NULL;
	}
	return dwfl;
}

/* The Dwfl for this set of mappings, built the first time it is needed. */
static struct proc_dwfl *proc_dwfl(struct unwinder *u, uint32_t pid, const struct mapping *maps,
				   size_t n, uint64_t generation)
{
	bool created;
	struct htab_entry *e = htab_upsert(u->procs, &generation, sizeof(generation), &created);
	struct proc_dwfl *pd;

	if (created) {
		pd = e->val.p = xcalloc(1, sizeof(struct proc_dwfl));
		pd->generation = generation;
		pd->files_epoch = elf_files_epoch(u->files);
		pd->dwfl = build(u, pd, pid, maps, n);
		pd->checks = htab_new();
	}
	pd = e->val.p;
	if (pd->incomplete && pd->files_epoch != elf_files_epoch(u->files)) {
		/* Its modules, and what next_step() found in them, anew. */
		dwfl_end(pd->dwfl);
		release_files(pd);
		htab_free(pd->checks);
		pd->incomplete = false;
		pd->files_epoch = elf_files_epoch(u->files);
		pd->dwfl = build(u, pd, pid, maps, n);
		pd->checks = htab_new();
	}
	pd->used = u->sweeps;
	return pd;
}

static bool cfi_covers(Dwarf_CFI *cfi, Dwarf_Addr bias, Dwarf_Addr pc)
{
	Dwarf_Frame *frame;

	if (!cfi || dwarf_cfi_addrframe(cfi, pc - bias, &frame) != 0)
		return false;
	free(frame);
	return true;
}

/* The kernel starts a process at the entry point of its executable or of
 * its dynamic loader, whose entry code (_start, _dl_start_user) often has
 * no CFI: a frame there is the outermost, and the walk is complete. */
static bool at_entry(Dwfl_Module *mod, Dwarf_Addr pc)
{
	Dwarf_Addr bias;
	Elf *elf = dwfl_module_getelf(mod, &bias);
	GElf_Ehdr eh;

	return elf && gelf_getehdr(elf, &eh) && eh.e_entry && pc >= eh.e_entry + bias &&
	       pc < eh.e_entry + bias + ENTRY_CODE_SIZE;
}

/* Anonymous executable memory: JIT code. */
static bool in_anon_code(const struct walk *w, uint64_t pc)
{
	for (size_t i = 0; i < w->nmaps; i++)
		if (pc >= w->maps[i].start && pc < w->maps[i].end && anonymous(&w->maps[i]))
			return true;
	return false;
}

static int stop(struct walk *w, enum unwind_status status)
{
	w->status = status;
	w->stopped = true;
	return DWARF_CB_ABORT;
}

static enum check check_module(Dwfl_Module *mod, Dwarf_Addr pc)
{
	Dwarf_Addr bias;
	Dwarf_CFI *cfi = dwfl_module_eh_cfi(mod, &bias);

	if (cfi_covers(cfi, bias, pc))
		return CHECK_CFI;
	if (at_entry(mod, pc))
		return CHECK_ENTRY;
	debuginfo_wanted = true;
	cfi = dwfl_module_dwarf_cfi(mod, &bias);
	debuginfo_wanted = false;
	return cfi_covers(cfi, bias, pc) ? CHECK_CFI : CHECK_NONE;
}

/* Whether ra, read from the stack as a return address, is one: in a
 * file's code right after a call instruction, or in JIT code (whose bytes
 * the capture does not have). */
static bool returns_after_call(struct proc_dwfl *pd, const struct walk *w, Dwarf_Addr ra)
{
	Dwfl_Module *mod = dwfl_addrmodule(pd->dwfl, ra - 1);
	void **userdata;
	Dwarf_Addr start;
	const struct elf_image *f;

	if (!mod)
		return in_anon_code(w, ra - 1);
	if (!dwfl_module_info(mod, &userdata, &start, NULL, NULL, NULL, NULL, NULL) ||
	    !(f = *userdata))
		return false;
	/* report_module() put the image's low address at start. */
	return elf_image_call_before(f, ra - (start - f->low));
}

/* A stack beyond this much of the sampled stack pointer is no stack. */
#define STACK_REACH (64u << 20)

/* Whether the frame at state, in a file's code without CFI, may be
 * unwound by its frame pointer; UNWIND_COMPLETE if it may, else why not. */
static enum unwind_status frame_pointer_step(struct proc_dwfl *pd, const struct walk *w,
					     Dwfl_Frame *state)
{
	uint64_t base = w->in->regs[PROF_UREG_SP], ra;
	Dwarf_Word fp, sp;

	if (dwfl_frame_reg(state, PROF_UREG_FP, &fp) != 0 ||
	    dwfl_frame_reg(state, PROF_UREG_SP, &sp) != 0 || fp % 8 || fp < sp || fp < base ||
	    fp - base >= STACK_REACH)
		return UNWIND_NO_CFI;
	if (w->in->stack_len < 16 || fp - base > w->in->stack_len - 16)
		return UNWIND_STACK_SHORT;
	memcpy(&ra, w->in->stack + (fp - base) + 8, sizeof(ra));
	return returns_after_call(pd, w, ra) ? UNWIND_COMPLETE : UNWIND_NO_CFI;
}

/* Decides, before libdwfl unwinds the frame at pc, whether it may.  The
 * answers are kept per process: the same few thousand pcs come back in
 * every sample, and each lookup costs libdw an allocation. */
static int next_step(struct proc_dwfl *pd, struct walk *w, Dwfl_Frame *state, Dwarf_Addr pc)
{
	enum unwind_status fp;
	Dwfl_Module *mod = dwfl_addrmodule(pd->dwfl, pc);
	struct htab_entry *e;
	bool created;

	w->fp_step = false;
	if (!mod) {
		if (!in_anon_code(w, pc))
			return stop(w, UNWIND_NO_CFI);
		w->fp_step = true;
		return DWARF_CB_OK;
	}
	e = htab_upsert(pd->checks, &pc, sizeof(pc), &created);
	if (created)
		e->val.u = check_module(mod, pc) + 1;
	switch (e->val.u - 1) {
	case CHECK_CFI:
		return DWARF_CB_OK;
	case CHECK_ENTRY:
		return stop(w, UNWIND_COMPLETE);
	default:
		if ((fp = frame_pointer_step(pd, w, state)) != UNWIND_COMPLETE)
			return stop(w, fp);
		w->fp_step = true;
		w->fp_in_files++;
		return DWARF_CB_OK;
	}
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
	/* A frame-pointer step must land in code, or rbp was no frame
	 * pointer. */
	if (w->fp_step && !dwfl_addrmodule(pd->dwfl, at) && !in_anon_code(w, at))
		return stop(w, UNWIND_NO_CFI);
	if (w->nr == w->max) {
		w->stopped = true; /* as deep as a frame-pointer walk goes */
		return DWARF_CB_ABORT;
	}
	if (w->in->sps) {
		Dwarf_Word sp = 0;
		dwfl_frame_reg(state, PROF_UREG_SP, &sp);
		w->in->sps[w->nr] = sp;
	}
	w->ips[w->nr++] = pc;
	return next_step(pd, w, state, at);
}

enum unwind_status unwind(struct unwinder *u, const struct unwind_input *in, uint64_t *ips,
			  uint32_t max, uint32_t *nr)
{
	struct walk w = { .in = in, .ips = ips, .max = max, .status = UNWIND_COMPLETE };
	struct proc_dwfl *pd = NULL;
	uint64_t generation;
	int ret = -1;

	w.maps = processes_maps(u->ps, in->pid, &w.nmaps, &generation);
	if (w.maps)
		pd = proc_dwfl(u, in->pid, w.maps, w.nmaps, generation);
	if (pd && pd->dwfl) {
		pd->walk = &w;
		ret = dwfl_getthread_frames(pd->dwfl, (pid_t)in->tid, on_frame, pd);
		pd->walk = NULL;
	} else {
		w.status = UNWIND_NO_CFI; /* no file known at all */
		w.stopped = true;
	}
	if (w.nr == 0 && max) {
		/* Not even the first frame: keep the pc the sample hit. */
		if (in->sps)
			in->sps[w.nr] = in->regs[PROF_UREG_SP];
		ips[w.nr++] = in->regs[PROF_UREG_IP];
	}
	*nr = w.nr;
	u->st.fp_in_files += w.fp_in_files;
	u->st.samples_fp_in_files += w.fp_in_files > 0;
	if (w.stopped)
		return w.status;
	/* libdwfl ends the walk without an error when a return address
	 * cannot be read, as if the stack ended there: only the reads tell
	 * a stack cut short by the copy from one that really ends. */
	if (w.read_past_copy)
		return UNWIND_STACK_SHORT;
	return ret == 0 ? UNWIND_COMPLETE : UNWIND_ERROR;
}

const struct unwinder_stats *unwinder_stats(const struct unwinder *u)
{
	return &u->st;
}

static bool unused_proc(struct htab_entry *e, void *arg)
{
	const struct unwinder *u = arg;
	struct proc_dwfl *pd = e->val.p;

	if (pd->used + 2 >= u->sweeps)
		return false;
	free_proc(pd);
	return true;
}

void unwinder_sweep(struct unwinder *u)
{
	/* Unused for two drains: its processes are gone or have changed. */
	u->sweeps++;
	htab_remove_if(u->procs, unused_proc, u);
}
