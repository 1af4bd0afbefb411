// SPDX-License-Identifier: GPL-2.0-only
/* The live view's arithmetic and output: rates, order, screen, JSON. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "metrics/watch.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define SEC	      1000000000ULL

static void set_class(struct metrics_class *c, __u32 idx, const char *label,
		      __u64 eg_pkts, __u64 eg_bytes, __u64 in_pkts)
{
	memset(c, 0, sizeof(*c));
	c->idx = idx;
	snprintf(c->label, sizeof(c->label), "%s", label);
	snprintf(c->name, sizeof(c->name), "n%u", idx);
	c->dir[METRICS_EGRESS] = (struct cls_counter){eg_pkts, eg_bytes};
	c->dir[METRICS_INGRESS] = (struct cls_counter){in_pkts, in_pkts * 100};
}

static void snap(struct metrics_snapshot *s, struct metrics_class *c, size_t n)
{
	memset(s, 0, sizeof(*s));
	s->classes = c;
	s->nr_classes = n;
	s->stats_on = true;
}

/* The rows' class indices, in order. */
static void assert_order(const struct rate_row *rows, __u32 a, __u32 b, __u32 c)
{
	assert_int_equal(rows[0].c->idx, a);
	assert_int_equal(rows[1].c->idx, b);
	assert_int_equal(rows[2].c->idx, c);
}

static void test_rates_per_class(void **state)
{
	struct metrics_class a[3], b[3];
	struct metrics_snapshot prev, cur;
	struct rate_row rows[3];

	(void)state;
	set_class(&a[0], 0, "default", 10, 1000, 0);
	set_class(&a[1], 1, "1:10", 100, 10000, 0);
	set_class(&a[2], 2, "1:20", 5, 500, 0);
	/* over 2 s: default +20 pkts +2000 B, 1:10 +200 pkts (100 of them
	 * ingress, 100 B each), 1:20 nothing */
	set_class(&b[0], 0, "default", 30, 3000, 0);
	set_class(&b[1], 1, "1:10", 200, 20000, 100);
	set_class(&b[2], 2, "1:20", 5, 500, 0);
	snap(&prev, a, 3);
	snap(&cur, b, 3);
	rates_compute(&prev, &cur, 2 * SEC, RATE_BY_BITS, rows);
	assert_int_equal(rows[0].c->idx, 1);
	assert_true(rows[0].pps == 100.0);
	/* (10000 + 10000) bytes * 8 / 2 s */
	assert_true(rows[0].bps == 80000.0);
	assert_int_equal(rows[0].packets, 300);
	assert_int_equal(rows[0].bytes, 30000);
	assert_int_equal(rows[1].c->idx, 0);
	assert_true(rows[1].pps == 10.0);
	assert_true(rows[1].bps == 8000.0);
	assert_int_equal(rows[2].c->idx, 2);
	assert_true(rows[2].pps == 0.0);
}

static void test_new_class_and_reset_count_from_zero(void **state)
{
	struct metrics_class a[2], b[3];
	struct metrics_snapshot prev, cur;
	struct rate_row rows[3];
	size_t i;

	(void)state;
	set_class(&a[0], 0, "default", 1000, 100000, 0);
	set_class(&a[1], 2, "1:20", 50, 5000, 0);
	set_class(&b[0], 0, "default", 4, 400, 0); /* stats reset */
	set_class(&b[1], 1, "1:10", 7, 700, 0);	   /* new */
	set_class(&b[2], 2, "1:20", 60, 6000, 0);
	snap(&prev, a, 2);
	snap(&cur, b, 3);
	rates_compute(&prev, &cur, SEC, RATE_BY_PACKETS, rows);
	for (i = 0; i < 3; i++) {
		switch (rows[i].c->idx) {
		case 0:
			assert_true(rows[i].pps == 4.0);
			break;
		case 1:
			assert_true(rows[i].pps == 7.0);
			break;
		default:
			assert_true(rows[i].pps == 10.0);
		}
	}
	assert_order(rows, 2, 1, 0);
}

static void test_sort_keys_and_ties(void **state)
{
	struct metrics_class b[3];
	struct metrics_snapshot cur;
	struct rate_row rows[3];

	(void)state;
	/* many small packets, few big ones, and a tie broken by index */
	set_class(&b[0], 5, "1:5", 1000, 64000, 0);
	set_class(&b[1], 3, "1:3", 10, 150000, 0);
	set_class(&b[2], 4, "1:4", 10, 150000, 0);
	snap(&cur, b, 3);
	rates_compute(NULL, &cur, SEC, RATE_BY_BITS, rows);
	assert_order(rows, 3, 4, 5);
	rates_sort(rows, 3, RATE_BY_PACKETS);
	assert_order(rows, 5, 3, 4);
}

