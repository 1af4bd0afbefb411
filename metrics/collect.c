// SPDX-License-Identifier: GPL-2.0-only
/*
 * Fill a snapshot from the pinned maps.  What it costs, whatever the
 * number of classes: the counters are summed from the stats map's mmap,
 * the class catalogue comes in one batched read per array, the state
 * (layout, route counts, sync status) is one element; only the attached
 * programs cost a few syscalls apiece.  No syscall per class.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "lib/version.h"
#include "loader/loader.h"
#include "maps/maps.h"
#include "metrics/collect.h"

#define BPF_STATS_SYSCTL "/proc/sys/kernel/bpf_stats_enabled"

static __u64 now_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (__u64)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static void build_id_hex(__u64 id, char buf[METRICS_BUILD_ID_LEN])
{
	snprintf(buf, METRICS_BUILD_ID_LEN, "%016llx", (unsigned long long)id);
}

static int collect_classes(struct cls_maps *m, struct metrics_snapshot *s)
{
	const struct cls_class_entry *e;
	struct metrics_class *c;
	size_t n, i;
	int err;

	err = cls_classes(m, &e, &n);
	if (!err)
		err = metrics_snapshot_reserve_classes(s, n);
	if (err)
		return err;
	s->class_room = m->cap;
	for (i = 0; i < n; i++) {
		c = &s->classes[i];
		c->idx = e[i].idx;
		cls_class_label(&e[i], c->label, sizeof(c->label));
		memcpy(c->name, e[i].meta.name, sizeof(c->name));
		c->dir[METRICS_EGRESS] =
			cls_stats_sum(m, CLS_STATS_EGRESS_BASE + e[i].idx);
		c->dir[METRICS_INGRESS] = cls_stats_sum(
			m, CLS_STATS_INGRESS_BASE(m->cap) + e[i].idx);
		c->rate_kind = e[i].cls.flags & CLS_F_PACE     ? "pace"
			       : e[i].cls.flags & CLS_F_POLICE ? "police"
							       : NULL;
		if (!c->rate_kind)
			continue;
		c->rate[METRICS_EGRESS] =
			cls_rate_stats_sum(m, CLS_RATE_EGRESS, e[i].idx);
		c->rate[METRICS_INGRESS] =
			cls_rate_stats_sum(m, CLS_RATE_INGRESS, e[i].idx);
	}
	s->nr_classes = n;
	return 0;
}

static void collect_reasons(struct cls_maps *m, struct metrics_snapshot *s)
{
	int r;

	for (r = 0; r < CLS_R_MAX; r++) {
		s->unclassified[r].name = cls_reason_name(r);
		s->unclassified[r].count =
			cls_stats_sum(m, CLS_STATS_REASON_BASE(m->cap) + r);
	}
}

static int collect_routes(struct cls_maps *m, struct metrics_snapshot *s)
{
	__u32 n[2][2];
	int fam, src, err;

	err = cls_route_counts(m, n);
	if (err)
		return err;
	for (fam = 0; fam < METRICS_NR_FAMILIES; fam++)
		for (src = 0; src < METRICS_NR_SOURCES; src++)
			s->routes[fam][src] = n[fam][src];
	return 0;
}

/*
 * The live tables are reached through their slots by map id, which the
 * kernel grants only with CAP_SYS_ADMIN: without it the tables are left
 * out, the rest of the snapshot stands.
 */
static int collect_tables(struct cls_maps *m, struct metrics_table *t)
{
	struct cls_table_info info;
	int err = cls_table_info(m, &info);

	memset(t, 0, METRICS_NR_FAMILIES * sizeof(*t));
	if (err == -EPERM)
		return 0;
	if (err)
		return err;
	t[METRICS_V4] = (struct metrics_table){
		.available = true,
		.on = info.on,
		.capacity = info.groups,
		.used = info.used,
		.ask_trie = info.ask_trie,
		.bytes = info.bytes,
	};
	t[METRICS_V6] = (struct metrics_table){
		.available = true,
		.on = info.v6.on,
		.capacity = info.v6.units,
		.used = info.v6.used,
		.ask_trie = info.v6.ask_trie,
		.bytes = info.v6.bytes,
	};
	return 0;
}

static void collect_sync(const struct cls_sync_status *y,
			 struct metrics_sync *s)
{
	memset(s, 0, sizeof(*s));
	/* As `classifier status` tells: the pid is cleared on a clean exit. */
	s->running = cls_sync_running(y);
	if (!s->running)
		return;
	s->routes = y->routes;
	s->shadowed = y->shadowed;
	s->errors = y->errors;
	s->events = y->events;
	s->started = y->started;
	s->last_resync = y->last_resync;
	s->lag_us = y->lag_us;
}

