// SPDX-License-Identifier: GPL-2.0-only
/*
 * The lookup tables (the IPv4 DIR-24-8 table, the IPv6 table) as their
 * policy wants them: whether a route set gets one and of what size,
 * built for a whole route set, and what the live ones hold.  The state
 * map keeps the policy (auto, on [groups N], off); whole-table changes
 * (maps/txn.c) build with it, the upkeep (maps/upkeep.c) keeps to it.
 */
#include <errno.h>
#include <string.h>

#include "maps/internal.h"

static __u32 round_up(__u32 v, __u32 to)
{
	return (v + to - 1) / to * to;
}

/* Does the policy give a family with n routes a table? */
static bool table_wanted(const struct cls_state *s, size_t n)
{
	return s->table_mode == CLS_TABLE_ON ||
	       (s->table_mode == CLS_TABLE_AUTO && n >= CLS_TABLE_AUTO_ROUTES);
}

/* Groups the policy wants for this route set; 0 with *on false: no table. */
static __u32 wanted_groups(const struct cls_state *s, size_t v4_routes,
			   __u32 need, bool *on)
{
	__u32 g;

	*on = table_wanted(s, v4_routes);
	if (!*on)
		return 0;
	if (s->table_mode == CLS_TABLE_ON && s->table_groups)
		return s->table_groups;
	/* A quarter to spare, so single adds rarely run out. */
	g = round_up(need + need / 4 + 256, 1024);
	return g < CLS_DIR24_MAX_GROUPS ? g : CLS_DIR24_MAX_GROUPS;
}

int cls_table6_build(const struct cls_state *s, const struct cls_route *r,
		     size_t n, int *fd, __u8 *format)
{
	struct cls_table6 tab = { .fd = -1 };
	bool wide = cls_table6_wide(n);
	int err;

	*fd = -1;
	*format = 0;
	if (!table_wanted(s, n))
		return 0;
	*fd = cls_table6_create(cls_table6_units(r, n, wide), wide);
	if (*fd < 0)
		return *fd;
	*format = wide ? MBT6_FORMAT_WIDE : MBT6_FORMAT;
	err = cls_table6_map(&tab, *fd, *format);
	if (!err)
		err = cls_table6_fill(&tab, r, n);
	cls_table6_unmap(&tab);
	return err;
}

int cls_table_build(const struct cls_state *s, const struct cls_route *r,
		    size_t n, int *fd)
{
	struct cls_table tab = {.fd = -1};
	__u32 groups;
	bool on;
	int err;

	*fd = -1;
	groups = wanted_groups(s, n, cls_table_groups_needed(r, n), &on);
	if (!on)
		return 0;
	*fd = cls_table_create(groups);
	if (*fd < 0)
		return *fd;
	err = cls_table_map(&tab, *fd);
	if (!err)
		err = cls_table_fill(&tab, r, n);
	cls_table_unmap(&tab);
	return err;
}

int cls_table_info(struct cls_maps *m, struct cls_table_info *info)
{
	struct mbt6_usage u;
	struct cls_state s;
	int err;

	memset(info, 0, sizeof(*info));
	err = cls_state_read(m, &s);
	if (!err)
		err = cls_live_table(m);
	if (!err)
		err = cls_live_table6(m);
	if (err)
		return err;
	info->mode = s.table_mode;
	if (m->table.fd >= 0) {
		info->on = true;
		info->groups = m->table.d.groups;
		info->used = m->table.d.hdr->used;
		info->ask_trie = m->table.d.hdr->ask_trie;
		info->bytes = m->table.len;
	}
	if (m->table6.fd < 0)
		info->v6.foreign_format = m->table6_format;
	if (m->table6.fd >= 0) {
		mbt6_usage(&m->table6.m, &u);
		info->v6.on = true;
		info->v6.units = u.units;
		info->v6.used = u.used;
		info->v6.ask_trie = u.ask_trie;
		info->v6.bytes = u.bytes;
		info->v6.format = m->table6_format;
	}
	return 0;
}

int cls_table6_lookup(struct cls_maps *m, const __u8 addr[16], __u32 *cls,
		      bool *ask)
{
	int err = cls_live_table6(m);

	*ask = true;
	if (err || m->table6.fd < 0)
		return err;
	if (m->table6.header_only)
		return -EPERM; /* read-only: not mapped, its header copied */
	*cls = mbt6_lookup(&m->table6.m, addr, ask, NULL);
	return 0;
}

int cls_table_lookup(struct cls_maps *m, __u32 addr, __u32 *cls, bool *ask)
{
	int err = cls_live_table(m);

	*ask = true;
	if (err || m->table.fd < 0)
		return err;
	return cls_table_entry(&m->table, addr, cls, ask);
}

