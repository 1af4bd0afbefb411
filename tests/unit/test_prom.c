// SPDX-License-Identifier: GPL-2.0-only
/* The Prometheus exposition writer, on snapshots made by hand. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "metrics/prom.h"

struct capture {
	FILE *f;
	char *buf;
	size_t len;
};

static void open_capture(struct capture *c)
{
	memset(c, 0, sizeof(*c));
	c->f = open_memstream(&c->buf, &c->len);
	assert_non_null(c->f);
}

static char *close_capture(struct capture *c)
{
	assert_int_equal(fclose(c->f), 0);
	return c->buf;
}

static char *render(const struct metrics_snapshot *s)
{
	struct capture c;

	open_capture(&c);
	assert_int_equal(prom_write(c.f, s), 0);
	return close_capture(&c);
}

static struct metrics_class classes[] = {
	{.idx = 0,
	 .label = "default",
	 .name = "default",
	 .dir = {{7, 700}, {0, 0}}},
	{.idx = 1,
	 .label = "1:10",
	 .name = "web",
	 .dir = {{100, 12800}, {3, 192}}},
};
static struct metrics_attachment atts[] = {
	{.dev = "eth0",
	 .hook = "egress",
	 .mode = "tcx",
	 .live = true,
	 .prog_id = 42},
	{.dev = "gone",
	 .hook = "xdp",
	 .mode = "unknown",
	 .live = false,
	 .prog_id = 43},
};
static struct metrics_prog progs[] = {
	{.id = 42,
	 .name = "cls_egress",
	 .tag = "0123456789abcdef",
	 .build_id = "00000000deadbeef",
	 .run_time_ns = 1500000123,
	 .run_cnt = 1000},
};

/* Two classes, the IPv4 table, two attachments, no sync daemon. */
static void small_snapshot(struct metrics_snapshot *s)
{
	int r;

	memset(s, 0, sizeof(*s));
	s->stats_on = true;
	s->classes = classes;
	s->nr_classes = 2;
	s->class_room = 4096;
	for (r = 0; r < CLS_R_MAX; r++)
		s->unclassified[r].name = r == 0 ? "not_ip" : "truncated";
	s->unclassified[0].count = (struct cls_counter){5, 300};
	s->table[METRICS_V4] = (struct metrics_table){.available = true,
						      .on = true,
						      .capacity = 131072,
						      .used = 12,
						      .ask_trie = 0,
						      .bytes = 201330688};
	s->table[METRICS_V6] = (struct metrics_table){
		.available = true, .capacity = 0, .bytes = 0};
	s->att = atts;
	s->nr_att = 2;
	s->prog = progs;
	s->nr_prog = 1;
	s->bpf_stats.known = true;
	s->bpf_stats.on = true;
	s->version = "1.0";
	strcpy(s->build_id, "0123456789abcdef");
	s->layout = 4;
	s->collect_ns = 1234567;
}

