# SPDX-License-Identifier: GPL-2.0-only
# The route sync daemon (sync/) and its tests; included by the Makefile.
# sync/ has no main(): `classifier` (cli/cmd_sync.c) links $(SYNC_OBJS)
# and $(SYNC_LDLIBS), added to its link lines here.

NL_CFLAGS := $(shell pkg-config --cflags libnl-3.0 2>/dev/null || \
	echo -I/usr/include/libnl3)
NL_LIBS := $(shell pkg-config --libs libnl-3.0 2>/dev/null || echo -lnl-3)
NL_ROUTE_LIBS := $(shell pkg-config --libs libnl-route-3.0 2>/dev/null || \
	echo -lnl-route-3 -lnl-3)

SYNC_OBJS := $(patsubst %.c,$(OUTPUT)/%.o,$(wildcard sync/*.c))
SYNC_LDLIBS := $(NL_LIBS)
SYNC_TEST_OBJS := $(OUTPUT)/tests/sync/mem_applier.o \
	$(OUTPUT)/tests/sync/troute.o
SYNC_HDRS := $(wildcard sync/*.h tests/sync/*.h)

$(SYNC_OBJS) $(SYNC_TEST_OBJS): CPPFLAGS += $(NL_CFLAGS)
$(SYNC_OBJS) $(SYNC_TEST_OBJS): $(SYNC_HDRS)

# Every binary with the command in it.
SYNC_USERS := $(OUTPUT)/classifier $(OUTPUT)/fault/classifier \
	$(OUTPUT)/tests/test_cli $(OUTPUT)/tests/test_pinned
$(SYNC_USERS): $(SYNC_OBJS)
$(SYNC_USERS): LDLIBS += $(SYNC_LDLIBS)
$(OUTPUT)/cli/cmd_sync.o $(OUTPUT)/fault/cli/cmd_sync.o: $(SYNC_HDRS)

# The rule grammar is pure C.
$(OUTPUT)/tests/test_sync_rules: tests/unit/test_sync_rules.c \
		$(OUTPUT)/sync/rules.o $(OUTPUT)/sync/rtnames.o \
		$(OUTPUT)/tests/sync/troute.o $(UTIL_OBJS) | $(OUTPUT)/tests
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CPPFLAGS) $(NL_CFLAGS) $(CFLAGS) $^ $(LDLIBS) -lcmocka \
		-o $@

# Route messages built with libnl, decoded by ours.
$(OUTPUT)/tests/test_sync_kroute: tests/unit/test_sync_kroute.c \
		$(OUTPUT)/sync/kroute.o $(UTIL_OBJS) | $(OUTPUT)/tests
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CPPFLAGS) $(NL_CFLAGS) $(CFLAGS) $^ $(LDLIBS) \
		$(NL_LIBS) -lcmocka -o $@

# The dump reader and the kernel's route counts, on messages and texts.
$(OUTPUT)/tests/test_sync_rtsock: tests/unit/test_sync_rtsock.c \
		$(OUTPUT)/sync/rtsock.o $(OUTPUT)/sync/kcount.o $(UTIL_OBJS) \
		| $(OUTPUT)/tests
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CPPFLAGS) $(NL_CFLAGS) $(CFLAGS) $^ $(LDLIBS) \
		$(NL_LIBS) -lcmocka -o $@

# When resyncs happen: pure arithmetic on times.
$(OUTPUT)/tests/test_sync_schedule: tests/unit/test_sync_schedule.c \
		$(OUTPUT)/sync/schedule.o $(UTIL_OBJS) | $(OUTPUT)/tests
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) $^ $(LDLIBS) -lcmocka -o $@

# The engine against the in-memory applier (tests/sync/mem_applier.c).
$(OUTPUT)/tests/test_sync_engine: tests/unit/test_sync_engine.c \
		$(filter-out $(OUTPUT)/sync/daemon.o $(OUTPUT)/sync/rtsock.o,\
			$(SYNC_OBJS)) $(SYNC_TEST_OBJS) $(UTIL_OBJS) \
		| $(OUTPUT)/tests
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CPPFLAGS) $(NL_CFLAGS) $(CFLAGS) $^ $(LDLIBS) \
		$(NL_LIBS) -lcmocka -o $@

.PHONY: sync-check
# Network-namespace tests of `classifier sync` (plain kernel routes, BIRD,
# the CLI beside it); check_state tells whether the pinned state is whole.
# SYNC_TESTS="kernel bird" runs some of them.
sync-check: $(OUTPUT)/classifier $(OUTPUT)/tests/check_state
	$(Q)CHECK_STATE=$(abspath $(OUTPUT)/tests/check_state) \
		./tests/netns/run.sh -d tests/sync $(OUTPUT)/classifier \
		$(SYNC_TESTS)

# Benchmark of the daemon (bench/sync.sh): decode cost, start-up, churn.
# (It probes the pinned maps through the library, as `lookup` does.)
$(OUTPUT)/bench/syncbench: bench/syncbench.c $(OUTPUT)/sync/kroute.o \
		$(OUTPUT)/sync/rtsock.o $(LIB_OBJS) $(SKELS)
	$(call msg,LINK,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CPPFLAGS) $(NL_CFLAGS) $(CFLAGS) $< \
		$(OUTPUT)/sync/kroute.o $(OUTPUT)/sync/rtsock.o $(LIB_OBJS) \
		$(NL_ROUTE_LIBS) $(LDLIBS) -o $@

.PHONY: sync-bench
sync-bench: $(OUTPUT)/bench/syncbench $(OUTPUT)/classifier
	$(Q)./bench/sync.sh $(OUTPUT)

.PHONY: sync-bird-bench
# Route sync under full-table BGP flaps, two BIRDs in namespaces
# (bench/sync-bird.sh): 15 minutes and 3 GiB at the default 600k + 300k
# prefixes; SYNC_BIRD_ARGS="--v4 N --v6 N --wait S --out FILE".
sync-bird-bench: $(OUTPUT)/bench/syncbench $(OUTPUT)/classifier
	$(Q)./bench/sync-bird.sh $(SYNC_BIRD_ARGS) $(OUTPUT)
