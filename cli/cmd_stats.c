// SPDX-License-Identifier: GPL-2.0-only
/* classifier stats ... */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "lib/parse.h"

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
		counter_json(jw,
			     cls_stats_sum(m, CLS_STATS_INGRESS_BASE + w.i));
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
		jw_end_object(jw);
	}
	jw_end_array(jw);
	jw_name(jw, "unclassified");
	jw_start_object(jw);
	for (r = 0; r < CLS_R_MAX; r++) {
		jw_name(jw, cls_reason_name(r));
		jw_start_object(jw);
		print_counter_json(jw, &c->maps,
				   (struct what){ false,
						  CLS_STATS_REASON_BASE + r },
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
		if (cls_stats_sum(m, CLS_STATS_INGRESS_BASE + e[i].idx).packets)
			return true;
	return false;
}

static void stats_text(struct cli *c, const struct cls_class_entry *e,
		       size_t n, bool on, bool per_cpu)
{
	bool split = any_ingress(&c->maps, e, n);
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
			       cls_stats_sum(&c->maps,
					     CLS_STATS_INGRESS_BASE + e[i].idx)
				       .packets);
		printf("\n");
		for (cpu = 0; per_cpu && cpu < c->maps.nr_cpus; cpu++) {
			v = cls_stats_class_cpu(&c->maps, cpu, e[i].idx);
			if (v.packets)
				printf("  cpu%-6u %-16s %14llu %16llu\n", cpu,
				       "", v.packets, v.bytes);
		}
	}
	printf("unclassified (passed untouched):");
	for (r = 0; r < CLS_R_MAX; r++) {
		v = cls_stats_sum(&c->maps, CLS_STATS_REASON_BASE + r);
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

static const struct cli_cmd stats_cmds[] = {
	CLI_CMD("show", stats_cmd_show, "[ per-cpu ]", .flags = CLI_DEFAULT, .alias = "list"),
	CLI_CMD("per-cpu", stats_per_cpu, NULL, .flags = CLI_EXACT, .alias = "--per-cpu"),
	CLI_CMD("reset", stats_reset, NULL),
	CLI_CMD("on", stats_on, NULL, .flags = CLI_EXACT),
	CLI_CMD("off", stats_off, NULL, .flags = CLI_EXACT),
	{},
};

const struct cli_object cli_stats_obj = {
	.name = "stats",
	.cmds = stats_cmds,
	.help = "Counts packets and bytes per class and per CPU; packets\n"
		"left unclassified are counted by reason even when off.\n",
};
