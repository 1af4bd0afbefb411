// SPDX-License-Identifier: GPL-2.0-only
/*
 * The journal's other half: a process that takes the lock and finds a
 * record finishes or rolls back that change (whoever wrote it is gone,
 * changes hold the lock, or it failed and could not settle it itself),
 * and tells the user in one line.
 */
#include <errno.h>
#include <string.h>

#include "maps/internal.h"

static int migrate_recover(struct cls_maps *m, struct cls_state *s)
{
	const struct cls_journal j = s->journal; /* ending it clears it */
	int err = cls_journal_end(m, s);

	if (!err && j.migrate.from == CLS_LAYOUT_VERSION)
		cls_notify(m,
			   "finished an interrupted growth of the class maps "
			   "(pid %u)",
			   j.pid);
	else if (!err)
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
		return cls_route_recover(m, &s);
	case CLS_OP_SWAP:
		return cls_swap_recover(m, &s);
	case CLS_OP_STATS_RESET:
		return cls_stats_recover(m, &s);
	case CLS_OP_CLASS:
		return cls_class_recover(m, &s);
	case CLS_OP_MIGRATE:
		return migrate_recover(m, &s);
	case CLS_OP_SHAPE:
		return cls_shape_recover(m, &s);
	case CLS_OP_CLASS_LOAD:
		return cls_class_load_recover(m, &s);
	}
	cls_set_error(
		"%s/maps/state: unknown change in progress (%u): refusing",
		m->root, s.journal.op);
	return -EUCLEAN;
}
