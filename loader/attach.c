// SPDX-License-Identifier: GPL-2.0-only
/*
 * Attach and detach.  Egress: a pinned tcx link where the kernel has tcx,
 * otherwise clsact + cls_bpf through netlink.  Ingress: a pinned XDP link.
 * The program is the one for the device's link layer (link_type.c).  An
 * existing attachment is updated in place (bpf_link_update / a filter
 * replace), so re-attaching a new build leaves no gap.
 */
#include <dirent.h>
#include <errno.h>
#include <linux/if_link.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "classifier.skel.h"
#include "lib/log.h"
#include "loader/compat.h"
#include "loader/loader.h"
#include "loader/loader_internal.h"
#include "loader/tc_netlink.h"
#include "maps/maps.h"

struct pins {
	char link[PATH_MAX];  /* links/egress_<dev> or links/xdp_<dev> */
	char tc[PATH_MAX];    /* tc/egress_<dev> */
	char qdisc[PATH_MAX]; /* tc/qdisc_<dev> */
};

/*
 * bpffs refuses names with a dot (reserved), device names may have one
 * (eth0.100) but never a colon: pins spell the dot as a colon.
 */
static void pin_name(char *buf, size_t n, const char *kind, const char *ifname)
{
	char *p;

	snprintf(buf, n, "%s_%s", kind, ifname);
	for (p = buf + strlen(kind); *p; p++)
		if (*p == '.')
			*p = ':';
}

/* The device a pin name is for, if it starts with kind_. */
static bool pin_ifname(const char *name, const char *kind, char *ifname,
		       size_t n)
{
	size_t len = strlen(kind);
	char *p;

	if (strncmp(name, kind, len) || name[len] != '_' || !name[len + 1])
		return false;
	snprintf(ifname, n, "%s", name + len + 1);
	for (p = ifname; *p; p++)
		if (*p == ':')
			*p = '.';
	return true;
}

static const char *hook_pin_kind(enum cls_hook hook)
{
	return hook == CLS_HOOK_XDP	? "xdp" :
	       hook == CLS_HOOK_STEER ? "steer" :
					"egress";
}

static int pin_paths(struct pins *p, const char *root, const char *ifname,
		     enum cls_hook hook)
{
	char name[IF_NAMESIZE + 16];
	int err;

	pin_name(name, sizeof(name), hook_pin_kind(hook), ifname);
	err = cls_pin_path(p->link, sizeof(p->link), root, "links", name);
	if (!err)
		err = cls_pin_path(p->tc, sizeof(p->tc), root, "tc", name);
	pin_name(name, sizeof(name), "qdisc", ifname);
	if (!err)
		err = cls_pin_path(p->qdisc, sizeof(p->qdisc), root, "tc",
				   name);
	return err;
}

static bool pinned(const char *path)
{
	return access(path, F_OK) == 0;
}

static __u32 prog_id_of(int prog_fd)
{
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info);

	return bpf_obj_get_info_by_fd(prog_fd, &info, &len) ? 0 : info.id;
}

/* The name of program id (getting it by id needs CAP_SYS_ADMIN). */
static void prog_name_of(__u32 id, char *name, size_t n)
{
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info);
	int fd = id ? bpf_prog_get_fd_by_id(id) : -1;

	name[0] = '\0';
	if (fd < 0)
		return;
	if (!bpf_obj_get_info_by_fd(fd, &info, &len))
		snprintf(name, n, "%s", info.name);
	close(fd);
}

/* Update a pinned link to prog_fd. -ENOLINK if the link is defunct. */
static int link_replace(const char *path, int prog_fd)
{
	struct bpf_link_info info = {};
	__u32 len = sizeof(info);
	int fd, err = 0;

	fd = bpf_obj_get(path);
	if (fd < 0)
		return -errno;
	if (bpf_obj_get_info_by_fd(fd, &info, &len)) {
		err = -errno;
		goto out;
	}
	if (!cls_link_info_ifindex(&info)) {
		err = -ENOLINK;
		goto out;
	}
	if (bpf_link_update(fd, prog_fd, NULL))
		err = -errno;
out:
	close(fd);
	return err;
}

static int link_new(const char *path, int prog_fd, int ifindex,
		    enum bpf_attach_type type, __u32 flags)
{
	LIBBPF_OPTS(bpf_link_create_opts, opts, .flags = flags);
	int fd, err = 0;

	fd = bpf_link_create(prog_fd, ifindex, type, &opts);
	if (fd < 0)
		return -errno;
	if (bpf_obj_pin(fd, path)) {
		err = -errno;
		bpf_link_detach(fd);
	}
	close(fd);
	return err;
}

