# SPDX-License-Identifier: GPL-2.0-only
# Build: vmlinux.h (from the running kernel's BTF) -> .bpf.o -> skeleton ->
# user space.  Everything generated goes to build/.  `make V=1` shows commands.

OUTPUT ?= build
CLANG ?= clang
BPFTOOL ?= bpftool
CC ?= gcc
ARCH := $(shell uname -m | sed -e 's/x86_64/x86/' -e 's/aarch64/arm64/')
BTF ?= /sys/kernel/btf/vmlinux

CFLAGS ?= -O2 -g
CFLAGS += -Wall -Wextra -Werror -std=gnu11 -D_GNU_SOURCE
# SANITIZE=1: user space under ASan and UBSan, built in its own OUTPUT so a
# normal build is left alone; any finding, a leak too, fails the test that
# ran into it.  Reports also go to files in SAN_LOGS: a finding in a command
# a test expects to fail would otherwise pass unseen (make check-sanitize).
SAN_OUTPUT := build-san
SAN_LOGS := $(abspath $(SAN_OUTPUT))/sanitizer
ifeq ($(SANITIZE),1)
OUTPUT := $(SAN_OUTPUT)
SAN_FLAGS := -fsanitize=address,undefined -fno-sanitize-recover=all \
	-fno-omit-frame-pointer
CFLAGS += $(SAN_FLAGS)
LDFLAGS += $(SAN_FLAGS)
# A small quarantine: the exporter's test bounds its RSS growth to 16 MiB.
SAN_ASAN := halt_on_error=1:detect_leaks=1:quarantine_size_mb=4
SAN_UBSAN := halt_on_error=1:print_stacktrace=1
export ASAN_OPTIONS ?= $(SAN_ASAN):log_path=$(SAN_LOGS)/asan
export UBSAN_OPTIONS ?= $(SAN_UBSAN):log_path=$(SAN_LOGS)/ubsan
$(shell mkdir -p $(SAN_LOGS))
endif
CPPFLAGS += -I. -I$(OUTPUT)
BPF_CFLAGS := -g -O2 -target bpf -D__TARGET_ARCH_$(ARCH) -Wall -Werror \
	-I. -I$(OUTPUT)
LDLIBS += -lbpf -lelf -lz -lmnl -pthread

ifeq ($(V),1)
Q =
msg =
else
Q = @
msg = @printf '  %-8s %s\n' "$(1)" "$(2)";
endif

.DELETE_ON_ERROR:
.SECONDARY:
.PHONY: all deps check demo clean unit prog netns prev verifier-stats bench \
	bench-quick bench-smoke kernel-check guest-check format

