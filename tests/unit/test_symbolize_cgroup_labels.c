/*
 * The container id and systemd unit of a cgroup path (docs/FORMATS.md
 * section 6), over the shapes container runtimes and systemd give paths,
 * and paths a process that owns its cgroup could make up; from the names
 * the capture says the host made, or, in a capture that does not say,
 * from the whole path but what is below a user@UID.service.
 */
#include "unit.h"

#include <string.h>

#include "capture.h"
#include "cgroup_labels.h"

#define ID "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
#define ID2 "fedcba9876543210fedcba9876543210fedcba9876543210fedcba9876543210"

static const char *cid_of(const char *path, uint32_t trusted)
{
	static char id[CONTAINER_ID_LEN + 1];

	return cgroup_container_id(path, trusted, id) ? id : "-";
}

static const char *unit_in(const char *path, uint32_t trusted)
{
	static char out[4096];
	size_t len;
	const char *u = cgroup_systemd_unit(path, trusted, &len);

	if (!u)
		return "-";
	memcpy(out, u, len);
	out[len] = '\0';
	return out;
}

/* From a 1.4 capture, which did not say which names the host made. */
static const char *cid(const char *path)
{
	return cid_of(path, CAP_CGROUP_ALL);
}

static const char *unit_of(const char *path)
{
	return unit_in(path, CAP_CGROUP_ALL);
}

TEST(container_ids_of_the_runtimes)
{
	CHECK_STR(cid("/system.slice/docker-" ID ".scope"), ID);
	CHECK_STR(cid("/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod1234_5678.slice/"
		      "cri-containerd-" ID ".scope"), ID);
	CHECK_STR(cid("/kubepods.slice/kubepods-pod1.slice/crio-" ID ".scope"), ID);
	CHECK_STR(cid("/machine.slice/libpod-" ID ".scope"), ID);
	/* cgroupfs drivers: the id alone. */
	CHECK_STR(cid("/docker/" ID), ID);
	CHECK_STR(cid("/kubepods/burstable/pod5e9e0b6a-1f0b-4a7a-9d3e-8b1f2c3d4e5f/" ID), ID);
	/* The last one: a container nested in another. */
	CHECK_STR(cid("/docker/" ID "/docker/" ID2), ID2);
}

TEST(no_container_id)
{
	CHECK_STR(cid("/"), "-");
	CHECK_STR(cid(""), "-");
	CHECK_STR(cid("/system.slice/nginx.service"), "-");
	CHECK_STR(cid("/user.slice/user-1000.slice/session-2.scope"), "-");
	/* Not 64 lowercase hex digits. */
	CHECK_STR(cid("/docker/0123456789ABCDEF0123456789abcdef0123456789abcdef0123456789abcdef"), "-");
	CHECK_STR(cid("/docker/" ID "0"), "-");
	CHECK_STR(cid("/docker/0123456789abcdef"), "-");
	CHECK_STR(cid("/docker-" ID ".scopes"), "-");
	CHECK_STR(cid("/docker-" ID), "-");
	CHECK_STR(cid("/podman-" ID ".scope"), "-");
	CHECK_STR(cid("/docker-" ID "x.scope"), "-");
	CHECK_STR(cid("/docker-.scope"), "-");
	CHECK_STR(cid("/.scope"), "-");
}

TEST(hostile_paths)
{
	/* A delegated cgroup's owner may name it anything: only the shape
	 * counts, and what is returned is only ever the id's digits. */
	CHECK_STR(cid("/user.slice/evil\n" ID), "-");
	CHECK_STR(cid("/a//b///" ID "//"), ID);
	CHECK_STR(cid("/docker-" ID ".scope\x1b[31m"), "-");
	CHECK_STR(cid("/x/docker-" ID ".scope/../y"), ID);
	CHECK_STR(cid("////"), "-");
	CHECK_STR(unit_of("/a\n.service"), "a\n.service");
	CHECK_STR(unit_of("////"), "-");
	CHECK_STR(unit_of("/.service"), "-");
	CHECK_STR(unit_of("/.scope"), "-");
	CHECK_STR(unit_of("/x.service.d"), "-");
}

