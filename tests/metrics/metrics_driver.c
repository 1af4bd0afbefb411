// SPDX-License-Identifier: GPL-2.0-only
/*
 * metrics_driver: runs metrics/ against the real pinned maps until the
 * `classifier` command has its stats prometheus / stats watch / exporter
 * verbs.  For the tests only.
 *
 *   metrics_driver [--bpffs DIR] prom [FILE]
 *   metrics_driver [--bpffs DIR] exporter [listen ADDR:PORT] [timeout S]
 *                  [conns N] [per-ip N] [bpf-stats]
 *   metrics_driver [--bpffs DIR] watch [SECONDS] [count N] [json]
 *   metrics_driver [--bpffs DIR] time [ROUNDS]
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include "maps/maps.h"
#include "metrics/collect.h"
#include "metrics/exporter.h"
#include "metrics/prom.h"
#include "metrics/watch.h"

static char root[PATH_MAX];

static int read_pinned(void *ctx, struct metrics_snapshot *s)
{
	int err;

	(void)ctx;
	err = metrics_collect_pinned(root, s);
	s->version = "metrics_driver";
	return err;
}

static const struct metrics_source source = {read_pinned, NULL};

static int die(const char *what, int err)
{
	fprintf(stderr, "metrics_driver: %s: %s\n", what, strerror(-err));
	return 1;
}

static int usage(void)
{
	fprintf(stderr, "usage: metrics_driver [--bpffs DIR] { prom [FILE] |\n"
			"         exporter [listen ADDR:PORT] [timeout S] "
			"[conns N] [per-ip N]\n"
			"                  [bpf-stats] |\n"
			"         watch [SECONDS] [count N] [json] | time "
			"[ROUNDS] }\n");
	return 2;
}

static int do_prom(int argc, char **argv)
{
	struct metrics_snapshot s;
	int err;

	if (argc > 1)
		return usage();
	err = metrics_snapshot_init(&s);
	if (!err)
		err = read_pinned(NULL, &s);
	if (!err)
		err = argc ? prom_write_file(argv[0], &s)
			   : prom_write(stdout, &s);
	metrics_snapshot_free(&s);
	return err ? die("prom", err) : 0;
}

static int do_exporter(int argc, char **argv)
{
	struct exporter_opts o = {};
	int i, err, stats_fd = -1;
	unsigned long v;

	/* The kernel's run-time accounting while we run (refcounted, unlike
	 * the sysctl, so other users of it are not disturbed). */
	if (argc && !strcmp(argv[argc - 1], "bpf-stats")) {
		stats_fd = bpf_enable_stats(BPF_STATS_RUN_TIME);
		if (stats_fd < 0)
			return die("bpf-stats", -errno);
		argc--;
	}
	for (i = 0; i + 1 < argc; i += 2) {
		v = strtoul(argv[i + 1], NULL, 10);
		if (!strcmp(argv[i], "listen"))
			o.listen = argv[i + 1];
		else if (!strcmp(argv[i], "timeout"))
			o.timeout_s = v;
		else if (!strcmp(argv[i], "conns"))
			o.max_conns = v;
		else if (!strcmp(argv[i], "per-ip"))
			o.max_conns_per_ip = v;
		else
			return usage();
	}
	if (i != argc)
		return usage();
	err = exporter_run(&o, &source);
	if (stats_fd >= 0)
		close(stats_fd);
	return err ? die("exporter", err) : 0;
}

static int do_watch(int argc, char **argv)
{
	struct watch_opts o = {};
	int i, err;

	for (i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "json"))
			o.json = true;
		else if (!strcmp(argv[i], "count") && i + 1 < argc)
			o.count = strtoul(argv[++i], NULL, 10);
		else
			o.interval_ms = strtod(argv[i], NULL) * 1000;
	}
	err = watch_run(&o, &source);
	return err ? die("watch", err) : 0;
}

static double ms_since(const struct timespec *a)
{
	struct timespec b;

	clock_gettime(CLOCK_MONOTONIC, &b);
	return (b.tv_sec - a->tv_sec) * 1e3 + (b.tv_nsec - a->tv_nsec) / 1e6;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Median and max of n timings, printed as "what median max" in ms. */
static void report(const char *what, double *t, int n)
{
	qsort(t, n, sizeof(*t), cmp_double);
	printf("%s %.3f %.3f\n", what, t[n / 2], t[n - 1]);
}

/* Time each part of a scrape: reading maps open, reading from the pins,
 * formatting. */
static int do_time(int argc, char **argv)
{
	int rounds = argc ? atoi(argv[0]) : 50, i, err;
	double *t_open, *t_pinned, *t_format;
	struct metrics_snapshot s;
	struct timespec t0;
	struct cls_maps m;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	if (rounds < 1)
		return usage();
	t_open = calloc(rounds, sizeof(double));
	t_pinned = calloc(rounds, sizeof(double));
	t_format = calloc(rounds, sizeof(double));
	err = t_open && t_pinned && t_format ? metrics_snapshot_init(&s)
					     : -ENOMEM;
	if (err)
		return die("time", err);
	err = cls_maps_open(&m, root);
	for (i = 0; !err && i < rounds; i++) {
		clock_gettime(CLOCK_MONOTONIC, &t0);
		err = metrics_collect(&m, &s);
		t_open[i] = ms_since(&t0);
	}
	if (!err)
		cls_maps_close(&m);
	for (i = 0; !err && i < rounds; i++) {
		clock_gettime(CLOCK_MONOTONIC, &t0);
		err = metrics_collect_pinned(root, &s);
		t_pinned[i] = ms_since(&t0);
	}
	for (i = 0; !err && i < rounds; i++) {
		f = open_memstream(&buf, &len);
		if (!f)
			return die("time", -ENOMEM);
		clock_gettime(CLOCK_MONOTONIC, &t0);
		err = prom_write(f, &s);
		fclose(f);
		t_format[i] = ms_since(&t0);
		free(buf);
	}
	if (err)
		return die("time", err);
	printf("classes %zu cpus %u attachments %zu\n", s.nr_classes, s.nr_cpus,
	       s.nr_att);
	printf("# ms: median max over %d rounds\n", rounds);
	report("collect_open_maps", t_open, rounds);
	report("collect_from_pins", t_pinned, rounds);
	report("format", t_format, rounds);
	printf("body_bytes %zu\n", len);
	metrics_snapshot_free(&s);
	free(t_open);
	free(t_pinned);
	free(t_format);
	return 0;
}

int main(int argc, char **argv)
{
	const char *bpffs = getenv("CLASSIFIER_BPFFS");
	int err;

	argc--, argv++;
	if (argc >= 2 && !strcmp(argv[0], "--bpffs")) {
		bpffs = argv[1];
		argc -= 2, argv += 2;
	}
	if (!argc)
		return usage();
	err = cls_root_path(root, sizeof(root), bpffs);
	if (err)
		return die("--bpffs", err);
	if (!strcmp(argv[0], "prom"))
		return do_prom(argc - 1, argv + 1);
	if (!strcmp(argv[0], "exporter"))
		return do_exporter(argc - 1, argv + 1);
	if (!strcmp(argv[0], "watch"))
		return do_watch(argc - 1, argv + 1);
	if (!strcmp(argv[0], "time"))
		return do_time(argc - 1, argv + 1);
	return usage();
}
