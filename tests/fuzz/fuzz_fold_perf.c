/*
 * libFuzzer target: prof-fold's perf script parser (perf_script_parse.c,
 * frame_lines.c, sample_stack.c, event_line.c, tidy.c, frame_cache.c,
 * stack_ids.c) and its format detection, fed
 * through the line reader, then the sorted output.
 */
#include "fuzz_fold_input.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	for (int k = 0, n = fuzz_sets(data, size); k < n; k++) {
		struct fold_opts o = fuzz_opts(k);
		struct fold_agg agg;
		struct perf_parser *p;
		struct line_reader r;
		const char *head;
		size_t len;
		const char *refuse;

		agg_init(&agg);
		p = perf_parser_new(&o, &agg);
		fuzz_lr_init(&r, fuzz_input_fd(data, size));
		head = lr_peek(&r, &len);
		(void)detect_format(head, len, &refuse);
		perf_parse_input(p, &r);
		perf_parser_report(p);
		perf_parser_free(p);
		fuzz_lr_free(&r);
		agg_write(&agg, fuzz_null);
		agg_free(&agg);
	}
	return 0;
}
