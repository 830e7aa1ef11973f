/*
 * The raw capture: prof-sample writes it, prof-symbolize reads it.
 * docs/FORMATS.md section 1 is the specification; this is its code.
 */
#ifndef PROF_CAPTURE_H
#define PROF_CAPTURE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define CAP_MAGIC "PROFCAP"	/* 8 bytes with its NUL */
#define CAP_MAJOR 1
#define CAP_MINOR 7
#define CAP_HEADER_SIZE 16
#define CAP_RECORD_HEADER 8
#define CAP_MAX_PAYLOAD (16u << 20)
#define CAP_BUILD_ID_MAX 64
/* Most wakers a SAMPLE may name (--wakeup-depth stops lower). */
#define CAP_MAX_WAKERS 8
/* Most frames of a STACK a reader keeps, from the leaf: each frame costs
 * its reader output (a line of text, a pprof location) in every sample
 * and process state that uses the stack, so a record must not drive that
 * without limit.  As deep as perf takes stacks by default, and as deep as
 * prof-sample writes them (PROF_MAX_STACK); docs/FORMATS.md says more. */
#define CAP_MAX_FRAMES 127

enum cap_type {
	CAP_INFO = 1,
	CAP_COMM = 2,
	CAP_MAP = 3,
	CAP_KSYM = 4,
	CAP_STACK = 5,
	CAP_SAMPLE = 6,
	CAP_LOSS = 7,
	CAP_END = 8,
	CAP_JSYM = 9,
	CAP_RAWSTACK = 10,
	CAP_FORK = 11,
	CAP_CGROUP = 12,
	CAP_PYSYM = 13,
};

enum cap_loss_cause {
	CAP_LOSS_KSTACK = 1,
	CAP_LOSS_USTACK = 2,
	CAP_LOSS_COUNT_MAP = 3,
	CAP_LOSS_PROC = 4,
	CAP_LOSS_MMAP_EVENTS = 5,
	CAP_LOSS_RING = 6,
	CAP_LOSS_TRUNC_NO_CFI = 7,
	CAP_LOSS_TRUNC_STACK = 8,
	CAP_LOSS_TRUNC_ERROR = 9,
	CAP_LOSS_WAKE_CHAIN = 10,
	CAP_LOSS_SWITCH = 11,
	CAP_LOSS_WAKER_STACK = 12,
	CAP_LOSS_BLOCK_USTACK = 13,
	CAP_LOSS_BLOCK_FALLBACK = 14,
	CAP_LOSS_MAX,
};

/* How much a loss cause takes from a capture. */
enum cap_loss_kind {
	CAP_LOSS_PARTIAL, /* samples, blocks or their stacks: the capture is partial */
	CAP_LOSS_PART,    /* what some samples are told with (mappings, wakers) */
	CAP_LOSS_CUT,     /* callers of user stacks cut short: said past a share */
	CAP_LOSS_ASKED,   /* left out as the options asked (wakers past the depth) */
};

/* What a loss cause means, in the words every program reports it with. */
struct cap_loss_info {
	const char *name;   /* as documented: "kernel-stack"... */
	const char *what;   /* what was lost: "kernel stacks" */
	const char *why;    /* "stack map full" */
	const char *remedy; /* what to do about it in prof-sample, or NULL */
	enum cap_loss_kind kind;
};

/* The meaning of a loss cause, or NULL if it is none. */
const struct cap_loss_info *cap_loss_info(uint32_t cause);

/* Name of a loss cause as documented ("kernel-stack"...), or NULL. */
const char *cap_loss_name(uint32_t cause);

/* The user stacks cut short among LOST (counts by cause), and what each
 * cause of it counted, those that counted any, said in BUF ("2 at code
 * without CFI, 1 at ..."). */
uint64_t cap_loss_cut(const uint64_t lost[CAP_LOSS_MAX]);
void cap_loss_cut_said(const uint64_t lost[CAP_LOSS_MAX], char *buf, size_t size);

/* A string inside a record payload: not NUL-terminated. */
struct cap_str {
	const char *s;
	uint16_t len;
};