static int attach_link(const char *path, int prog_fd, int ifindex,
		       enum bpf_attach_type type, __u32 flags, bool *replaced)
{
	int err;

	if (pinned(path)) {
		err = link_replace(path, prog_fd);
		if (err != -ENOLINK) {
			*replaced = !err;
			return err;
		}
		/* The device went away and came back: start afresh. */
		unlink(path);
	}
	return link_new(path, prog_fd, ifindex, type, flags);
}

static int repin(const char *path, int fd)
{
	unlink(path);
	return bpf_obj_pin(fd, path) ? -errno : 0;
}

/*
 * The pins go first: they are the record that something of ours may be
 * on the device, so a crash between two steps leaves a record that
 * detach (or a second attach) cleans up or completes, never a filter or
 * a qdisc nobody knows about.
 */
static int attach_tc(const struct pins *p, int prog_fd, const char *name,
		     int ifindex, bool *replaced)
{
	bool created = false, had_qdisc_pin = pinned(p->qdisc);
	__u32 id;
	int err;

	err = tc_filter_query(ifindex, &id);
	if (err < 0)
		return err;
	*replaced = err == 1;
	err = repin(p->tc, prog_fd);
	if (!err && !*replaced && !had_qdisc_pin)
		err = repin(p->qdisc, prog_fd);
	if (err)
		goto unpin;
	if (!*replaced) {
		err = tc_clsact_ensure(ifindex, &created);
		if (err)
			goto unpin;
		if (!created && !had_qdisc_pin)
			unlink(p->qdisc); /* someone else's clsact */
	}
	err = tc_filter_attach(ifindex, prog_fd, name);
	if (!err)
		return 0;
	if (created)
		tc_clsact_delete(ifindex);
unpin:
	if (!*replaced) {
		unlink(p->tc);
		if (!had_qdisc_pin)
			unlink(p->qdisc);
	}
	return err;
}

static int attach_egress(const struct pins *p, struct bpf_program *prog,
			 int ifindex, enum cls_egress_mode mode,
			 struct cls_attach_result *res)
{
	int prog_fd = bpf_program__fd(prog);
	int err;

	/* Keep whatever kind of attachment the device already has. */
	if (pinned(p->link) || (mode != CLS_MODE_TC && !pinned(p->tc))) {
		err = attach_link(p->link, prog_fd, ifindex,
				  (enum bpf_attach_type)CLS_BPF_TCX_EGRESS, 0,
				  &res->replaced);
		if (!err) {
			res->tcx = true;
			return 0;
		}
		if (mode == CLS_MODE_TCX || res->replaced ||
		    (err != -EINVAL && err != -EOPNOTSUPP && err != -ENOTSUPP))
			return err;
		pr_info("no tcx in this kernel (%s); using clsact\n",
			strerror(-err));
	}
	return attach_tc(p, prog_fd, bpf_program__name(prog), ifindex,
			 &res->replaced);
}

static int attach_prog(struct classifier_bpf *skel, const char *root,
		       const char *ifname, const struct cls_attach_opts *opts,
		       enum cls_link link, struct cls_attach_result *res)
{
	struct bpf_program *prog = cls_prog_for(skel, opts->hook, link);
	int ifindex, prog_fd = bpf_program__fd(prog), err;
	struct pins p;
	__u32 flags;

	memset(res, 0, sizeof(*res));
	res->link = link;
	ifindex = if_nametoindex(ifname);
	if (!ifindex)
		return -ENODEV;
	err = pin_paths(&p, root, ifname, opts->hook);
	if (err)
		return err;
	if (cls_hook_is_xdp(opts->hook)) {
		flags = opts->xdp_mode == CLS_XDP_GENERIC ? XDP_FLAGS_SKB_MODE :
							    XDP_FLAGS_DRV_MODE;
		err = attach_link(p.link, prog_fd, ifindex, BPF_XDP, flags,
				  &res->replaced);
	} else {
		err = attach_egress(&p, prog, ifindex, opts->mode, res);
	}
	if (!err)
		res->prog_id = prog_id_of(prog_fd);
	return err;
}

int cls_attach(struct cls_maps *m, const char *ifname,
	       const struct cls_attach_opts *opts,
	       struct cls_attach_result *res)
{
	struct classifier_bpf *skel = NULL;
	int ifindex = if_nametoindex(ifname), err;
	enum cls_link link;

