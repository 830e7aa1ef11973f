/* The capture writer and reader against each other and against the bytes
 * docs/FORMATS.md specifies. */
#include "unit.h"

#include "capture.h"

static char *buf;
static size_t len;

/* Writes a small capture holding one record of every type. */
static void write_sample_capture(void)
{
	FILE *f = open_memstream(&buf, &len);
	struct cap_writer w;
	uint64_t ips[3] = { 0xffffffff81000010ull, 0xffffffff81000020ull, 0x1234 };
	uint8_t id[20];

	for (int i = 0; i < 20; i++)
		id[i] = (uint8_t)i;
	capw_init(&w, f);
	capw_info(&w, &(struct cap_info){ .start_ns = 1, .freq = 99, .ncpus = 2,
					  .event = cap_cstr("cpu-clock"),
					  .hostname = cap_cstr("host"),
					  .release = cap_cstr("6.1.0"),
					  .boot_id = cap_cstr("b"),
					  .time_resolution_ns = 10000000 });
	capw_comm(&w, 10, 11, "worker 1");
	capw_map(&w, &(struct cap_map){ .pid = 10, .start = 0x1000, .end = 0x2000,
					.pgoff = 0x3000, .dev = 0x801, .inode = 42,
					.build_id_len = 20, .build_id = id,
					.path = cap_cstr("/usr/bin/x") });
	capw_ksym(&w, 0xffffffff81000000ull, 0xffffffff81000100ull, "do_thing", "");
	capw_stack(&w, 7, 3, ips);
	capw_sample(&w, &(struct cap_sample){ .pid = 10, .tid = 11, .kstack = 7, .ustack = 0,
					      .count = 5, .time_ns = 1000000000,
					      .begin_ns = 990000000 });
	capw_sample(&w, &(struct cap_sample){ .pid = 10, .tid = 12, .kstack = 7, .count = 2,
					      .time_ns = 3, .begin_ns = 1, .kind = CAP_OFF_CPU,
					      .weight = 123456789, .nwakers = 2,
					      .waker = { { 20, 21, 7, 0 }, { 0, 0, 7, 0 } } });
	capw_loss(&w, CAP_LOSS_USTACK, 3);
	capw_jsym(&w, 10, 0x7f0000001000ull, 0x40, "LazyCompile:*fib /app.js:3", 26);
	capw_fork(&w, 12, 10);
	capw_cgroup(&w, 12, "/system.slice/a b.service", 25, 1);
	capw_pysym(&w, 3, 17, "Handler.do_GET", "/srv/app/\xc3\xa9t\xc3\xa9.py", 21);
	capw_end(&w, &(struct cap_end){ .duration_ns = 2, .samples = 5, .lost = 0, .stacks = 1,
					.taken = 5 });
	capw_free(&w);
	fclose(f);
}

static FILE *reader_on(const void *p, size_t n)
{
	return fmemopen((void *)p, n ? n : 1, "r");
}

TEST(header_bytes_match_the_spec)
{
	write_sample_capture();
	CHECK(len > 16);
	CHECK(memcmp(buf, "PROFCAP\0", 8) == 0);
	CHECK_INT(buf[8], 1);  /* major, little-endian */
	CHECK_INT(buf[9], 0);
	/* minor: 1 RAWSTACK, 2 FORK, 3 off-CPU, 4 CGROUP, 5 MAP owner and
	 * CGROUP trusted, 6 PYSYM, 7 time slots */
	CHECK_INT(buf[10], 7);
	/* The first record is INFO (type 1) with an 8-byte header. */
	CHECK_INT(buf[16], 1);
	CHECK_INT(buf[17] | buf[18] | buf[19], 0);
	free(buf);
}

