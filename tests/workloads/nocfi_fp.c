/* The nocfi workload with frame pointers and still without CFI, as a
 * runtime's hand-written code is: see nocfi.c. */
#define KEEP_FRAME_POINTER
#include "nocfi.c"
