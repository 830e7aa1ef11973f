/*
 * Threads that spend known shares of their time off the CPU, each measuring
 * itself, so the off-CPU tests compare what a profiler saw with what the
 * threads did.  Built with frame pointers at -O0, like every workload.
 *
 *   offcpu mix SECONDS    "mix-writer" sleeps in delay_write() until the
 *                         start of each 50 ms period and write_pipe()s a
 *                         byte; "mix-worker", woken by it, burn_cpu()s until
 *                         10 ms into the period (20%), sleep_in_nanosleep()s
 *                         until 25 ms (30%), then block_in_pipe_read()s
 *                         until the next byte (50%).
 *   offcpu chain SECONDS  "chain-c" sleeps in c_sleep() until the start of
 *                         each 10 ms period and wakes "chain-b" in
 *                         c_write_to_b(); chain-b, blocked in
 *                         b_read_from_c(), burns 1 ms and wakes "chain-a" in
 *                         b_write_to_a(); chain-a, blocked in
 *                         a_read_from_b(), burns 1 ms.  So chain-a's blocked
 *                         time is caused by chain-b, which chain-c woke.
 *
 * The clock sets each phase's end, not an amount of work, and the periods
 * are long beside the wake-up latencies of a loaded machine, so the shares
 * hold within a point or so there: a late wake-up or a preemption moves time
 * from one phase to the next, and the period stays the same.  Time a thread
 * spends preempted is in wall_ns but in none of the other figures.
 *
 * At the end, one line per thread that did the work (the main thread only
 * waits in pthread_join), in this order (mix: worker, writer; chain: a, b, c):
 *
 *   thread name=NAME tid=TID wall_ns=N cpu_ns=N nanosleep_ns=N pipe_read_ns=N
 *          long_nanosleep_ns=N
 *
 * wall_ns: CLOCK_MONOTONIC from the thread's start to its end; cpu_ns:
 * CLOCK_THREAD_CPUTIME_ID over the same span; nanosleep_ns and pipe_read_ns:
 * CLOCK_MONOTONIC around each clock_nanosleep() and each read() of a pipe,
 * summed; long_nanosleep_ns: the part of nanosleep_ns in sleeps that lasted
 * LONG_SLEEP or more (a 15 ms sleep woken late on a loaded machine does),
 * which bounds what a profiler told to skip shorter blocks may count, since
 * a block seen from the scheduler lies within the span measured around its
 * system call.  Exit status 2 on a usage error.
 */
#define _GNU_SOURCE
#include <err.h>
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MS 1000000L
#define LONG_SLEEP (20 * MS)
#define noinline __attribute__((noinline))

struct thread {
	const char *name;
	void *(*run)(struct thread *);
	int in, out; /* the pipe ends it reads and writes, or -1 */
	pid_t tid;
	int64_t wall_ns, cpu_ns, nanosleep_ns, pipe_read_ns, long_nanosleep_ns;
};

static int64_t start, deadline, period;
static volatile unsigned long sink;

static int64_t now_ns(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return ts.tv_sec * 1000000000L + ts.tv_nsec;
}

/* When the current period began. */
static int64_t period_start(void)
{
	int64_t now = now_ns(CLOCK_MONOTONIC);

	return now - (now - start) % period;
}

/*
 * Every libc call that blocks or wakes goes through one of these helpers.
 * Frame-pointer unwinding loses the caller of a libc function without a
 * frame (the return address is on the stack, not in the frame chain): it
 * loses the helper, and the function named for the tests keeps its frame.
 */
static noinline void timed_sleep(struct thread *t, int64_t until)
{
	struct timespec ts = { until / 1000000000L, until % 1000000000L };
	int64_t begin = now_ns(CLOCK_MONOTONIC), slept;

	clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
	slept = now_ns(CLOCK_MONOTONIC) - begin;
	t->nanosleep_ns += slept;
	if (slept >= LONG_SLEEP)
		t->long_nanosleep_ns += slept;
}

/* One byte from the pipe; false at its end. */
static noinline bool timed_read(struct thread *t)
{
	char c;
	int64_t begin = now_ns(CLOCK_MONOTONIC);
	ssize_t n = read(t->in, &c, 1);

	t->pipe_read_ns += now_ns(CLOCK_MONOTONIC) - begin;
	if (n < 0)
		err(1, "%s: read", t->name);
	return n == 1;
}

static noinline void put_byte(struct thread *t)
{
	if (write(t->out, "x", 1) != 1)
		err(1, "%s: write", t->name);
}

noinline void burn_cpu(int64_t until)
{
	do {
		for (unsigned long i = 0; i < 20000; i++)
			sink += i * i;
	} while (now_ns(CLOCK_MONOTONIC) < until);
}

/* --- mix --------------------------------------------------------------- */

noinline bool block_in_pipe_read(struct thread *t)
{
	return timed_read(t);
}

noinline void sleep_in_nanosleep(struct thread *t, int64_t until)
{
	timed_sleep(t, until);
}