TEST(round_trip_every_record)
{
	struct cap_reader r;
	struct cap_record rec;
	FILE *f;

	write_sample_capture();
	f = reader_on(buf, len);
	CHECK_INT(capr_open(&r, f), CAPR_OK);
	CHECK_INT(capr_next(&r, &rec), CAPR_OK);
	CHECK_INT(rec.type, CAP_INFO);
	CHECK_INT(rec.u.info.freq, 99);
	CHECK_INT(rec.u.info.ncpus, 2);
	CHECK(rec.u.info.hostname.len == 4 && memcmp(rec.u.info.hostname.s, "host", 4) == 0);
	CHECK_INT(rec.u.info.time_resolution_ns, 10000000);

	CHECK_INT(capr_next(&r, &rec), CAPR_OK);
	CHECK_INT(rec.type, CAP_COMM);
	CHECK_INT(rec.u.comm.pid, 10);
	CHECK_INT(rec.u.comm.tid, 11);
	CHECK(rec.u.comm.comm.len == 8 && memcmp(rec.u.comm.comm.s, "worker 1", 8) == 0);

	CHECK_INT(capr_next(&r, &rec), CAPR_OK);
	CHECK_INT(rec.type, CAP_MAP);
	CHECK_INT(rec.u.map.start, 0x1000);
	CHECK_INT(rec.u.map.end, 0x2000);
	CHECK_INT(rec.u.map.pgoff, 0x3000);
	CHECK_INT(rec.u.map.dev, 0x801);
	CHECK_INT(rec.u.map.inode, 42);
	CHECK_INT(rec.u.map.build_id_len, 20);
	CHECK_INT(rec.u.map.build_id[19], 19);
	CHECK(rec.u.map.path.len == 10 && memcmp(rec.u.map.path.s, "/usr/bin/x", 10) == 0);

	CHECK_INT(capr_next(&r, &rec), CAPR_OK);
	CHECK_INT(rec.type, CAP_KSYM);
	CHECK(rec.u.ksym.start == 0xffffffff81000000ull);
	CHECK(rec.u.ksym.end == 0xffffffff81000100ull);
	CHECK_INT(rec.u.ksym.module.len, 0);

	CHECK_INT(capr_next(&r, &rec), CAPR_OK);
	CHECK_INT(rec.type, CAP_STACK);
	CHECK_INT(rec.u.stack.id, 7);
	CHECK_INT(rec.u.stack.nr, 3);
	CHECK(cap_stack_ip(&rec.u.stack, 1) == 0xffffffff81000020ull);
	CHECK_INT(cap_stack_ip(&rec.u.stack, 2), 0x1234);

	CHECK_INT(capr_next(&r, &rec), CAPR_OK);
	CHECK_INT(rec.type, CAP_SAMPLE);
	CHECK_INT(rec.u.sample.kstack, 7);
	CHECK_INT(rec.u.sample.ustack, 0);
	CHECK_INT(rec.u.sample.count, 5);
	CHECK_INT(rec.u.sample.time_ns, 1000000000);
	CHECK_INT(rec.u.sample.begin_ns, 990000000);
	CHECK_INT(rec.u.sample.kind, CAP_ON_CPU);
	CHECK_INT(rec.u.sample.nwakers, 0);

	CHECK_INT(capr_next(&r, &rec), CAPR_OK);
	CHECK_INT(rec.type, CAP_SAMPLE);
	CHECK_INT(rec.u.sample.kind, CAP_OFF_CPU);
	CHECK_INT(rec.u.sample.count, 2);
	CHECK_INT(rec.u.sample.weight, 123456789);
	CHECK_INT(rec.u.sample.nwakers, 2);
	CHECK_INT(rec.u.sample.waker[0].tid, 21);
	CHECK_INT(rec.u.sample.waker[0].kstack, 7);
	CHECK_INT(rec.u.sample.waker[1].pid, 0);
	CHECK_INT(rec.u.sample.time_ns, 3);
	CHECK_INT(rec.u.sample.begin_ns, 1);

	CHECK_INT(capr_next(&r, &rec), CAPR_OK);
	CHECK_INT(rec.type, CAP_LOSS);
	CHECK_INT(rec.u.loss.cause, CAP_LOSS_USTACK);
	CHECK_INT(rec.u.loss.count, 3);
	CHECK_STR(cap_loss_name(rec.u.loss.cause), "user-stack");

	CHECK_INT(capr_next(&r, &rec), CAPR_OK);
	CHECK_INT(rec.type, CAP_JSYM);
	CHECK_INT(rec.u.jsym.pid, 10);
	CHECK(rec.u.jsym.start == 0x7f0000001000ull);
	CHECK_INT(rec.u.jsym.size, 0x40);
	CHECK(rec.u.jsym.name.len == 26 && memcmp(rec.u.jsym.name.s, "LazyCompile:*fib /app.js:3", 26) == 0);

	CHECK_INT(capr_next(&r, &rec), CAPR_OK);
	CHECK_INT(rec.type, CAP_FORK);
	CHECK_INT(rec.u.fork.pid, 12);
	CHECK_INT(rec.u.fork.ppid, 10);

	CHECK_INT(capr_next(&r, &rec), CAPR_OK);
	CHECK_INT(rec.type, CAP_CGROUP);
	CHECK_INT(rec.u.cgroup.pid, 12);
	CHECK(rec.u.cgroup.path.len == 25 &&
	      memcmp(rec.u.cgroup.path.s, "/system.slice/a b.service", 25) == 0);
	CHECK_INT(rec.u.cgroup.trusted, 1);
	CHECK_INT(capr_next(&r, &rec), CAPR_OK);
	CHECK_INT(rec.type, CAP_PYSYM);
	CHECK_INT(rec.u.pysym.id, 3);
	CHECK_INT(rec.u.pysym.line, 17);
	CHECK(rec.u.pysym.name.len == 14 && memcmp(rec.u.pysym.name.s, "Handler.do_GET", 14) == 0);
	CHECK_INT(rec.u.pysym.at, 21);
	CHECK(rec.u.pysym.file.len == 17 &&
	      memcmp(rec.u.pysym.file.s, "/srv/app/\xc3\xa9t\xc3\xa9.py", 17) == 0);

	CHECK_INT(capr_next(&r, &rec), CAPR_OK);
	CHECK_INT(rec.type, CAP_END);
	CHECK_INT(rec.u.end.samples, 5);
	CHECK_INT(rec.u.end.stacks, 1);
	CHECK_INT(rec.u.end.taken, 5);
	CHECK_INT(capr_next(&r, &rec), CAPR_EOF);
	CHECK_INT(r.offset, len);
	capr_free(&r);
	fclose(f);
	free(buf);
}

