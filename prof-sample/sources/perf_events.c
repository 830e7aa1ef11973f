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
#include "targets.h"

static int online_cpus(bool *online, int max)
{
	FILE *f = fopen("/sys/devices/system/cpu/online", "r");
	char line[4096];
	int n = 0;

	if (!f)
		return -errno;
	if (!fgets(line, sizeof(line), f) || !parse_cpu_list(line, online, max))
		n = -EINVAL;
	fclose(f);
	for (int c = 0; c < max && n >= 0; c++)
		n += online[c];
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

int perf_events_attach(struct perf_events *pe, struct bpf_program *prog,
		       const struct sample_clock *clock)
{
	int max = libbpf_num_possible_cpus();
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_CPU_CLOCK,
		.size = sizeof(attr),
		.freq = clock->freq != 0,
		.exclude_user = !clock->user,
		.exclude_kernel = !clock->kernel,
	};
	bool *online;
	int n;

	if (max <= 0)
		return max ? max : -EINVAL;
	if (clock->freq)
		attr.sample_freq = clock->freq;
	else
		attr.sample_period = clock->period;
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
		if (!online[cpu] || (clock->cpus && (cpu >= clock->ncpus || !clock->cpus[cpu])))
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
		pe->nattached++;
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
