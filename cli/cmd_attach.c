// SPDX-License-Identifier: GPL-2.0-only
/* classifier attach | detach | status | purge */
#include <errno.h>
#include <net/if.h>
#include <stdlib.h>
#include <unistd.h>
#include <string.h>

#include "cli/class_queue.h"
#include "cli/cli.h"
#include "lib/log.h"
#include "loader/loader.h"

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
		} else if (!strcmp(k, "steer")) {
			*hook = CLS_HOOK_STEER;
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

/* A device whose packets no program of ours can read changes nothing. */
static int check_link(struct cli *c, const char *dev, int ifindex)
{
	enum cls_link link;
	char why[160];
	int err;

	err = cls_link_of(ifindex, &link, why, sizeof(why));
	if (err == -EPFNOSUPPORT)
		cli_err(c, "%s: %s: classifier reads packets that start with an Ethernet or an IP header only",
			dev, why);
	else if (err)
		cli_errno(c, err, dev);
	return err;
}

static int attach(struct cli *c, int argc, char **argv)
{
	struct cls_attach_opts o = {};
	struct cls_attach_result res;
	const char *dev, *extack;
	int err, hook, ifindex;

	err = parse_dev_args(c, argc, argv, &dev, &o, &hook, true);
	if (err)
		return err;
	o.hook = hook < 0 ? CLS_HOOK_EGRESS : hook;
	ifindex = if_nametoindex(dev);
	if (!ifindex) {
		cli_err(c, "no such device \"%s\"", dev);
		return -ENODEV;
	}
	err = check_link(c, dev, ifindex);
	if (err)
		return err;
	/* Pins of an older layout: attaching this build upgrades them. */
	err = cli_upgrade_if_needed(c);
	if (!err)
		err = cli_maps_write(c);
	if (!err && o.hook == CLS_HOOK_EGRESS)
		err = class_queue_check_dev(c, dev, ifindex);
	if (err)
		return err;
	err = cls_attach(&c->maps, dev, &o, &res);
	if (!err) {
		pr_info("%s %s %s, prog id %u%s\n",
			res.replaced ? "replaced on" : "attached to", dev,
			o.hook == CLS_HOOK_XDP	 ? "xdp" :
			o.hook == CLS_HOOK_STEER ? "steer (xdp)" :
			res.tcx			 ? "egress (tcx)" :
						   "egress (clsact)",
			res.prog_id,
			res.link == CLS_LINK_L3 ?
				" (packets start with the IP header)" :
				"");
		return 0;
	}
	extack = cls_loader_last_error();
	if (o.hook == CLS_HOOK_STEER && err == -EPFNOSUPPORT)
		cli_err(c, "%s: steering is for Ethernet devices (packets that start with the IP header: not yet)",
			dev);
	else if (cls_hook_is_xdp(o.hook) && err == -EBUSY)
		cli_err(c, "%s: another XDP program is attached there (one a device: 'classifier detach dev %s %s' if it is classifier's)",
			dev, dev, o.hook == CLS_HOOK_XDP ? "steer" : "xdp");
	else if (cls_hook_is_xdp(o.hook) && err == -EOPNOTSUPP)
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

static int detach(struct cli *c, int argc, char **argv)
{
	struct cls_attach_opts o = {};
	const char *dev;
	int err, hook;

	err = parse_dev_args(c, argc, argv, &dev, &o, &hook, false);
	if (err)
		return err;
	err = cli_maps_write(c);
	if (err)
		return err;
	err = cls_detach(c->root, dev, hook, false);
	if ((!err || err == -ENOENT) && hook != CLS_HOOK_XDP &&
	    hook != CLS_HOOK_STEER) {
		bool unshaped;
		int e = cli_shape_detach(c, dev, &unshaped);

		if (e)
			return e;
		if (unshaped)
			err = 0;
	}
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

/*
 * The shaping trees classifier made go first, while the pins that name
 * them can be read; pins that cannot be (another layout, not ours) name
 * no tree of this build's, and are purged all the same.
 */
static int purge_trees(struct cli *c)
{
	struct cls_open_opts o = {
		.bpffs = c->bpffs, .write = true, .wait_ms = c->wait_ms};
	int err;

	if (!c->maps_open) {
		if (cls_open(&c->maps, &o))
			return 0;
		c->maps_open = true;
	} else if (cls_lock(&c->maps, c->wait_ms)) {
		return 0;
	}
	err = cli_shape_purge(c);
	cli_maps_release(c);
	return err;
}

static int purge(struct cli *c, int argc, char **argv)
{
	int err, lock;

	(void)argv;
	if (cli_no_args(c, argc))
		return -EINVAL;
	if (access(c->root, F_OK) < 0)
		return 0;
	err = purge_trees(c);
	if (err)
		return err;
	/*
	 * The lock, whatever state the pins are in: purge is the way out of
	 * pins this classifier cannot use.
	 */
	lock = cls_lock_root(c->root, c->wait_ms);
	if (lock < 0) {
		cli_err(c, "%s", cls_open_error());
		return lock;
	}
	err = cls_purge(c->root);
	close(lock);
	return err ? cli_errno(c, err, "purge") : 0;
}

#define ATTACH_ARGS                                                            \
	"dev IFACE [ egress | xdp | steer ] [ mode { tcx | tc } ]\n"           \
	"                         [ xdp-mode { native | generic } ]"

static const struct cli_cmd attach_cmds[] = {
	CLI_CMD(NULL, attach, ATTACH_ARGS),
	{},
};

static const struct cli_cmd detach_cmds[] = {
	CLI_CMD(NULL, detach,
		"dev IFACE [ egress | xdp | steer ]   (default: all)"),
	{},
};

static const struct cli_cmd purge_cmds[] = {
	CLI_CMD(NULL, purge, NULL),
	{},
};

const struct cli_object cli_attach_obj = {
	.name = "attach",
	.cmds = attach_cmds,
	.help = "egress (default): tc egress, classifies by destination; a tcx\n"
		"  link where the kernel has tcx (6.6+), else clsact + cls_bpf.\n"
		"xdp: XDP ingress, classifies by source (pass or drop only).\n"
		"steer: XDP ingress of a router, steers each packet to the CPU\n"
		"  of its class's TX queue (see 'classifier steer help').\n"
		"Ethernet devices and L3 devices (tun, WireGuard, ipip, sit,\n"
		"gre, ppp: packets start with the IP header) each get their\n"
		"own program; other link types are refused.\n"
		"Attaching again replaces the program in place, and pins of an\n"
		"older layout are upgraded first (see 'classifier upgrade').\n",
};

const struct cli_object cli_detach_obj = {
	.name = "detach",
	.cmds = detach_cmds,
	.help = "Detach leaves classes, routes and counters; purge removes\n"
		"everything.\n",
};

const struct cli_object cli_purge_obj = {
	.name = "purge",
	.cmds = purge_cmds,
	.help = "Detach everywhere and remove every pin: classes, routes and\n"
		"counters are gone.\n",
};
