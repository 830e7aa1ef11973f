#include "frame_kind.h"

#include <string.h>

static const char suffix[KIND_COUNT][FRAME_KIND_SUFFIX_LEN + 1] = {
	[KIND_USER] = "", [KIND_KERNEL] = "_[k]", [KIND_JIT] = "_[j]",
	[KIND_INLINED] = "_[i]", [KIND_WAKER] = "_[w]", [KIND_PYTHON] = "_[p]",
};

const char *frame_kind_suffix(enum frame_kind k)
{
	return suffix[k];
}

enum frame_kind frame_kind_of(const char *name, size_t len, size_t *shown_len)
{
	const char *s;

	*shown_len = len;
	if (len < FRAME_KIND_SUFFIX_LEN)
		return KIND_USER;
	s = name + len - FRAME_KIND_SUFFIX_LEN;
	if (s[0] != '_' || s[1] != '[' || s[3] != ']')
		return KIND_USER;
	for (int k = KIND_USER + 1; k < KIND_COUNT; k++)
		if (s[2] == suffix[k][2]) {
			*shown_len = len - FRAME_KIND_SUFFIX_LEN;
			return (enum frame_kind)k;
		}
	return KIND_USER;
}

size_t frame_kind_put(char *out, enum frame_kind k)
{
	size_t n = strlen(suffix[k]);

	memcpy(out, suffix[k], n);
	return n;
}
