/*
 * libFuzzer target: prof-symbolize's whole path for a hostile capture, as
 * main() drives it, into both outputs: the frames (perf script's form) and
 * the pprof profile (labels from CGROUP paths, mappings, inlined lines).
 * The capture's files are looked for under an empty --sysroot and no
 * debuginfod is asked, so the input alone decides what is resolved.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "capture.h"
#include "frames_text.h"
#include "pprof_sink.h"
#include "symbolizer.h"

static void symbolize(const uint8_t *data, size_t size, bool pprof)
{
	static char root[] = "/tmp/fuzz-symbolize-root.XXXXXX";
	static bool made;
	static const char *no_dirs[1];
	struct symbolize_opts opt = { .debug_dirs = no_dirs, .inline_frames = true, .lines = true,
				      .demangle = true, .cgroup = true };
	FILE *in = fmemopen((void *)data, size, "r"), *out = fopen("/dev/null", "w");
	struct cap_reader r;
	struct cap_record rec;
	struct symbolizer s;

	if (!made && !mkdtemp(root))
		abort();
	made = true;
	opt.sysroot = root;
	if (!in || !out || !symbolizer_init(&s, &opt))
		abort();
	s.sink = pprof ? pprof_sink_new(out, &opt) : frames_text_new(out, &opt);
	if (capr_open(&r, in) == CAPR_OK)
		while (capr_next(&r, &rec) == CAPR_OK)
			symbolizer_record(&s, &rec);
	symbolizer_finish(&s);
	symbolizer_free(&s);
	s.sink->free(s.sink);
	capr_free(&r);
	fclose(in);
	fclose(out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!size)
		return 0;
	symbolize(data, size, false);
	symbolize(data, size, true);
	return 0;
}
