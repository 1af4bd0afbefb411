// SPDX-License-Identifier: GPL-2.0-only
/* classifier stats ... */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "lib/parse.h"
#include "metrics/collect.h"
#include "metrics/prom.h"
#include "metrics/watch.h"

/* A class (both hooks) or a single slot, per CPU. */
struct what {
	bool is_class;
	__u32 i;
};

static struct cls_counter at(const struct cls_maps *m, unsigned int cpu,
			     struct what w)
{
	return w.is_class ? cls_stats_class_cpu(m, cpu, w.i) :
			    cls_stats_cpu(m, cpu, w.i);
}

static struct cls_counter total(const struct cls_maps *m, struct what w)
{
	return w.is_class ? cls_stats_class_sum(m, w.i) : cls_stats_sum(m, w.i);
}

static void counter_json(struct json_writer *jw, struct cls_counter v)
{
	jw_uint_field(jw, "packets", v.packets);
	jw_uint_field(jw, "bytes", v.bytes);
}

static void print_counter_json(struct json_writer *jw,
			       const struct cls_maps *m, struct what w,
			       bool per_cpu)
{
	unsigned int cpu;

	counter_json(jw, total(m, w));
	if (w.is_class) {
		jw_name(jw, "egress");
		jw_start_object(jw);
		counter_json(jw, cls_stats_sum(m, CLS_STATS_EGRESS_BASE + w.i));
		jw_end_object(jw);
		jw_name(jw, "ingress");
		jw_start_object(jw);
		counter_json(
			jw,
			cls_stats_sum(m, CLS_STATS_INGRESS_BASE(m->cap) + w.i));
		jw_end_object(jw);
	}
	if (!per_cpu)
		return;
	jw_name(jw, "per_cpu");
	jw_start_array(jw);
	for (cpu = 0; cpu < m->nr_cpus; cpu++) {
		jw_start_object(jw);
		jw_uint_field(jw, "cpu", cpu);
		counter_json(jw, at(m, cpu, w));
		jw_end_object(jw);
	}
	jw_end_array(jw);
}

static void rate_json(struct json_writer *jw, const struct cls_maps *m,
		      const struct cls_class_entry *e)
{
	static const char *const hooks[] = {"egress", "ingress"};
	struct cls_rate_counter r;
	__u32 h;

	jw_name(jw, "rate");
	if (!(e->cls.flags & CLS_F_RATED)) {
		jw_null(jw);
		return;
	}
	jw_start_object(jw);
	for (h = CLS_RATE_EGRESS; h <= CLS_RATE_INGRESS; h++) {
		r = cls_rate_stats_sum(m, h, e->idx);
		jw_name(jw, hooks[h]);
		jw_start_object(jw);
		jw_uint_field(jw, "passed", r.passed);
		jw_uint_field(jw, "dropped", r.dropped);
		jw_uint_field(jw, "delayed", r.delayed);
		jw_uint_field(jw, "marked", r.marked);
		jw_end_object(jw);
	}
	jw_end_object(jw);
}

/* "  police egress: passed 9 dropped 3 marked 0", per hook that saw any. */
static void rate_text(const struct cls_maps *m, const struct cls_class_entry *e)
{
	static const char *const hooks[] = {"egress", "ingress"};
	bool pace = e->cls.flags & CLS_F_PACE;
	struct cls_rate_counter r;
	__u32 h;

	if (!(e->cls.flags & CLS_F_RATED))
		return;
	for (h = CLS_RATE_EGRESS; h <= CLS_RATE_INGRESS; h++) {
		r = cls_rate_stats_sum(m, h, e->idx);
		if (h == CLS_RATE_INGRESS && !(r.passed | r.dropped | r.marked))
			continue;
		printf("  %s %s: passed %llu dropped %llu",
		       pace ? "pace" : "police", hooks[h], r.passed, r.dropped);
		if (pace)
			printf(" delayed %llu", r.delayed);
		printf(" marked %llu\n", r.marked);
	}
}

static void stats_json(struct cli *c, const struct cls_class_entry *e,
		       size_t n, bool on, bool per_cpu)
{
	struct json_writer *jw = cli_json(c);
	char label[CLASSID_STRLEN];
	size_t i;
	int r;

	if (!jw)
		return;
	jw_start_object(jw);
	jw_bool_field(jw, "enabled", on);
	jw_name(jw, "classes");
	jw_start_array(jw);
	for (i = 0; i < n; i++) {
		cls_class_label(&e[i], label, sizeof(label));
		jw_start_object(jw);
		jw_string_field(jw, "class", label);
		jw_string_field(jw, "name", e[i].meta.name);
		jw_uint_field(jw, "index", e[i].idx);
		print_counter_json(jw, &c->maps,
				   (struct what){ true, e[i].idx }, per_cpu);
		rate_json(jw, &c->maps, &e[i]);
		jw_end_object(jw);
	}
	jw_end_array(jw);
	jw_name(jw, "unclassified");
	jw_start_object(jw);
	for (r = 0; r < CLS_R_MAX; r++) {
		jw_name(jw, cls_reason_name(r));
		jw_start_object(jw);
		print_counter_json(
			jw, &c->maps,
			(struct what){false,
				      CLS_STATS_REASON_BASE(c->maps.cap) + r},
			per_cpu);
		jw_end_object(jw);
	}
	jw_end_object(jw);
	jw_end_object(jw);
	jw_destroy(&jw);
}

