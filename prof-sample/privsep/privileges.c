#include "privileges.h"

#include <bpf/bpf.h>
#include <errno.h>
#include <stdint.h>
#include <grp.h>
#include <linux/capability.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "diag.h"

#define NOBODY 65534

bool bpf_maps_work_unprivileged(int map_fd)
{
	struct __user_cap_header_struct hdr = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct none[2];
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return false;
	if (pid == 0) {
		uint64_t key;
		long err;
		memset(none, 0, sizeof(none));
		if (syscall(SYS_capset, &hdr, none) != 0)
			_exit(1);
		err = bpf_map_get_next_key(map_fd, NULL, &key);
		_exit(err == 0 || errno == ENOENT ? 0 : 1);
	}
	return waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

bool keep_only(const int *keep, size_t nkeep, bool as_nobody)
{
	struct __user_cap_header_struct hdr = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct data[2];

	memset(data, 0, sizeof(data));
	for (size_t i = 0; i < nkeep; i++) {
		data[keep[i] / 32].permitted |= 1u << (keep[i] % 32);
		data[keep[i] / 32].effective |= 1u << (keep[i] % 32);
	}
	/* Nothing is exec'd from here on (a command was forked before), so
	 * the bounding set can shrink to what is kept. */
	for (int cap = 0; cap <= CAP_LAST_CAP; cap++) {
		bool kept = false;
		for (size_t i = 0; i < nkeep; i++)
			kept |= keep[i] == cap;
		if (!kept && prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0 && errno != EINVAL &&
		    errno != EPERM) {
			warn("dropping capability %d", cap);
			return false;
		}
	}
	if (as_nobody && (getuid() == 0 || geteuid() == 0)) {
		if (prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0) != 0 || setgroups(0, NULL) != 0 ||
		    setresgid(NOBODY, NOBODY, NOBODY) != 0 || setresuid(NOBODY, NOBODY, NOBODY) != 0) {
			warn("becoming the nobody user");
			return false;
		}
	}
	if (syscall(SYS_capset, &hdr, data) != 0) {
		warn("dropping capabilities");
		return false;
	}
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 || prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0) {
		warn("setting no_new_privs");
		return false;
	}
	return true;
}

bool drop_privileges(bool keep_bpf)
{
	const int bpf[] = { CAP_BPF };

	return keep_only(bpf, keep_bpf ? 1 : 0, true);
}