/* Cutting the stream anywhere after the header yields every whole record
 * before the cut, then CAPR_TRUNCATED naming the cut record's offset (or a
 * clean EOF exactly at a record boundary). */
TEST(truncation_at_every_byte)
{
	write_sample_capture();
	for (size_t cut = 16; cut < len; cut++) {
		struct cap_reader r;
		struct cap_record rec;
		enum capr_status st;
		uint64_t last_end = 16;
		FILE *f = reader_on(buf, cut);

		CHECK_INT(capr_open(&r, f), CAPR_OK);
		while ((st = capr_next(&r, &rec)) == CAPR_OK)
			last_end = r.offset;
		if (cut == last_end) {
			CHECK_INT(st, CAPR_EOF);
		} else {
			char want[64];
			CHECK_INT(st, CAPR_TRUNCATED);
			snprintf(want, sizeof(want), "at byte %llu", (unsigned long long)last_end);
			CHECK(strstr(r.error, want) != NULL);
		}
		capr_free(&r);
		fclose(f);
	}
	free(buf);
}

TEST(bad_magic_and_version)
{
	struct cap_reader r;
	FILE *f;
	char text[] = "# prof-symbolize frames v1\n";
	uint8_t v2[16] = { 'P', 'R', 'O', 'F', 'C', 'A', 'P', 0, 2, 0 };

	f = reader_on(text, sizeof(text) - 1);
	CHECK_INT(capr_open(&r, f), CAPR_CORRUPT);
	CHECK(strstr(r.error, "bad magic") != NULL);
	fclose(f);

	f = reader_on(v2, sizeof(v2));
	CHECK_INT(capr_open(&r, f), CAPR_CORRUPT);
	CHECK(strstr(r.error, "version 2.0") != NULL);
	fclose(f);

	f = reader_on(v2, 10);
	CHECK_INT(capr_open(&r, f), CAPR_TRUNCATED);
	CHECK(strstr(r.error, "truncated header at byte 10") != NULL);
	fclose(f);
}

