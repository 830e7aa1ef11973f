# prof: an eBPF CPU profiler in four small programs.
#
#   make            build the four programs into $(BUILD)/bin
#   make check      install missing packages, build, run every test
#   make check-asan the same tests against an AddressSanitizer+UBSan build
#   make demo       profile the bundled demo workload into demo.svg
#   make bench      benchmarks side by side with the tools users would run
#   make install    PREFIX=/usr/local DESTDIR=

VERSION  := 0.1.0
PROGS    := prof-sample prof-symbolize prof-fold prof-svg
BUILD    ?= build
PREFIX   ?= /usr/local
BINDIR   ?= $(PREFIX)/bin
MANDIR   ?= $(PREFIX)/share/man

CC       ?= cc
CLANG    ?= clang
BPFTOOL  ?= bpftool
ARCH     := $(shell uname -m | sed 's/x86_64/x86/;s/aarch64/arm64/')

# vmlinux.h is generated at build time from the build host's BTF rather than
# checked in: the kernel headers it replaces are ~3 MB that would go stale in
# git, and CO-RE relocates field offsets at load time anyway, so any recent
# kernel's BTF works.  On a build host without BTF, point VMLINUX_BTF at a
# copy of another kernel's /sys/kernel/btf/vmlinux.
VMLINUX_BTF ?= /sys/kernel/btf/vmlinux

SANITIZE ?=
WARN     := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wformat=2 \
            -Wno-format-nonliteral
CFLAGS   ?= -O2 -g
CFLAGS   += -std=gnu11 $(WARN) -D_GNU_SOURCE -DPROF_VERSION='"$(VERSION)"' \
            -Icommon -Ibpf -I$(BUILD) $(SANITIZE)
LDFLAGS  += $(SANITIZE)

