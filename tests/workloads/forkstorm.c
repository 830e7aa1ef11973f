/*
 * The fork storm of the red-team review (issue 13): one process holding
 * argv[1] executable mappings (default 20000) of its own file, forking
 * argv[2] times a second (default 50) for argv[3] seconds (default 5);
 * each child lives 200 ms.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 20000, rate = argc > 2 ? atoi(argv[2]) : 50;
	time_t end = time(NULL) + (argc > 3 ? atoi(argv[3]) : 5);
	int fd = open("/proc/self/exe", O_RDONLY);

	/* Each at offset 0: the kernel cannot merge them into one. */
	for (int i = 0; i < n; i++)
		if (mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0) == MAP_FAILED)
			break;
	while (time(NULL) < end) {
		if (fork() == 0) {
			usleep(200000);
			_exit(0);
		}
		usleep(1000000 / (rate > 0 ? rate : 1));
		while (waitpid(-1, NULL, WNOHANG) > 0)
			;
	}
	while (wait(NULL) > 0)
		;
	return 0;
}