static void test_no_interval_no_rate(void **state)
{
	struct metrics_class b[1];
	struct metrics_snapshot cur;
	struct rate_row rows[1];
	struct rate_totals t;

	(void)state;
	set_class(&b[0], 0, "default", 10, 1000, 0);
	snap(&cur, b, 1);
	cur.unclassified[0].count.packets = 9;
	rates_compute(NULL, &cur, 0, RATE_BY_BITS, rows);
	rates_totals(rows, 1, NULL, &cur, 0, &t);
	assert_true(rows[0].pps == 0 && rows[0].bps == 0);
	assert_true(t.pps == 0 && t.bps == 0 && t.unclassified_pps == 0);
}

static void test_totals(void **state)
{
	struct metrics_class a[2], b[2];
	struct metrics_snapshot prev, cur;
	struct rate_row rows[2];
	struct rate_totals t;

	(void)state;
	set_class(&a[0], 0, "default", 0, 0, 0);
	set_class(&a[1], 1, "1:10", 0, 0, 0);
	set_class(&b[0], 0, "default", 5, 500, 0);
	set_class(&b[1], 1, "1:10", 15, 1500, 0);
	snap(&prev, a, 2);
	snap(&cur, b, 2);
	prev.unclassified[1].count.packets = 3;
	cur.unclassified[1].count.packets = 8;
	cur.unclassified[3].count.packets = 5;
	rates_compute(&prev, &cur, SEC / 2, RATE_BY_BITS, rows);
	rates_totals(rows, 2, &prev, &cur, SEC / 2, &t);
	assert_true(t.pps == 40.0);
	assert_true(t.bps == 32000.0);
	assert_true(t.unclassified_pps == 20.0);
}

static void test_si(void **state)
{
	static const struct {
		double v;
		const char *want;
	} cases[] = {
		{0, "0"},	   {999, "999"},    {999.4, "999"},
		{999.6, "1.00k"},  {1234, "1.23k"}, {12345, "12.3k"},
		{123456, "123k"},  {1e6, "1.00M"},  {9.87654e9, "9.88G"},
		{4.2e13, "42.0T"}, {1e21, "1000E"},
	};
	char buf[16];
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		rates_si(cases[i].v, buf, sizeof(buf));
		assert_string_equal(buf, cases[i].want);
	}
}

static char *draw(const struct watch_frame *w)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	watch_draw(f, w);
	assert_int_equal(fclose(f), 0);
	return buf;
}

/* Lines of a frame with the escape sequences taken out. */
static int visible_lines(char *frame, char lines[][256], int max)
{
	int n = 0, k = 0;
	char *p;

	for (p = frame; *p && n < max; p++) {
		if (*p == '\033') {
			p++; /* CSI: '[' then parameters up to a letter */
			while (p[1] && !((p[1] >= 'A' && p[1] <= 'Z') ||
					 (p[1] >= 'a' && p[1] <= 'z')))
				p++;
			p++;
			continue;
		}
		if (*p == '\n') {
			lines[n++][k] = '\0';
			k = 0;
			continue;
		}
		if (k < 255)
			lines[n][k++] = *p;
	}
	if (n < max)
		lines[n++][k] = '\0';
	return n;
}