COMMON_SRC := $(wildcard common/*.c)
COMMON_OBJ := $(COMMON_SRC:%.c=$(BUILD)/%.o)
LIBCOMMON  := $(BUILD)/libcommon.a

LIBS_prof-sample    := -lbpf -ldw -lelf -lz
LIBS_prof-symbolize := -ldw -lelf -liberty -llzma -lz
LIBS_prof-fold      := -lm
LIBS_prof-svg       := -lm
# For the unit tests of common/ alone.
LIBS_prof-common    := -lelf -lm

BINS := $(PROGS:%=$(BUILD)/bin/%)

all: $(BINS)

.SECONDARY:

.PHONY: all check test check-asan demo bench fuzz install clean setup setup-demo unit-tests workloads

# Everything the tests need; the demo needs only the build and what it runs.
setup:
	@./.ci/setup check
setup-demo:
	@./.ci/setup demo

$(BUILD)/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -MMD -MP -c -o $@ $<

$(BUILD)/%.o: %.S
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -MMD -MP -c -o $@ $<

$(LIBCOMMON): $(COMMON_OBJ)
	$(AR) rcs $@ $^

# Each program is every .c and .S file in its directory and the folders in
# it (prof-sample's groups), whose headers its files include by name: found
# there first, as in the file's own folder (bpf/ has a python.h too).
define prog_rule
$(1)_DIRS := $(1) $$(patsubst %/,%,$$(wildcard $(1)/*/))
$(1)_OBJ := $$(patsubst %,$(BUILD)/%.o,$$(basename $$(foreach d,$$($(1)_DIRS),$$(wildcard $$(d)/*.c $$(d)/*.S))))
$$($(1)_OBJ): CFLAGS := $$(addprefix -I,$$($(1)_DIRS)) $$(CFLAGS)
$(BUILD)/bin/$(1): $$($(1)_OBJ) $(LIBCOMMON)
	@mkdir -p $$(@D)
	$$(CC) $$(LDFLAGS) -o $$@ $$^ $$(LIBS_$(1))
endef
$(foreach p,$(PROGS),$(eval $(call prog_rule,$(p))))

# --- BPF: vmlinux.h -> .bpf.o -> skeleton ---------------------------------
$(BUILD)/vmlinux.h:
	@mkdir -p $(@D)
	$(BPFTOOL) btf dump file $(VMLINUX_BTF) format c > $@.tmp && mv $@.tmp $@

$(BUILD)/bpf/%.bpf.o: bpf/%.bpf.c bpf/*.h $(BUILD)/vmlinux.h
	@mkdir -p $(@D)
	$(CLANG) -g -O2 -target bpf -D__TARGET_ARCH_$(ARCH) -Wall -Werror \
		-I$(BUILD) -Ibpf -Icommon -c -o $@ $<

$(BUILD)/%.skel.h: $(BUILD)/bpf/%.bpf.o
	$(BPFTOOL) gen skeleton $< > $@.tmp && mv $@.tmp $@

$(prof-sample_OBJ): $(BUILD)/profile.skel.h

# The flame graph's script, embedded by .incbin (which -MMD does not see).
$(BUILD)/prof-svg/flamegraph_js.o: prof-svg/flamegraph.js

# --- tests -----------------------------------------------------------------
UNIT_SRC  := $(wildcard tests/unit/test_*.c)
UNIT_BINS := $(UNIT_SRC:tests/unit/%.c=$(BUILD)/tests/%)
WORKLOAD_SRC  := $(wildcard tests/workloads/*.c)
WORKLOAD_BINS := $(WORKLOAD_SRC:tests/workloads/%.c=$(BUILD)/workloads/%)

# A unit test named test_<prog>_*.c links prof-<prog>'s objects but its
# main.o, so parsers are tested through their real code; test_common_*.c
# needs only libcommon.
define unit_rule
$(BUILD)/tests/$(1): tests/unit/$(1).c $(wildcard tests/unit/*.h) $$(filter-out %/main.o,$$(prof-$(2)_OBJ)) $(LIBCOMMON)
	@mkdir -p $$(@D)
	$$(CC) -Itests/unit $$(addprefix -I,$$(prof-$(2)_DIRS)) $$(CFLAGS) -o $$@ $$< \
		$$(filter-out %/main.o,$$(prof-$(2)_OBJ)) $(LIBCOMMON) $$(LDFLAGS) $$(LIBS_prof-$(2))
endef
$(foreach t,$(UNIT_SRC:tests/unit/%.c=%),$(eval $(call unit_rule,$(t),$(word 2,$(subst _, ,$(t))))))

# Workloads are built at -O0 with frame pointers, so every function keeps its
# frame (gcc drops it from leaf functions at -O1 even when asked not to), and
# without the sanitizer:
# they are what gets profiled, not what is tested.  Those for --unwind=dwarf
# are built as distributions build code: optimized, without frame pointers.
$(BUILD)/workloads/%: tests/workloads/%.c
	@mkdir -p $(@D)
	$(CC) $(or $(WORKLOAD_CFLAGS_$*),-O0 -g -fno-omit-frame-pointer) \
		-o $@ $< $(WORKLOAD_LIBS_$*)

WORKLOAD_CFLAGS_nofp  := -O2 -g -fomit-frame-pointer
# Without -g too: gcc would put the CFI in .debug_frame instead.
WORKLOAD_CFLAGS_nocfi := -O2 -fomit-frame-pointer -fno-asynchronous-unwind-tables \
	-fno-unwind-tables
# At -O0, where even leaf functions keep their frame.
WORKLOAD_CFLAGS_nocfi_fp := -O0 -fno-omit-frame-pointer -fno-asynchronous-unwind-tables \
	-fno-unwind-tables

# Not a workload but a benchmark's input generator: optimized, so that it
# writes a million stacks in seconds.
WORKLOAD_CFLAGS_gen_cxx_stacks := -O2 -g

WORKLOAD_LIBS_chain_nopie := -fno-pie -no-pie
WORKLOAD_LIBS_shortlived := -static

# The floors make bench measures the programs against (tests/bench/*_floor.c),
# built as the programs are, on their own line reader and parser.
BENCH_TOOLS := $(BUILD)/bench-tools/fold_floor $(BUILD)/bench-tools/svg_floor
$(BUILD)/bench-tools/%: tests/bench/%.c $(LIBCOMMON)
	@mkdir -p $(@D)
	$(CC) -Iprof-svg $(CFLAGS) -o $@ $< $(LIBCOMMON) $(LDFLAGS) -lm

unit-tests: $(UNIT_BINS)
workloads: $(WORKLOAD_BINS)

# What CI runs (.ci/run): the whole suite on the build users get, again on
# an ASan+UBSan build, and every fuzz target for CHECK_FUZZ_SECONDS; one
# summary line for all.  The suites that sample nothing run at nice 19
# beside the second build's sampling suites, with the fuzzing, and the ASan
# build is made beside the first build's (tests/run).
# About 23 minutes on two cores, builds included; each build uses every CPU.
JOBS       := -j$(shell nproc)
ASAN_BUILD := build-asan
ASAN_MAKE  := BUILD=$(ASAN_BUILD) CC=gcc \
	SANITIZE='-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all'
CHECK_FUZZ_SECONDS ?= 10
check: setup
	$(MAKE) $(JOBS) all unit-tests workloads
	PROF_CHECK_BUILDS="$(BUILD) $(ASAN_BUILD)" FUZZ_SECONDS=$(CHECK_FUZZ_SECONDS) \
		PROF_CHECK_PREBUILD="$(MAKE) $(JOBS) $(ASAN_MAKE) all unit-tests workloads" tests/run

# Parts of it, for development: the suite alone, or under ASan alone.
test: setup
	$(MAKE) $(JOBS) all unit-tests workloads
	BUILD=$(BUILD) tests/run

check-asan: setup
	$(MAKE) $(JOBS) $(ASAN_MAKE) all unit-tests workloads
	BUILD=$(ASAN_BUILD) tests/run

demo: setup-demo
	$(MAKE) $(JOBS) all $(BUILD)/workloads/nofp
	BUILD=$(BUILD) tests/demo.sh demo.svg

bench: setup
	$(MAKE) all workloads $(BENCH_TOOLS)
	BUILD=$(BUILD) tests/bench/run

# libFuzzer targets (tests/fuzz/fuzz_*.c), each run for FUZZ_SECONDS.
FUZZ_SECONDS ?= 60
fuzz: setup
	FUZZ_SECONDS=$(FUZZ_SECONDS) tests/fuzz/run

# --- install ---------------------------------------------------------------
MANPAGES := $(wildcard prof-*/*.1)

install: $(BINS)
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1
	install -m 0755 $(BINS) $(DESTDIR)$(BINDIR)
	$(if $(MANPAGES),install -m 0644 $(MANPAGES) $(DESTDIR)$(MANDIR)/man1)

clean:
	rm -rf build build-asan demo.svg

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
