# SPDX-License-Identifier: GPL-2.0-only
# libFuzzer harnesses (tests/fuzz/README.md), included by the Makefile.
# Each tests/fuzz/fuzz_NAME.c is one harness, built by clang with libFuzzer,
# ASan and UBSan into $(OUTPUT)/fuzz/NAME together with lib/parse.c,
# tests/fuzz/common.c and the sources in FUZZ_EXTRA_NAME.
#
#   make fuzz           each harness FUZZ_TIME s (600), one at a time
#   make fuzz-smoke     replay the committed corpus, each harness a few s
#   make fuzz-merge     minimize the committed corpus with what fuzz found
#   FUZZ_ONLY="prefix packet" picks harnesses.

FUZZ_CC ?= clang
FUZZ_DIR := $(OUTPUT)/fuzz
FUZZ_NAMES := $(patsubst tests/fuzz/fuzz_%.c,%,$(wildcard tests/fuzz/fuzz_*.c))
FUZZ_ONLY ?= $(FUZZ_NAMES)
FUZZ_TIME ?= 600
FUZZ_SMOKE_TIME ?= 2
FUZZ_CFLAGS := -g -O1 -fno-omit-frame-pointer \
	-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
	-Wall -Wextra -Werror -std=gnu11 -D_GNU_SOURCE -I. -I$(OUTPUT)

FUZZ_EXTRA_route_line := tests/fuzz/route_check.c
# The sync daemon's two texts: its rules file and the kernel's route messages.
FUZZ_EXTRA_sync_rules := sync/rules.c sync/rtnames.c
FUZZ_EXTRA_kroute := sync/kroute.c
FUZZ_LIBS_kroute := $(NL_CFLAGS) $(NL_LIBS)
$(FUZZ_DIR)/sync_rules $(FUZZ_DIR)/kroute: $(wildcard sync/*.h)
FUZZ_EXTRA_route_file := tests/fuzz/route_check.c
# The data path: the real BPF object, through tests/prog's fixture.
FUZZ_EXTRA_packet := tests/prog/harness.c tests/prog/pkt.c maps/dir24.c \
	maps/mbt6.c maps/registry.c
FUZZ_LIBS_packet := -lbpf -lelf -lz
$(FUZZ_DIR)/packet: $(SKELS) maps/classifier_abi.h maps/dir24.h maps/mbt6.h

.PHONY: fuzz fuzz-build fuzz-smoke fuzz-merge

$(FUZZ_DIR):
	$(Q)mkdir -p $@

.SECONDEXPANSION:
$(FUZZ_DIR)/%: tests/fuzz/fuzz_%.c tests/fuzz/common.c lib/parse.c \
		$$(FUZZ_EXTRA_$$*) $(wildcard tests/fuzz/*.h tests/prog/*.h) \
		lib/parse.h | $(FUZZ_DIR)
	$(call msg,FUZZ-CC,$@)
	$(Q)$(FUZZ_CC) $(FUZZ_CFLAGS) $(filter %.c,$^) $(FUZZ_LIBS_$*) -o $@

fuzz-build: $(addprefix $(FUZZ_DIR)/,$(FUZZ_ONLY))

fuzz: fuzz-build
	$(Q)./tests/fuzz/run.sh --long --time $(FUZZ_TIME) $(FUZZ_DIR) $(FUZZ_ONLY)

fuzz-smoke: fuzz-build
	$(Q)./tests/fuzz/run.sh --smoke --time $(FUZZ_SMOKE_TIME) $(FUZZ_DIR) \
		$(FUZZ_ONLY)

fuzz-merge: fuzz-build
	$(Q)./tests/fuzz/run.sh --merge $(FUZZ_DIR) $(FUZZ_ONLY)

# ---- sanitizers and valgrind over the other test layers ----

.PHONY: check-sanitize valgrind

# The unit, data-path and netns layers with user space under ASan, UBSan
# and LSan (SANITIZE=1, in $(SAN_OUTPUT)/).  Any report in $(SAN_LOGS)
# fails the run, even one from a command whose failure a test expected.
# LeakSanitizer cannot run under ptrace, and service_caps runs the commands
# under strace: every other netns test, but of the upgrades only the one
# from layout 3. It runs every link of the chain this build has; the
# others add older binaries' behaviour, which sanitizing this build does
# not check, and they are a third of CI's time.
SAN_NETNS := $(filter-out service_caps $(filter-out upgrade_from3,\
	$(patsubst tests/netns/test_%.sh,%,$(wildcard tests/netns/test_upgrade_from*.sh))),\
	$(patsubst tests/netns/test_%.sh,%,$(wildcard tests/netns/test_*.sh)))

check-sanitize: deps
	$(Q)rm -rf $(SAN_LOGS)
	$(Q)$(MAKE) --no-print-directory SANITIZE=1 all
	$(Q)$(MAKE) --no-print-directory SANITIZE=1 unit
	$(Q)$(MAKE) --no-print-directory SANITIZE=1 prog
	$(Q)$(MAKE) --no-print-directory SANITIZE=1 netns \
		NETNS_TESTS="$(SAN_NETNS)"
	$(Q)if [ -n "$$(ls $(SAN_LOGS))" ]; then \
		head -n 40 $(SAN_LOGS)/*; \
		echo "check-sanitize: findings in $(SAN_LOGS)" >&2; \
		exit 1; \
	fi

# memcheck over the unit tests and the CLI's front end (tests/valgrind.sh).
valgrind: deps
	$(Q)$(MAKE) --no-print-directory all
	$(Q)./tests/valgrind.sh $(OUTPUT)
