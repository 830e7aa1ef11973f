/*
 * prof-sample's DWARF unwinder on this very process: its registers and a
 * copy of its stack, taken here, must unwind to exactly the return
 * addresses glibc's backtrace() (libgcc's CFI unwinder) finds, also after a
 * trip through a RAWSTACK record; a stack copy cut short or code without
 * CFI must stop the walk, counted, with only right frames.
 *
 * Built like the programs (-O2, so without frame pointers): a frame-pointer
 * walk of these functions would not get far.
 */
#include <execinfo.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <string.h>
#include <ucontext.h>
#include <unistd.h>

#include "profile.h"
#include "recorder_fixture.h"

#define MAX_FRAMES 64

extern const char __ehdr_start[]; /* the linker's: this executable's first byte */

struct snapshot {
	uint64_t regs[PROF_NR_UREGS];
	uint8_t stack[PROF_MAX_STACK_COPY];
	uint32_t stack_len;
	void *reference[MAX_FRAMES]; /* backtrace() at the same point */
	int nreference;
};

/* The top of the mapping holding addr, from /proc/self/maps. */
static uint64_t mapping_end(uint64_t addr)
{
	FILE *f = fopen("/proc/self/maps", "r");
	unsigned long long start, end;
	char line[512];
	uint64_t found = 0;

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "%llx-%llx", &start, &end) == 2 && addr >= start && addr < end)
			found = end;
	if (f)
		fclose(f);
	return found;
}

/* Reads the stack above sp as the BPF program would: live frames and the
 * sanitizer's redzones between them alike. */
__attribute__((no_sanitize_address, noinline)) static void copy_stack(uint8_t *dst,
								     const uint8_t *src, size_t n)
{
	for (size_t i = 0; i < n; i++)
		((volatile uint8_t *)dst)[i] = src[i];
}

__attribute__((noinline)) static void take_snapshot(struct snapshot *s)
{
	static const int from[PROF_NR_UREGS] = {
		REG_RAX, REG_RDX, REG_RCX, REG_RBX, REG_RSI, REG_RDI, REG_RBP, REG_RSP, REG_R8,
		REG_R9,	 REG_R10, REG_R11, REG_R12, REG_R13, REG_R14, REG_R15, REG_RIP,
	};
	ucontext_t uc;
	uint64_t sp, top;

	/* getcontext returns here with the registers as they were at its
	 * return address: a state any unwinder can start from. */
	getcontext(&uc);
	s->nreference = backtrace(s->reference, MAX_FRAMES);
	for (int i = 0; i < PROF_NR_UREGS; i++)
		s->regs[i] = (uint64_t)uc.uc_mcontext.gregs[from[i]];
	sp = s->regs[PROF_UREG_SP];
	top = mapping_end(sp);
	s->stack_len = top - sp < sizeof(s->stack) ? (uint32_t)(top - sp) : sizeof(s->stack);
	copy_stack(s->stack, (const uint8_t *)sp, s->stack_len);
}

/* Some depth of calls that keep their frames, so there is something to
 * unwind. */
__attribute__((noinline)) static int descend(struct snapshot *s, int depth)
{
	int r;

	if (depth == 0) {
		take_snapshot(s);
		return 0;
	}
	r = descend(s, depth - 1);
	__asm__ volatile("" ::: "memory");
	return r + depth;
}

/* The recorder's fixture, with this process in the table and an unwinder. */
static void unwind_fixture_init(struct fixture *f)
{
	fixture_init(f);
	processes_sampled(&f->ps, processes_get(&f->ps, (uint32_t)getpid()));
	mapped_files_poll(&f->files, 5000);
	f->elves = elf_files_new(&f->files);
	f->u = unwinder_new(&f->ps, f->elves);
}

static enum unwind_status unwind_snapshot(struct fixture *f, const struct snapshot *s,
					  uint32_t stack_len, uint64_t *ips, uint32_t *nr)
{
	struct unwind_input in = {
		.pid = (uint32_t)getpid(),
		.tid = (uint32_t)gettid(),
		.regs = s->regs,
		.stack = s->stack,
		.stack_len = stack_len,
	};

	return unwind(f->u, &in, ips, PROF_MAX_STACK, nr);
}

/* Frames 1.. are return addresses for both (frame 0 is where each was
 * called from inside take_snapshot, a few bytes apart).  The sanitizer's
 * backtrace() interceptor adds a frame of its own before take_snapshot's:
 * the lists are compared from where ips[1] is in the reference. */
static void check_against_backtrace(const struct snapshot *s, const uint64_t *ips, uint32_t nr)
{
	int k = 1;

	while (k < s->nreference && (uint64_t)(uintptr_t)s->reference[k] != ips[1])
		k++;
	CHECK(k <= 2);
	CHECK_INT(nr - 1, s->nreference - k);
	for (uint32_t i = 1; i < nr && k < s->nreference; i++, k++)
		if (ips[i] != (uint64_t)(uintptr_t)s->reference[k]) {
			printf("#   frame %u: got %#" PRIx64 ", backtrace() %p\n", i, ips[i],
			       s->reference[k]);
			unit_failed_checks++;
		}
}

