/*
 * Stacks the BPF program holds across drain intervals (the held_stacks
 * map): those of off-CPU blocks, taken when a block starts and counted
 * when it ends, maybe minutes later, and those of the wakers a block names
 * (--wakeups).  A sample names them by key; they are read from the map the
 * first time one is needed, and the least recently used are dropped from
 * it when it is full.
 */
#ifndef PROF_SAMPLE_HELD_STACKS_H
#define PROF_SAMPLE_HELD_STACKS_H

#include "recorder.h"

/* The capture id of the held stack under key (0: none), written the first
 * time; 0 and a loss of the given cause when the map no longer has it. */
uint32_t held_stack_id(struct recorder *rec, int fd, uint64_t key, enum cap_loss_cause lost);

/* Fills in the stack ids of s's wakers. */
void held_stacks_wakers(struct recorder *rec, int fd, struct taken_sample *s);

#endif