static void test_draw_fits_the_terminal(void **state)
{
	struct metrics_class a[20], b[20];
	struct metrics_snapshot prev, cur;
	struct rate_row rows[20];
	char lines[64][256], *out;
	struct watch_frame w = {};
	char label[16];
	int i, n;

	(void)state;
	for (i = 0; i < 20; i++) {
		snprintf(label, sizeof(label), "1:%x", i + 1);
		set_class(&a[i], i, label, 0, 0, 0);
		set_class(&b[i], i, label, i * 10, i * 1000, 0);
	}
	snap(&prev, a, 20);
	snap(&cur, b, 20);
	rates_compute(&prev, &cur, SEC, RATE_BY_BITS, rows);
	rates_totals(rows, 20, &prev, &cur, SEC, &w.tot);
	w.cur = &cur;
	w.rows = rows;
	w.dt_ns = SEC;
	w.interval_ms = 1000;
	w.cols = 60;
	w.lines = 10;
	out = draw(&w);
	assert_memory_equal(out, "\033[H", 3);
	n = visible_lines(out, lines, 64);
	/* 3 header lines, 5 classes, "... 15 more", the key line: no scroll */
	assert_int_equal(n, 10);
	for (i = 0; i < n; i++)
		assert_true(strlen(lines[i]) <= 60);
	assert_non_null(strstr(lines[0], "classifier stats watch"));
	assert_non_null(strstr(lines[1], "total 1.90k pkt/s 1.52M bit/s"));
	assert_non_null(strstr(lines[2], "PKT/S"));
	/* highest rate first: 1:14 (index 19) */
	assert_int_equal(strncmp(lines[3], "1:14 ", 5), 0);
	assert_non_null(strstr(lines[3], " 190 "));
	assert_non_null(strstr(lines[3], " 152k"));
	assert_int_equal(strncmp(lines[8], "... 15 more", 11), 0);
	assert_non_null(strstr(lines[9], "q quit"));
	free(out);
}

static void test_draw_first_frame_and_stats_off(void **state)
{
	struct metrics_class b[1];
	struct metrics_snapshot cur;
	struct rate_row rows[1];
	char lines[16][256], *out;
	struct watch_frame w = {};

	(void)state;
	set_class(&b[0], 1, "1:10", 5, 500, 0);
	snap(&cur, b, 1);
	cur.stats_on = false;
	rates_compute(NULL, &cur, 0, RATE_BY_BITS, rows);
	w.cur = &cur;
	w.rows = rows;
	w.interval_ms = 500;
	w.cols = 200;
	w.lines = 40;
	out = draw(&w);
	assert_int_equal(visible_lines(out, lines, 16), 5);
	assert_non_null(strstr(lines[0], "every 0.5s"));
	assert_non_null(strstr(lines[0], "STATS OFF"));
	assert_non_null(strstr(lines[1], "first interval"));
	assert_non_null(strstr(lines[3], " - "));
	free(out);
}

static void test_json_line(void **state)
{
	struct metrics_class a[2], b[2];
	struct metrics_snapshot prev, cur;
	struct watch_frame w = {};
	struct rate_row rows[2];
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	set_class(&a[0], 0, "default", 0, 0, 0);
	set_class(&a[1], 1, "1:10", 0, 0, 0);
	set_class(&b[0], 0, "default", 1, 100, 0);
	set_class(&b[1], 1, "1:10", 10, 1000, 0);
	snap(&prev, a, 2);
	snap(&cur, b, 2);
	cur.time_ns = 1700000000 * SEC + 7;
	rates_compute(&prev, &cur, SEC, RATE_BY_BITS, rows);
	rates_totals(rows, 2, &prev, &cur, SEC, &w.tot);
	w.cur = &cur;
	w.rows = rows;
	w.dt_ns = SEC;
	f = open_memstream(&buf, &len);
	assert_non_null(f);
	watch_json(f, &w);
	assert_int_equal(fclose(f), 0);
	assert_string_equal(
		buf,
		"{\"time\":1700000000,\"interval_ms\":1000,\"stats_enabled\":"
		"true,"
		"\"total\":{\"packets_per_second\":11,\"bits_per_second\":8800,"
		"\"unclassified_packets_per_second\":0},\"classes\":["
		"{\"class\":\"1:10\",\"name\":\"n1\",\"index\":1,\"packets\":"
		"10,"
		"\"bytes\":1000,\"packets_per_second\":10,\"bits_per_second\":"
		"8000},"
		"{\"class\":\"default\",\"name\":\"n0\",\"index\":0,"
		"\"packets\":1,"
		"\"bytes\":100,\"packets_per_second\":1,\"bits_per_second\":"
		"800}]}\n");
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rates_per_class),
		cmocka_unit_test(test_new_class_and_reset_count_from_zero),
		cmocka_unit_test(test_sort_keys_and_ties),
		cmocka_unit_test(test_no_interval_no_rate),
		cmocka_unit_test(test_totals),
		cmocka_unit_test(test_si),
		cmocka_unit_test(test_draw_fits_the_terminal),
		cmocka_unit_test(test_draw_first_frame_and_stats_off),
		cmocka_unit_test(test_json_line),
	};

	return cmocka_run_group_tests_name("rates", tests, NULL, NULL);
}
