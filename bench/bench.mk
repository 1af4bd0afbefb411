# SPDX-License-Identifier: GPL-2.0-only
# Bench binaries, built next to the project's own objects:
#   make OUTPUT=build-bench build-bench/classifier  (skeleton, vmlinux.h)
#   make -f bench/bench.mk OUTPUT=build-bench
OUTPUT ?= build-bench
CLANG ?= clang
BPFTOOL ?= bpftool
CC ?= gcc
ARCH := $(shell uname -m | sed -e 's/x86_64/x86/' -e 's/aarch64/arm64/')

CFLAGS ?= -O2 -g
CFLAGS += -Wall -Wextra -Werror -std=gnu11 -D_GNU_SOURCE
CPPFLAGS += -I. -I$(OUTPUT)
BPF_CFLAGS := -g -O2 -target bpf -D__TARGET_ARCH_$(ARCH) -Wall -Werror \
	-I. -I$(OUTPUT)
B := $(OUTPUT)/bench

.DELETE_ON_ERROR:
.PHONY: all
all: $(B)/progbench $(B)/prefixgen $(B)/blast $(B)/routebench $(B)/memlat \
	$(B)/metricsbench $(B)/ratebench

$(B):
	@mkdir -p $@

$(B)/bench.bpf.o: bench/bench.bpf.c $(wildcard xdp_tc/*.h) \
		maps/classifier_abi.h bench/poptrie6.h \
		$(OUTPUT)/vmlinux.h | $(B)
	@printf '  %-8s %s\n' BPF $@
	@$(CLANG) $(BPF_CFLAGS) -c $< -o $@

$(B)/bench.skel.h: $(B)/bench.bpf.o
	@printf '  %-8s %s\n' GEN-SKEL $@
	@$(BPFTOOL) gen skeleton $< name bench_bpf > $@

# progbench fills the DIR-24-8 and IPv6 tables with the project's own code.
PROGBENCH_SRCS := bench/progbench.c bench/table6.c bench/gen.c bench/gen6.c \
	bench/poptrie6.c maps/dir24.c maps/mbt6.c maps/registry.c
$(B)/progbench: $(PROGBENCH_SRCS) bench/gen.h bench/progbench.h \
		bench/poptrie6.h maps/dir24.h maps/mbt6.h maps/maps.h \
		$(B)/bench.skel.h $(OUTPUT)/classifier.skel.h | $(B)
	@printf '  %-8s %s\n' LINK $@
	@$(CC) $(CPPFLAGS) -I$(B) $(CFLAGS) $(PROGBENCH_SRCS) -lbpf -lelf -lz \
		-lm -o $@

# The rates in the real programs, made from the registry as the CLI does.
$(B)/ratebench: bench/ratebench.c maps/registry.c maps/rate.c maps/maps.h \
		$(OUTPUT)/classifier.skel.h | $(B)
	@printf '  %-8s %s\n' LINK $@
	@$(CC) $(CPPFLAGS) $(CFLAGS) bench/ratebench.c maps/registry.c \
		maps/rate.c -lbpf -lelf -lz -pthread -o $@

$(B)/prefixgen: bench/prefixgen.c bench/gen.c bench/gen6.c bench/gen.h | $(B)
	@printf '  %-8s %s\n' LINK $@
	@$(CC) $(CPPFLAGS) $(CFLAGS) bench/prefixgen.c bench/gen.c bench/gen6.c -lm -o $@

$(B)/memlat: bench/memlat.c | $(B)
	@printf '  %-8s %s\n' LINK $@
	@$(CC) $(CPPFLAGS) $(CFLAGS) $< -o $@

$(B)/blast: bench/blast.c | $(B)
	@printf '  %-8s %s\n' LINK $@
	@$(CC) $(CPPFLAGS) $(CFLAGS) bench/blast.c -lbpf -o $@

# The project's user-space library, as `make OUTPUT=...` built it for the CLI.
LIB_OBJS := $(patsubst %.c,$(OUTPUT)/%.o,$(wildcard lib/*.c maps/*.c loader/*.c))

$(B)/routebench: bench/routebench.c $(LIB_OBJS) | $(B)
	@printf '  %-8s %s\n' LINK $@
	@$(CC) $(CPPFLAGS) $(CFLAGS) bench/routebench.c $(LIB_OBJS) \
		-lbpf -lelf -lz -lmnl -o $@

# The metrics read, as the CLI's objects do it (bench/metrics.sh runs it).
METRICS_BENCH_OBJS := $(patsubst %,$(OUTPUT)/metrics/%.o,collect prom snapshot)

$(B)/metricsbench: bench/metricsbench.c $(LIB_OBJS) $(METRICS_BENCH_OBJS) \
		| $(B)
	@printf '  %-8s %s\n' LINK $@
	@$(CC) $(CPPFLAGS) $(CFLAGS) bench/metricsbench.c $(LIB_OBJS) \
		$(METRICS_BENCH_OBJS) -lbpf -lelf -lz -lmnl -o $@
