// SPDX-License-Identifier: GPL-2.0-only
/*
 * classifier shape dev IFACE ... | shape del dev IFACE | shape show: the
 * devices whose shaping tree classifier makes (maps/shape.c), and the
 * tree as `status` shows it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <net/if.h>

#include "cli/cli.h"
#include "lib/log.h"
#include "lib/tctree.h"
#include "lib/xps.h"
#include "lib/units.h"

/* A root class's rate when not told: more than a veth or a NIC sends. */
#define SHAPE_RATE	   (100ULL * 1000 * 1000 * 1000 / 8)
#define SHAPE_DEFAULT_RATE (10ULL * 1000 * 1000 / 8)

static int no_device(struct cli *c, const char *dev)
{
	cli_err(c, "no such device \"%s\"", dev);
	return -ENODEV;
}

static int shape_dev(struct cli *c, int argc, char **argv)
{
	struct cls_shape_dev d = {.rate = SHAPE_RATE,
				  .default_rate = SHAPE_DEFAULT_RATE};
	struct cls_shape_why why;
	char xps[96];
	bool replace = false, all = false;
	struct parse_why pw;
	__u32 queues = 1;
	int i, n, err;

	if (argc < 1) {
		cli_err(c, "expected IFACE");
		return -EINVAL;
	}
	for (i = 1; i < argc; i++) {
		const char *w = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(w, "replace")) {
			replace = true;
			continue;
		}
		if (strcmp(w, "queues") && strcmp(w, "rate") &&
		    strcmp(w, "default")) {
			cli_err(c,
				"unknown argument \"%s\"; try \"classifier "
				"shape help\"",
				w);
			return -EINVAL;
		}
		if (!v) {
			cli_err(c, "\"%s\" needs a value", w);
			return -EINVAL;
		}
		i++;
		if (!strcmp(w, "queues") && !strcmp(v, "all")) {
			all = true;
		} else if (!strcmp(w, "queues")) {
			if (parse_u32(v, &queues) || !queues ||
			    queues > TCT_MAX_QUEUES) {
				cli_err(c,
					"queues must be 1-%u or all, not "
					"\"%s\"",
					TCT_MAX_QUEUES, v);
				return -EINVAL;
			}
			all = false;
		} else if (parse_rate(v,
				      !strcmp(w, "rate") ? &d.rate
							 : &d.default_rate,
				      &pw)) {
			cli_err(c, "invalid %s \"%s\": %s", w, v, pw.text);
			return -EINVAL;
		}
	}
	if (d.default_rate > d.rate) {
		cli_err(c, "the default class's rate is above the root's (%s)",
			argv[0]);
		return -EINVAL;
	}
	d.ifindex = if_nametoindex(argv[0]);
	if (!d.ifindex)
		return no_device(c, argv[0]);
	n = tct_tx_queues(d.ifindex);
	if (n < 0)
		return cli_errno(c, n, argv[0]);
	if (all)
		queues = n;
	if (queues > (__u32)n) {
		cli_err(c, "%s has %d TX queues, not %u", argv[0], n, queues);
		return -EINVAL;
	}
	d.queues = queues;
	/* XPS picks the queue before the one the class's packets carry. */
	err = queues > 1 ? xps_check(argv[0], d.ifindex, xps, sizeof(xps)) : 0;
	if (err == -EBUSY) {
		cli_err(c,
			"%s: XPS is on (%s), and it picks the TX queue before "
			"a class's queue: turn it off (write 0 to xps_cpus "
			"and xps_rxqs of every queue)",
			argv[0], xps);
		return err;
	}
	if (err)
		pr_warn("%s: XPS cannot be read here (%s): the classes' queues "
			"hold only while XPS is off\n",
			argv[0],
			err == -ENOENT ? "sysfs shows another network namespace"
				       : strerror(-err));
	err = cli_maps_write(c);
	if (err)
		return err;
	err = cls_shape_dev_add(&c->maps, &d, replace, &why);
	switch (err) {
	case 0:
		return 0;
	case -EBUSY:
		cli_err(c,
			"%s: its root qdisc (%s) is someone else's; "
			"\"replace\" removes it",
			argv[0], why.kind);
		return err;
	case -EEXIST:
		cli_err(c,
			"%s is shaped with %u queues; \"shape del dev %s\" "
			"first",
			argv[0], why.queues, argv[0]);
		return err;
	case -EXDEV:
		cli_err(c,
			"the shaped devices have %u queues: classes are "
			"placed in them, so %s needs queues %u too",
			why.queues, argv[0], why.queues);
		return err;
	case -ERANGE: {
		const struct cls_class_entry *e =
			cls_class_at(&c->maps, why.idx);
		char id[CLASSID_STRLEN] = "?";

		if (e)
			format_classid(e->cls.classid, id, sizeof(id));
		cli_err(c,
			"class %s is in queue %u; %s needs queues %u at "
			"least",
			id, e ? (e->cls.classid >> 16) - 1 : 0, argv[0],
			e ? e->cls.classid >> 16 : 0);
		return err;
	}
	case -ENOSPC:
		cli_err(c, "classifier shapes %d devices at most",
			CLS_SHAPE_DEVS);
		return err;
	}
	if (*cls_open_error()) {
		cli_err(c, "%s", cls_open_error());
		return err;
	}
	return cli_errno(c, err, argv[0]);
}

