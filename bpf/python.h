/*
 * CPython's frames, as the BPF program walks them and prof-sample reads
 * them: shared by both, so the layout is said once.
 *
 * The interpreter keeps the Python call stack in memory of its own, not on
 * the C stack: a linked list of frames per thread, each naming its code
 * object and where in it the thread is.  The BPF program finds the sampled
 * thread's list (its PyThreadState, the one whose thread_id is the
 * thread's pthread_self(), that is its fs base) from _PyRuntime, whose
 * address prof-sample works out from the interpreter's file, and copies
 * each frame's code object and position.
 *
 * Where the Python frames go among the native ones: each call of the
 * interpreter's loop (_PyEval_EvalFrameDefault) runs a run of Python frames
 * and keeps, on its own C stack frame, an object whose address the walk
 * records as an anchor: a _PyCFrame (3.10, 3.11: the frame list's
 * tstate->cframe chain) or the C-stack "shim" frame that starts each run
 * (3.12, 3.13).  prof-sample puts each run in place of the native frame
 * whose stack holds its anchor, so no symbol of the interpreter is needed
 * (Debian's python3.11 is stripped and its loop split by LTO).
 *
 * The offsets are those of CPython's release builds for x86-64, read from
 * pyenv builds' debug information and checked against Debian's python3.11
 * (3.11.2).  A version not in the table is not walked.
 */
#ifndef PROF_PYTHON_H
#define PROF_PYTHON_H

enum py_version {
	PY_310,
	PY_311,
	PY_312,
	PY_313,
	PY_NVERSIONS,
};

struct py_offsets {
	/* _PyRuntime.interpreters.head, PyInterpreterState's first thread */
	__u32 interp_head, threads_head;
	/* PyThreadState */
	__u32 ts_next, ts_thread_id;
	__u32 ts_frame;	    /* 3.10: the frame; 3.13: current_frame */
	__u32 ts_cframe;    /* 3.10-3.12: tstate->cframe, or ~0 */
	__u32 cf_frame;	    /* 3.11, 3.12: _PyCFrame.current_frame, or ~0 */
	__u32 cf_previous;  /* _PyCFrame.previous, or ~0 */
	/* the frame: PyFrameObject (3.10), _PyInterpreterFrame (3.11+) */
	__u32 f_code, f_previous, f_instr;
	__u32 f_flags; /* 3.11: is_entry; 3.12+: owner; or ~0 */
	/* PyCodeObject */
	__u32 co_firstlineno, co_name, co_filename, co_code, co_linetable;
	/* PyUnicodeObject: the state bits, and where a compact string's
	 * characters start, ASCII and not */
	__u32 str_state, str_ascii_data, str_data;
};

#define PY_NONE 0xffffffffu
/* 3.12+: a frame owned by the C stack, the shim that starts a run. */
#define PY_OWNED_BY_CSTACK 3

/* _PyCFrame in 3.10: use_tracing (int), then previous. */
static const struct py_offsets py_offsets[PY_NVERSIONS] = {
	[PY_310] = {
		.interp_head = 32, .threads_head = 8, .ts_next = 8, .ts_thread_id = 176,
		.ts_frame = 24, .ts_cframe = 48, .cf_frame = PY_NONE, .cf_previous = 8,
		.f_code = 32, .f_previous = 24, .f_instr = 96, .f_flags = PY_NONE,
		/* co_qualname is 3.11's: a 3.10 function is named by co_name */
		.co_firstlineno = 40, .co_name = 112, .co_filename = 104, .co_code = 48,
		.co_linetable = 120,
		.str_state = 32, .str_ascii_data = 48, .str_data = 72,
	},
	[PY_311] = {
		.interp_head = 40, .threads_head = 16, .ts_next = 8, .ts_thread_id = 152,
		.ts_frame = PY_NONE, .ts_cframe = 56, .cf_frame = 8, .cf_previous = 16,
		.f_code = 32, .f_previous = 48, .f_instr = 56, .f_flags = 68,
		.co_firstlineno = 72, .co_name = 128, .co_filename = 112, .co_code = 184,
		.co_linetable = 136,
		.str_state = 32, .str_ascii_data = 48, .str_data = 72,
	},
	[PY_312] = {
		.interp_head = 40, .threads_head = 72, .ts_next = 8, .ts_thread_id = 136,
		.ts_frame = PY_NONE, .ts_cframe = 56, .cf_frame = 0, .cf_previous = 8,
		.f_code = 0, .f_previous = 8, .f_instr = 56, .f_flags = 70,
		.co_firstlineno = 68, .co_name = 128, .co_filename = 112, .co_code = 192,
		.co_linetable = 136,
		.str_state = 32, .str_ascii_data = 40, .str_data = 56,
	},
	[PY_313] = {
		.interp_head = 632, .threads_head = 7344, .ts_next = 8, .ts_thread_id = 152,
		.ts_frame = 72, .ts_cframe = PY_NONE, .cf_frame = PY_NONE, .cf_previous = PY_NONE,
		.f_code = 0, .f_previous = 8, .f_instr = 56, .f_flags = 70,
		.co_firstlineno = 68, .co_name = 128, .co_filename = 112, .co_code = 200,
		.co_linetable = 136,
		.str_state = 32, .str_ascii_data = 40, .str_data = 56,
	},
};

