#include "cfi_rows.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "diag.h"
#include "eh_frame_hdr.h"

/* x86-64's DWARF registers. */
#define REG_RBP 6
#define REG_RSP 7
#define REG_RA 16

/* libdw interprets an FDE's instructions from its start for each row, so
 * a file made to (an FDE of a million rows) could take hours: the rows of
 * real files take at most a few hundred milliseconds (cc1's 444,000). */
#define READ_LIMIT_NS (1000 * 1000000ull)

/* The rule of one row, or kind PROF_CFA_NONE where the BPF program cannot
 * follow it. */
static struct unwind_row rule(Dwarf_Frame *frame, size_t *unknown)
{
	struct unwind_row r = { .kind = PROF_CFA_NONE };
	Dwarf_Op *cfa, ra_mem[3], *ra, rbp_mem[3], *rbp;
	size_t ncfa, nra, nrbp;

	if (dwarf_frame_register(frame, REG_RA, ra_mem, &ra, &nra) != 0)
		goto unknown;
	if (nra == 0 && ra == ra_mem) {
		/* An undefined return address: the outermost frame. */
		r.kind = PROF_CFA_END;
		return r;
	}
	if (nra != 2 || ra[0].atom != DW_OP_call_frame_cfa || ra[1].atom != DW_OP_plus_uconst ||
	    (int64_t)ra[1].number != -8)
		goto unknown;
	if (dwarf_frame_cfa(frame, &cfa, &ncfa) != 0)
		goto unknown;
	if (ncfa == 1 && cfa[0].atom == DW_OP_bregx &&
	    (cfa[0].number == REG_RSP || cfa[0].number == REG_RBP) &&
	    (int64_t)cfa[0].number2 >= 0 && cfa[0].number2 <= UINT16_MAX) {
		r.kind = cfa[0].number == REG_RSP ? PROF_CFA_RSP : PROF_CFA_RBP;
		r.cfa = (uint16_t)cfa[0].number2;
	} else if (ncfa == 9 && cfa[0].atom == DW_OP_breg7 && cfa[0].number == 8 &&
		   cfa[1].atom == DW_OP_breg16 && cfa[1].number == 0 && cfa[2].atom == DW_OP_lit15 &&
		   cfa[3].atom == DW_OP_and && (cfa[4].atom == DW_OP_lit10 || cfa[4].atom == DW_OP_lit11) &&
		   cfa[5].atom == DW_OP_ge && cfa[6].atom == DW_OP_lit3 && cfa[7].atom == DW_OP_shl &&
		   cfa[8].atom == DW_OP_plus) {
		/* The PLT's: rsp + 8, + 8 when (rip & 15) >= 10 or 11. */
		r.kind = PROF_CFA_PLT;
		r.cfa = (uint16_t)(cfa[4].atom - DW_OP_lit0);
	} else {
		goto unknown;
	}
	if (dwarf_frame_register(frame, REG_RBP, rbp_mem, &rbp, &nrbp) != 0)
		goto unknown;
	if (nrbp == 0)
		return r; /* same value, or undefined: left as it is */
	if (nrbp == 2 && rbp[0].atom == DW_OP_call_frame_cfa && rbp[1].atom == DW_OP_plus_uconst) {
		int64_t at = (int64_t)rbp[1].number;
		if (at < 0 && at >= -1024 && at % 8 == 0) {
			r.rbp = (int8_t)(at / 8);
			return r;
		}
	}
unknown:
	(*unknown)++;
	return (struct unwind_row){ .kind = PROF_CFA_NONE };
}

static bool same_rule(const struct unwind_row *a, const struct unwind_row *b)
{
	return a->kind == b->kind && a->cfa == b->cfa && a->rbp == b->rbp;
}

/* Adds the row at pc (after the last row's), merged into the last one if
 * it has the same rule; false if beyond 32 bits or max rows. */
static bool add(struct cfi_rows *r, uint64_t pc, struct unwind_row row, size_t max)
{
	if (pc > UINT32_MAX)
		return false;
	if (r->n && same_rule(&r->row[r->n - 1], &row))
		return true;
	if (r->n >= max)
		return false;
	r->row = xreserve_from(r->row, &r->cap, r->n + 1, sizeof(*r->row), 1024);
	row.pc = (uint32_t)pc;
	r->row[r->n++] = row;
	return true;
}

struct cfi_rows *cfi_rows_read(Elf *elf, size_t max, const char **why)
{
	static const struct unwind_row none = { .kind = PROF_CFA_NONE };
	struct cfi_rows *r;
	Dwarf_CFI *cfi;
	struct eh_frame_hdr h;
	const uint8_t *hdr;
	size_t size;
	GElf_Addr vaddr;
	uint64_t deadline;

	if (!eh_frame_hdr_segment(elf, &hdr, &size, &vaddr) ||
	    !eh_frame_hdr_parse(hdr, size, vaddr, &h)) {
		*why = "no .eh_frame_hdr of the usual layout";
		return NULL;
	}
	cfi = dwarf_getcfi_elf(elf);
	if (!cfi) {
		*why = "no call-frame information";
		return NULL;
	}
	r = xcalloc(1, sizeof(*r));
	*why = NULL;
	deadline = monotonic_ns() + READ_LIMIT_NS;
	for (size_t i = 0; i < h.count && !*why; i++) {
		GElf_Addr pc = eh_frame_hdr_pc(&h, i);
		GElf_Addr next = i + 1 < h.count ? eh_frame_hdr_pc(&h, i + 1) : UINT64_MAX;
		/* An FDE inside the last one's rows (of code the linker
		 * discarded, or a duplicate) adds nothing. */
		if (r->n && pc <= r->row[r->n - 1].pc)
			continue;
		/* Each row of the FDE in turn: libdw says where a row ends,
		 * and the next begins there. */
		while (pc < next) {
			Dwarf_Frame *frame;
			Dwarf_Addr start, end;
			bool signal;
			if (dwarf_cfi_addrframe(cfi, pc, &frame) != 0)
				break;
			if (dwarf_frame_info(frame, &start, &end, &signal) < 0 || end <= pc) {
				free(frame);
				break;
			}
			struct unwind_row row = rule(frame, &r->unknown);
			free(frame);
			r->rules++;
			if (!add(r, pc, row, max)) {
				*why = r->n >= max ? "too many rows" : "code beyond 4 GiB";
				break;
			}
			/* At every row: one row of a long FDE can take
			 * milliseconds (its program from the start). */
			if (monotonic_ns() > deadline) {
				*why = CFI_ROWS_TOO_SLOW;
				break;
			}
			pc = end;
		}
		/* Code between FDEs has no CFI. */
		if (!*why && pc < next && !add(r, pc, none, max))
			*why = r->n >= max ? "too many rows" : "code beyond 4 GiB";
	}
	dwarf_cfi_end(cfi);
	if (!*why && r->n == 0)
		*why = "no call-frame information";
	if (*why) {
		cfi_rows_free(r);
		return NULL;
	}
	return r;
}

void cfi_rows_free(struct cfi_rows *r)
{
	if (!r)
		return;
	free(r->row);
	free(r);
}
