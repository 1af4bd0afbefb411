// SPDX-License-Identifier: GPL-2.0-only
/*
 * classifier steer list | set: the CPU that owns each TX queue, for the
 * steering program (`attach dev IFACE steer`), and what it did; the
 * steering part of `status`.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "lib/parse.h"

static const char *const reason_names[CLS_STEER_R_MAX] = {
	[CLS_STEER_NOT_IP] = "not_ip",
	[CLS_STEER_NO_QUEUE] = "no_queue",
	[CLS_STEER_NO_CPU] = "no_cpu",
	[CLS_STEER_FAILED] = "failed",
};

/* Slot of CPU cpu's slice, summed over CPUs when cpu < 0. */
static struct cls_counter
slot_of(const struct cli *c, const struct cls_counter *s, int cpu, __u32 slot)
{
	struct cls_counter sum = {};
	unsigned int k;

	for (k = 0; k < c->maps.nr_cpus; k++) {
		if (cpu >= 0 && (unsigned int)cpu != k)
			continue;
		sum.packets += s[(size_t)k * CLS_STEER_STRIDE + slot].packets;
		sum.bytes += s[(size_t)k * CLS_STEER_STRIDE + slot].bytes;
	}
	return sum;
}

static void counter_json(struct json_writer *jw, const char *name,
			 struct cls_counter v)
{
	jw_name(jw, name);
	jw_start_object(jw);
	jw_uint_field(jw, "packets", v.packets);
	jw_uint_field(jw, "bytes", v.bytes);
	jw_end_object(jw);
}

static void list_json(struct cli *c, const int *cpu_of,
		      const struct cls_counter *s)
{
	struct json_writer *jw = cli_json(c);
	struct cls_counter v;
	unsigned int q, k, r;

	jw_start_object(jw);
	jw_name(jw, "queues");
	jw_start_array(jw);
	for (q = 0; q < CLS_STEER_QUEUES; q++) {
		v = slot_of(c, s, -1, q);
		if (cpu_of[q] < 0 && !v.packets)
			continue;
		jw_start_object(jw);
		jw_uint_field(jw, "queue", q);
		if (cpu_of[q] < 0) {
			jw_name(jw, "cpu");
			jw_null(jw);
		} else {
			jw_uint_field(jw, "cpu", cpu_of[q]);
		}
		jw_uint_field(jw, "packets", v.packets);
		jw_uint_field(jw, "bytes", v.bytes);
		/* by the CPU that received and steered them */
		jw_name(jw, "per_cpu");
		jw_start_array(jw);
		for (k = 0; k < c->maps.nr_cpus; k++) {
			v = slot_of(c, s, k, q);
			jw_start_object(jw);
			jw_uint_field(jw, "cpu", k);
			jw_uint_field(jw, "packets", v.packets);
			jw_uint_field(jw, "bytes", v.bytes);
			jw_end_object(jw);
		}
		jw_end_array(jw);
		jw_end_object(jw);
	}
	jw_end_array(jw);
	jw_name(jw, "passed");
	jw_start_object(jw);
	for (r = 0; r < CLS_STEER_R_MAX; r++)
		counter_json(jw, reason_names[r],
			     slot_of(c, s, -1, CLS_STEER_REASON_BASE + r));
	jw_end_object(jw);
	jw_end_object(jw);
	jw_destroy(&jw);
}

static void list_text(struct cli *c, const int *cpu_of,
		      const struct cls_counter *s)
{
	struct cls_counter v;
	unsigned int q, r;

	for (q = 0; q < CLS_STEER_QUEUES; q++) {
		v = slot_of(c, s, -1, q);
		if (cpu_of[q] < 0 && !v.packets)
			continue;
		if (cpu_of[q] < 0)
			printf("queue %u cpu none", q);
		else
			printf("queue %u cpu %d", q, cpu_of[q]);
		printf(" steered %llu packets %llu bytes\n",
		       (unsigned long long)v.packets,
		       (unsigned long long)v.bytes);
	}
	printf("passed:");
	for (r = 0; r < CLS_STEER_R_MAX; r++)
		printf(" %s %llu", reason_names[r],
		       (unsigned long long)slot_of(c, s, -1,
						   CLS_STEER_REASON_BASE + r)
			       .packets);
	printf("\n");
}