static const char golden_head[] =
	"# HELP classifier_up 1 if classifier's pinned state could be read.\n"
	"# TYPE classifier_up gauge\n"
	"classifier_up 1\n"
	"# HELP classifier_build_info Version and build id of the binary "
	"reading the metrics.\n"
	"# TYPE classifier_build_info gauge\n"
	"classifier_build_info{version=\"1.0\",build_id=\"0123456789abcdef\"} "
	"1\n"
	"# HELP classifier_layout_version Version of the layout of the pinned "
	"maps.\n"
	"# TYPE classifier_layout_version gauge\n"
	"classifier_layout_version 4\n"
	"# HELP classifier_stats_enabled 1 if per-class counting is on "
	"(classifier stats on|off).\n"
	"# TYPE classifier_stats_enabled gauge\n"
	"classifier_stats_enabled 1\n"
	"# HELP classifier_classes Classes defined, the default class "
	"included.\n"
	"# TYPE classifier_classes gauge\n"
	"classifier_classes 2\n"
	"# HELP classifier_classes_max Classes the maps have room for (they "
	"grow as classes need).\n"
	"# TYPE classifier_classes_max gauge\n"
	"classifier_classes_max 4096\n"
	"# HELP classifier_class_packets_total Packets put in the class, by "
	"direction (egress: tc, by destination; ingress: XDP, by source).\n"
	"# TYPE classifier_class_packets_total counter\n"
	"classifier_class_packets_total{class=\"default\",name=\"default\","
	"direction=\"egress\"} 7\n"
	"classifier_class_packets_total{class=\"default\",name=\"default\","
	"direction=\"ingress\"} 0\n"
	"classifier_class_packets_total{class=\"1:10\",name=\"web\",direction="
	"\"egress\"} 100\n"
	"classifier_class_packets_total{class=\"1:10\",name=\"web\",direction="
	"\"ingress\"} 3\n"
	"# HELP classifier_class_bytes_total Bytes of the packets put in the "
	"class, by direction.\n"
	"# TYPE classifier_class_bytes_total counter\n"
	"classifier_class_bytes_total{class=\"default\",name=\"default\","
	"direction=\"egress\"} 700\n"
	"classifier_class_bytes_total{class=\"default\",name=\"default\","
	"direction=\"ingress\"} 0\n"
	"classifier_class_bytes_total{class=\"1:10\",name=\"web\",direction="
	"\"egress\"} 12800\n"
	"classifier_class_bytes_total{class=\"1:10\",name=\"web\",direction="
	"\"ingress\"} 192\n";

static const char golden_tail[] =
	"# HELP classifier_table_enabled 1 if packets are looked up in the "
	"table (IPv4: DIR-24-8, IPv6: multibit); 0: the trie answers.\n"
	"# TYPE classifier_table_enabled gauge\n"
	"classifier_table_enabled{family=\"ipv4\"} 1\n"
	"classifier_table_enabled{family=\"ipv6\"} 0\n"
	"# HELP classifier_table_capacity Room in the table: IPv4 second-level "
	"groups (a /24 each), IPv6 32-byte units.\n"
	"# TYPE classifier_table_capacity gauge\n"
	"classifier_table_capacity{family=\"ipv4\"} 131072\n"
	"classifier_table_capacity{family=\"ipv6\"} 0\n"
	"# HELP classifier_table_used Of that room, what is in use.\n"
	"# TYPE classifier_table_used gauge\n"
	"classifier_table_used{family=\"ipv4\"} 12\n"
	"classifier_table_used{family=\"ipv6\"} 0\n"
	"# HELP classifier_table_trie_fallbacks Parts of the address space "
	"left to the trie for want of room (IPv4: /24s, IPv6: slots).\n"
	"# TYPE classifier_table_trie_fallbacks gauge\n"
	"classifier_table_trie_fallbacks{family=\"ipv4\"} 0\n"
	"classifier_table_trie_fallbacks{family=\"ipv6\"} 0\n"
	"# HELP classifier_table_memory_bytes Size of the table's map.\n"
	"# TYPE classifier_table_memory_bytes gauge\n"
	"classifier_table_memory_bytes{family=\"ipv4\"} 201330688\n"
	"classifier_table_memory_bytes{family=\"ipv6\"} 0\n"
	"# HELP classifier_attachment_up Attachments of classifier's programs: "
	"1 if the device exists, 0 if the attachment outlived it.\n"
	"# TYPE classifier_attachment_up gauge\n"
	"classifier_attachment_up{dev=\"eth0\",hook=\"egress\",mode=\"tcx\","
	"prog_id=\"42\"} 1\n"
	"classifier_attachment_up{dev=\"gone\",hook=\"xdp\",mode=\"unknown\","
	"prog_id=\"43\"} 0\n"
	"# HELP classifier_program_info Attached programs: id, name, the "
	"kernel's tag (a hash of the instructions) and the classifier build "
	"they came from.\n"
	"# TYPE classifier_program_info gauge\n"
	"classifier_program_info{prog_id=\"42\",name=\"cls_egress\",tag="
	"\"0123456789abcdef\",build_id=\"00000000deadbeef\"} 1\n"
	"# HELP classifier_kernel_bpf_stats_enabled 1 if sysctl "
	"kernel.bpf_stats_enabled is on (the kernel counts programs' run "
	"time).\n"
	"# TYPE classifier_kernel_bpf_stats_enabled gauge\n"
	"classifier_kernel_bpf_stats_enabled 1\n"
	"# HELP classifier_program_run_time_seconds_total Time the kernel "
	"spent running the program, counted while its BPF run-time accounting "
	"was on.\n"
	"# TYPE classifier_program_run_time_seconds_total counter\n"
	"classifier_program_run_time_seconds_total{prog_id=\"42\",name=\"cls_"
	"egress\"} 1.500000123\n"
	"# HELP classifier_program_runs_total Runs of the program, counted "
	"while its BPF run-time accounting was on.\n"
	"# TYPE classifier_program_runs_total counter\n"
	"classifier_program_runs_total{prog_id=\"42\",name=\"cls_egress\"} "
	"1000\n"
	"# HELP classifier_sync_up 1 if the route sync daemon is running.\n"
	"# TYPE classifier_sync_up gauge\n"
	"classifier_sync_up 0\n"
	"# HELP classifier_collect_duration_seconds Time taken to read this "
	"snapshot of the maps.\n"
	"# TYPE classifier_collect_duration_seconds gauge\n"
	"classifier_collect_duration_seconds 0.001234567\n";

