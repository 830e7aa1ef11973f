/*
 * libFuzzer target: the capture reader (common/capture.c), as prof-symbolize
 * drives it: capr_open, then capr_next until it stops, touching every
 * decoded field so that a length the reader got wrong shows up under ASan.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "capture.h"

static volatile uint64_t sink;

static void touch(const void *p, size_t n)
{
	const uint8_t *b = p;

	for (size_t i = 0; i < n; i++)
		sink += b[i];
}

static void touch_str(struct cap_str s)
{
	touch(s.s, s.len);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	FILE *f = size ? fmemopen((void *)data, size, "r") : fopen("/dev/null", "r");
	struct cap_reader r;
	struct cap_record rec;
	enum capr_status st;

	if (!f)
		return 0;
	st = capr_open(&r, f);
	while (st == CAPR_OK && (st = capr_next(&r, &rec)) == CAPR_OK) {
		touch(rec.payload, rec.len);
		switch (rec.type) {
		case CAP_INFO:
			touch_str(rec.u.info.event);
			touch_str(rec.u.info.hostname);
			touch_str(rec.u.info.release);
			touch_str(rec.u.info.boot_id);
			break;
		case CAP_COMM:
			touch_str(rec.u.comm.comm);
			break;
		case CAP_MAP:
			touch(rec.u.map.build_id, rec.u.map.build_id_len);
			touch_str(rec.u.map.path);
			break;
		case CAP_CGROUP:
			touch_str(rec.u.cgroup.path);
			break;
		case CAP_KSYM:
			touch_str(rec.u.ksym.name);
			touch_str(rec.u.ksym.module);
			break;
		case CAP_STACK:
			for (uint32_t i = 0; i < rec.u.stack.nr; i++)
				sink += cap_stack_ip(&rec.u.stack, i);
			break;
		case CAP_LOSS:
			sink += cap_loss_name(rec.u.loss.cause) != NULL;
			break;
		case CAP_JSYM:
			touch_str(rec.u.jsym.name);
			break;
		}
	}
	/* Every stop but a clean end says why, with a position. */
	if (st != CAPR_OK && st != CAPR_EOF && r.error[0] == '\0')
		__builtin_trap();
	capr_free(&r);
	fclose(f);
	return 0;
}