static int steer_list(struct cli *c, int argc, char **argv)
{
	struct cls_counter *s = NULL;
	int *cpu_of, err;

	(void)argv;
	if (cli_no_args(c, argc))
		return -EINVAL;
	err = cli_maps_read(c);
	if (err)
		return err;
	cpu_of = calloc(CLS_STEER_QUEUES, sizeof(*cpu_of));
	err = cpu_of ? cls_steer_read(&c->maps, cpu_of) : -ENOMEM;
	if (!err)
		err = cls_steer_stats(&c->maps, &s);
	if (err) {
		free(cpu_of);
		return cli_errno(c, err, "reading the steering maps");
	}
	if (c->json)
		list_json(c, cpu_of, s);
	else
		list_text(c, cpu_of, s);
	free(s);
	free(cpu_of);
	return 0;
}

/* The one line for a CPU the library refused. */
static int cpu_refused(struct cli *c, int err, unsigned int cpu)
{
	if (err == -ERANGE)
		cli_err(c, "cpu %u: this machine has CPUs 0-%u", cpu,
			c->maps.nr_cpus - 1);
	else if (err == -ENXIO)
		cli_err(c, "cpu %u is offline (/sys/devices/system/cpu/online)",
			cpu);
	else
		cli_errno(c, err, "steering");
	return err;
}

static int parse_number(struct cli *c, const char *what, const char *v,
			__u32 max, __u32 *out)
{
	if (!v) {
		cli_err(c, "\"%s\" needs a value", what);
		return -EINVAL;
	}
	if (parse_u32(v, out) || *out > max) {
		cli_err(c, "invalid %s \"%s\" (0-%u)", what, v, max);
		return -EINVAL;
	}
	return 0;
}

/* steer set queue Q cpu C|none */
static int set_queue(struct cli *c, int argc, char **argv)
{
	__u32 queue, cpu = 0;
	bool none;
	int err;

	if (argc != 4 || strcmp(argv[2], "cpu")) {
		cli_err(c, "expected queue Q cpu { C | none }");
		return -EINVAL;
	}
	none = !strcmp(argv[3], "none");
	err = parse_number(c, "queue", argv[1], CLS_QUEUE_MAX, &queue);
	if (!err && !none)
		err = parse_number(c, "cpu", argv[3], 0xffff, &cpu);
	if (!err)
		err = cli_maps_write(c);
	if (err)
		return err;
	err = cls_steer_set(&c->maps, queue, none ? -1 : (int)cpu);
	return err ? cpu_refused(c, err, cpu) : 0;
}

/* steer set cpus N [queues M]: M defaults to the shaped devices' count. */
static int set_cpus(struct cli *c, int argc, char **argv)
{
	struct cls_shape_dev d[CLS_SHAPE_DEVS];
	__u32 cpus, queues = 0, k;
	int err;

	if ((argc != 2 && argc != 4) ||
	    (argc == 4 && strcmp(argv[2], "queues"))) {
		cli_err(c, "expected cpus N [ queues M ]");
		return -EINVAL;
	}
	err = parse_number(c, "cpus", argv[1], 0xffff, &cpus);
	if (!err && !cpus) {
		cli_err(c, "cpus 0: give at least one CPU");
		err = -EINVAL;
	}
	if (!err && argc == 4) {
		err = parse_number(c, "queues", argv[3], CLS_STEER_QUEUES,
				   &queues);
		if (!err && !queues) {
			cli_err(c, "queues 0: give at least one queue");
			err = -EINVAL;
		}
	}
	if (!err)
		err = cli_maps_write(c);
	if (err)
		return err;
	if (!queues) {
		err = cls_shape_devs(&c->maps, d);
		if (err < 0)
			return cli_errno(c, err, "reading the shaped devices");
		queues = cls_shape_queues(d);
		if (!queues) {
			cli_err(c, "no device is shaped: say how many queues "
				   "(cpus N queues M)");
			return -EINVAL;
		}
	}
	for (k = 0; k < cpus; k++) {
		err = cls_steer_cpu_check(&c->maps, k);
		if (err)
			return cpu_refused(c, err, k);
	}
	err = cls_steer_spread(&c->maps, queues, cpus);
	return err ? cli_errno(c, err, "steering") : 0;
}