static void test_golden_small_snapshot(void **state)
{
	struct metrics_snapshot s;
	char *out, *tail;

	(void)state;
	small_snapshot(&s);
	out = render(&s);
	assert_memory_equal(out, golden_head, strlen(golden_head));
	/* Reasons come from cls_reason_name(): their lines are checked below.
	 */
	assert_non_null(strstr(out, "classifier_unclassified_packets_total"
				    "{reason=\"not_ip\"} 5\n"));
	assert_non_null(strstr(out, "classifier_unclassified_bytes_total"
				    "{reason=\"not_ip\"} 300\n"));
	tail = strstr(out, "# HELP classifier_table_enabled");
	assert_non_null(tail);
	assert_string_equal(tail, golden_tail);
	free(out);
}

/* A rated class has its rate's series; an unrated one none. */
static void test_rate_series_of_rated_classes(void **state)
{
	struct metrics_snapshot s;
	char *out;

	(void)state;
	small_snapshot(&s);
	out = render(&s);
	assert_null(strstr(out, "classifier_class_rate_packets_total"));
	free(out);
	s.classes[1].rate_kind = "police";
	s.classes[1].rate[METRICS_INGRESS].dropped = 7;
	out = render(&s);
	s.classes[1].rate_kind = NULL; /* the array is the other tests' too */
	s.classes[1].rate[METRICS_INGRESS].dropped = 0;
	assert_non_null(strstr(out, "# TYPE classifier_class_rate_packets_total "
				    "counter\n"));
	assert_non_null(strstr(
		out, "classifier_class_rate_packets_total{class=\"1:10\","
		     "name=\"web\",direction=\"ingress\",rate=\"police\","
		     "outcome=\"dropped\"} 7\n"));
	free(out);
}

static void test_label_values_escaped(void **state)
{
	struct metrics_attachment odd = {.dev = "a\"b\\c\nd",
					 .hook = "egress",
					 .mode = "tc",
					 .live = true,
					 .prog_id = 1};
	struct metrics_snapshot s;
	char *out;

	(void)state;
	small_snapshot(&s);
	s.att = &odd;
	s.nr_att = 1;
	out = render(&s);
	assert_non_null(
		strstr(out, "classifier_attachment_up{dev=\"a\\\"b\\\\c\\nd\","
			    "hook=\"egress\",mode=\"tc\",prog_id=\"1\"} 1\n"));
	free(out);
}