/* What prof-sample tells the BPF program of a Python process. */
struct py_proc {
	__u64 runtime; /* the address of _PyRuntime */
	__u32 version; /* enum py_version */
	__u32 reserved;
};

#define PY_MAX_FRAMES 32
#define PY_MAX_ANCHORS 16
#define PY_MAX_THREADS 32
#define PY_NAME_MAX 96
#define PY_FILE_MAX 160
/* Of a code object's line table: longer ones give the lines of the code
 * they cover, and the function's first line past it. */
#define PY_TABLE_MAX 512
/* Code objects seen for the first time in a sample, copied with it. */
#define PY_MAX_NEW_CODES 4

/* py_frame.flags */
#define PY_FRAME_ENTRY 1 /* 3.11: the first frame of its run */
#define PY_FRAME_SHIM 2	 /* 3.12+: a C-stack shim; addr is its anchor */

struct py_frame {
	__u64 code;	    /* the code object (0 for a shim) */
	__u64 name, file;   /* its name and file name objects */
	__u64 name_hash;    /* the name's hash, as the string keeps it */
	__u64 addr;	    /* the frame itself */
	__s32 firstlineno;
	__u32 instr;	    /* bytes into the code (3.10: f_lasti, in code units) */
	__u32 flags;
	__u32 reserved;
};

/* The identity of a code object: its address alone may be a freed one's,
 * reused, and so may its name's (the name's hash tells another name at the
 * same address). */
struct py_code_key {
	__u32 pid;
	__s32 firstlineno;
	__u64 code, name, file, name_hash;
};

struct py_code {
	struct py_code_key key;
	/* The characters' bytes as the string keeps them: kind 1 (Latin-1,
	 * ASCII among them), 2 (UCS-2) or 4 (UCS-4); length in characters. */
	__u32 name_len, file_len;
	__u8 name_kind, file_kind, reserved[2];
	__u32 table_len; /* bytes of co_linetable copied */
	__u8 name[PY_NAME_MAX];
	__u8 file[PY_FILE_MAX];
	__u8 table[PY_TABLE_MAX];
};

/* py_stack.status */
enum py_status {
	PY_NOT_PYTHON,	 /* not a Python process, or not walked */
	PY_WALKED,	 /* nframes frames, the whole list or PY_MAX_FRAMES */
	PY_NO_THREAD,	 /* no thread state is this thread's (not running Python) */
	PY_READ_FAILED,	 /* the interpreter's memory could not be read */
};

struct py_stack {
	__u32 status;	/* enum py_status */
	__u32 nframes, nanchors, nnew;
	__u32 cut;	/* the list went on past PY_MAX_FRAMES */
	__u32 reserved;
	__u64 anchors[PY_MAX_ANCHORS]; /* 3.10, 3.11: the _PyCFrame chain, leaf first */
	struct py_frame frames[PY_MAX_FRAMES];
	struct py_code new_codes[PY_MAX_NEW_CODES];
};

#endif