static int steer_set(struct cli *c, int argc, char **argv)
{
	if (argc && !strcmp(argv[0], "queue"))
		return set_queue(c, argc, argv);
	if (argc && !strcmp(argv[0], "cpus"))
		return set_cpus(c, argc, argv);
	cli_err(c, "expected queue Q cpu { C | none }, or cpus N [ queues M ]");
	return -EINVAL;
}

/*
 * status: the queues that have a CPU, as "queue Q cpu C" runs; the first
 * few in text, all in JSON.
 */
#define STATUS_SHOWN 8

void cli_steer_status_text(struct cli *c)
{
	int cpu_of[CLS_STEER_QUEUES];
	unsigned int q, n = 0;

	if (cls_steer_read(&c->maps, cpu_of))
		return;
	for (q = 0; q < CLS_STEER_QUEUES; q++) {
		if (cpu_of[q] < 0)
			continue;
		if (n < STATUS_SHOWN)
			printf("%s queue %u cpu %d", n ? "," : "steering:", q,
			       cpu_of[q]);
		n++;
	}
	if (n > STATUS_SHOWN)
		printf(", ... (%u queues; classifier steer list)", n);
	if (n)
		printf("\n");
}

void cli_steer_status_json(struct cli *c, struct json_writer *jw)
{
	int cpu_of[CLS_STEER_QUEUES];
	unsigned int q;

	jw_name(jw, "steering");
	jw_start_array(jw);
	if (!cls_steer_read(&c->maps, cpu_of))
		for (q = 0; q < CLS_STEER_QUEUES; q++) {
			if (cpu_of[q] < 0)
				continue;
			jw_start_object(jw);
			jw_uint_field(jw, "queue", q);
			jw_uint_field(jw, "cpu", cpu_of[q]);
			jw_end_object(jw);
		}
	jw_end_array(jw);
}

static const struct cli_cmd steer_cmds[] = {
	CLI_CMD("list", steer_list, NULL, .flags = CLI_DEFAULT,
		.alias = "show"),
	CLI_CMD("set", steer_set,
		"{ queue Q cpu { C | none } | cpus N [ queues M ] }"),
	{},
};

const struct cli_object cli_steer_obj = {
	.name = "steer",
	.cmds = steer_cmds,
	.help = "Steering to CPUs, for routers: `attach dev IFACE steer` puts "
		"an\n"
		"XDP program on the ingress device that looks up each "
		"packet's\n"
		"class by destination and redirects it (CPUMAP) to the CPU "
		"that\n"
		"owns its class's TX queue, so each queue's HTB is taken by "
		"one\n"
		"CPU. set queue Q cpu C: that queue's CPU (none: not "
		"steered);\n"
		"set cpus N: queues 0..M-1 over CPUs 0..N-1 (queue q: CPU q % "
		"N;\n"
		"M: the shaped devices' queues), other queues none. A change\n"
		"takes effect at the next packet. list: each queue's CPU and "
		"the\n"
		"packets steered toward it; passed: packets left on the CPU "
		"that\n"
		"received them (not IP, a class without a queue, a queue "
		"without\n"
		"a CPU, a CPU the redirect failed for).\n",
};