/* Minor versions may add record types and trailing fields. */
TEST(unknown_records_and_longer_payloads)
{
	uint8_t s[16 + 8 + 3 + 8 + 30] = { 'P', 'R', 'O', 'F', 'C', 'A', 'P', 0, 1, 0, 7, 0 };
	uint8_t *p = s + 16;
	struct cap_reader r;
	struct cap_record rec;
	FILE *f;

	p[0] = 99, p[4] = 3; /* type 99, 3 bytes */
	p += 8 + 3;
	p[0] = CAP_LOSS, p[4] = 30; /* LOSS with 18 extra bytes */
	p[8] = CAP_LOSS_KSTACK;
	p[12] = 4;
	f = reader_on(s, sizeof(s));
	CHECK_INT(capr_open(&r, f), CAPR_OK);
	CHECK_INT(r.minor, 7);
	CHECK_INT(capr_next(&r, &rec), CAPR_OK);
	CHECK_INT(rec.type, 99);
	CHECK_INT(rec.len, 3);
	CHECK_INT(capr_next(&r, &rec), CAPR_OK);
	CHECK_INT(rec.type, CAP_LOSS);
	CHECK_INT(rec.u.loss.cause, CAP_LOSS_KSTACK);
	CHECK_INT(rec.u.loss.count, 4);
	CHECK_INT(capr_next(&r, &rec), CAPR_EOF);
	capr_free(&r);
	fclose(f);
}

/* A 1.2 SAMPLE ends after time_ns: on-CPU, no wakers.  A 1.3 one naming
 * more wakers than the format allows is corrupt, not read past. */
TEST(sample_fields_of_each_minor_version)
{
	uint8_t s[16 + 8 + 32 + 8 + 48] = { 'P', 'R', 'O', 'F', 'C', 'A', 'P', 0, 1, 0, 3, 0 };
	uint8_t *p = s + 16;
	struct cap_reader r;
	struct cap_record rec;
	FILE *f;

	p[0] = CAP_SAMPLE, p[4] = 32;
	p[8 + 16] = 9; /* count */
	p += 8 + 32;
	p[0] = CAP_SAMPLE, p[4] = 48;
	p[8 + 32] = CAP_OFF_CPU;
	p[8 + 44] = CAP_MAX_WAKERS + 1;
	f = reader_on(s, sizeof(s));
	CHECK_INT(capr_open(&r, f), CAPR_OK);
	CHECK_INT(capr_next(&r, &rec), CAPR_OK);
	CHECK_INT(rec.u.sample.count, 9);
	CHECK_INT(rec.u.sample.kind, CAP_ON_CPU);
	CHECK_INT(rec.u.sample.nwakers, 0);
	CHECK_INT(capr_next(&r, &rec), CAPR_CORRUPT);
	capr_free(&r);
	fclose(f);
}

/* Before 1.7 a SAMPLE was dated to its drain interval only: it began and
 * ended then.  A 1.7 one that begins after it ends is corrupt. */
TEST(sample_times_of_each_minor_version)
{
	uint8_t s[16 + 2 * (8 + 48 + 8)] = { 'P', 'R', 'O', 'F', 'C', 'A', 'P', 0, 1, 0, 7, 0 };
	uint8_t *p = s + 16;
	struct cap_reader r;
	struct cap_record rec;
	FILE *f;

	p[0] = CAP_SAMPLE, p[4] = 48; /* 1.6: no begin_ns */
	p[8 + 24] = 5;		      /* time_ns */
	p += 8 + 48;
	p[0] = CAP_SAMPLE, p[4] = 56;
	p[8 + 24] = 5;
	p[8 + 48] = 6; /* begin_ns */
	f = reader_on(s, (size_t)(p + 8 + 56 - s));
	CHECK_INT(capr_open(&r, f), CAPR_OK);
	CHECK_INT(capr_next(&r, &rec), CAPR_OK);
	CHECK_INT(rec.u.sample.time_ns, 5);
	CHECK_INT(rec.u.sample.begin_ns, 5);
	CHECK_INT(capr_next(&r, &rec), CAPR_CORRUPT);
	capr_free(&r);
	fclose(f);
}