	if (!ifindex)
		return -ENODEV;
	err = cls_link_of(ifindex, &link, NULL, 0);
	if (!err && opts->hook == CLS_HOOK_STEER && link != CLS_LINK_ETHERNET)
		err = -EPFNOSUPPORT;
	if (!err)
		err = cls_make_dirs(m->root);
	if (!err)
		err = cls_share_tree(m->dir_fd, m->root);
	if (!err)
		err = cls_load(m, &skel);
	if (!err)
		err = attach_prog(skel, m->root, ifname, opts, link, res);
	classifier_bpf__destroy(skel);
	return err;
}

/*
 * The programs an attachment moves to: those its device needs where the
 * device is in this network namespace, else the kind it runs (a link in
 * another namespace is updated through its pin, its device out of sight).
 * A device whose packets no program can read keeps what it has.
 */
static enum cls_link replace_link(const struct cls_attachment *a)
{
	enum cls_link link;
	char why[128];
	int ifindex = if_nametoindex(a->ifname), err;

	if (ifindex && (!a->ifindex || (int)a->ifindex == ifindex)) {
		err = cls_link_of(ifindex, &link, why, sizeof(why));
		if (!err)
			return link;
		if (err == -EPFNOSUPPORT)
			pr_warn("%s: %s: its packets cannot be classified ('classifier detach dev %s')\n",
				a->ifname, why, a->ifname);
	}
	return cls_prog_is_l3(a->prog_name) ? CLS_LINK_L3 : CLS_LINK_ETHERNET;
}

/*
 * Links are updated through their pins, so attachments in other network
 * namespaces (one bpffs, several netns) move too.  A clsact filter can
 * only be replaced over netlink in the device's own namespace.
 */
static int replace_one(const char *root, struct classifier_bpf *skel,
		       const struct cls_attachment *a)
{
	struct cls_attach_opts o = { .hook = a->hook, .mode = CLS_MODE_TC };
	enum cls_link link = replace_link(a);
	struct cls_attach_result res;
	struct pins p;
	int prog_fd, err;

	prog_fd = bpf_program__fd(cls_prog_for(skel, a->hook, link));
	err = pin_paths(&p, root, a->ifname, a->hook);
	if (err)
		return err;
	if (a->tcx || cls_hook_is_xdp(a->hook))
		return link_replace(p.link, prog_fd);
	err = attach_prog(skel, root, a->ifname, &o, link, &res);
	if (err == -ENODEV)
		pr_warn("%s: clsact attachment whose device is not here (another network namespace: run this there; gone: 'classifier detach dev %s')\n",
			a->ifname, a->ifname);
	return err;
}

int cls_replace_all(const char *root, struct classifier_bpf *skel,
		    size_t *moved)
{
	struct cls_attachment *a;
	size_t n, i;
	int err;

	*moved = 0;
	err = cls_attachments(root, &a, &n);
	/* A defunct link is gone for good; a clsact one may be elsewhere. */
	for (i = 0; !err && i < n; i++) {
		if (!a[i].defunct || !(a[i].tcx || cls_hook_is_xdp(a[i].hook))) {
			err = replace_one(root, skel, &a[i]);
			*moved += !err;
		}
		cls_step("replace: one attachment moved");
	}
	free(a);
	return err;
}

static int detach_link(const char *path)
{
	int fd, err = 0;

	fd = bpf_obj_get(path);
	if (fd < 0)
		return -errno;
	/* Detach even if something else holds the link open. */
	if (bpf_link_detach(fd) && errno != ENOLINK && errno != EINVAL)
		err = -errno;
	close(fd);
	if (!err && unlink(path) < 0)
		err = -errno;
	return err;
}

static int detach_tc(const struct pins *p, int ifindex)
{
	int err = 0, left;

	if (ifindex) {
		err = tc_filter_detach(ifindex);
		if (err == -ENOENT || err == -ENODEV)
			err = 0;
	}
	if (err)
		return err;
	if (ifindex && pinned(p->qdisc)) {
		/* Only remove the clsact we made, and only if now unused. */
		left = tc_clsact_count_filters(ifindex);
		if (left == 0)
			err = tc_clsact_delete(ifindex);
		else if (left > 0)
			pr_info("leaving clsact qdisc: %d other filter(s)\n",
				left);
	}
	unlink(p->qdisc);
	unlink(p->tc);
	return err == -ENOENT ? 0 : err;
}