TEST(nothing_from_below_a_user_manager)
{
	/* What is below user@UID.service, that user names: a forged
	 * container scope or system unit there gives no label of theirs. */
	CHECK_STR(cid("/user.slice/user-1000.slice/user@1000.service/app.slice/docker-" ID ".scope"),
		  "-");
	CHECK_STR(cid("/user.slice/user-1000.slice/user@1000.service/user.slice/libpod-" ID
		      ".scope/container"), "-");
	CHECK_STR(unit_of("/user.slice/user-1000.slice/user@1000.service/app.slice/sshd.service"),
		  "user@1000.service");
	CHECK_STR(unit_of("/user.slice/user-1000.slice/user@1000.service"), "user@1000.service");
	/* Above one, as before; and only user@DIGITS.service is one. */
	CHECK_STR(cid("/system.slice/docker-" ID ".scope/user@1000.service"), ID);
	CHECK_STR(unit_of("/system.slice/user@x.service/foo.service"), "foo.service");
	CHECK_STR(unit_of("/system.slice/user@.service/foo.service"), "foo.service");
	CHECK_STR(cid("/user@12.service.d/" ID), ID);
}

TEST(systemd_units)
{
	CHECK_STR(unit_of("/system.slice/nginx.service"), "nginx.service");
	CHECK_STR(unit_of("/user.slice/user-1000.slice/session-2.scope"), "session-2.scope");
	CHECK_STR(unit_of("/system.slice/docker-" ID ".scope"), "docker-" ID ".scope");
	CHECK_STR(unit_of("/system.slice/system-getty.slice/getty@tty1.service"), "getty@tty1.service");
	CHECK_STR(unit_of("/system.slice/nginx.service/worker"), "nginx.service");
	CHECK_STR(unit_of("/"), "-");
	CHECK_STR(unit_of("/docker/" ID), "-");
	CHECK_STR(unit_of("/kubepods/burstable/pod1/" ID), "-");
	CHECK_STR(unit_of("/system.slice"), "-");
}

TEST(only_from_the_names_the_host_made)
{
	/* A cgroup delegated to a user (a Delegate=yes service of theirs),
	 * in which they made a system unit's name and a container's. */
	static const char deleg[] = "/system.slice/build.service/sshd.service";
	static const char box[] = "/system.slice/build.service/docker-" ID ".scope";

	CHECK_STR(unit_in(deleg, 2), "build.service");
	CHECK_STR(cid_of(deleg, 2), "-");
	CHECK_STR(unit_in(box, 2), "build.service");
	CHECK_STR(cid_of(box, 2), "-");
	/* A container's scope the host made is its own (its manager is
	 * delegated what is below: a nested one there is not believed). */
	CHECK_STR(cid_of("/system.slice/docker-" ID ".scope", 2), ID);
	CHECK_STR(cid_of("/system.slice/docker-" ID ".scope/docker-" ID2 ".scope", 2), ID);
	CHECK_STR(unit_in("/system.slice/docker-" ID ".scope/init.scope", 2),
		  "docker-" ID ".scope");
	CHECK_STR(cid_of("/docker/" ID "/" ID2, 2), ID);
	/* Nothing trusted, nothing claimed; the names count from the root. */
	CHECK_STR(unit_in("/system.slice/nginx.service", 0), "-");
	CHECK_STR(unit_in("/system.slice/nginx.service", 1), "-");
	CHECK_STR(unit_in("/system.slice/nginx.service", 2), "nginx.service");
	CHECK_STR(unit_in("/system.slice/nginx.service", 3), "nginx.service");
	CHECK_STR(cid_of("/" ID, 1), ID);
	CHECK_STR(cid_of("/" ID, 0), "-");
	CHECK_STR(unit_in("/", 5), "-");
	CHECK_STR(unit_in("", 5), "-");
	/* The user@UID.service rule holds within the trusted names too. */
	CHECK_STR(unit_in("/user.slice/user-1000.slice/user@1000.service/app.slice/x.service", 5),
		  "user@1000.service");
}
