// SPDX-License-Identifier: GPL-2.0-only
/* classifier attach | detach | status | purge */
#include <errno.h>
#include <net/if.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "lib/log.h"
#include "loader/loader.h"

static void attach_usage(FILE *f)
{
	fprintf(f,
		"Usage: classifier attach dev IFACE [ egress | xdp ] [ mode { tcx | tc } ]\n"
		"                         [ xdp-mode { native | generic } ]\n"
		"       classifier detach dev IFACE [ egress | xdp ]   (default: both)\n"
		"       classifier status\n"
		"       classifier purge\n"
		"egress (default): tc egress, classifies by destination; a tcx\n"
		"  link where the kernel has tcx (6.6+), else clsact + cls_bpf.\n"
		"xdp: XDP ingress, classifies by source (pass or drop only).\n"
		"Attaching again replaces the program in place. Detach leaves\n"
		"classes, routes and counters; purge removes everything.\n");
}

static int parse_dev_args(struct cli *c, int argc, char **argv,
			  const char **dev, struct cls_attach_opts *o,
			  int *hook, bool attach)
{
	int i;

	*dev = NULL;
	*hook = -1;
	for (i = 0; i < argc; i++) {
		const char *k = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(k, "egress")) {
			*hook = CLS_HOOK_EGRESS;
		} else if (!strcmp(k, "xdp") || !strcmp(k, "ingress")) {
			*hook = CLS_HOOK_XDP;
		} else if (!v) {
			cli_err(c, "\"%s\" needs a value", k);
			return -EINVAL;
		} else if (!strcmp(k, "dev")) {
			*dev = v, i++;
		} else if (attach && !strcmp(k, "mode")) {
			if (!strcmp(v, "tcx"))
				o->mode = CLS_MODE_TCX;
			else if (!strcmp(v, "tc"))
				o->mode = CLS_MODE_TC;
			else
				goto bad;
			i++;
		} else if (attach && !strcmp(k, "xdp-mode")) {
			if (!strcmp(v, "native"))
				o->xdp_mode = CLS_XDP_NATIVE;
			else if (!strcmp(v, "generic"))
				o->xdp_mode = CLS_XDP_GENERIC;
			else
				goto bad;
			i++;
		} else {
			cli_err(c, "unknown argument \"%s\"", k);
			return -EINVAL;
		}
		continue;
bad:
		cli_err(c, "invalid %s \"%s\"", k, v);
		return -EINVAL;
	}
	if (!*dev) {
		cli_err(c, "expected dev IFACE");
		return -EINVAL;
	}
	if (strlen(*dev) >= IF_NAMESIZE || strchr(*dev, '/')) {
		cli_err(c, "invalid device name \"%s\"", *dev);
		return -EINVAL;
	}
	return 0;
}

/* Help (returns 1) or the arguments of attach/detach. */
static int dev_command(struct cli *c, int argc, char **argv, const char **dev,
		       struct cls_attach_opts *o, int *hook, bool attach)
{
	if (argc && is_help(argv[0])) {
		attach_usage(stdout);
		return 1;
	}
	return parse_dev_args(c, argc, argv, dev, o, hook, attach);
}

int do_attach(struct cli *c, int argc, char **argv)
{
	struct cls_attach_opts o = {};
	struct cls_attach_result res;
	const char *dev, *extack;
	int err, hook;

	err = dev_command(c, argc, argv, &dev, &o, &hook, true);
	if (err)
		return err > 0 ? 0 : err;
	o.hook = hook < 0 ? CLS_HOOK_EGRESS : hook;
	if (!if_nametoindex(dev)) {
		cli_err(c, "no such device \"%s\"", dev);
		return -ENODEV;
	}
	err = cli_maps_write(c);
	if (err)
		return err;
	err = cls_attach(c->root, dev, &o, &res);
	if (!err) {
		pr_info("%s %s %s, prog id %u\n", res.replaced ? "replaced on" :
							      "attached to",
			dev, o.hook == CLS_HOOK_XDP ? "xdp" :
			     res.tcx		   ? "egress (tcx)" :
						     "egress (clsact)",
			res.prog_id);
		return 0;
	}
	extack = cls_loader_last_error();
	if (o.hook == CLS_HOOK_XDP && err == -EOPNOTSUPP)
		cli_err(c, "%s: driver has no native XDP (try xdp-mode generic)",
			dev);
	else if (err == -EINVAL && o.mode == CLS_MODE_TCX)
		cli_err(c, "%s: this kernel has no tcx (try mode tc)", dev);
	else if (extack && *extack)
		cli_err(c, "%s: %s (%s)", dev, strerror(-err), extack);
	else
		cli_errno(c, err, dev);
	return err;
}

int do_detach(struct cli *c, int argc, char **argv)
{
	struct cls_attach_opts o = {};
	const char *dev;
	int err, hook;

	err = dev_command(c, argc, argv, &dev, &o, &hook, false);
	if (err)
		return err > 0 ? 0 : err;
	err = cli_maps_write(c);
	if (err)
		return err;
	err = cls_detach(c->root, dev, hook, false);
	if (err == -ENXIO) {
		cli_err(c, "%s: device not in this network namespace; detach it from there ('classifier purge' forgets it if it was deleted)",
			dev);
		return err;
	}
	if (err == -ENODEV) {
		cli_err(c, "no such device \"%s\" (and nothing attached under that name)",
			dev);
		return err;
	}
	if (err == -ENOENT) {
		cli_err(c, "%s: classifier is not attached there", dev);
		return err;
	}
	return err ? cli_errno(c, err, dev) : 0;
}