/* del dev IFACE */
static int shape_del(struct cli *c, int argc, char **argv)
{
	int ifindex, err;

	if (argc != 2 || strcmp(argv[0], "dev")) {
		cli_err(c, "expected dev IFACE");
		return -EINVAL;
	}
	ifindex = if_nametoindex(argv[1]);
	if (!ifindex)
		return no_device(c, argv[1]);
	err = cli_maps_write(c);
	if (err)
		return err;
	err = cls_shape_dev_del(&c->maps, ifindex);
	if (err == -ENOENT) {
		cli_err(c, "%s is not shaped by classifier", argv[1]);
		return err;
	}
	if (err && *cls_open_error()) {
		cli_err(c, "%s", cls_open_error());
		return err;
	}
	return err ? cli_errno(c, err, argv[1]) : 0;
}

int cli_shape_detach(struct cli *c, const char *dev, bool *unshaped)
{
	int ifindex = if_nametoindex(dev), err;

	*unshaped = false;
	if (!ifindex)
		return 0;
	err = cls_shape_dev_del(&c->maps, ifindex);
	if (err == -ENOENT)
		return 0;
	if (err && *cls_open_error()) {
		cli_err(c, "%s", cls_open_error());
		return err;
	}
	*unshaped = !err;
	return err ? cli_errno(c, err, dev) : 0;
}

int cli_shape_purge(struct cli *c)
{
	struct cls_shape_dev d[CLS_SHAPE_DEVS];
	int n, i, err = 0;

	n = cls_shape_devs(&c->maps, d);
	for (i = 0; i < n && !err; i++) {
		err = cls_shape_dev_del(&c->maps, d[i].ifindex);
		if (err && *cls_open_error())
			cli_err(c, "%s", cls_open_error());
		else if (err)
			cli_errno(c, err, "removing a shaping tree");
	}
	return n < 0 ? cli_errno(c, n, "reading the shaped devices") : err;
}

/* Shaping classes per queue and their rates added up, top level only. */
struct queue_load {
	unsigned int classes;
	__u64 rate;
};

static int loads(struct cli *c, unsigned int queues, struct queue_load **out)
{
	const struct cls_class_entry *e;
	struct queue_load *l;
	size_t n, i;
	int err = cls_classes(&c->maps, &e, &n);

	if (err)
		return err;
	l = calloc(queues ? queues : 1, sizeof(*l));
	if (!l)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		unsigned int q = (e[i].cls.classid >> 16) - 1;

		if (!(e[i].cls.flags & CLS_F_SHAPE) || q >= queues)
			continue;
		l[q].classes++;
		if (!e[i].meta.shape.parent)
			l[q].rate += e[i].meta.shape.rate;
	}
	*out = l;
	return 0;
}

static void dev_name(const struct cls_shape_dev *d, char *name)
{
	if (!if_indextoname(d->ifindex, name))
		snprintf(name, IF_NAMESIZE, "ifindex-%u", d->ifindex);
}