int cls_detach(const char *root, const char *ifname, int hook, bool force)
{
	int ifindex = if_nametoindex(ifname);
	int h, err = 0, found = 0;
	struct pins p;

	for (h = CLS_HOOK_EGRESS; h <= CLS_HOOK_MAX; h++) {
		if (hook >= 0 && h != hook)
			continue;
		err = pin_paths(&p, root, ifname, h);
		if (err)
			return err;
		if (pinned(p.link)) {
			found++;
			err = detach_link(p.link);
		}
		if (!err && pinned(p.tc)) {
			found++;
			/*
			 * Without the device we cannot tell "deleted" (its
			 * filter went with it) from "in another network
			 * namespace" (its filter still runs): keep the record
			 * unless told to drop it.
			 */
			err = ifindex || force ? detach_tc(&p, ifindex) :
						 -ENXIO;
		}
		if (err)
			return err;
	}
	if (!found)
		return ifindex ? -ENOENT : -ENODEV;
	return 0;
}

static int add_attachment(struct cls_attachment **out, size_t *n,
			  const struct cls_attachment *a)
{
	struct cls_attachment *r = realloc(*out, (*n + 1) * sizeof(*r));

	if (!r)
		return -ENOMEM;
	r[*n] = *a;
	(*n)++;
	*out = r;
	return 0;
}

static void fill_from_link(struct cls_attachment *a, int fd)
{
	struct bpf_link_info info = {};
	__u32 len = sizeof(info);

	if (bpf_obj_get_info_by_fd(fd, &info, &len))
		return;
	a->prog_id = info.prog_id;
	a->ifindex = cls_link_info_ifindex(&info);
	a->defunct = !a->ifindex;
}

static int scan_dir(const char *root, const char *dir,
		    struct cls_attachment **out, size_t *n)
{
	bool is_link = !strcmp(dir, "links");
	struct cls_attachment a;
	char path[PATH_MAX];
	struct dirent *de;
	struct pins p;
	DIR *d;
	int err = 0, fd;

	snprintf(path, sizeof(path), "%s/%s", root, dir);
	d = opendir(path);
	if (!d)
		return errno == ENOENT ? 0 : -errno;
	while (!err && (de = readdir(d))) {
		memset(&a, 0, sizeof(a));
		if (pin_ifname(de->d_name, "xdp", a.ifname, sizeof(a.ifname)))
			a.hook = CLS_HOOK_XDP;
		else if (pin_ifname(de->d_name, "steer", a.ifname,
				    sizeof(a.ifname)))
			a.hook = CLS_HOOK_STEER;
		else if (pin_ifname(de->d_name, "egress", a.ifname,
				    sizeof(a.ifname)))
			a.hook = CLS_HOOK_EGRESS;
		else
			continue;
		a.tcx = is_link && a.hook == CLS_HOOK_EGRESS;
		cls_pin_path(path, sizeof(path), root, dir, de->d_name);
		fd = bpf_obj_get(path);
		if (fd < 0 && errno == EACCES) {
			/*
			 * A reader by group (maps/share.c) sees the pin's
			 * name, not the link or program behind it.
			 */
			a.ifindex = if_nametoindex(a.ifname);
			a.defunct = !a.ifindex;
			err = add_attachment(out, n, &a);
			continue;
		}
		if (fd < 0)
			continue;
		if (is_link) {
			fill_from_link(&a, fd);
		} else {
			a.prog_id = prog_id_of(fd);
			a.ifindex = if_nametoindex(a.ifname);
			a.defunct = !a.ifindex;
			pin_paths(&p, root, a.ifname, a.hook);
			a.owns_qdisc = pinned(p.qdisc);
		}
		close(fd);
		prog_name_of(a.prog_id, a.prog_name, sizeof(a.prog_name));
		err = add_attachment(out, n, &a);
	}
	closedir(d);
	return err;
}

int cls_attachments(const char *root, struct cls_attachment **out, size_t *n)
{
	int err;

	*out = NULL;
	*n = 0;
	err = scan_dir(root, "links", out, n);
	if (!err)
		err = scan_dir(root, "tc", out, n);
	if (err) {
		free(*out);
		*out = NULL;
		*n = 0;
	}
	return err;
}

int cls_purge(const char *root)
{
	struct cls_attachment *a;
	size_t n, i;
	int err;

	err = cls_attachments(root, &a, &n);
	if (err)
		return err;
	for (i = 0; i < n && !err; i++) {
		err = cls_detach(root, a[i].ifname, a[i].hook, true);
		if (err == -ENOENT || err == -ENODEV)
			err = 0;
	}
	free(a);
	return err ? err : cls_remove_pins(root);
}

const char *cls_loader_last_error(void)
{
	return tc_netlink_last_error();
}