BPF_SRCS := $(wildcard xdp_tc/*.bpf.c)
BPF_OBJS := $(patsubst xdp_tc/%.bpf.c,$(OUTPUT)/%.bpf.o,$(BPF_SRCS))
SKELS := $(patsubst xdp_tc/%.bpf.c,$(OUTPUT)/%.skel.h,$(BPF_SRCS))
BPF_HDRS := $(wildcard xdp_tc/*.h) maps/classifier_abi.h

# lib/: pure helpers (logging, parsing, JSON) that unit tests link alone.
UTIL_OBJS := $(patsubst %.c,$(OUTPUT)/%.o,$(wildcard lib/*.c))
# The user-space library proper: pinned maps and the loader.
LIB_OBJS := $(UTIL_OBJS) $(patsubst %.c,$(OUTPUT)/%.o,$(wildcard maps/*.c loader/*.c))
CLI_SRCS := $(wildcard cli/*.c)
CLI_OBJS := $(patsubst %.c,$(OUTPUT)/%.o,$(CLI_SRCS))
USER_HDRS := $(wildcard lib/*.h maps/*.h loader/*.h cli/*.h)

UNIT_SRCS := $(wildcard tests/unit/test_*.c)
UNIT_BINS := $(patsubst tests/unit/%.c,$(OUTPUT)/tests/%,$(UNIT_SRCS))
PROG_SRCS := $(filter-out %.bpf.c,$(wildcard tests/prog/*.c))
PROG_BIN := $(OUTPUT)/tests/prog_test_run

all: $(OUTPUT)/classifier $(UNIT_BINS) $(PROG_BIN) $(OUTPUT)/tests/tcnl_test \
	$(OUTPUT)/tests/tctree_test \
	$(OUTPUT)/tests/table_agree $(OUTPUT)/tests/table6_agree \
	$(OUTPUT)/tests/check_state

# After `all`, which stays the default goal; defines METRICS_OBJS.
include metrics/metrics.mk

$(OUTPUT) $(OUTPUT)/tests:
	$(Q)mkdir -p $@

$(OUTPUT)/vmlinux.h: | $(OUTPUT)
	$(call msg,GEN,$@)
	$(Q)$(BPFTOOL) btf dump file $(BTF) format c > $@

$(OUTPUT)/%.bpf.o: xdp_tc/%.bpf.c $(BPF_HDRS) $(OUTPUT)/vmlinux.h
	$(call msg,BPF,$@)
	$(Q)$(CLANG) $(BPF_CFLAGS) -c $< -o $@

$(OUTPUT)/%.skel.h: $(OUTPUT)/%.bpf.o
	$(call msg,GEN-SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< > $@

$(OUTPUT)/%.o: %.c $(USER_HDRS) maps/classifier_abi.h
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) -c $< -o $@

# Only the loader embeds the BPF object.
$(patsubst %.c,$(OUTPUT)/%.o,$(wildcard loader/*.c)): $(SKELS)

$(OUTPUT)/classifier: $(CLI_OBJS) $(LIB_OBJS) $(METRICS_OBJS)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(LDFLAGS) $^ $(LDLIBS) $(METRICS_LDLIBS) -o $@

$(OUTPUT)/tests/test_%: tests/unit/test_%.c $(UTIL_OBJS) | $(OUTPUT)/tests
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) $^ $(LDLIBS) -lcmocka -o $@

# The DIR-24-8 painter is pure C over memory.
$(OUTPUT)/tests/test_dir24: tests/unit/test_dir24.c $(OUTPUT)/maps/dir24.o \
		| $(OUTPUT)/tests
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) $^ -lcmocka -o $@

# So is the IPv6 table.
$(OUTPUT)/tests/test_mbt6: tests/unit/test_mbt6.c $(OUTPUT)/maps/mbt6.o \
		| $(OUTPUT)/tests
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) $^ -lcmocka -o $@

# The BPF object's maps against the registry: the skeleton, parsed only.
$(OUTPUT)/tests/test_registry: tests/unit/test_registry.c \
		$(OUTPUT)/maps/registry.o $(SKELS) | $(OUTPUT)/tests
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) $< $(OUTPUT)/maps/registry.o \
		-lbpf -lelf -lz -lcmocka -o $@

# The layouts that landed, as maps/history.c declares them; and
# docs/architecture.md against the registry, the history and the tree.
$(OUTPUT)/tests/test_history $(OUTPUT)/tests/test_docs: \
		$(OUTPUT)/tests/%: tests/unit/%.c $(OUTPUT)/maps/history.o \
		$(OUTPUT)/maps/registry.o | $(OUTPUT)/tests
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) $^ -lbpf -lelf -lz -lcmocka -o $@

# The CLI's error handling, and the CLI and the library on a bpffs of
# their own (test_pinned): the commands without main(), and the library.
$(OUTPUT)/tests/test_cli $(OUTPUT)/tests/test_pinned: \
		$(OUTPUT)/tests/%: tests/unit/%.c \
		$(filter-out $(OUTPUT)/cli/main.o,$(CLI_OBJS)) $(LIB_OBJS) \
		$(METRICS_OBJS) | $(OUTPUT)/tests
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) $^ $(LDLIBS) $(METRICS_LDLIBS) \
		-lcmocka -o $@

# Table, trie and program agree, through the real maps library (root).
$(OUTPUT)/tests/table_agree: tests/agree/table_agree.c tests/agree/agree.c \
		tests/agree/agree.h $(LIB_OBJS) $(SKELS) | $(OUTPUT)/tests
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) $< tests/agree/agree.c $(LIB_OBJS) \
		$(LDLIBS) -o $@

# The same for the IPv6 table.
$(OUTPUT)/tests/table6_agree: tests/agree/table6_agree.c tests/agree/agree.c \
		tests/agree/agree.h $(LIB_OBJS) $(SKELS) | $(OUTPUT)/tests
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) $< tests/agree/agree.c $(LIB_OBJS) \
		$(LDLIBS) -o $@

# Is the pinned state whole after a crash and the next command?
$(OUTPUT)/tests/check_state: tests/crash/check_state.c $(LIB_OBJS) $(SKELS) \
		| $(OUTPUT)/tests
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) $< $(LIB_OBJS) $(LDLIBS) -o $@

# The rates' own test program (tests/prog/rate_test.bpf.c).
$(OUTPUT)/rate_test.bpf.o: tests/prog/rate_test.bpf.c $(BPF_HDRS) \
		$(OUTPUT)/vmlinux.h
	$(call msg,BPF,$@)
	$(Q)$(CLANG) $(BPF_CFLAGS) -c $< -o $@

# What a tc program left in queue_mapping (tests/prog/queue_probe.bpf.c).
$(OUTPUT)/queue_probe.bpf.o: tests/prog/queue_probe.bpf.c xdp_tc/classifier.bpf.c \
		$(BPF_HDRS) $(OUTPUT)/vmlinux.h
	$(call msg,BPF,$@)
	$(Q)$(CLANG) $(BPF_CFLAGS) -c $< -o $@

# The data-path tests need the skeletons, libbpf, the registry the maps are
# made from, the IPv6 table painter and the rates' arithmetic.
$(PROG_BIN): $(PROG_SRCS) $(SKELS) $(OUTPUT)/rate_test.skel.h \
		$(OUTPUT)/queue_probe.skel.h \
		$(wildcard tests/prog/*.h) $(USER_HDRS) maps/mbt6.c \
		maps/registry.c maps/rate.c | $(OUTPUT)/tests
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) $(PROG_SRCS) maps/mbt6.c maps/registry.c \
		maps/rate.c -lbpf -lelf -lz -pthread -o $@

include sync/sync.mk

deps:
	$(Q)./tests/deps.sh

unit: $(UNIT_BINS) $(OUTPUT)/tests/tcnl_test $(OUTPUT)/tests/tctree_test
	$(Q)set -e; for t in $(UNIT_BINS); do $$t; done
	$(Q)$(OUTPUT)/tests/tcnl_test
	$(Q)$(OUTPUT)/tests/tctree_test

prog: $(PROG_BIN) $(OUTPUT)/tests/table_agree $(OUTPUT)/tests/table6_agree
	$(Q)$(PROG_BIN)
	$(Q)$(OUTPUT)/tests/table_agree
	$(Q)$(OUTPUT)/tests/table6_agree

verifier-stats: $(PROG_BIN)
	$(Q)$(PROG_BIN) --verifier-stats

# The same command with its crash points armed ($$CLS_FAULT_STEP, see
# maps/internal.h): the crash tests kill it at every step of a change.
FAULT := $(OUTPUT)/fault
FAULT_OBJS := $(patsubst $(OUTPUT)/%,$(FAULT)/%,$(CLI_OBJS) $(LIB_OBJS))

$(FAULT)/%.o: %.c $(USER_HDRS) maps/classifier_abi.h | $(SKELS)
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) -DCLS_FAULT_INJECT -c $< -o $@

$(FAULT)/classifier: $(FAULT_OBJS) $(METRICS_OBJS)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(LDFLAGS) $^ $(LDLIBS) $(METRICS_LDLIBS) -o $@

# Every layout that landed, as LAYOUT:COMMIT[:fault]: the last commit
# with it, oldest first.
# The upgrade tests start from each one's classifier, built from this
# clone's git history (tests/upgrade/build_prev.sh), and from its fault
# build where it has a journal: changes it left half done, which this
# build's upgrade must settle.  When a layout lands, add its last commit.
UPGRADE_FROM := 3:93f17df3d8018df356f439d9e8077783d0443904 \
	4:41bda311d8c646a5216d4e4727d71fb9d10df9d7:fault \
	5:9ee4d3b960f1084d2609709dd5f3dbbb4cebbd09:fault \
	6:81c60a10dd5f5b509ef1ced291ed263a60511f3f:fault \
	7:80ba480985b049a253ca81bc700e0b3da33e26a1:fault
from_field = $(word $(2),$(subst :, ,$(1)))
# $(OUTPUT)/from-N/build/classifier, .../build/fault/classifier
from_dir = $(abspath $(OUTPUT)/from-$(call from_field,$(1),1))/build
FROM_ENV := $(foreach f,$(UPGRADE_FROM), \
	CLASSIFIER_FROM_$(call from_field,$(f),1)=$(call from_dir,$(f))/classifier \
	$(if $(call from_field,$(f),3),CLASSIFIER_FROM_$(call from_field,$(f),1)_FAULT=$(call from_dir,$(f))/fault/classifier))

prev:
	$(Q)$(foreach f,$(UPGRADE_FROM), \
		printf '  %-8s %s\n' BUILD "layout $(call from_field,$(f),1) from $(call from_field,$(f),2)" && \
		./tests/upgrade/build_prev.sh $(call from_field,$(f),2) \
		$(OUTPUT)/from-$(call from_field,$(f),1) \
		$(if $(call from_field,$(f),3),build/fault/classifier) &&) true

netns: $(OUTPUT)/classifier $(FAULT)/classifier $(OUTPUT)/tests/check_state \
		prev
	$(Q)CLASSIFIER_FAULT=$(abspath $(FAULT)/classifier) \
		CHECK_STATE=$(abspath $(OUTPUT)/tests/check_state) \
		$(FROM_ENV) \
		./tests/netns/run.sh $(OUTPUT)/classifier $(NETNS_TESTS)

# The README's test command: installs what is missing, then every layer.
check: deps
	$(Q)$(MAKE) --no-print-directory all
	$(Q)$(MAKE) --no-print-directory unit
	$(Q)$(MAKE) --no-print-directory verifier-stats
	$(Q)$(MAKE) --no-print-directory prog
	$(Q)$(MAKE) --no-print-directory fuzz-smoke
	$(Q)$(MAKE) --no-print-directory bench-smoke
	$(Q)$(MAKE) --no-print-directory netns
	$(Q)$(MAKE) --no-print-directory install-check
	$(Q)$(MAKE) --no-print-directory sync-check

demo: deps
	$(Q)$(MAKE) --no-print-directory $(OUTPUT)/classifier
	$(Q)./deploy/demo.sh $(OUTPUT)/classifier

# Benchmarks (bench/README.md); not tests, except the smoke run in check.
bench: $(OUTPUT)/classifier
	$(Q)./bench/run.sh $(OUTPUT)

bench-quick: $(OUTPUT)/classifier
	$(Q)./bench/run.sh --quick $(OUTPUT)

bench-smoke: $(OUTPUT)/classifier
	$(Q)./bench/run.sh --smoke $(OUTPUT)

# The 6.1 series applies, is checkpatch-clean, and its objects compile.
kernel-check:
	$(Q)./deploy/kernel/deps.sh
	$(Q)./deploy/kernel/check.sh

# The guest smokes on Debian's prebuilt 6.1 and 6.12 kernels under qemu
# (deploy/kernel/guest-check.sh): programs load and classify there, and the
# qdiscs and devices this machine's kernel lacks work. ~2 min warm.
guest-check: all
	$(Q)./deploy/kernel/guest-deps.sh
	$(Q)./deploy/kernel/guest-check.sh $(OUTPUT)

format:
	$(Q)clang-format -i $(wildcard */*.c */*.h tests/*/*.c tests/*/*.h)

clean:
	$(call msg,CLEAN,$(OUTPUT))
	$(Q)rm -rf $(OUTPUT)

# Netlink fallback test: needs root, makes its own network namespace.
$(OUTPUT)/tests/tcnl_test: tests/tcnl/tcnl_test.c tests/tcnl/common.c \
		loader/tc_netlink.c loader/tc_netlink.h $(UTIL_OBJS) \
		| $(OUTPUT)/tests
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) tests/tcnl/tcnl_test.c \
		tests/tcnl/common.c loader/tc_netlink.c $(UTIL_OBJS) \
		-lmnl -lbpf -o $@

# The shaping tree's tc objects (lib/tctree.c): the same, with a 4-queue veth.
$(OUTPUT)/tests/tctree_test: tests/tcnl/tctree_test.c tests/tcnl/common.c \
		$(UTIL_OBJS) | $(OUTPUT)/tests
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) $< tests/tcnl/common.c $(UTIL_OBJS) \
		-lmnl -lbpf -o $@

include deploy/install.mk
include tests/fuzz/fuzz.mk
