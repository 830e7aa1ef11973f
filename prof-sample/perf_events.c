#include "perf_events.h"

#include <bpf/libbpf.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "diag.h"

/* Parses a CPU list such as "0-3,5" into a bitmap of up to max CPUs. */
static int online_cpus(bool *online, int max)
{
	FILE *f = fopen("/sys/devices/system/cpu/online", "r");
	int a, b, n = 0;
	char sep;

	if (!f)
		return -errno;
	while (fscanf(f, "%d", &a) == 1) {
		b = a;
		if (fscanf(f, "%c", &sep) == 1 && sep == '-') {
			if (fscanf(f, "%d", &b) != 1)
				break;
			if (fscanf(f, "%c", &sep) != 1)
				sep = '\n';
		}
		for (int c = a; c <= b && c < max; c++, n++)
			online[c] = true;
		if (sep != ',')
			break;
	}
	fclose(f);
	return n;
}

static const char *explain(int e)
{
	switch (e) {
	case EACCES:
	case EPERM:
		return "permission denied: run as root, or grant CAP_PERFMON and CAP_BPF "
		       "(and check kernel.perf_event_paranoid)";
	case ENOENT:
	case EOPNOTSUPP:
		return "the cpu-clock event is not supported here";
	default:
		return strerror(e);
	}
}

int perf_events_attach(struct perf_events *pe, struct bpf_program *prog, uint32_t freq,
		       uint64_t period)
{
	int max = libbpf_num_possible_cpus();
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_CPU_CLOCK,
		.size = sizeof(attr),
		.freq = freq != 0,
	};
	bool *online;
	int n;

	if (max <= 0)
		return max ? max : -EINVAL;
	if (freq)
		attr.sample_freq = freq;
	else
		attr.sample_period = period;
	memset(pe, 0, sizeof(*pe));
	online = xcalloc((size_t)max, sizeof(*online));
	n = online_cpus(online, max);
	if (n <= 0) {
		free(online);
		warnx("cannot read /sys/devices/system/cpu/online");
		return n ? n : -ENODEV;
	}
	pe->ncpus = max;
	pe->fds = xcalloc((size_t)max, sizeof(*pe->fds));
	pe->links = xcalloc((size_t)max, sizeof(*pe->links));
	for (int cpu = 0; cpu < max; cpu++)
		pe->fds[cpu] = -1;
	for (int cpu = 0; cpu < max; cpu++) {
		if (!online[cpu])
			continue;
		pe->fds[cpu] = (int)syscall(__NR_perf_event_open, &attr, -1, cpu, -1,
					    PERF_FLAG_FD_CLOEXEC);
		if (pe->fds[cpu] < 0) {
			int e = errno;
			warnx("perf_event_open on CPU %d: %s", cpu, explain(e));
			free(online);
			return -e;
		}
		pe->links[cpu] = bpf_program__attach_perf_event(prog, pe->fds[cpu]);
		if (!pe->links[cpu]) {
			int e = errno;
			warnx("attaching to CPU %d: %s", cpu, strerror(e));
			free(online);
			return -e;
		}
	}
	free(online);
	return 0;
}

void perf_events_detach(struct perf_events *pe)
{
	for (int cpu = 0; cpu < pe->ncpus; cpu++) {
		bpf_link__destroy(pe->links[cpu]);
		if (pe->fds[cpu] >= 0)
			close(pe->fds[cpu]);
	}
	free(pe->fds);
	free(pe->links);
	memset(pe, 0, sizeof(*pe));
}