TEST(unwinds_this_process_like_backtrace)
{
	static struct snapshot s;
	struct fixture f;
	uint64_t ips[PROF_MAX_STACK];
	uint32_t nr;

	unwind_fixture_init(&f);
	descend(&s, 10);
	CHECK(s.nreference > 12);
	CHECK_INT(unwind_snapshot(&f, &s, s.stack_len, ips, &nr), UNWIND_COMPLETE);
	CHECK_INT(ips[0], s.regs[PROF_UREG_IP]);
	check_against_backtrace(&s, ips, nr);
	fixture_free(&f);
}

TEST(a_rawstack_record_holds_all_unwinding_needs)
{
	static struct snapshot s;
	struct fixture f;
	struct cap_reader r;
	struct cap_record rec;
	uint64_t ips[PROF_MAX_STACK], regs[PROF_NR_UREGS];
	uint32_t nr = 0;
	FILE *in;

	unwind_fixture_init(&f);
	descend(&s, 5);
	recorder_rawstack(f.rec,
			  &(struct cap_rawstack){ .pid = 7, .tid = 8, .time_ns = 9, .ustack = 10,
						  .machine = 62, .nregs = PROF_NR_UREGS,
						  .stack_len = s.stack_len, .stack = s.stack },
			  s.regs);
	recorder_end(f.rec, 0);
	fflush(f.capture);
	in = fmemopen(f.buf, f.len, "r");
	CHECK_INT(capr_open(&r, in), CAPR_OK);
	CHECK_INT(r.minor, CAP_MINOR);
	while (capr_next(&r, &rec) == CAPR_OK && rec.type != CAP_RAWSTACK)
		;
	CHECK_INT(rec.type, CAP_RAWSTACK);
	CHECK_INT(rec.u.rawstack.pid, 7);
	CHECK_INT(rec.u.rawstack.tid, 8);
	CHECK_INT(rec.u.rawstack.time_ns, 9);
	CHECK_INT(rec.u.rawstack.ustack, 10);
	CHECK_INT(rec.u.rawstack.machine, 62);
	CHECK_INT(rec.u.rawstack.nregs, PROF_NR_UREGS);
	CHECK_INT(rec.u.rawstack.stack_len, s.stack_len);
	if (rec.type == CAP_RAWSTACK && rec.u.rawstack.nregs == PROF_NR_UREGS) {
		static struct snapshot copy;
		for (uint32_t i = 0; i < PROF_NR_UREGS; i++)
			regs[i] = cap_rawstack_reg(&rec.u.rawstack, i);
		memcpy(copy.regs, regs, sizeof(regs));
		memcpy(copy.stack, rec.u.rawstack.stack, rec.u.rawstack.stack_len);
		CHECK_INT(unwind_snapshot(&f, &copy, rec.u.rawstack.stack_len, ips, &nr),
			  UNWIND_COMPLETE);
		check_against_backtrace(&s, ips, nr);
	}
	capr_free(&r);
	fclose(in);
	fixture_free(&f);
}

TEST(a_short_stack_copy_stops_with_right_frames)
{
	static struct snapshot s;
	struct fixture f;
	uint64_t full[PROF_MAX_STACK], cut[PROF_MAX_STACK];
	uint32_t nfull, ncut;

	unwind_fixture_init(&f);
	descend(&s, 10);
	CHECK_INT(unwind_snapshot(&f, &s, s.stack_len, full, &nfull), UNWIND_COMPLETE);
	/* Whatever the frame sizes (the sanitizer makes them larger), some
	 * of these cuts fall between take_snapshot's caller and main. */
	bool some_between = false;
	for (uint32_t len = 512; len <= 8192; len += 512) {
		enum unwind_status st = unwind_snapshot(&f, &s, len, cut, &ncut);
		if (ncut < nfull)
			CHECK_INT(st, UNWIND_STACK_SHORT);
		for (uint32_t i = 0; i < ncut && i < nfull; i++)
			CHECK_INT(cut[i], full[i]);
		some_between |= ncut >= 3 && ncut < nfull;
	}
	CHECK(some_between);
	/* Nothing copied: only the pc the sample hit. */
	CHECK_INT(unwind_snapshot(&f, &s, 0, cut, &ncut), UNWIND_STACK_SHORT);
	CHECK_INT(ncut, 1);
	CHECK_INT(cut[0], s.regs[PROF_UREG_IP]);
	fixture_free(&f);
}