struct cap_info {
	uint64_t start_ns;
	uint32_t freq;
	uint64_t period;
	uint32_t ncpus;
	struct cap_str event, hostname, release, boot_id;
	/* Off-CPU time (1.3): the blocks counted, and how wakers were
	 * followed; all 0 in an on-CPU capture. */
	uint64_t min_block_ns, max_block_ns;
	uint32_t states; /* CAP_STATE_* */
	uint32_t wakeup_depth;
	/* 1.7: what SAMPLE times are dated to; 0 (before 1.7): the drain
	 * interval. */
	uint64_t time_resolution_ns;
};

/* Task states whose blocks an off-CPU capture counts. */
#define CAP_STATE_SLEEPING 1	   /* S: interruptible sleep */
#define CAP_STATE_UNINTERRUPTIBLE 2 /* D: uninterruptible sleep */

struct cap_comm {
	uint32_t pid, tid;
	struct cap_str comm;
};

/* A MAP's owner when prof-sample could not tell who controls the file. */
#define CAP_OWNER_UNKNOWN UINT32_MAX

struct cap_map {
	uint32_t pid;
	uint64_t start, end, pgoff, dev, inode;
	uint8_t build_id_len;
	const uint8_t *build_id;
	struct cap_str path;
	uint32_t owner; /* 1.5: who controls the file's content, or CAP_OWNER_UNKNOWN */
};

struct cap_ksym {
	uint64_t start, end;
	struct cap_str name, module;
};

struct cap_stack {
	uint32_t id, nr;
	const uint8_t *ips; /* nr little-endian u64s; read with cap_stack_ip() */
	uint32_t cut;	    /* frames past CAP_MAX_FRAMES, left out of nr */
};

enum cap_sample_kind {
	CAP_ON_CPU = 0,	 /* count samples of the clock */
	CAP_OFF_CPU = 1, /* count blocks, weight nanoseconds switched out */
};

/* A thread that woke the sampled one (or the waker before it), with its
 * stacks when it did. */
struct cap_waker {
	uint32_t pid, tid, kstack, ustack;
};

struct cap_sample {
	uint32_t pid, tid, kstack, ustack;
	uint64_t count, time_ns;
	/* 1.3; a 1.2 SAMPLE is on-CPU without wakers. */
	uint32_t kind;
	uint64_t weight;
	uint32_t nwakers;
	struct cap_waker waker[CAP_MAX_WAKERS]; /* the nearest first */
	/* 1.7: the start of the time they were taken in (blocks: began in),
	 * as time_ns its end; before 1.7, time_ns. */
	uint64_t begin_ns;
};

struct cap_loss {
	uint32_t cause;
	uint64_t count;
};

struct cap_end {
	uint64_t duration_ns, samples, lost;
	uint32_t stacks;
	uint64_t taken;
	uint64_t weight; /* 1.3: sum of all SAMPLE weights */
};

struct cap_jsym {
	uint32_t pid;
	uint64_t start, size;
	struct cap_str name;
};

/* 1.6: Python function number id, the frames CAP_PY_IP_BASE + id of user
 * stacks: its qualified name, source file, first line and the line the
 * frames are at. */
#define CAP_PY_IP_BASE (1ull << 63)
struct cap_pysym {
	uint32_t id;
	int32_t line; /* the function's first */
	struct cap_str name, file;
	int32_t at;   /* the line the frames are at; 0: not known */
};

/* Process pid has, from here on, the mappings its parent ppid has in the
 * capture at this record, before its own. */
struct cap_fork {
	uint32_t pid, ppid;
};

/* 1.4: the cgroup v2 path of process pid, from here on. */
struct cap_cgroup {
	uint32_t pid;
	struct cap_str path;
	/* 1.5: how many of path's names, from the root, the sampled host's
	 * cgroup manager made; CAP_CGROUP_ALL for a 1.4 record, which did
	 * not say. */
	uint32_t trusted;
};
#define CAP_CGROUP_ALL UINT32_MAX

