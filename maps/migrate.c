// SPDX-License-Identifier: GPL-2.0-only
/*
 * Moving the pins of an older layout to this one, in place: the chain.
 * Map by map, the changes of every layout since the pins' (maps/history.c)
 * are composed into a new map; one no layout changed is carried as it is.
 * The set is made whole in staging/ and marked complete by one record;
 * the loader points every attachment at programs bound to it, then one
 * renameat2(RENAME_EXCHANGE) makes it the live maps/.  A crash before the
 * record drops staging/; after it, the upgrade runs forward.  Config,
 * state and the slotted outer maps are never shared with the old set, so
 * the old journal, converted with the state, is settled on the new set by
 * this build's recovery without touching what the old programs read but
 * as their own recovery would (the lookup tables leave its slots first;
 * the upkeep rebuilds them).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "maps/layout.h"

/* The largest value a conversion handles (the state map's). */
#define VALUE_MAX CLS_STATE_SIZE
#define GENS	  CLS_GENERATIONS

/* Shape i of the map (see struct cls_map_past), or of its slots' maps. */
static const struct cls_map_spec *at(const struct cls_map_past *p,
				     unsigned int i, bool slots)
{
	return slots ? p->shape[i]->inner : p->shape[i];
}

static int move(int old, const struct cls_map_past *p, bool slots, bool own,
		const char *root);

/* Every element of in into out, through the changes; slots' maps moved. */
static int copy(int in, int out, const struct cls_map_past *p, bool slots,
		const char *root)
{
	__u8 key[64], next[64], a[VALUE_MAX], b[VALUE_MAX];
	bool outer = !slots && p->shape[0]->inner;
	const struct cls_map_change *c;
	unsigned int i, vi, vo;
	void *prev = NULL;
	int fd = -1, err = 0;

	for (i = 0; i <= p->n; i++)
		if (at(p, i, slots)->value_size > VALUE_MAX)
			return -E2BIG;
	while (!err && !bpf_map_get_next_key(in, prev, next)) {
		memcpy(key, next, at(p, p->n, slots)->key_size);
		prev = key;
		if (bpf_map_lookup_elem(in, key, a)) {
			err = outer && errno == ENOENT ? 0 : -errno; /* empty */
			continue;
		}
		for (i = p->n; !outer && i-- > 0;) {
			c = p->change[i];
			vi = c->keep ?: at(p, i + 1, slots)->value_size;
			vo = at(p, i, slots)->value_size;
			memset(b, 0, vo);
			if (c->value)
				c->value(key, a, b);
			else
				memcpy(b, a, vi < vo ? vi : vo);
			memcpy(a, b, vo);
		}
		if (outer) {
			fd = bpf_map_get_fd_by_id(*(__u32 *)a);
			err = fd = fd < 0 ? -errno
					  : move(fd, p, true, false, root);
			memcpy(a, &fd, sizeof(fd));
		}
		if (err >= 0 && bpf_map_update_elem(out, key, a, BPF_ANY))
			err = -errno;
		if (fd >= 0)
			close(fd);
		err = err < 0 ? err : 0;
	}
	return err ?: errno == ENOENT ? 0 : -errno;
}

/*
 * Map old, of the pins' layout (closed here), as this one has it: the
 * same map, or a new one with its elements through the changes since.
 */
static int move(int old, const struct cls_map_past *p, bool slots, bool own,
		const char *root)
{
	const struct cls_map_spec *s = at(p, 0, slots);
	int fd, err;
	char why[256];
	__u32 n;

	err = cls_map_check(old, at(p, p->n, slots), &n, why, sizeof(why));
	if (err)
		cls_set_error("%s/maps/%s (layout %u)", root, why, p->from);
	if (!err && !p->n && !own)
		return old; /* carried as it is */
	fd = err ?: cls_map_create(s, s->inner ? 0 : n);
	/* A cache of another shape starts empty: the upkeep fills it. */
	if (fd >= 0 && !(s->derived && p->n))
		err = copy(old, fd, p, slots, root);
	if (err && fd >= 0)
		close(fd);
	close(old);
	return err ?: fd;
}

/* Map id of this layout from the pins (in maps_fd) of layout `from`. */
static int move_map(int maps_fd, const char *root, int from, enum cls_map_id id)
{
	const struct cls_map_spec *s = &cls_map_specs[id];
	struct cls_map_past p;
	int old;

	cls_map_past(id, from, &p);
	/* A map indexed by class made new: for the old set's room. */
	if (p.added)
		return cls_map_create(
			s, cls_class_entries(id, CLS_CLASSES_BEFORE_8,
					     libbpf_num_possible_cpus()));
	old = cls_pin_open(maps_fd, p.name);
	if (old < 0)
		cls_set_error("%s/maps/%s: %s (layout %d)", root, p.name,
			      strerror(-old), from);
	/* The new set's own: config, state and the outer maps (see above). */
	return old < 0 ? old
		       : move(old, &p, false,
			      s->inner || id == CLS_M_CONFIG ||
				      id == CLS_M_STATE,
			      root);
}

/*
 * This layout's version in config and state (a state the chain made, as
 * from layout 3, is given its magic and the routes' counts); the old
 * journal settled; the tables built.
 */
