#include "sigbus_guard.h"

#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "diag.h"

static uint64_t pages;
static uintptr_t last;
static uintptr_t page_size;

/* Async-signal-safe: mmap and raise are bare system calls, the counts
 * atomic. */
static void on_sigbus(int sig, siginfo_t *si, void *uctx)
{
	int saved = errno;
	uintptr_t at = (uintptr_t)si->si_addr & ~(page_size - 1);

	(void)uctx;
	/* Writable: cfi_freeze() writes to the pages it copies. */
	if (si->si_code == BUS_ADRERR && at &&
	    mmap((void *)at, page_size, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) != MAP_FAILED) {
		__atomic_add_fetch(&pages, 1, __ATOMIC_RELAXED);
		__atomic_store_n(&last, (uintptr_t)si->si_addr, __ATOMIC_RELAXED);
		errno = saved;
		return;
	}
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
