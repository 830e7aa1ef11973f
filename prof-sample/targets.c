#include "targets.h"

#include <bpf/bpf.h>
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"

void targets_add_pids(struct targets *t, const char *list)
{
	char *copy = xstrdup(list), *save = NULL;

	for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *end;
		unsigned long pid = strtoul(tok, &end, 10);
		if (end == tok || *end || pid == 0 || pid > INT32_MAX)
			errx(EXIT_USAGE, "invalid PID: '%s'", tok);
		t->pids = xreallocarray(t->pids, t->npids + 1, sizeof(*t->pids));
		t->pids[t->npids++] = (uint32_t)pid;
	}
	free(copy);
}

void targets_check(const struct targets *t)
{
	for (size_t i = 0; i < t->npids; i++)
		if (kill((pid_t)t->pids[i], 0) != 0 && errno == ESRCH)
			errx(EXIT_USAGE, "no such process: %u", t->pids[i]);
}

bool targets_install(const struct targets *t, int map_fd)
{
	uint8_t one = 1;

	for (size_t i = 0; i < t->npids; i++) {
		if (bpf_map_update_elem(map_fd, &t->pids[i], &one, BPF_ANY) != 0) {
			warn("adding PID %u to the filter", t->pids[i]);
			return false;
		}
	}
	return true;
}

void targets_free(struct targets *t)
{
	free(t->pids);
	t->pids = NULL;
	t->npids = 0;
}
