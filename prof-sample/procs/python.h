/*
 * CPython processes (bpf/python.h): which processes are Python, for the
 * BPF program to walk their threads' frames, and the frames it walked put
 * in place of the interpreter's own in each unwound stack.
 *
 * A Python function in a stack is a synthetic address, PY_IP_BASE plus the
 * function's number in the capture (a PYSYM record names it: FORMATS.md).
 * Functions are known by name, file and first line, and the line the
 * frame was at, whatever process or code object they come from.
 */
#ifndef PROF_SAMPLE_PYTHON_H
#define PROF_SAMPLE_PYTHON_H

#include <stdbool.h>
#include <stdint.h>

#include "capture.h"
#include "profile.h"
#include "processes.h"

struct python_stats {
	uint64_t processes;   /* marked as Python, by version: */
	uint64_t by_version[PY_NVERSIONS];
	uint64_t unknown_version; /* a python3.N this profiler does not know */
	uint64_t not_marked;	  /* the BPF program's map full even of live ones */
	uint64_t samples;     /* samples of Python threads with Python frames */
	uint64_t frames;      /* Python frames put in stacks */
	uint64_t no_thread;   /* samples of marked processes' threads not running Python */
	uint64_t cut;	      /* frame lists longer than PY_MAX_FRAMES */
	uint64_t unnamed;     /* frames of code objects whose names never came */
	uint64_t no_line;     /* function-and-instruction pairs without a line */
	uint64_t unplaced;    /* runs whose interpreter frame the native walk did not reach */
};

struct python;

/* py_procs_fd: the BPF program's map of Python processes. */
struct python *python_new(int py_procs_fd, struct mapped_files *mf);
void python_free(struct python *py);

/* Marks pid for the BPF program if it runs a CPython it knows, the first
 * time pid is seen with its mappings (an exec makes new ones), or until
 * its interpreter's file could be read. */
void python_check(struct python *py, struct processes *ps, uint32_t pid);

/* Forgets pid (exited): its mark goes from the BPF program's map. */
void python_forget(struct python *py, uint32_t pid);

/* Puts the Python frames of s (walked by the BPF program for pid) in
 * place of the native frames that ran them: ips[0..*nr) with each frame's
 * stack pointer in sps, at most max frames. */
void python_merge(struct python *py, uint32_t pid, const struct py_stack *s, uint64_t *ips,
		  const uint64_t *sps, uint32_t *nr, uint32_t max);

/* Python function number id (ips[i] - PY_IP_BASE): its name, file, first
 * line, and the line it was at (0: not known); false if there is none. */
bool python_function(const struct python *py, uint32_t id, const char **name,
		     const char **file, int32_t *line, int32_t *at);

const struct python_stats *python_stats(const struct python *py);

#define PY_IP_BASE CAP_PY_IP_BASE

#endif
