/*
 * How off-CPU time is spelled between the stages (docs/FORMATS.md
 * sections 1 to 3): each word once, for the programs that write it and
 * those that read it.
 */
#ifndef PROF_OFFCPU_WORDS_H
#define PROF_OFFCPU_WORDS_H

/* Events: INFO's event, the frames' event lines (perf's names). */
#define EVENT_ON_CPU "cpu-clock"
#define EVENT_OFF_CPU "offcpu-time"
#define EVENT_WALL EVENT_ON_CPU "+" EVENT_OFF_CPU

/* Frames: how the line that starts a waker's stack begins, before a
 * space and "COMM PID/TID". */
#define WAKER_LINE_START "-- woken by"

/* Frames: the comment before an off-CPU event line that stands for more
 * than one block, then their number. */
#define BLOCKS_COMMENT "# blocks "

/* Folded stacks: the frame that ends a blocked stack, and the one before
 * each waker's frames (bcc's offwaketime's). */
#define OFF_CPU_MARKER "[off-cpu]"
#define WAKER_SEPARATOR "--"

#endif