TEST(code_without_cfi_stops_the_walk)
{
	static struct snapshot s;
	struct fixture f;
	uint64_t ips[PROF_MAX_STACK];
	uint32_t nr;
	/* Anonymous memory the process does not map: no module, no CFI. */
	void *page = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	unwind_fixture_init(&f);
	descend(&s, 3);
	s.regs[PROF_UREG_IP] = (uint64_t)(uintptr_t)page + 16;
	CHECK_INT(unwind_snapshot(&f, &s, s.stack_len, ips, &nr), UNWIND_NO_CFI);
	CHECK_INT(nr, 1);
	CHECK_INT(ips[0], (uint64_t)(uintptr_t)page + 16);
	munmap(page, 4096);
	fixture_free(&f);
}

/* Sets s up as a sample taken in this executable's ELF header (code
 * without CFI, of a file), with rbp pointing just below the stack slot of
 * the return address backtrace() found at reference[k]: a frame pointer
 * whose step leads to that frame, its stack pointer right.  The slot's
 * offset in the copy, or -1. */
static long fake_frame_pointer(struct snapshot *s, int k)
{
	uint64_t ra = (uint64_t)(uintptr_t)s->reference[k];

	for (uint32_t off = 8; off + 8 <= s->stack_len; off += 8) {
		uint64_t word;
		memcpy(&word, s->stack + off, sizeof(word));
		if (word != ra)
			continue;
		s->regs[PROF_UREG_FP] = s->regs[PROF_UREG_SP] + off - 8;
		s->regs[PROF_UREG_IP] = (uint64_t)(uintptr_t)&__ehdr_start + 16;
		return off;
	}
	return -1;
}

/* A frame of s past take_snapshot's whose return address no other frame
 * has (descend's recursive calls all return to the same place, so its
 * slot in the stack would be ambiguous), or -1. */
static int unique_frame(const struct snapshot *s)
{
	for (int k = 2; k < s->nreference; k++) {
		int same = 0;
		for (int j = 0; j < s->nreference; j++)
			same += s->reference[j] == s->reference[k];
		if (same == 1)
			return k;
	}
	return -1;
}

TEST(a_sane_frame_pointer_walks_code_without_cfi)
{
	static struct snapshot s;
	struct fixture f;
	uint64_t ips[PROF_MAX_STACK];
	uint32_t nr;
	int k;

	unwind_fixture_init(&f);
	descend(&s, 6);
	k = unique_frame(&s);
	CHECK(k > 0 && fake_frame_pointer(&s, k) > 0);
	CHECK_INT(unwind_snapshot(&f, &s, s.stack_len, ips, &nr), UNWIND_COMPLETE);
	CHECK_INT(ips[0], s.regs[PROF_UREG_IP]);
	/* Then the frames backtrace() found from there, every one. */
	CHECK_INT(nr - 1, s.nreference - k);
	for (uint32_t i = 1; i < nr && k + (int)i - 1 < s.nreference; i++)
		CHECK_INT(ips[i], (uint64_t)(uintptr_t)s.reference[k + i - 1]);
	CHECK_INT(unwinder_stats(f.u)->fp_in_files, 1);
	fixture_free(&f);
}

TEST(a_frame_pointer_to_a_word_no_call_returns_to_stops_the_walk)
{
	static struct snapshot s;
	struct fixture f;
	uint64_t ips[PROF_MAX_STACK], not_after_call = (uint64_t)(uintptr_t)&descend;
	uint32_t nr;
	long off;

	unwind_fixture_init(&f);
	descend(&s, 6);
	off = fake_frame_pointer(&s, unique_frame(&s));
	CHECK(off > 0);
	/* A function's first byte: code, but after no call. */
	memcpy(s.stack + off, &not_after_call, sizeof(not_after_call));
	CHECK_INT(unwind_snapshot(&f, &s, s.stack_len, ips, &nr), UNWIND_NO_CFI);
	CHECK_INT(nr, 1);
	/* rbp below the stack pointer, or past the copy: no step either. */
	s.regs[PROF_UREG_FP] = s.regs[PROF_UREG_SP] - 64;
	CHECK_INT(unwind_snapshot(&f, &s, s.stack_len, ips, &nr), UNWIND_NO_CFI);
	s.regs[PROF_UREG_FP] = s.regs[PROF_UREG_SP] + 4096;
	CHECK_INT(unwind_snapshot(&f, &s, 1024, ips, &nr), UNWIND_STACK_SHORT);
	CHECK_INT(unwinder_stats(f.u)->fp_in_files, 0);
	fixture_free(&f);
}

TEST(an_unknown_process_keeps_its_pc)
{
	static struct snapshot s;
	struct fixture f;
	uint64_t ips[PROF_MAX_STACK];
	uint32_t nr;
	struct unwind_input in = { .pid = 0x7ffffff0, .tid = 1, .regs = s.regs, .stack = s.stack };

	unwind_fixture_init(&f);
	descend(&s, 1);
	in.stack_len = s.stack_len;
	CHECK_INT(unwind(f.u, &in, ips, PROF_MAX_STACK, &nr), UNWIND_NO_CFI);
	CHECK_INT(nr, 1);
	CHECK_INT(ips[0], s.regs[PROF_UREG_IP]);
	fixture_free(&f);
}
