// SPDX-License-Identifier: GPL-2.0-only
/*
 * The tables' upkeep: at the end of every change (cls_close, cls_unlock)
 * the live tables are checked against their policy and the routes, and
 * rebuilt when they are off (one too few or too many, a table that ran
 * out of room, a first level of the wrong width); nodes the IPv6 table
 * took out of its tree are freed once no program reads them.  A change
 * of the policy, or `table rebuild`, is a rebuild too: a CLS_TXN_TABLE
 * change, the same routes published with new tables.
 */
#include <errno.h>
#include <string.h>

#include "maps/internal.h"

/* A new table for the same routes, built for (and publishing) a policy. */
static int rebuild_table(struct cls_maps *m, __u32 mode, __u32 groups)
{
	struct cls_txn *t;
	int err = cls_txn_begin(m, CLS_TXN_TABLE, &t);

	if (!err)
		err = cls_txn_set_policy(t, mode, groups);
	if (err) {
		cls_txn_abort(t);
		return err;
	}
	return cls_txn_commit(t, NULL);
}

int cls_table_rebuild(struct cls_maps *m)
{
	struct cls_state s;
	int err = cls_state_read(m, &s);

	return err ? err : rebuild_table(m, s.table_mode, s.table_groups);
}

int cls_table_set_policy(struct cls_maps *m, enum cls_table_mode mode,
			 __u32 groups)
{
	if (!m->locked)
		return -ENOLCK;
	if (groups > CLS_DIR24_MAX_GROUPS)
		return -ERANGE;
	return rebuild_table(m, mode, groups);
}

/*
 * Nodes the IPv6 table took out of its tree wait in limbo until no packet
 * can be reading them: wait for programs in flight, then free them.
 */
static int reclaim6(struct cls_maps *m)
{
	int err = cls_live_table6(m);

	if (err || m->table6.fd < 0 || !m->table6.m.hdr->n_limbo)
		return err;
	err = cls_wait_for_programs(m);
	if (!err)
		mbt6_reclaim(&m->table6.m);
	return err;
}

/* Is a family's table as the policy wants it for its routes? */
static bool stale(const struct cls_state *s, size_t n, bool on, bool short_,
		  bool fixed_ok)
{
	switch (s->table_mode) {
	case CLS_TABLE_AUTO:
		/* On past the threshold, off well below it, grown when short. */
		return (!on && n >= CLS_TABLE_AUTO_ROUTES) ||
		       (on && n < CLS_TABLE_AUTO_ROUTES / 2) || (on && short_);
	case CLS_TABLE_ON:
		return !on || !fixed_ok || short_;
	default:
		return on;
	}
}

int cls_table_maintain(struct cls_maps *m)
{
	struct cls_table_info info;
	struct cls_state s;
	bool v4, v6, wide_ok;
	size_t n6;
	int err;

	cls_set_error("%s", "");
	err = reclaim6(m);
	if (err)
		cls_set_error("freeing the IPv6 table's unused nodes");
	if (!err)
		err = cls_state_read(m, &s);
	/* Left unfinished: the next lock-taker settles it, then this runs. */
	if (err || s.journal.op != CLS_OP_NONE)
		return err;
	err = cls_table_info(m, &info);
	if (err)
		return err;
	v4 = stale(&s, s.routes[0][0] + s.routes[0][1], info.on,
		   info.ask_trie && !s.table_groups &&
			   info.groups < CLS_DIR24_MAX_GROUPS,
		   !s.table_groups || info.groups == s.table_groups);
	n6 = s.routes[1][0] + s.routes[1][1];
	/* The first level's width follows the routes, with some slack. */
	wide_ok = info.v6.format == MBT6_FORMAT_WIDE
			  ? cls_table6_wide(2 * n6)
			  : !cls_table6_wide(n6);
	v6 = stale(&s, n6, info.v6.on,
		   info.v6.ask_trie > 0 || (info.v6.on && !wide_ok), true);
	if (!v4 && !v6)
		return 0;
	err = rebuild_table(m, s.table_mode, s.table_groups);
	if (err)
		cls_set_error("rebuilding the %s", !v6  ? "IPv4 table"
						   : !v4 ? "IPv6 table"
							 : "IPv4 and IPv6 tables");
	return err;
}
