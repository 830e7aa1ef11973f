/*
 * Benchmark helper, not a workload: writes N distinct folded stacks shaped
 * like a C++ server's profile, sorted bytewise as prof-fold writes them.
 *
 * Usage: gen_cxx_stacks N > stacks.folded
 *
 * What makes such profiles hard for a flame graph tool, and so what this
 * imitates: many distinct frames (template instantiations, lambdas,
 * std::function thunks, each a name of its own), names long and alike in
 * their first bytes (namespaces, nested template arguments), deep stacks
 * with recursion, callees shared by many callers, a few kernel leaves, and
 * counts with a heavy tail (most stacks are seen once or twice).
 *
 * The functions and their call graph come from a fixed seed and do not
 * depend on N; stacks are walks through that graph.  The output is the same
 * bytes on every machine for a given N (no libc rand(), no floating point
 * in what is written): 50,000 stacks are about 21 MB (22,159,871 bytes),
 * 1,000,000 take a few seconds.  tests/bench/svg.sh times prof-svg and
 * flamegraph.pl on them.
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NFUNC	   24000 /* functions of the program, leaves included */
#define NLEAF	   600	 /* of them, the last: libc, allocator, runtime */
#define MAX_DEPTH  96
#define MAX_LINE   (64 * 1024)
#define MAX_CALLEE 12

