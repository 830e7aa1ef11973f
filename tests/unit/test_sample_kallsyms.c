/* kallsyms_load on kallsyms-format files: code symbols only, sorted, each
 * ending where the next starts (the last a page on), modules named, and a
 * file whose addresses are hidden (kptr_restrict) refused. */
#include "unit.h"

#include <errno.h>
#include <unistd.h>

#include "kallsyms.h"

TEST(code_symbols_sorted_with_modules)
{
	struct kallsyms ks;
	const char *path = tmp_file("ffffffffc0001000 t nft_do_chain\t[nf_tables]\n"
			       "ffffffff81000100 t helper\n"
			       "ffffffff81000180 D some_data\n"
			       "ffffffff81000000 T _stext\n");

	CHECK(path != NULL);
	CHECK(kallsyms_load(&ks, path));
	unlink(path);
	CHECK_INT(ks.n, 3);
	struct ksym *s = kallsyms_find(&ks, 0xffffffff81000190);
	CHECK_STR(s ? s->name : NULL, "helper");
	CHECK(s && s->end == 0xffffffffc0001000ull);
	s = kallsyms_find(&ks, 0xffffffffc0001fff);
	CHECK_STR(s ? s->name : NULL, "nft_do_chain");
	CHECK_STR(s ? s->module : NULL, "nf_tables");
	CHECK(kallsyms_find(&ks, 0xffffffffc0002000) == NULL);
	s = kallsyms_find(&ks, 0xffffffff81000000);
	CHECK_STR(s ? s->module : NULL, "");
	CHECK(kallsyms_find(&ks, 0xffffffff80000000) == NULL);
	kallsyms_free(&ks);
}

TEST(hidden_addresses_are_refused)
{
	struct kallsyms ks;
	const char *path = tmp_file("0000000000000000 T _stext\n0000000000000000 T ksys_write\n");

	CHECK(!kallsyms_load(&ks, path));
	CHECK_INT(errno, EPERM);
	unlink(path);
	CHECK(!kallsyms_load(&ks, "/nonexistent/kallsyms"));
	CHECK_INT(errno, ENOENT);
}

/* A stack taken in a scheduler tracepoint starts with the BPF program and
 * the tracepoint's dispatch, which are not what the thread was doing. */
TEST(tracing_frames_are_counted_from_the_leaf)
{
	struct kallsyms ks;
	const char *path = tmp_file("ffffffffc0026000 t bpf_prog_8040_offcpu_switch\t[bpf]\n"
			       "ffffffff814ca000 T bpf_trace_run4\n"
			       "ffffffff814cb000 T __bpf_trace_sched_switch\n"
			       "ffffffff82265000 t __schedule\n"
			       "ffffffff82266000 T schedule\n");
	const uint64_t full[] = { 0xffffffffc00263c0ull, 0xffffffff814ca5ddull,
				  0xffffffff814cb010ull, 0xffffffff82265ec8ull,
				  0xffffffff82266833ull, 0xffffffff814ca5ddull };
	const uint64_t plain[] = { 0xffffffff82265ec8ull, 0xffffffff814ca5ddull };

	CHECK(path != NULL);
	CHECK(kallsyms_load(&ks, path));
	unlink(path);
	CHECK_INT(kallsyms_tracing_frames(&ks, full, 6), 3);
	/* Only leading ones: bpf_trace_run4 deeper down stays. */
	CHECK_INT(kallsyms_tracing_frames(&ks, plain, 2), 0);
	CHECK_INT(kallsyms_tracing_frames(&ks, full, 2), 2);
	CHECK_INT(kallsyms_tracing_frames(&ks, full, 0), 0);
	kallsyms_free(&ks);
}