noinline void *mix_worker(struct thread *t)
{
	while (block_in_pipe_read(t)) {
		int64_t p = period_start();

		burn_cpu(p + 10 * MS);
		sleep_in_nanosleep(t, p + 25 * MS);
	}
	return NULL;
}

noinline void delay_write(struct thread *t, int64_t until)
{
	timed_sleep(t, until);
}

noinline void write_pipe(struct thread *t)
{
	put_byte(t);
}

noinline void *mix_writer(struct thread *t)
{
	for (int64_t at = start + period; at < deadline; at += period) {
		delay_write(t, at);
		write_pipe(t);
	}
	return NULL;
}

/* --- chain ------------------------------------------------------------- */

noinline bool a_read_from_b(struct thread *t)
{
	return timed_read(t);
}

noinline void *chain_a(struct thread *t)
{
	while (a_read_from_b(t))
		burn_cpu(now_ns(CLOCK_MONOTONIC) + 1 * MS);
	return NULL;
}

noinline bool b_read_from_c(struct thread *t)
{
	return timed_read(t);
}

noinline void b_write_to_a(struct thread *t)
{
	put_byte(t);
}

noinline void *chain_b(struct thread *t)
{
	while (b_read_from_c(t)) {
		burn_cpu(now_ns(CLOCK_MONOTONIC) + 1 * MS);
		b_write_to_a(t);
	}
	return NULL;
}

noinline void c_sleep(struct thread *t, int64_t until)
{
	timed_sleep(t, until);
}

noinline void c_write_to_b(struct thread *t)
{
	put_byte(t);
}

noinline void *chain_c(struct thread *t)
{
	for (int64_t at = start + period; at < deadline; at += period) {
		c_sleep(t, at);
		c_write_to_b(t);
	}
	return NULL;
}

/* --- main -------------------------------------------------------------- */

/* Measures the thread's run, then closes its write end: the end of the
 * pipe tells the thread downstream to finish too. */
static void *thread_main(void *arg)
{
	struct thread *t = arg;
	int64_t wall, cpu;

	pthread_setname_np(pthread_self(), t->name);
	t->tid = gettid();
	wall = now_ns(CLOCK_MONOTONIC);
	cpu = now_ns(CLOCK_THREAD_CPUTIME_ID);
	t->run(t);
	t->cpu_ns = now_ns(CLOCK_THREAD_CPUTIME_ID) - cpu;
	t->wall_ns = now_ns(CLOCK_MONOTONIC) - wall;
	if (t->out >= 0)
		close(t->out);
	return NULL;
}

static void connect_pipe(struct thread *writer, struct thread *reader)
{
	int fd[2];

	if (pipe(fd))
		err(1, "pipe");
	reader->in = fd[0];
	writer->out = fd[1];
}

static void usage(const char *prog)
{
	fprintf(stderr, "usage: %s mix|chain SECONDS\n", prog);
	exit(2);
}

int main(int argc, char **argv)
{
	struct thread mix[] = {
		{ .name = "mix-worker", .run = mix_worker, .in = -1, .out = -1 },
		{ .name = "mix-writer", .run = mix_writer, .in = -1, .out = -1 },
	};
	struct thread chain[] = {
		{ .name = "chain-a", .run = chain_a, .in = -1, .out = -1 },
		{ .name = "chain-b", .run = chain_b, .in = -1, .out = -1 },
		{ .name = "chain-c", .run = chain_c, .in = -1, .out = -1 },
	};
	struct thread *threads;
	pthread_t id[3];
	size_t n;

	if (argc != 3 || atof(argv[2]) <= 0)
		usage(argv[0]);
	if (strcmp(argv[1], "mix") == 0) {
		threads = mix, n = 2, period = 50 * MS;
		connect_pipe(&mix[1], &mix[0]);
	} else if (strcmp(argv[1], "chain") == 0) {
		threads = chain, n = 3, period = 10 * MS;
		connect_pipe(&chain[2], &chain[1]);
		connect_pipe(&chain[1], &chain[0]);
	} else {
		usage(argv[0]);
	}

	start = now_ns(CLOCK_MONOTONIC);
	deadline = start + (int64_t)(atof(argv[2]) * 1e9);
	for (size_t i = 0; i < n; i++)
		if ((errno = pthread_create(&id[i], NULL, thread_main, &threads[i])))
			err(1, "pthread_create");
	for (size_t i = 0; i < n; i++)
		pthread_join(id[i], NULL);
	for (size_t i = 0; i < n; i++) {
		struct thread *t = &threads[i];

		printf("thread name=%s tid=%d wall_ns=%lld cpu_ns=%lld nanosleep_ns=%lld "
		       "pipe_read_ns=%lld long_nanosleep_ns=%lld\n",
		       t->name, (int)t->tid, (long long)t->wall_ns, (long long)t->cpu_ns,
		       (long long)t->nanosleep_ns, (long long)t->pipe_read_ns,
		       (long long)t->long_nanosleep_ns);
	}
	return 0;
}