static const char *hook_name(const struct cls_attachment *a)
{
	if (a->hook == CLS_HOOK_XDP)
		return "xdp";
	return a->tcx ? "egress tcx" : "egress tc";
}

static int status_json(struct cli *c, const struct cls_attachment *a,
		       size_t n, size_t classes, size_t routes[2], bool on)
{
	struct json_writer *jw = cli_json(c);
	struct cls_table_info t;
	size_t i;

	if (!jw)
		return -ENOMEM;
	jw_start_object(jw);
	jw_string_field(jw, "pins", c->root);
	jw_bool_field(jw, "stats_enabled", on);
	jw_uint_field(jw, "classes", classes);
	jw_uint_field(jw, "max_classes", CLS_MAX_CLASSES);
	jw_uint_field(jw, "routes_v4", routes[0]);
	jw_uint_field(jw, "routes_v6", routes[1]);
	jw_uint_field(jw, "cpus", c->maps.nr_cpus);
	if (!cli_table_summary(c, &t)) {
		jw_name(jw, "ipv4_table");
		cli_table_json(jw, &t);
	}
	jw_name(jw, "attached");
	jw_start_array(jw);
	for (i = 0; i < n; i++) {
		jw_start_object(jw);
		jw_string_field(jw, "dev", a[i].ifname);
		jw_string_field(jw, "hook", a[i].hook == CLS_HOOK_XDP ?
						    "xdp" : "egress");
		if (a[i].hook == CLS_HOOK_EGRESS)
			jw_string_field(jw, "mode", a[i].tcx ? "tcx" : "tc");
		jw_uint_field(jw, "prog_id", a[i].prog_id);
		jw_bool_field(jw, "defunct", a[i].defunct);
		if (!a[i].tcx && a[i].hook == CLS_HOOK_EGRESS)
			jw_bool_field(jw, "owns_qdisc", a[i].owns_qdisc);
		jw_end_object(jw);
	}
	jw_end_array(jw);
	jw_end_object(jw);
	jw_destroy(&jw);
	return 0;
}

int do_status(struct cli *c, int argc, char **argv)
{
	struct cls_attachment *a = NULL;
	struct cls_class_entry *e = NULL;
	struct cls_route *r = NULL;
	size_t n = 0, classes = 0, nr = 0, routes[2] = {}, i;
	struct cls_table_info t;
	bool on = false;
	int err;

	if (argc && is_help(argv[0])) {
		attach_usage(stdout);
		return 0;
	}
	if (cli_no_args(c, argc))
		return -EINVAL;
	err = cli_maps_read(c);
	if (err)
		return err;
	err = cls_attachments(c->root, &a, &n);
	if (!err)
		err = cls_class_dump(&c->maps, &e, &classes);
	if (!err)
		err = cls_route_dump(&c->maps, 0, &r, &nr);
	if (!err)
		err = cls_stats_get_enabled(&c->maps, &on);
	if (err) {
		cli_errno(c, err, "reading state");
		goto out;
	}
	for (i = 0; i < nr; i++)
		routes[cls_family_slot(r[i].prefix.family)]++;
	if (c->json) {
		err = status_json(c, a, n, classes, routes, on);
		goto out;
	}
	printf("pins     %s\n", c->root);
	printf("stats    %s\n", on ? "on" : "off");
	printf("classes  %zu of %d\n", classes, CLS_MAX_CLASSES);
	printf("routes   %zu v4, %zu v6\n", routes[0], routes[1]);
	if (!cli_table_summary(c, &t))
		printf("table    %s%s, %u of %u groups, %.1f MiB\n",
		       t.on ? "on" : "off",
		       t.on && !t.active ? " (not in use)" : "", t.used,
		       t.groups, t.bytes / 1048576.0);
	if (!n)
		printf("attached nowhere\n");
	for (i = 0; i < n; i++)
		printf("attached %s %s prog %u%s%s\n", a[i].ifname,
		       hook_name(&a[i]), a[i].prog_id,
		       a[i].owns_qdisc ? " (own clsact)" : "",
		       !a[i].defunct ? "" :
		       a[i].tcx || a[i].hook == CLS_HOOK_XDP ?
				       " DEFUNCT (device gone)" :
				       " (device not in this network namespace, or gone)");
out:
	free(a);
	free(e);
	free(r);
	return err;
}

int do_purge(struct cli *c, int argc, char **argv)
{
	int err;

	if (argc && is_help(argv[0])) {
		attach_usage(stdout);
		return 0;
	}
	if (cli_no_args(c, argc))
		return -EINVAL;
	err = cls_lock_root(c->root, &c->lock_fd);
	if (err == -ENOENT)
		return 0;
	if (err)
		return cli_errno(c, err, c->root);
	err = cls_purge(c->root);
	return err ? cli_errno(c, err, "purge") : 0;
}
