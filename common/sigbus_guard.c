#include "sigbus_guard.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "diag.h"

static uint64_t pages;
static uintptr_t last;
static uintptr_t page_size;

static int hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/* The mapping [*lo, *hi) that holds addr, from /proc/self/maps ("lo-hi
 * ..." a line, in hex): open, read and close are async-signal-safe,
 * stdio is not.  False if it cannot be told. */
static bool mapping_of(uintptr_t addr, uintptr_t *lo, uintptr_t *hi)
{
	char buf[4096];
	uintptr_t v[2] = { 0, 0 };
	int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC), field = 0;
	bool found = false;
	ssize_t n;

	if (fd < 0)
		return false;
	while (!found && (n = read(fd, buf, sizeof(buf))) > 0) {
		for (ssize_t i = 0; i < n && !found; i++) {
			int d = hex_digit(buf[i]);
			if (buf[i] == '\n') {
				field = 0;
				v[0] = v[1] = 0;
			} else if (field < 2 && d >= 0) {
				v[field] = v[field] * 16 + (uintptr_t)d;
			} else if (field == 0 && buf[i] == '-') {
				field = 1;
			} else if (field == 1) {
				found = addr >= v[0] && addr < v[1];
				field = 2;
			} else {
				field = 2;
			}
		}
	}
	close(fd);
	*lo = v[0];
	*hi = v[1];
	return found;
}

/* Async-signal-safe: mmap, open, read, close and raise are bare system
 * calls, the counts atomic. */
static void on_sigbus(int sig, siginfo_t *si, void *uctx)
{
	int saved = errno;
	uintptr_t at = (uintptr_t)si->si_addr & ~(page_size - 1), lo, hi;
	const int prot = PROT_READ | PROT_WRITE, flags = MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED;

	(void)uctx;
	/* Zeros over the whole of the mapping that holds the page, not the
	 * page alone: a page mapped into the middle of a mapping splits it
	 * in three, and a user who made root's profiler read every other
	 * page of a truncated file ran it out of mappings
	 * (vm.max_map_count), at which it died all the same.  The pages
	 * below this one, where the file may still be whole, go too: the
	 * file is no longer what was mapped, and one fault for all of it
	 * costs less than one a page.  (Writable: cfi_freeze() writes to
	 * the pages it copies.) */
	if (si->si_code == BUS_ADRERR && at) {
		if (!mapping_of(at, &lo, &hi) || lo > at || hi <= at ||
		    mmap((void *)lo, hi - lo, prot, flags, -1, 0) == MAP_FAILED) {
			lo = at;
			hi = at + page_size;
			if (mmap((void *)at, page_size, prot, flags, -1, 0) == MAP_FAILED)
				goto fatal;
		}
		__atomic_add_fetch(&pages, (hi - lo) / page_size, __ATOMIC_RELAXED);
		__atomic_store_n(&last, (uintptr_t)si->si_addr, __ATOMIC_RELAXED);
		errno = saved;
		return;
	}
fatal:
	/* Not ours to mend: as if there were no handler.  A fault comes
	 * again when the instruction is; a sent signal is sent again. */
	signal(sig, SIG_DFL);
	if (si->si_code <= 0)
		raise(sig);
	errno = saved;
}

void sigbus_guard_install(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_sigbus;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	page_size = (uintptr_t)sysconf(_SC_PAGESIZE);
	if (sigaction(SIGBUS, &sa, NULL) != 0)
		err(EXIT_USAGE, "cannot handle SIGBUS");
}

uint64_t sigbus_guard_pages(uintptr_t *last_addr)
{
	if (last_addr)
		*last_addr = __atomic_load_n(&last, __ATOMIC_RELAXED);
	return __atomic_load_n(&pages, __ATOMIC_RELAXED);
}
