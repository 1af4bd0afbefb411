// SPDX-License-Identifier: GPL-2.0-only
/*
 * The journal's other half: a process that takes the lock and finds a
 * record finishes or rolls back that change (whoever wrote it is gone:
 * changes hold the lock), and tells the user in one line.
 */
#include <errno.h>
#include <string.h>

#include "maps/internal.h"

static int route_recover(struct cls_maps *m, struct cls_state *s)
{
	struct cls_prefix p = {.family = s->journal.route.family,
			       .len = s->journal.route.len};
	struct cls_route now;
	char text[PREFIX_STRLEN];
	bool found;
	__u32 v = 0;
	int err;

	memcpy(p.addr, s->journal.route.addr, sizeof(p.addr));
	err = cls_route_repaint(m, &p);
	if (!err)
		err = cls_route_lookup(m, &p, &now, &found);
	if (err)
		return err;
	if (found && now.prefix.len == p.len)
		v = cls_route_value(now.class_idx, p.len, now.flags);
	if (s->journal.route.before)
		s->routes[cls_family_slot(p.family)]
			 [!!(s->journal.route.before & CLS_ROUTE_SYNCED)]--;
	if (v)
		s->routes[cls_family_slot(p.family)]
			 [!!(v & CLS_ROUTE_SYNCED)]++;
	format_prefix(&p, text, sizeof(text));
	cls_notify(m,
		   "finished an interrupted change of route %s (pid %u): the "
		   "%s table agrees with the trie again",
		   text, s->journal.pid,
		   p.family == AF_INET6 ? "IPv6" : "IPv4");
	return cls_journal_end(m, s);
}

static int migrate_recover(struct cls_maps *m, struct cls_state *s)
{
	const struct cls_journal j = s->journal; /* ending it clears it */
	int err = cls_journal_end(m, s);

	if (!err)
		cls_notify(m, "finished an interrupted upgrade from layout %u (pid %u)",
			   j.migrate.from, j.pid);
	return err;
}

int cls_recover(struct cls_maps *m)
{
	struct cls_state s;
	int err;

	err = cls_state_read(m, &s);
	if (err)
		return err;
	switch (s.journal.op) {
	case CLS_OP_NONE:
		return 0;
	case CLS_OP_ROUTE:
		return route_recover(m, &s);
	case CLS_OP_SWAP:
		return cls_swap_recover(m, &s);
	case CLS_OP_STATS_RESET:
		return cls_stats_recover(m, &s);
	case CLS_OP_CLASS:
		return cls_class_recover(m, &s);
	case CLS_OP_MIGRATE:
		return migrate_recover(m, &s);
	}
	cls_set_error(
		"%s/maps/state: unknown change in progress (%u): refusing",
		m->root, s.journal.op);
	return -EUCLEAN;
}

int cls_change_start(struct cls_maps *m)
{
	return m->locked ? cls_recover(m) : -ENOLCK;
}
