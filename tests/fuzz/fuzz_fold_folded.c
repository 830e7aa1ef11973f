/*
 * libFuzzer target: prof-fold's folded-stack input (folded_parse.c, on
 * the shared syntax common/folded.c) with the merge (fold_output.c,
 * --filter/--exclude regexes included), fed through the line reader.
 */
#include "fuzz_fold_input.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	for (int k = 0; k < 2; k++) {
		struct fold_opts o = fuzz_opts(k);
		struct fold_agg agg;
		struct line_reader r;
		char msg[128];

		agg_init(&agg);
		if (k == 1 && (!agg_add_regex(&agg, ";b(;|$)", false, msg, sizeof(msg)) ||
			       !agg_add_regex(&agg, "^x", true, msg, sizeof(msg))))
			abort();
		fuzz_lr_init(&r, fuzz_input_fd(data, size));
		folded_parse_input(&o, &agg, &r);
		fuzz_lr_free(&r);
		agg_write(&agg, fuzz_null);
		agg_free(&agg);
	}
	return 0;
}
