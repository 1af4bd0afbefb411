// SPDX-License-Identifier: GPL-2.0-only
/*
 * What one metrics read costs, by part, against the pins under BPFFS (as
 * the CLI leaves them): a snapshot from a handle kept open (what
 * `classifier stats prometheus` does once per process), a snapshot with
 * the pins opened and closed around it (what every frame of `stats watch`
 * does), the same through read-only handles (every scrape of `classifier
 * exporter`: the counters copied, not mapped), the opening and closing
 * alone, and the exposition written to memory.  Prints "part
 * median max" in ms over ROUNDS rounds.
 *   metricsbench BPFFS [ROUNDS]
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "maps/maps.h"
#include "metrics/collect.h"
#include "metrics/prom.h"

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static void report(const char *part, double *t, int n)
{
	qsort(t, n, sizeof(*t), cmp_double);
	printf("%s %.3f %.3f\n", part, t[n / 2], t[n - 1]);
}

static int format_once(const struct metrics_snapshot *s, size_t *bytes)
{
	char *buf = NULL;
	FILE *f;
	int err;

	f = open_memstream(&buf, bytes);
	if (!f)
		return -ENOMEM;
	err = prom_write(f, s);
	if (fclose(f) && !err)
		err = -ENOMEM;
	free(buf);
	return err;
}

int main(int argc, char **argv)
{
	int rounds = argc > 2 ? atoi(argv[2]) : 200, i, err;
	struct cls_open_opts o = {};
	double *t[5], t0;
	struct metrics_snapshot s;
	struct cls_maps m;
	size_t bytes = 0;

	if (argc < 2 || rounds < 1) {
		fprintf(stderr, "usage: metricsbench BPFFS [ROUNDS]\n");
		return 2;
	}
	o.bpffs = argv[1];
	for (i = 0; i < 5; i++)
		t[i] = calloc(rounds, sizeof(double));
	err = t[0] && t[1] && t[2] && t[3] && t[4] ? metrics_snapshot_init(&s)
						   : -ENOMEM;
	if (!err)
		err = cls_open(&m, &o);
	for (i = 0; !err && i < rounds; i++) {
		t0 = now_ms();
		err = metrics_collect(&m, &s);
		t[0][i] = now_ms() - t0;
	}
	if (!err)
		cls_close(&m);
	for (i = 0; !err && i < rounds; i++) {
		t0 = now_ms();
		err = metrics_collect_pinned(o.bpffs, false, &s);
		t[1][i] = now_ms() - t0;
	}
	for (i = 0; !err && i < rounds; i++) {
		t0 = now_ms();
		err = metrics_collect_pinned(o.bpffs, true, &s);
		t[4][i] = now_ms() - t0;
	}
	for (i = 0; !err && i < rounds; i++) {
		t0 = now_ms();
		err = cls_open(&m, &o);
		if (!err)
			cls_close(&m);
		t[2][i] = now_ms() - t0;
	}
	for (i = 0; !err && i < rounds; i++) {
		t0 = now_ms();
		err = format_once(&s, &bytes);
		t[3][i] = now_ms() - t0;
	}
	if (err) {
		fprintf(stderr, "metricsbench: %s%s%s\n", cls_open_error(),
			*cls_open_error() ? ": " : "", strerror(-err));
		return 1;
	}
	printf("classes %zu cpus %u attachments %zu programs %zu\n",
	       s.nr_classes, s.nr_cpus, s.nr_att, s.nr_prog);
	printf("# ms: median max over %d rounds\n", rounds);
	report("collect_open_handle", t[0], rounds);
	report("collect_from_pins", t[1], rounds);
	report("collect_from_pins_read_only", t[4], rounds);
	report("open_close", t[2], rounds);
	report("format", t[3], rounds);
	printf("body_bytes %zu\n", bytes);
	metrics_snapshot_free(&s);
	for (i = 0; i < 5; i++)
		free(t[i]);
	return 0;
}