/* A 1.4 CGROUP ends after its path: it said nothing of which names the
 * host made, and is read as trusting them all (labels as before).  A 1.5
 * one ends with its u16 count; half of it is corrupt. */
TEST(cgroup_fields_of_each_minor_version)
{
	static const uint8_t s[] = {
		'P', 'R', 'O', 'F', 'C', 'A', 'P', 0, 1, 0, 5, 0, 0, 0, 0, 0,
		12, 0, 0, 0, 7, 0, 0, 0, 40, 0, 0, 0, 1, 0, '/',	     /* 1.4 */
		12, 0, 0, 0, 9, 0, 0, 0, 41, 0, 0, 0, 1, 0, '/', 2, 1,	     /* 1.5 */
		12, 0, 0, 0, 8, 0, 0, 0, 42, 0, 0, 0, 1, 0, '/', 2,	     /* cut */
	};
	struct cap_reader r;
	struct cap_record rec;
	FILE *f = reader_on(s, sizeof(s));

	CHECK_INT(capr_open(&r, f), CAPR_OK);
	CHECK_INT(capr_next(&r, &rec), CAPR_OK);
	CHECK_INT(rec.u.cgroup.pid, 40);
	CHECK(rec.u.cgroup.path.len == 1 && rec.u.cgroup.path.s[0] == '/');
	CHECK(rec.u.cgroup.trusted == CAP_CGROUP_ALL);
	CHECK_INT(capr_next(&r, &rec), CAPR_OK);
	CHECK_INT(rec.u.cgroup.pid, 41);
	CHECK_INT(rec.u.cgroup.trusted, 0x0102);
	CHECK_INT(capr_next(&r, &rec), CAPR_CORRUPT);
	capr_free(&r);
	fclose(f);
}

/* A STACK deeper than readers keep is read up to its limit, from the
 * leaf, with what was cut said; the whole payload is still checked. */
TEST(stacks_deeper_than_readers_keep_are_cut_at_the_root_end)
{
	uint64_t ips[CAP_MAX_FRAMES + 5];
	struct cap_writer w;
	struct cap_reader r;
	struct cap_record rec;
	char *cap;
	size_t n;
	FILE *f;

	for (size_t i = 0; i < sizeof(ips) / sizeof(ips[0]); i++)
		ips[i] = 0x1000 + i;
	f = open_memstream(&cap, &n);
	capw_init(&w, f);
	capw_stack(&w, 1, CAP_MAX_FRAMES, ips);
	capw_stack(&w, 2, CAP_MAX_FRAMES + 5, ips);
	capw_free(&w);
	fclose(f);
	f = reader_on(cap, n);
	CHECK_INT(capr_open(&r, f), CAPR_OK);
	CHECK_INT(capr_next(&r, &rec), CAPR_OK);
	CHECK_INT(rec.u.stack.nr, CAP_MAX_FRAMES);
	CHECK_INT(rec.u.stack.cut, 0);
	CHECK_INT(capr_next(&r, &rec), CAPR_OK);
	CHECK_INT(rec.u.stack.id, 2);
	CHECK_INT(rec.u.stack.nr, CAP_MAX_FRAMES);
	CHECK_INT(rec.u.stack.cut, 5);
	CHECK_INT(cap_stack_ip(&rec.u.stack, 0), 0x1000);
	CHECK_INT(cap_stack_ip(&rec.u.stack, CAP_MAX_FRAMES - 1), 0x1000 + CAP_MAX_FRAMES - 1);
	CHECK_INT(capr_next(&r, &rec), CAPR_EOF);
	capr_free(&r);
	fclose(f);

	/* One that claims more frames than its payload holds is corrupt,
	 * however many it claims. */
	cap[n - 8 * (CAP_MAX_FRAMES + 5) - 4] += 1;
	f = reader_on(cap, n);
	CHECK_INT(capr_open(&r, f), CAPR_OK);
	CHECK_INT(capr_next(&r, &rec), CAPR_OK);
	CHECK_INT(capr_next(&r, &rec), CAPR_CORRUPT);
	capr_free(&r);
	fclose(f);
	free(cap);
}