/* Egress/ingress columns only when XDP counted something. */
static bool any_ingress(const struct cls_maps *m,
			const struct cls_class_entry *e, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (cls_stats_sum(m, CLS_STATS_INGRESS_BASE(m->cap) + e[i].idx)
			    .packets)
			return true;
	return false;
}

static void stats_text(struct cli *c, const struct cls_class_entry *e,
		       size_t n, bool on, bool per_cpu)
{
	bool split = any_ingress(&c->maps, e, n);
	__u32 in = CLS_STATS_INGRESS_BASE(c->maps.cap);
	char label[CLASSID_STRLEN];
	struct cls_counter v;
	unsigned int cpu;
	size_t i;
	int r;

	printf("stats %s\n", on ? "on" : "off");
	printf("%-10s %-16s %14s %16s", "class", "name", "packets", "bytes");
	printf(split ? " %14s %14s\n" : "\n", "egress pkts", "ingress pkts");
	for (i = 0; i < n; i++) {
		cls_class_label(&e[i], label, sizeof(label));
		v = total(&c->maps, (struct what){ true, e[i].idx });
		printf("%-10s %-16s %14llu %16llu", label,
		       e[i].idx ? e[i].meta.name : "", v.packets, v.bytes);
		if (split)
			printf(" %14llu %14llu",
			       cls_stats_sum(&c->maps,
					     CLS_STATS_EGRESS_BASE + e[i].idx)
				       .packets,
			       cls_stats_sum(&c->maps, in + e[i].idx).packets);
		printf("\n");
		rate_text(&c->maps, &e[i]);
		for (cpu = 0; per_cpu && cpu < c->maps.nr_cpus; cpu++) {
			v = cls_stats_class_cpu(&c->maps, cpu, e[i].idx);
			if (v.packets)
				printf("  cpu%-6u %-16s %14llu %16llu\n", cpu,
				       "", v.packets, v.bytes);
		}
	}
	printf("not classified by a route (no_table: the default class; the "
	       "rest passed untouched):");
	for (r = 0; r < CLS_R_MAX; r++) {
		v = cls_stats_sum(&c->maps,
				  CLS_STATS_REASON_BASE(c->maps.cap) + r);
		/* A retired reason only older programs counted. */
		if (r == CLS_R_EXT_LIMIT && !v.packets)
			continue;
		printf(" %s %llu", cls_reason_name(r), v.packets);
	}
	printf("\n");
}

static int stats_show(struct cli *c, bool per_cpu)
{
	const struct cls_class_entry *e;
	size_t n;
	bool on;
	int err;

	err = cli_maps_read(c);
	if (err)
		return err;
	err = cls_stats_map(&c->maps);
	if (!err)
		err = cls_stats_get_enabled(&c->maps, &on);
	if (err)
		return cli_errno(c, err, "reading counters");
	err = cls_classes(&c->maps, &e, &n);
	if (err)
		return cli_errno(c, err, "reading classes");
	if (c->json)
		stats_json(c, e, n, on, per_cpu);
	else
		stats_text(c, e, n, on, per_cpu);
	return 0;
}

static int stats_cmd_show(struct cli *c, int argc, char **argv)
{
	bool per_cpu = false;

	for (; argc; argc--, argv++) {
		if (strcmp(argv[0], "per-cpu") && strcmp(argv[0], "--per-cpu")) {
			cli_err(c, "unknown argument \"%s\"", argv[0]);
			return -EINVAL;
		}
		per_cpu = true;
	}
	return stats_show(c, per_cpu);
}

/* "stats per-cpu" reads as naturally as "stats show per-cpu". */
static int stats_per_cpu(struct cli *c, int argc, char **argv)
{
	(void)argv;
	c->cmd = "stats";
	return cli_no_args(c, argc) ?: stats_show(c, true);
}

static int stats_reset(struct cli *c, int argc, char **argv)
{
	int err;

	(void)argv;
	if (cli_no_args(c, argc))
		return -EINVAL;
	err = cli_maps_write(c);
	if (!err && (err = cls_stats_reset(&c->maps)))
		cli_errno(c, err, "reset");
	return err;
}

