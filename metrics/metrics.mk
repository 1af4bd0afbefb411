# SPDX-License-Identifier: GPL-2.0-only
# metrics/: Prometheus exposition, HTTP exporter (libmicrohttpd), live view.
# Included from the top Makefile; the objects link into whatever front end
# serves the metrics (with $(METRICS_LDLIBS)).

METRICS_OBJS := $(patsubst %.c,$(OUTPUT)/%.o,$(wildcard metrics/*.c))
METRICS_HDRS := $(wildcard metrics/*.h)
METRICS_LDLIBS := -lmicrohttpd
# The views alone: no maps, no BPF (what the unit tests link).
METRICS_VIEW_OBJS := $(filter-out $(OUTPUT)/metrics/collect.o \
	$(OUTPUT)/metrics/exporter.o,$(METRICS_OBJS))

$(METRICS_OBJS): $(METRICS_HDRS)

all: $(OUTPUT)/tests/metrics_driver

# Until the classifier command has the verbs, the netns tests drive
# metrics/ through this binary, over the same pinned maps.
$(OUTPUT)/tests/metrics_driver: tests/metrics/metrics_driver.c \
		$(METRICS_OBJS) $(LIB_OBJS) $(SKELS) | $(OUTPUT)/tests
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) $< $(METRICS_OBJS) $(LIB_OBJS) \
		$(LDLIBS) $(METRICS_LDLIBS) -o $@

$(OUTPUT)/tests/test_prom $(OUTPUT)/tests/test_rates: $(OUTPUT)/tests/%: \
		tests/unit/%.c $(METRICS_VIEW_OBJS) $(UTIL_OBJS) | $(OUTPUT)/tests
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) $^ $(LDLIBS) -lcmocka -o $@

$(OUTPUT)/tests/test_exporter: tests/unit/test_exporter.c \
		$(METRICS_VIEW_OBJS) $(OUTPUT)/metrics/exporter.o $(UTIL_OBJS) \
		| $(OUTPUT)/tests
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) $^ $(LDLIBS) $(METRICS_LDLIBS) \
		-lcmocka -o $@

netns: $(OUTPUT)/tests/metrics_driver