/* How an XDP program of ours is attached, asked of the device itself. */
static const char *xdp_mode(const struct cls_attachment *a)
{
	LIBBPF_OPTS(bpf_xdp_query_opts, q);

	/* The ifindex may be another namespace's: trust only our prog id. */
	if (!a->ifindex || bpf_xdp_query(a->ifindex, 0, &q))
		return "unknown";
	if (q.drv_prog_id == a->prog_id)
		return "native";
	if (q.skb_prog_id == a->prog_id)
		return "generic";
	if (q.hw_prog_id == a->prog_id)
		return "offload";
	return "unknown";
}

/*
 * A program by id needs CAP_SYS_ADMIN; without it (or if the program was
 * replaced since its attachment was read) it is not listed.
 */
static void add_prog(struct metrics_snapshot *s, __u32 id)
{
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info);
	struct metrics_prog *p;
	__u64 build;
	size_t i;
	int fd;

	for (i = 0; i < s->nr_prog; i++)
		if (s->prog[i].id == id)
			return;
	fd = bpf_prog_get_fd_by_id(id);
	if (fd < 0)
		return;
	if (bpf_obj_get_info_by_fd(fd, &info, &len))
		goto out;
	p = &s->prog[s->nr_prog++];
	memset(p, 0, sizeof(*p));
	p->id = id;
	snprintf(p->name, sizeof(p->name), "%.*s", (int)sizeof(info.name),
		 info.name);
	for (i = 0; i < BPF_TAG_SIZE; i++)
		snprintf(p->tag + 2 * i, 3, "%02x", info.tag[i]);
	p->run_time_ns = info.run_time_ns;
	p->run_cnt = info.run_cnt;
	if (!cls_prog_build_id(id, &build))
		build_id_hex(build, p->build_id);
out:
	close(fd);
}

static int collect_attachments(struct cls_maps *m, struct metrics_snapshot *s)
{
	struct metrics_attachment *d;
	struct cls_attachment *a;
	size_t n, i;
	int err;

	s->nr_att = s->nr_prog = 0;
	err = cls_attachments(m->root, &a, &n);
	if (err)
		return err;
	err = metrics_snapshot_reserve_att(s, n);
	for (i = 0; !err && i < n; i++) {
		d = &s->att[s->nr_att++];
		snprintf(d->dev, sizeof(d->dev), "%s", a[i].ifname);
		d->live = !a[i].defunct;
		d->prog_id = a[i].prog_id;
		if (cls_hook_is_xdp(a[i].hook)) {
			d->hook = a[i].hook == CLS_HOOK_STEER ? "steer" : "xdp";
			d->mode = xdp_mode(&a[i]);
		} else {
			d->hook = "egress";
			d->mode = a[i].tcx ? "tcx" : "tc";
		}
		if (d->prog_id)
			add_prog(s, d->prog_id);
	}
	free(a);
	return err;
}

/* kernel.bpf_stats_enabled: programs' run time is only counted when set. */
static void collect_bpf_stats(struct metrics_snapshot *s)
{
	char c = 0;
	int fd = open(BPF_STATS_SYSCTL, O_RDONLY | O_CLOEXEC);

	s->bpf_stats.known = fd >= 0 && read(fd, &c, 1) == 1;
	s->bpf_stats.on = s->bpf_stats.known && c != '0';
	if (fd >= 0)
		close(fd);
}

int metrics_collect(struct cls_maps *m, struct metrics_snapshot *s)
{
	__u64 start = now_ns(CLOCK_MONOTONIC);
	struct cls_state st;
	int err;

	s->time_ns = now_ns(CLOCK_REALTIME);
	s->nr_cpus = m->nr_cpus;
	s->version = CLS_VERSION;
	build_id_hex(cls_build_id(), s->build_id);
	err = cls_stats_map(m);
	if (!err)
		err = cls_stats_get_enabled(m, &s->stats_on);
	if (!err)
		err = collect_classes(m, s);
	if (!err)
		err = cls_state_read(m, &st);
	if (!err)
		err = collect_routes(m, s);
	if (!err)
		err = collect_tables(m, s->table);
	if (!err)
		err = collect_attachments(m, s);
	if (err)
		return err;
	collect_reasons(m, s);
	s->layout = st.layout;
	collect_sync(&st.sync, &s->sync);
	collect_bpf_stats(s);
	s->collect_ns = now_ns(CLOCK_MONOTONIC) - start;
	return 0;
}

int metrics_collect_pinned(const char *bpffs, bool read_only,
			   struct metrics_snapshot *s)
{
	struct cls_open_opts o = {.bpffs = bpffs, .read_only = read_only};
	__u64 start = now_ns(CLOCK_MONOTONIC);
	struct cls_maps m;
	int err;

	err = cls_open(&m, &o);
	if (err)
		return err;
	err = metrics_collect(&m, s);
	cls_close(&m);
	s->collect_ns = now_ns(CLOCK_MONOTONIC) - start;
	return err;
}