void cli_shape_status_text(struct cli *c)
{
	struct cls_shape_dev d[CLS_SHAPE_DEVS];
	char name[IF_NAMESIZE], r[UNITS_STRLEN], dr[UNITS_STRLEN];
	struct queue_load *l;
	int n = cls_shape_devs(&c->maps, d), i;
	unsigned int q;

	if (n <= 0) {
		printf("shaping  none\n");
		return;
	}
	for (i = 0; i < n; i++) {
		dev_name(&d[i], name);
		format_rate(d[i].rate, r, sizeof(r));
		format_rate(d[i].default_rate, dr, sizeof(dr));
		printf("shaping  %s: %s, %u HTB%s of %s (default class %s)%s\n",
		       name, d[i].queues > 1 ? "mq" : "htb", d[i].queues,
		       d[i].queues > 1 ? "s" : "", r, dr,
		       d[i].flags & CLS_SHAPE_REPLACED
			       ? ", replaced the root qdisc there"
			       : "");
	}
	if (loads(c, d[0].queues, &l))
		return;
	for (q = 0; q < d[0].queues; q++) {
		format_rate(l[q].rate, r, sizeof(r));
		printf("  queue %u (HTB %x:): %u classes, %s at the top "
		       "level\n",
		       q, q + 1, l[q].classes, l[q].classes ? r : "0bit");
	}
	free(l);
}

void cli_shape_status_json(struct cli *c, struct json_writer *jw)
{
	struct cls_shape_dev d[CLS_SHAPE_DEVS];
	char name[IF_NAMESIZE];
	struct queue_load *l = NULL;
	int n = cls_shape_devs(&c->maps, d), i;
	unsigned int q;

	jw_name(jw, "shaping");
	jw_start_array(jw);
	if (n > 0)
		loads(c, d[0].queues, &l);
	for (i = 0; i < n; i++) {
		dev_name(&d[i], name);
		jw_start_object(jw);
		jw_string_field(jw, "dev", name);
		jw_string_field(jw, "root", d[i].queues > 1 ? "mq" : "htb");
		jw_uint_field(jw, "queues", d[i].queues);
		jw_uint_field(jw, "rate_bytes_per_sec", d[i].rate);
		jw_uint_field(jw, "default_rate_bytes_per_sec",
			      d[i].default_rate);
		jw_bool_field(jw, "replaced_root",
			      d[i].flags & CLS_SHAPE_REPLACED);
		jw_name(jw, "queue");
		jw_start_array(jw);
		for (q = 0; l && q < d[i].queues; q++) {
			jw_start_object(jw);
			jw_uint_field(jw, "queue", q);
			jw_uint_field(jw, "htb_major", q + 1);
			jw_uint_field(jw, "classes", l[q].classes);
			jw_uint_field(jw, "rate_bytes_per_sec", l[q].rate);
			jw_end_object(jw);
		}
		jw_end_array(jw);
		jw_end_object(jw);
	}
	jw_end_array(jw);
	free(l);
}

/* One HTB class as the kernel has it, beside the class it is for. */
struct show_ctx {
	struct cli *c;
	struct json_writer *jw;
	const char *dev;
};