static uint64_t splitmix(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static uint64_t below(uint64_t *s, uint64_t n)
{
	return splitmix(s) % n;
}

/* Picks from a list so that its first items are much likelier: hot paths. */
static size_t skewed(uint64_t *s, size_t n)
{
	uint64_t a = below(s, n), b = below(s, n);

	return (size_t)(a < b ? a : b);
}

#define PICK(s, arr) (arr[below(s, sizeof(arr) / sizeof(arr[0]))])

static const char *const spaces[] = {
	"app", "app::detail", "net", "net::http", "net::http2", "rpc", "rpc::server",
	"storage", "storage::lsm", "db", "db::sql", "db::exec", "cache", "json", "proto",
	"sched", "util", "metrics", "auth", "io", "codec", "search::index",
};
static const char *const classes[] = {
	"Server", "Connection", "RequestHandler", "Session", "Table", "MemTable", "Compactor",
	"Parser", "Serializer", "ThreadPool", "Executor", "Future", "Channel", "Codec",
	"Index", "Planner", "Optimizer", "Tokenizer", "BufferPool", "Arena", "Router",
	"Dispatcher", "Scanner", "Cursor", "Batch", "Writer", "Reader", "Cache", "Shard",
	"Replica", "Stream", "Frame", "Encoder", "Decoder", "Registry", "Counter", "Histogram",
};
static const char *const methods[] = {
	"handle", "dispatch", "process", "read", "write", "encode", "decode", "parse",
	"lookup", "insert", "flush", "compact", "schedule", "run", "poll", "visit", "merge",
	"apply", "serialize", "deserialize", "find", "emplace", "update", "commit", "reserve",
	"onReadable", "onComplete", "resolve", "validate", "hash", "append", "seek", "next",
};
static const char *const scalars[] = {
	"int", "unsigned long", "long", "bool", "double", "char const*", "void*",
	"std::basic_string_view<char, std::char_traits<char> >",
	"std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char> >",
	"std::chrono::duration<long, std::ratio<1l, 1000000000l> >",
};
static const char *const leaves[] = {
	"__memmove_avx_unaligned_erms", "__memset_avx2_unaligned_erms", "__memcmp_avx2_movbe",
	"malloc", "free", "_int_malloc", "_int_free", "cfree@GLIBC_2.2.5",
	"operator new(unsigned long)", "operator delete(void*, unsigned long)",
	"std::_Hash_bytes(void const*, unsigned long, unsigned long)",
	"__GI___pthread_mutex_lock", "__GI___pthread_mutex_unlock", "__strlen_avx2",
	"std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char> >::_M_mutate(unsigned long, unsigned long, char const*, unsigned long)",
	"__GI___libc_write", "__libc_recv", "__libc_send", "epoll_wait", "__futex_abstimed_wait_common",
	"pthread_cond_wait@@GLIBC_2.3.2", "__lll_lock_wait", "sched_yield", "clock_gettime@@GLIBC_2.17",
};
/* Kernel paths below a system call, root first. */
static const char *const syscalls[] = {
	"entry_SYSCALL_64_after_hwframe_[k];do_syscall_64_[k];__x64_sys_write_[k];ksys_write_[k];vfs_write_[k];sock_write_iter_[k];tcp_sendmsg_[k];tcp_sendmsg_locked_[k];copy_user_enhanced_fast_string_[k]",
	"entry_SYSCALL_64_after_hwframe_[k];do_syscall_64_[k];__x64_sys_recvfrom_[k];__sys_recvfrom_[k];tcp_recvmsg_[k];skb_copy_datagram_iter_[k];copy_user_enhanced_fast_string_[k]",
	"entry_SYSCALL_64_after_hwframe_[k];do_syscall_64_[k];__x64_sys_futex_[k];do_futex_[k];futex_wait_[k];schedule_[k];__schedule_[k];finish_task_switch.isra.0_[k]",
	"entry_SYSCALL_64_after_hwframe_[k];do_syscall_64_[k];__x64_sys_epoll_wait_[k];do_epoll_wait_[k];ep_poll_[k];schedule_hrtimeout_range_[k];schedule_[k];__schedule_[k]",
	"asm_exc_page_fault_[k];exc_page_fault_[k];do_user_addr_fault_[k];handle_mm_fault_[k];__handle_mm_fault_[k];do_anonymous_page_[k];clear_page_erms_[k]",
	"entry_SYSCALL_64_after_hwframe_[k];do_syscall_64_[k];__x64_sys_pread64_[k];vfs_read_[k];filemap_read_[k];copy_page_to_iter_[k]",
};

struct buf {
	char *s;
	size_t n;
};

static void put(struct buf *b, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	b->n += (size_t)vsnprintf(b->s + b->n, MAX_LINE - b->n, fmt, ap);
	va_end(ap);
	if (b->n >= MAX_LINE) {
		fprintf(stderr, "gen_cxx_stacks: a line outgrew %d bytes\n", MAX_LINE);
		exit(1);
	}
}

/* ";name", without put()'s formatting: the hot path of a big output. */
static void append(struct buf *b, const char *name, size_t len)
{
	if (b->n + 1 + len >= MAX_LINE) {
		fprintf(stderr, "gen_cxx_stacks: a line outgrew %d bytes\n", MAX_LINE);
		exit(1);
	}
	b->s[b->n++] = ';';
	memcpy(b->s + b->n, name, len);
	b->n += len;
}

/* A type of the program: an app class, or a std container of one. */
static void type_name(uint64_t *s, struct buf *b, int nest)
{
	const char *sp = PICK(s, spaces), *cl = PICK(s, classes);

	switch (nest > 0 ? below(s, 8) : 7) {
	case 0:
		put(b, "std::vector<");
		type_name(s, b, nest - 1);
		put(b, ", std::allocator<");
		type_name(s, b, nest - 1);
		put(b, "> >");
		break;
	case 1:
		put(b, "std::shared_ptr<%s::%s>", sp, cl);
		break;
	case 2:
		put(b, "std::unique_ptr<%s::%s, std::default_delete<%s::%s> >", sp, cl, sp, cl);
		break;
	case 3:
		put(b, "std::unordered_map<%s, %s::%s*, std::hash<%s>, std::equal_to<%s> >",
		    PICK(s, scalars), sp, cl, "unsigned long", "unsigned long");
		break;
	case 4:
		put(b, "std::optional<");
		type_name(s, b, nest - 1);
		put(b, ">");
		break;
	case 5:
		put(b, "%s", PICK(s, scalars));
		break;
	default:
		put(b, "%s::%s", sp, cl);
		break;
	}
}

static void args(uint64_t *s, struct buf *b)
{
	int n = (int)below(s, 3);

	put(b, "(");
	for (int i = 0; i < n; i++) {
		if (i)
			put(b, ", ");
		type_name(s, b, 1);
		put(b, "%s", below(s, 3) ? " const&" : "&&");
	}
	put(b, ")");
}

/* The name of function i: mostly short, as most frames of a real profile
 * are, sometimes an instantiation with its template arguments in full. */
static char *func_name(uint64_t *s, size_t i)
{
	static char line[MAX_LINE];
	struct buf b = { line, 0 };
	const char *sp = PICK(s, spaces), *cl = PICK(s, classes), *m = PICK(s, methods);
	uint64_t k;

	if (i >= NFUNC - NLEAF) {
		/* leaves: the same few libc names and allocator helpers,
		 * made distinct as inlined copies and clones are */
		put(&b, "%s", PICK(s, leaves));
		if (i % 3)
			put(&b, " [clone .%s.%zu]", i % 2 ? "isra" : "constprop", i % 97);
		return strdup(line);
	}
	/* Shares, in 200ths, of each shape of name. */
	k = below(s, 200);
	if (k < 80) {
		put(&b, "%s::%s%zu()", cl, m, i % 10);
	} else if (k < 130) {
		put(&b, "%s::%s::%s%zu()", sp, cl, m, i % 10);
	} else if (k < 178) {
		put(&b, "%s::%s_%zu", sp, m, i);
	} else if (k < 180) {
		put(&b, "%s::%s<", sp, cl);
		type_name(s, &b, 1);
		put(&b, ">::%s", m);
		args(s, &b);
	} else if (k < 181) {
		put(&b, "%s::%s::%s", sp, cl, m);
		args(s, &b);
		put(&b, "::{lambda(auto:1&&)#%zu}::operator()<", 1 + i % 4);
		type_name(s, &b, 0);
		put(&b, "&>(");
		type_name(s, &b, 0);
		put(&b, "&) const");
	} else if (k < 182) {
		put(&b, "std::_Function_handler<void (");
		type_name(s, &b, 0);
		put(&b, "), %s::%s::%s()::{lambda()#%zu}>::_M_invoke(std::_Any_data const&)",
		    sp, cl, m, 1 + i % 3);
	} else if (k < 183) {
		put(&b, "std::vector<%s::%s, std::allocator<%s::%s> >::_M_realloc_insert<%s::%s const&>(__gnu_cxx::__normal_iterator<%s::%s*, std::vector<%s::%s, std::allocator<%s::%s> > >, %s::%s const&)",
		    sp, cl, sp, cl, sp, cl, sp, cl, sp, cl, sp, cl, sp, cl);
	} else if (k < 184) {
		put(&b, "std::_Hashtable<unsigned long, std::pair<unsigned long const, %s::%s>, std::allocator<std::pair<unsigned long const, %s::%s> >, std::__detail::_Select1st, std::equal_to<unsigned long>, std::hash<unsigned long>, std::__detail::_Mod_range_hashing, std::__detail::_Default_ranged_hash, std::__detail::_Prime_rehash_policy, std::__detail::_Hashtable_traits<false, false, true> >::find(unsigned long const&)",
		    sp, cl, sp, cl);
	} else {
		put(&b, "%s::%s::%s", sp, cl, m);
		args(s, &b);
		if (below(s, 2))
			put(&b, " const");
	}
	return strdup(line);
}

struct func {
	char *name;
	size_t len;
	uint32_t callee[MAX_CALLEE];
	uint8_t ncallees;
	uint8_t recursive; /* calls itself up to this many times */
};

static struct func funcs[NFUNC];

/* Callees lie further on in the table, mostly near: a layered program whose
 * lower layers (containers, allocators, libc) every upper layer shares. */
static void build_program(void)
{
	uint64_t s = 0x5eed0c0ffee;

	for (size_t i = 0; i < NFUNC; i++) {
		struct func *f = &funcs[i];

		f->name = func_name(&s, i);
		if (!f->name) {
			perror("gen_cxx_stacks");
			exit(1);
		}
		f->len = strlen(f->name);
		if (i >= NFUNC - NLEAF)
			continue;
		f->ncallees = (uint8_t)(1 + below(&s, MAX_CALLEE));
		/* recursion, in the short names: parsers and tree walks */
		f->recursive = strlen(f->name) < 40 && below(&s, 30) == 0 ? (uint8_t)(2 + below(&s, 6)) : 0;
		for (int c = 0; c < f->ncallees; c++) {
			uint64_t span = NFUNC - 1 - i;
			uint64_t step = below(&s, 4) ? 1 + below(&s, 1 + span / 64)
						     : 1 + below(&s, span);
			f->callee[c] = (uint32_t)(i + (step < span ? step : span));
		}
	}
}

static const char *const comms[] = {
	"server", "grpc-worker", "io-loop", "compactor", "flusher", "query-exec", "bg-sched",
	"http-accept", "metrics-push", "cache-evict",
};

/* One stack into b; returns its count. */
static uint64_t stack(uint64_t *s, struct buf *b)
{
	size_t c = below(s, sizeof(comms) / sizeof(comms[0]));
	/* Entry points: a few per thread name, in the top of the table. */
	size_t f = c * 40 + skewed(s, 40);
	size_t depth = 0, want = 7 + below(s, 10) + (below(s, 6) == 0 ? below(s, 30) : 0);
	uint64_t u;

	if (c == 0)
		put(b, "%s;_start;__libc_start_main_impl;main", comms[c]);
	else
		put(b, "%s;__clone3;start_thread", comms[c]);
	for (;;) {
		struct func *fn = &funcs[f];
		int times = fn->recursive ? 1 + (int)below(s, fn->recursive) : 1;

		for (int r = 0; r < times && depth < MAX_DEPTH; r++, depth++)
			append(b, fn->name, fn->len);
		if (!fn->ncallees || depth >= want)
			break;
		f = fn->callee[depth < 3 ? skewed(s, fn->ncallees) : below(s, fn->ncallees)];
	}
	if (below(s, 5) == 0)
		put(b, ";%s", PICK(s, syscalls));
	/* 1/u^2 with u uniform in (0, 1]: half the stacks are seen at most
	 * twice, a few hundred thousand times. */
	u = 1 + below(s, 1000000);
	u = 1000000000000ull / (2 * u * u) + 1;
	return u > 200000 ? 200000 : u;
}

struct line {
	size_t off; /* in the text of all lines */
	uint32_t len;
	uint64_t count;
};

static const char *text;

static int bytewise(const void *x, const void *y)
{
	const struct line *a = x, *b = y;
	int c = memcmp(text + a->off, text + b->off, a->len < b->len ? a->len : b->len);

	return c ? c : (a->len > b->len) - (a->len < b->len);
}

/* Eight bytes a step: only to tell repeated walks apart, in this process. */
static uint64_t hash_bytes(const char *p, size_t n)
{
	uint64_t h = n, w;

	for (; n >= 8; p += 8, n -= 8) {
		memcpy(&w, p, 8);
		h = (h ^ w) * 0x9e3779b97f4a7c15ull;
		h ^= h >> 32;
	}
	w = 0;
	memcpy(&w, p, n);
	h = (h ^ w) * 0x9e3779b97f4a7c15ull;
	return h ^ (h >> 29);
}

int main(int argc, char **argv)
{
	static char scratch[MAX_LINE];
	uint64_t s = 20240601, *seen;
	size_t n, nseen, k = 0, tries = 0, used = 0, cap = 0;
	struct line *v;
	char *all = NULL;
	char *end;

	if (argc != 2 || (n = strtoul(argv[1], &end, 10)) == 0 || *end || n > 50000000) {
		fprintf(stderr, "usage: gen_cxx_stacks N > stacks.folded\n");
		return 2;
	}
	build_program();
	for (nseen = 1; nseen < 2 * n; nseen *= 2)
		;
	seen = calloc(nseen, sizeof(*seen));
	v = calloc(n, sizeof(*v));
	if (!seen || !v) {
		perror("gen_cxx_stacks");
		return 1;
	}
	/* Walks repeat: keep the first of each stack, until n are distinct. */
	while (k < n) {
		struct buf b = { scratch, 0 };
		uint64_t count = stack(&s, &b), h = hash_bytes(b.s, b.n) | 1;
		size_t j = h & (nseen - 1);

		if (++tries > 1000 * n) {
			fprintf(stderr, "gen_cxx_stacks: cannot find %zu distinct stacks\n", n);
			return 1;
		}
		while (seen[j] && seen[j] != h)
			j = (j + 1) & (nseen - 1);
		if (seen[j])
			continue;
		seen[j] = h;
		if (used + b.n > cap) {
			cap = cap ? 2 * cap : (size_t)1 << 20;
			if (!(all = realloc(all, cap))) {
				perror("gen_cxx_stacks");
				return 1;
			}
		}
		memcpy(all + used, b.s, b.n);
		v[k].off = used;
		used += b.n;
		v[k].len = (uint32_t)b.n;
		v[k++].count = count;
	}
	text = all;
	qsort(v, n, sizeof(*v), bytewise);
	for (size_t i = 0; i < n; i++) {
		fwrite(all + v[i].off, 1, v[i].len, stdout);
		printf(" %llu\n", (unsigned long long)v[i].count);
	}
	if (fflush(stdout) || ferror(stdout)) {
		perror("gen_cxx_stacks: stdout");
		return 1;
	}
	return 0;
}