static int stats_switch(struct cli *c, int argc, bool on)
{
	int err;

	if (cli_no_args(c, argc))
		return -EINVAL;
	err = cli_maps_write(c);
	if (!err && (err = cls_stats_set_enabled(&c->maps, on)))
		cli_errno(c, err, on ? "on" : "off");
	return err;
}

static int stats_on(struct cli *c, int argc, char **argv)
{
	(void)argv;
	return stats_switch(c, argc, true);
}

static int stats_off(struct cli *c, int argc, char **argv)
{
	(void)argv;
	return stats_switch(c, argc, false);
}

static int stats_prometheus(struct cli *c, int argc, char **argv)
{
	struct metrics_snapshot s;
	int err;

	if (argc > 1) {
		cli_err(c, "expected [ FILE ]");
		return -EINVAL;
	}
	err = cli_maps_read(c);
	if (err)
		return err;
	err = metrics_snapshot_init(&s);
	if (err)
		return cli_errno(c, err, "snapshot");
	err = metrics_collect(&c->maps, &s);
	if (err) {
		cli_errno(c, err, "reading state");
		goto out;
	}
	err = argc ? prom_write_file(argv[0], &s) : prom_write(stdout, &s);
	if (err)
		cli_err(c, "%s: %s", argc ? argv[0] : "standard output",
			strerror(-err));
out:
	metrics_snapshot_free(&s);
	return err;
}

struct watch_src {
	const struct cli *c;
	int err; /* of the last read: the pins, not the terminal */
};

/* A long-running reader opens the pins anew for every read. */
static int read_pinned(void *ctx, struct metrics_snapshot *s)
{
	struct watch_src *w = ctx;

	w->err = metrics_collect_pinned(w->c->bpffs, false, s);
	return w->err;
}

/* INTERVAL in seconds, as watch(1) takes it: 0.1 to an hour. */
static int parse_interval(const char *arg, unsigned int *ms)
{
	char *end;
	double sec;

	sec = strtod(arg, &end);
	if (end == arg || *end || !isfinite(sec) ||
	    sec * 1000 < WATCH_MIN_INTERVAL_MS || sec > 3600)
		return -EINVAL;
	*ms = (unsigned int)(sec * 1000 + 0.5);
	return 0;
}

static int stats_watch(struct cli *c, int argc, char **argv)
{
	struct watch_src w = { .c = c };
	struct metrics_source src = { read_pinned, &w };
	struct watch_opts o = { .json = c->json };
	__u32 count;
	int err;

	if (argc && strcmp(argv[0], "count")) {
		if (parse_interval(argv[0], &o.interval_ms)) {
			cli_err(c,
				"interval \"%s\": expected seconds, %g to "
				"3600",
				argv[0], WATCH_MIN_INTERVAL_MS / 1000.0);
			return -EINVAL;
		}
		argc--, argv++;
	}
	if (argc && !strcmp(argv[0], "count")) {
		if (argc < 2 || parse_u32(argv[1], &count) || !count) {
			cli_err(c, "count: expected a number of intervals");
			return -EINVAL;
		}
		o.count = count;
		argc -= 2, argv += 2;
	}
	if (argc) {
		cli_err(c, "unknown argument \"%s\"", argv[0]);
		return -EINVAL;
	}
	/* Say what is wrong with the pins the usual way, then let go. */
	err = cli_maps_read(c) ?: cli_maps_release(c);
	if (err)
		return err;
	err = watch_run(&o, &src);
	if (err && err == w.err)
		return cli_open_failed(c, err);
	return err ? cli_errno(c, err, "live view") : 0;
}

static const struct cli_cmd stats_cmds[] = {
	CLI_CMD("show", stats_cmd_show, "[ per-cpu ]", .flags = CLI_DEFAULT, .alias = "list"),
	CLI_CMD("per-cpu", stats_per_cpu, NULL, .flags = CLI_EXACT, .alias = "--per-cpu"),
	CLI_CMD("reset", stats_reset, NULL),
	CLI_CMD("on", stats_on, NULL, .flags = CLI_EXACT),
	CLI_CMD("off", stats_off, NULL, .flags = CLI_EXACT),
	CLI_CMD("prometheus", stats_prometheus, "[ FILE ]"),
	CLI_CMD("watch", stats_watch, "[ INTERVAL ] [ count N ]"),
	{},
};

const struct cli_object cli_stats_obj = {
	.name = "stats",
	.cmds = stats_cmds,
	.help = "Counts packets and bytes per class and per CPU; packets\n"
		"left unclassified are counted by reason even when off.\n"
		"prometheus: the counters and state in Prometheus's text "
		"format, to\n"
		"FILE atomically (node_exporter's textfile collector) or "
		"stdout.\n"
		"watch: packets/s and bits/s per class, busiest first, every\n"
		"INTERVAL seconds (default 1); q or Ctrl-C quits. With -j, or\n"
		"without a terminal: one JSON object per interval; count N "
		"stops\n"
		"after N. See docs/metrics.md.\n",
};