TEST(malformed_records_are_corrupt)
{
	uint8_t s[16 + 8 + 4] = { 'P', 'R', 'O', 'F', 'C', 'A', 'P', 0, 1, 0 };
	uint8_t big[16 + 8] = { 'P', 'R', 'O', 'F', 'C', 'A', 'P', 0, 1, 0 };
	struct cap_reader r;
	struct cap_record rec;
	FILE *f;

	/* A SAMPLE whose payload is shorter than its fixed fields. */
	s[16] = CAP_SAMPLE, s[20] = 4;
	f = reader_on(s, sizeof(s));
	CHECK_INT(capr_open(&r, f), CAPR_OK);
	CHECK_INT(capr_next(&r, &rec), CAPR_CORRUPT);
	CHECK(strstr(r.error, "malformed record (type 6) at byte 16") != NULL);
	capr_free(&r);
	fclose(f);

	/* A length beyond the limit is refused before any allocation. */
	big[16] = CAP_STACK, big[23] = 0x7f;
	f = reader_on(big, sizeof(big));
	CHECK_INT(capr_open(&r, f), CAPR_OK);
	CHECK_INT(capr_next(&r, &rec), CAPR_CORRUPT);
	capr_free(&r);
	fclose(f);
}

/* Each cause is said with the name docs/FORMATS.md gives its number, and
 * as its "said" column tells; the three that cut stacks short are said
 * together, each with its count. */
TEST(every_loss_cause_is_said_as_documented)
{
	static const char *const kinds[] = {
		[CAP_LOSS_PARTIAL] = "partial", [CAP_LOSS_PART] = "part", [CAP_LOSS_CUT] = "cut",
		[CAP_LOSS_ASKED] = "asked"
	};
	char line[512], said[256];
	uint64_t lost[CAP_LOSS_MAX] = { 0 };
	int documented = 0;
	FILE *doc = fopen("docs/FORMATS.md", "r");

	CHECK(doc != NULL);
	if (!doc)
		return;
	while (fgets(line, sizeof(line), doc)) {
		unsigned cause;
		char name[64], kind[16];

		if (sscanf(line, "| %u | `%63[a-z-]` | %15[a-z] |", &cause, name, kind) != 3)
			continue;
		/* The LOSS table is the only one of numbers and `names`. */
		CHECK(cause > 0 && cause < CAP_LOSS_MAX);
		if (cause == 0 || cause >= CAP_LOSS_MAX)
			continue;
		CHECK_STR(cap_loss_name(cause), name);
		CHECK(cap_loss_info(cause)->what && cap_loss_info(cause)->why);
		CHECK_STR(kinds[cap_loss_info(cause)->kind], kind);
		documented++;
	}
	fclose(doc);
	CHECK_INT(documented, CAP_LOSS_MAX - 1);
	CHECK(cap_loss_info(0) == NULL);
	CHECK(cap_loss_info(CAP_LOSS_MAX) == NULL);

	lost[CAP_LOSS_TRUNC_NO_CFI] = 3;
	lost[CAP_LOSS_TRUNC_ERROR] = 1;
	lost[CAP_LOSS_RING] = 100; /* no cut */
	CHECK_INT(cap_loss_cut(lost), 4);
	cap_loss_cut_said(lost, said, sizeof(said));
	CHECK_STR(said, "3 at code without CFI, 1 at CFI that could not be evaluated");
	/* Cut to what fits, never past it. */
	cap_loss_cut_said(lost, said, 12);
	CHECK_INT(strlen(said), 11);
}