/* No line may end inside a label, whatever the names hold. */
static void test_every_line_well_formed(void **state)
{
	struct metrics_class c = {.idx = 2, .label = "1:20", .name = "x\ny"};
	struct metrics_snapshot s;
	char *out, *line, *save;

	(void)state;
	small_snapshot(&s);
	s.classes = &c;
	s.nr_classes = 1;
	out = render(&s);
	for (line = strtok_r(out, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (line[0] == '#') {
			assert_true(!strncmp(line, "# HELP classifier_", 18) ||
				    !strncmp(line, "# TYPE classifier_", 18));
			continue;
		}
		assert_true(!strncmp(line, "classifier_", 11));
		/* a sample ends with " <number>" */
		assert_non_null(strrchr(line, ' '));
		assert_true(strspn(strrchr(line, ' ') + 1, "0123456789.") ==
			    strlen(strrchr(line, ' ') + 1));
	}
	free(out);
}

static void test_run_time_needs_accounting(void **state)
{
	struct metrics_prog idle = {.id = 42, .name = "cls_egress"};
	struct metrics_snapshot s;
	char *out;

	(void)state;
	small_snapshot(&s);
	s.prog = &idle;
	s.bpf_stats.on = false;
	out = render(&s);
	assert_null(strstr(out, "run_time_seconds_total"));
	assert_null(strstr(out, "classifier_program_runs_total"));
	assert_non_null(strstr(out, "classifier_kernel_bpf_stats_enabled 0\n"));
	free(out);

	/* Enabled by a BPF_ENABLE_STATS holder: the sysctl says 0. */
	idle.run_cnt = 9;
	idle.run_time_ns = 90;
	out = render(&s);
	assert_non_null(strstr(out,
			       "classifier_program_runs_total"
			       "{prog_id=\"42\",name=\"cls_egress\"} 9\n"));
	assert_non_null(strstr(out, "{prog_id=\"42\",name=\"cls_egress\"} "
				    "0.000000090\n"));
	free(out);
}

/* A table that could not be read is absent, never a made-up zero. */
static void test_unreadable_table_absent(void **state)
{
	struct metrics_snapshot s;
	char *out;

	(void)state;
	small_snapshot(&s);
	s.table[METRICS_V6].available = false;
	out = render(&s);
	assert_non_null(
		strstr(out, "classifier_table_enabled{family=\"ipv4\"}"));
	assert_null(strstr(out, "{family=\"ipv6\"}"));
	free(out);
	s.table[METRICS_V4].available = false;
	out = render(&s);
	assert_null(strstr(out, "classifier_table_"));
	free(out);
}

static void test_routes_by_family_and_source(void **state)
{
	struct metrics_snapshot s;
	char *out;

	(void)state;
	small_snapshot(&s);
	s.routes[METRICS_V4][METRICS_HAND] = 10;
	s.routes[METRICS_V6][METRICS_SYNCED] = 20;
	out = render(&s);
	assert_non_null(strstr(
		out,
		"classifier_routes{family=\"ipv4\",source=\"hand\"} 10\n"
		"classifier_routes{family=\"ipv4\",source=\"sync\"} 0\n"
		"classifier_routes{family=\"ipv6\",source=\"hand\"} 0\n"
		"classifier_routes{family=\"ipv6\",source=\"sync\"} 20\n"));
	free(out);
}

/* The daemon's own figures while it runs; only "not running" when not. */
static void test_sync_running_or_not(void **state)
{
	struct metrics_snapshot s;
	char *out;

	(void)state;
	small_snapshot(&s);
	s.sync = (struct metrics_sync){.running = true,
				       .routes = 20,
				       .shadowed = 2,
				       .errors = 1,
				       .events = 300,
				       .started = 1699999000,
				       .last_resync = 1700000000,
				       .lag_us = 1500};
	out = render(&s);
	assert_non_null(strstr(out, "classifier_sync_up 1\n"));
	assert_non_null(strstr(out, "classifier_sync_routes 20\n"));
	assert_non_null(strstr(out, "classifier_sync_shadowed_routes 2\n"));
	assert_non_null(strstr(out, "classifier_sync_errors_total 1\n"));
	assert_non_null(strstr(out, "classifier_sync_events_total 300\n"));
	assert_non_null(
		strstr(out, "classifier_sync_start_time_seconds 1699999000\n"));
	assert_non_null(strstr(
		out,
		"classifier_sync_last_resync_timestamp_seconds 1700000000\n"));
	assert_non_null(
		strstr(out, "classifier_sync_lag_seconds 0.001500000\n"));
	free(out);
	s.sync.running = false;
	out = render(&s);
	assert_non_null(strstr(out, "classifier_sync_up 0\n"));
	assert_null(strstr(out, "classifier_sync_routes"));
	assert_null(strstr(out, "classifier_sync_last_resync"));
	free(out);
}

static void test_down(void **state)
{
	struct capture c;
	char *out;

	(void)state;
	open_capture(&c);
	assert_int_equal(prom_write_down(c.f), 0);
	out = close_capture(&c);
	assert_string_equal(out, "# HELP classifier_up 1 if classifier's "
				 "pinned state could be read.\n"
				 "# TYPE classifier_up gauge\n"
				 "classifier_up 0\n");
	free(out);
}

/* Large enough to cross the writer's buffer many times. */
#define MANY_CLASSES 4096
static void test_many_classes(void **state)
{
	struct metrics_snapshot s;
	size_t i, lines = 0;
	char *out, *p;

	(void)state;
	small_snapshot(&s);
	s.classes = calloc(MANY_CLASSES, sizeof(*s.classes));
	assert_non_null(s.classes);
	for (i = 0; i < MANY_CLASSES; i++) {
		s.classes[i].idx = i;
		snprintf(s.classes[i].label, sizeof(s.classes[i].label),
			 "1:%zx", i);
		snprintf(s.classes[i].name, sizeof(s.classes[i].name),
			 "class_%zu", i);
		s.classes[i].dir[METRICS_EGRESS].packets = i * 1000003ULL;
	}
	s.nr_classes = MANY_CLASSES;
	out = render(&s);
	for (p = out; (p = strstr(p, "classifier_class_packets_total{")); p++)
		lines++;
	assert_int_equal(lines, 2 * MANY_CLASSES);
	assert_non_null(strstr(out, "{class=\"1:fff\",name=\"class_4095\","
				    "direction=\"egress\"} 4095012285\n"));
	free(out);
	free(s.classes);
}

static void test_write_file_atomic(void **state)
{
	char dir[] = "/tmp/test_prom.XXXXXX", path[64], *want, *got;
	struct metrics_snapshot s;
	struct stat st;
	size_t len;
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/classifier.prom", dir);
	small_snapshot(&s);
	assert_int_equal(prom_write_file(path, &s), 0);
	s.stats_on = false;
	assert_int_equal(prom_write_file(path, &s), 0);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0644);
	want = render(&s);
	got = calloc(1, strlen(want) + 2);
	f = fopen(path, "r");
	assert_non_null(f);
	len = fread(got, 1, strlen(want) + 1, f);
	fclose(f);
	assert_int_equal(len, strlen(want));
	assert_string_equal(got, want);
	free(want);
	free(got);
	assert_int_equal(unlink(path), 0);
	/* nothing else was left beside it */
	assert_int_equal(rmdir(dir), 0);
}

static void test_write_file_missing_dir(void **state)
{
	struct metrics_snapshot s;

	(void)state;
	small_snapshot(&s);
	assert_int_equal(prom_write_file("/nonexistent-dir/x.prom", &s),
			 -ENOENT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_golden_small_snapshot),
		cmocka_unit_test(test_label_values_escaped),
		cmocka_unit_test(test_every_line_well_formed),
		cmocka_unit_test(test_run_time_needs_accounting),
		cmocka_unit_test(test_unreadable_table_absent),
		cmocka_unit_test(test_routes_by_family_and_source),
		cmocka_unit_test(test_sync_running_or_not),
		cmocka_unit_test(test_down),
		cmocka_unit_test(test_many_classes),
		cmocka_unit_test(test_rate_series_of_rated_classes),
		cmocka_unit_test(test_write_file_atomic),
		cmocka_unit_test(test_write_file_missing_dir),
	};

	return cmocka_run_group_tests_name("prom", tests, NULL, NULL);
}
