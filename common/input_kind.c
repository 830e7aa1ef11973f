#include "input_kind.h"

#include <string.h>

#include "capture.h"

static int starts_with(const char *buf, size_t len, const char *lit, size_t n)
{
	return len >= n && memcmp(buf, lit, n) == 0;
}

enum input_kind input_kind(const char *buf, size_t len)
{
	size_t i = 0;

	if (starts_with(buf, len, CAP_MAGIC, sizeof(CAP_MAGIC)))
		return INPUT_CAPTURE;
	if (starts_with(buf, len, "PERFILE2", 8))
		return INPUT_PERF_DATA;
	if (starts_with(buf, len, "# prof-symbolize", 16))
		return INPUT_FRAMES;
	while (i < len && (buf[i] == ' ' || buf[i] == '\t' || buf[i] == '\n' || buf[i] == '\r'))
		i++;
	if (starts_with(buf + i, len - i, "<?xml", 5) || starts_with(buf + i, len - i, "<svg", 4))
		return INPUT_SVG;
	return INPUT_OTHER;
}

const char *input_kind_hint(enum input_kind k)
{
	switch (k) {
	case INPUT_CAPTURE:
		return "a capture of prof-sample: run prof-symbolize on it first";
	case INPUT_PERF_DATA:
		return "a perf.data file: run perf script on it first";
	case INPUT_SVG:
		return "an SVG or XML document, not stacks";
	case INPUT_FRAMES:
		return "symbolized frames: run prof-fold on them first";
	case INPUT_OTHER:
		break;
	}
	return NULL;
}