static int show_class(const struct tct_class_info *k, void *arg)
{
	struct show_ctx *x = arg;
	const struct cls_class_entry *e = NULL;
	char id[CLASSID_STRLEN], r[UNITS_STRLEN], ceil[UNITS_STRLEN];
	__u32 idx;

	if (strcmp(k->kind, "htb"))
		return 0;
	format_classid(k->handle, id, sizeof(id));
	if ((k->handle & 0xffff) >= TCT_FIRST_MINOR &&
	    !cls_class_resolve(&x->c->maps, id, &idx))
		e = cls_class_at(&x->c->maps, idx);
	if (e && e->cls.classid != k->handle)
		e = NULL;
	format_rate(k->rate, r, sizeof(r));
	format_rate(k->ceil, ceil, sizeof(ceil));
	if (x->jw) {
		jw_start_object(x->jw);
		jw_string_field(x->jw, "dev", x->dev);
		jw_string_field(x->jw, "handle", id);
		jw_uint_field(x->jw, "queue", tct_queue_of(k->handle));
		jw_string_field(x->jw, "class",
				(k->handle & 0xffff) == TCT_ROOT_MINOR ? "root"
				: (k->handle & 0xffff) == TCT_DEFAULT_MINOR
					? "default"
				: e ? e->meta.name
				    : "");
		jw_uint_field(x->jw, "rate_bytes_per_sec", k->rate);
		jw_uint_field(x->jw, "ceil_bytes_per_sec", k->ceil);
		jw_uint_field(x->jw, "bytes", k->bytes);
		jw_uint_field(x->jw, "packets", k->packets);
		jw_end_object(x->jw);
		return 0;
	}
	printf("%s %s queue %u %s rate %s ceil %s: %llu bytes %llu packets\n",
	       x->dev, id, tct_queue_of(k->handle),
	       (k->handle & 0xffff) == TCT_ROOT_MINOR	   ? "root"
	       : (k->handle & 0xffff) == TCT_DEFAULT_MINOR ? "default"
	       : e && e->meta.name[0]			   ? e->meta.name
	       : e					   ? "-"
		   : "(not classifier's)",
	       r, ceil, (unsigned long long)k->bytes,
	       (unsigned long long)k->packets);
	return 0;
}

static int shape_show(struct cli *c, int argc, char **argv)
{
	struct cls_shape_dev d[CLS_SHAPE_DEVS];
	struct show_ctx x = {.c = c};
	char name[IF_NAMESIZE];
	struct nl nl;
	int n, i, err;

	(void)argv;
	if (cli_no_args(c, argc))
		return -EINVAL;
	err = cli_maps_read(c);
	if (err)
		return err;
	n = cls_shape_devs(&c->maps, d);
	if (n < 0)
		return cli_errno(c, n, "reading the shaped devices");
	err = nl_open(&nl);
	if (err)
		return cli_errno(c, err, "rtnetlink");
	if (c->json) {
		x.jw = cli_json(c);
		if (!x.jw) {
			nl_close(&nl);
			return -ENOMEM;
		}
		jw_start_array(x.jw);
	}
	for (i = 0; i < n && !err; i++) {
		dev_name(&d[i], name);
		x.dev = name;
		err = tct_class_dump(&nl, d[i].ifindex, show_class, &x);
		if (err)
			cli_errno(c, err, name);
	}
	if (x.jw) {
		jw_end_array(x.jw);
		jw_destroy(&x.jw);
	}
	nl_close(&nl);
	return err;
}

static const struct cli_cmd shape_cmds[] = {
	CLI_CMD("show", shape_show, NULL, .flags = CLI_DEFAULT,
		.alias = "list"),
	CLI_CMD("dev", shape_dev,
		"IFACE [ queues { N | all } ] [ rate RATE ] [ default RATE ]\n"
		"                          [ replace ]"),
	CLI_CMD("del", shape_del, "dev IFACE", .alias = "delete"),
	{},
};

const struct cli_object cli_shape_obj = {
	.name = "shape",
	.cmds = shape_cmds,
	.help = "shape dev makes the device's shaping tree: on a device of\n"
		"several TX queues an mq root with one HTB per queue (handle\n"
		"queue + 1:), else one HTB (1:); in each a root class at RATE\n"
		"(default 100gbit), a default class (minor 2, at the default\n"
		"RATE, 10mbit unless told, borrowing up to RATE) for what no\n"
		"shaping class takes, and an HTB class for every class with a\n"
		"rate (classifier class help), which classifier keeps equal "
		"to\n"
		"the class. queues: how many queues get an HTB (default 1;\n"
		"all: every TX queue); every shaped device has the same "
		"number.\n"
		"A root qdisc someone else put there is refused unless "
		"replace.\n"
		"del removes the tree (the device gets its default qdisc "
		"back);\n"
		"so do detach (without xdp) and purge. show: every HTB class\n"
		"as the kernel has it, with the class it is for and its "
		"counts.\n",
};