static int settle(struct cls_maps *n)
{
	struct cls_route *r = NULL;
	struct cls_config cfg;
	struct cls_state s;
	size_t count = 0, i;
	int err, k;

	err = cls_config_read(n, &cfg);
	cfg.layout = CLS_LAYOUT_VERSION;
	if (!err)
		err = cls_config_write(n, &cfg);
	if (!err)
		err = cls_state_read(n, &s);
	if (!err && s.magic != CLS_STATE_MAGIC)
		err = cls_route_dump(n, 0, CLS_SRC_ALL, &r, &count);
	for (i = 0; i < count; i++)
		s.routes[cls_family_slot(r[i].prefix.family)]
			[!!(r[i].flags & CLS_ROUTE_SYNCED)]++;
	free(r);
	s.magic = CLS_STATE_MAGIC;
	s.layout = CLS_LAYOUT_VERSION;
	if (!err)
		err = cls_state_write(n, &s);
	/* The lookup tables out of its slots first (the upkeep rebuilds). */
	for (k = 0; !err && s.journal.op && k < CLS_NR_SLOTTED * GENS; k++)
		if (cls_slot_spec(k / GENS)->derived)
			err = cls_slot_clear(n, k / GENS, k % GENS);
	if (!err)
		err = cls_recover(n);
	cls_step("migrate: settled");
	if (!err)
		err = cls_table_maintain(n);
	cls_step("migrate: tables built");
	return err;
}

/* The new set settled, pinned in staging/, then the record. */
static int stage(int dir_fd, const char *root, int from, int fds[CLS_NR_MAPS],
		 const struct cls_open_opts *o)
{
	struct cls_maps n;
	struct cls_state s;
	int err;

	err = cls_handle_adopt(&n, root, fds, o);
	if (err)
		return err;
	err = settle(&n);
	if (!err)
		err = cls_layout_pin(&n, dir_fd);
	cls_step("migrate: pinned in staging");
	/* The record last: it says staging/ is complete. */
	if (!err)
		err = cls_state_read(&n, &s);
	s.journal.migrate.from = from;
	if (!err)
		err = cls_journal_begin(&n, &s, CLS_OP_MIGRATE);
	cls_step("migrate: recorded");
	cls_handle_release(&n);
	return err;
}

int cls_migrate_stage(int dir_fd, const char *root, int from,
		      const struct cls_open_opts *o)
{
	int fds[CLS_NR_MAPS], id, maps_fd = -1, err;

	if (from < CLS_LAYOUT_OLDEST || from >= CLS_LAYOUT_VERSION) {
		cls_set_error("%s: pins are layout %d; this classifier moves "
			      "layouts %d to %d only ('classifier purge' "
			      "starts over)",
			      root, from, CLS_LAYOUT_OLDEST,
			      CLS_LAYOUT_VERSION - 1);
		return -EPROTO;
	}
	cls_set_error("%s", "");
	for (id = 0; id < CLS_NR_MAPS; id++)
		fds[id] = -1;
	err = cls_dir_remove(dir_fd, "staging");
	if (!err)
		err = maps_fd = cls_dir_open(dir_fd, "maps");
	for (id = 0; id < CLS_NR_MAPS && err >= 0; id++)
		err = fds[id] = move_map(maps_fd, root, from, id);
	cls_step("migrate: maps made");
	if (err >= 0)
		err = stage(dir_fd, root, from, fds, o);
	for (id = 0; id < CLS_NR_MAPS; id++)
		if (fds[id] >= 0)
			close(fds[id]);
	if (maps_fd >= 0)
		close(maps_fd);
	if (err && !*cls_open_error())
		cls_set_error("moving %s to layout %d: %s", root,
			      CLS_LAYOUT_VERSION, strerror(-err));
	return err;
}

int cls_staging_fds(int dir_fd, int fds[CLS_NR_MAPS])
{
	int st_fd = cls_dir_open(dir_fd, "staging"), id, err = 0;

	for (id = 0; id < CLS_NR_MAPS; id++)
		fds[id] = -1;
	for (id = 0; id < CLS_NR_MAPS && st_fd >= 0 && !err; id++) {
		fds[id] = cls_pin_open(st_fd, cls_map_specs[id].name);
		err = fds[id] < 0 ? fds[id] : 0;
	}
	if (st_fd >= 0)
		close(st_fd);
	return st_fd < 0 ? st_fd : err;
}

int cls_migrate_commit(int dir_fd, const char *root)
{
	struct cls_maps n;
	struct cls_state s;
	int err;

	err = cls_share_dir(dir_fd, root, "staging", true);
	if (!err &&
	    renameat2(dir_fd, "staging", dir_fd, "maps", RENAME_EXCHANGE) < 0) {
		err = -errno;
		cls_set_error("%s: swapping in the new layout: %s", root,
			      strerror(errno));
	}
	if (err)
		return err;
	cls_step("migrate: exchanged");
	/* staging/ now holds the old pins: nothing reads them any more. */
	err = cls_dir_remove(dir_fd, "staging");
	cls_step("migrate: old pins removed");
	/* The record ends in the live state (the one map used here). */
	memset(&n, 0, sizeof(n));
	n.fd[CLS_M_STATE] = err ?: cls_pin_open(dir_fd, "maps/state");
	if (n.fd[CLS_M_STATE] < 0)
		return n.fd[CLS_M_STATE];
	err = cls_state_read(&n, &s) ?: cls_journal_end(&n, &s);
	close(n.fd[CLS_M_STATE]);
	return err;
}
