#include "cgroup_labels.h"

#include <stdbool.h>
#include <string.h>

static bool is_id(const char *s, size_t len)
{
	if (len != CONTAINER_ID_LEN)
		return false;
	for (size_t i = 0; i < len; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return false;
	return true;
}

static bool has_prefix(const char *s, size_t len, const char *prefix, size_t *n)
{
	*n = strlen(prefix);
	return len >= *n && memcmp(s, prefix, *n) == 0;
}

/* A component that names a container: ID alone (cgroupfs drivers), or
 * PREFIX-ID.scope (the systemd driver's, as docker, containerd, CRI-O and
 * podman name them). */
static bool component_id(const char *c, size_t len, char *id)
{
	static const char *const prefixes[] = { "docker-", "cri-containerd-", "crio-",
						"libpod-" };
	static const char scope[] = ".scope";
	const size_t slen = sizeof(scope) - 1;
	size_t n;

	if (is_id(c, len)) {
		memcpy(id, c, len);
		id[len] = '\0';
		return true;
	}
	if (len < slen || memcmp(c + len - slen, scope, slen) != 0)
		return false;
	for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
		if (has_prefix(c, len, prefixes[i], &n) && is_id(c + n, len - slen - n)) {
			memcpy(id, c + n, CONTAINER_ID_LEN);
			id[CONTAINER_ID_LEN] = '\0';
			return true;
		}
	return false;
}

/* user@UID.service: systemd delegates what is below it to that user, who
 * may name cgroups there anything, a container's id or a system unit's
 * name included.  So no label is taken from below it. */
static bool user_manager(const char *c, size_t len)
{
	size_t n, d;

	if (!has_prefix(c, len, "user@", &n) || len < n + 1 + 8 ||
	    memcmp(c + len - 8, ".service", 8) != 0)
		return false;
	for (d = n; d < len - 8 && c[d] >= '0' && c[d] <= '9'; d++)
		;
	return d > n && d == len - 8;
}

/* The names of a path are what lies between its slashes, the first after
 * its leading one (docs/FORMATS.md section 1, CGROUP's trusted). */
static const char *first_name(const char *path)
{
	return path + (path[0] == '/');
}

static const char *next_name(const char *c, size_t len)
{
	return c + len + (c[len] == '/');
}

bool cgroup_container_id(const char *path, uint32_t trusted, char id[CONTAINER_ID_LEN + 1])
{
	bool found = false;
	const char *c = first_name(path);

	for (uint32_t i = 0; i < trusted && *c; i++) {
		size_t len = strcspn(c, "/");

		if (user_manager(c, len))
			break;
		/* The last one: containers may nest. */
		if (len && component_id(c, len, id))
			found = true;
		c = next_name(c, len);
	}
	return found;
}

const char *cgroup_systemd_unit(const char *path, uint32_t trusted, size_t *len)
{
	const char *unit = NULL, *c = first_name(path);

	for (uint32_t i = 0; i < trusted && *c; i++) {
		size_t n = strcspn(c, "/");

		if ((n > 8 && memcmp(c + n - 8, ".service", 8) == 0) ||
		    (n > 6 && memcmp(c + n - 6, ".scope", 6) == 0)) {
			unit = c;
			*len = n;
		}
		if (user_manager(c, n))
			break;
		c = next_name(c, n);
	}
	return unit;
}
