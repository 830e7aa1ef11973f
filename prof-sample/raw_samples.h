/*
 * --unwind=dwarf: the samples the BPF program sends through its ring
 * buffer, each with the user registers and stack bytes.  They are unwound
 * as they arrive and aggregated like the BPF maps' samples, so the capture
 * holds the same STACK and SAMPLE records in both modes; with
 * --keep-stack-bytes the raw bytes are written too (RAWSTACK records).
 */
#ifndef PROF_SAMPLE_RAW_SAMPLES_H
#define PROF_SAMPLE_RAW_SAMPLES_H

#include <stdbool.h>
#include <stdint.h>

struct drainer;
struct raw_samples;

/* Returns NULL, with a message printed, if the ring cannot be read. */
struct raw_samples *raw_samples_open(int ring_fd, struct drainer *d, bool keep_stack_bytes);
void raw_samples_close(struct raw_samples *r);

/* Unwinds the samples waiting in the ring, for a bounded time.  Returns
 * false on error. */
bool raw_samples_consume(struct raw_samples *r);

/* Consumes the ring (all of it if last: sampling has stopped), then writes
 * the samples aggregated since the last drain (called by drain()).
 * Returns whether the ring was emptied: if not, samples of processes that
 * have exited may still be in it. */
bool raw_samples_drain(struct raw_samples *r, uint64_t now, bool last);

/* Forgets the processes the drain forgot. */
void raw_samples_sweep(struct raw_samples *r);

#endif
