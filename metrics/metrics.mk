# SPDX-License-Identifier: GPL-2.0-only
# metrics/: Prometheus exposition, HTTP exporter (libmicrohttpd), live view.
# Included from the top Makefile; the objects link into every front end
# that serves the metrics (with $(METRICS_LDLIBS)): the classifier command.

METRICS_OBJS := $(patsubst %.c,$(OUTPUT)/%.o,$(wildcard metrics/*.c))
METRICS_HDRS := $(wildcard metrics/*.h)
METRICS_LDLIBS := -lmicrohttpd
# The views alone: no maps, no BPF (what the unit tests link).
METRICS_VIEW_OBJS := $(filter-out $(OUTPUT)/metrics/collect.o \
	$(OUTPUT)/metrics/exporter.o,$(METRICS_OBJS))

$(METRICS_OBJS) $(CLI_OBJS): $(METRICS_HDRS)

$(OUTPUT)/tests/test_prom $(OUTPUT)/tests/test_rates \
		$(OUTPUT)/tests/test_conns: $(OUTPUT)/tests/%: \
		tests/unit/%.c $(METRICS_VIEW_OBJS) $(UTIL_OBJS) | $(OUTPUT)/tests
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) $^ $(LDLIBS) -lcmocka -o $@

$(OUTPUT)/tests/test_exporter: tests/unit/test_exporter.c \
		$(METRICS_VIEW_OBJS) $(OUTPUT)/metrics/exporter.o $(UTIL_OBJS) \
		| $(OUTPUT)/tests
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) $^ $(LDLIBS) $(METRICS_LDLIBS) \
		-lcmocka -o $@
