/* The chain workload as a non-PIE executable: its symbols are absolute
 * addresses, and its PT_LOAD vaddr is not its file offset. */
#include "chain.c"