/* Longest cgroup path a writer records (the kernel's PATH_MAX). */
#define CAP_CGROUP_PATH_MAX 4096

struct cap_rawstack {
	uint32_t pid, tid;
	uint64_t time_ns;
	uint32_t ustack;
	uint16_t machine, nregs;
	const uint8_t *regs; /* nregs little-endian u64s; read with cap_rawstack_reg() */
	uint32_t stack_len;
	const uint8_t *stack;
};

struct cap_record {
	uint32_t type, len;
	uint64_t offset; /* of the record header in the stream */
	const uint8_t *payload;
	union {
		struct cap_info info;
		struct cap_comm comm;
		struct cap_map map;
		struct cap_ksym ksym;
		struct cap_stack stack;
		struct cap_sample sample;
		struct cap_loss loss;
		struct cap_end end;
		struct cap_jsym jsym;
		struct cap_rawstack rawstack;
		struct cap_fork fork;
		struct cap_cgroup cgroup;
		struct cap_pysym pysym;
	} u;
};

uint64_t cap_stack_ip(const struct cap_stack *s, uint32_t i);
uint64_t cap_rawstack_reg(const struct cap_rawstack *r, uint32_t i);

/* --- writing -------------------------------------------------------------- */

struct cap_writer {
	FILE *f;
	uint8_t *buf;
	size_t len, cap;
	uint64_t bytes; /* written so far, header included */
};

/* Writes the stream header. */
void capw_init(struct cap_writer *w, FILE *f);
void capw_free(struct cap_writer *w);

void capw_info(struct cap_writer *w, const struct cap_info *info);
void capw_comm(struct cap_writer *w, uint32_t pid, uint32_t tid, const char *comm);
void capw_map(struct cap_writer *w, const struct cap_map *map);
void capw_ksym(struct cap_writer *w, uint64_t start, uint64_t end, const char *name,
	       const char *module);
void capw_stack(struct cap_writer *w, uint32_t id, uint32_t nr, const uint64_t *ips);
void capw_sample(struct cap_writer *w, const struct cap_sample *s);
void capw_loss(struct cap_writer *w, uint32_t cause, uint64_t count);
void capw_end(struct cap_writer *w, const struct cap_end *end);
void capw_jsym(struct cap_writer *w, uint32_t pid, uint64_t start, uint64_t size, const char *name,
	       size_t namelen);

void capw_rawstack(struct cap_writer *w, const struct cap_rawstack *r, const uint64_t *regs);
void capw_fork(struct cap_writer *w, uint32_t pid, uint32_t ppid);
void capw_cgroup(struct cap_writer *w, uint32_t pid, const char *path, size_t len,
		 uint16_t trusted);
void capw_pysym(struct cap_writer *w, uint32_t id, int32_t line, const char *name,
		const char *file, int32_t at);

/* A cap_str for a C string (truncated at 65535 bytes). */
struct cap_str cap_cstr(const char *s);

/* --- reading -------------------------------------------------------------- */

enum capr_status {
	CAPR_OK,	/* *rec holds a record */
	CAPR_EOF,	/* clean end of stream */
	CAPR_TRUNCATED, /* the stream ends inside a record */
	CAPR_CORRUPT,	/* a record is malformed; the stream cannot be trusted past it */
	CAPR_IOERR,
};

struct cap_reader {
	FILE *f;
	uint64_t offset;
	uint16_t major, minor;
	uint8_t *buf;
	size_t cap;
	char error[160]; /* why the last call failed, with the byte offset */
};

/* Reads and checks the stream header.  Returns CAPR_OK, or CAPR_CORRUPT (not
 * a capture, or an unknown major version) / CAPR_TRUNCATED with r->error
 * set. */
enum capr_status capr_open(struct cap_reader *r, FILE *f);

/* Reads the next record.  Known types are decoded into rec->u; unknown ones
 * come back with only type, len and payload set, for the caller to skip. */
enum capr_status capr_next(struct cap_reader *r, struct cap_record *rec);
void capr_free(struct cap_reader *r);

#endif
