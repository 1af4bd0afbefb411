// SPDX-License-Identifier: GPL-2.0-only
/*
 * Moving the pins of an older layout to this one, in place: the chain.
 * Map by map, the changes of every layout since the pins' (maps/history.c)
 * are composed into the new map; one no layout changed is carried as it
 * is.  The new set is made whole in staging/ and marked complete by one
 * record; the loader points every attachment at programs bound to it,
 * then one renameat2(RENAME_EXCHANGE) makes it the live maps/.  A crash
 * before the record drops staging/; after it, the upgrade runs forward.
 * Config, state and slotted outer maps are never shared with the old set,
 * so the old journal, converted with the state, is settled on the new set
 * by this build's recovery without touching what the old programs read
 * but as their own recovery would (the lookup tables leave its slots
 * first; the upkeep rebuilds them).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include "maps/layout.h"

/* The largest value a conversion handles (the state map's). */
#define VALUE_MAX CLS_STATE_SIZE

/* The shape before change i (the slots' if slot). */
static const struct cls_map_spec *at(const struct cls_map_past *p,
				     unsigned int i, bool slot)
{
	return slot ? p->shape[i]->inner : p->shape[i];
}

/* Every element of in through every change since, into out. */
static int copy(int in, int out, const struct cls_map_past *p, bool slot)
{
	__u8 key[64], next[64], a[VALUE_MAX], b[VALUE_MAX];
	size_t vi, vo;
	void *prev = NULL;
	unsigned int i;

	while (!bpf_map_get_next_key(in, prev, next)) {
		memcpy(key, next, at(p, 0, slot)->key_size);
		prev = key;
		if (bpf_map_lookup_elem(in, key, a))
			return -errno;
		for (i = 0; i < p->n; i++) {
			vi = at(p, i, slot)->value_size;
			vo = at(p, i + 1, slot)->value_size;
			if (vi > VALUE_MAX || vo > VALUE_MAX)
				return -E2BIG;
			memset(b, 0, vo);
			if (p->change[i]->value)
				p->change[i]->value(key, a, b);
			else
				memcpy(b, a, vi < vo ? vi : vo);
			memcpy(a, b, vo);
		}
		if (bpf_map_update_elem(out, key, a, BPF_ANY))
			return -errno;
	}
	return errno == ENOENT ? 0 : -errno;
}

/* The maps in the slots: the same ones, or copies through the changes. */
static int copy_slots(int in, int out, const struct cls_map_past *p)
{
	__u32 g, id, n;
	int from, to, err = 0;
	char why[256];

	for (g = 0; g < p->shape[0]->max_entries && g < CLS_GENERATIONS; g++) {
		if (bpf_map_lookup_elem(in, &g, &id))
			continue; /* an empty slot */
		to = from = bpf_map_get_fd_by_id(id);
		err = from < 0 ? -errno
			       : cls_map_check(from, at(p, 0, true), &n, why,
					       sizeof(why));
		if (!err && p->n)
			err = to = cls_map_create(at(p, p->n, true), n);
		if (to >= 0 && to != from)
			err = copy(from, to, p, true);
		if (!err && bpf_map_update_elem(out, &g, &to, BPF_ANY))
			err = -errno;
		if (to >= 0 && to != from)
			close(to);
		if (from >= 0)
			close(from);
		if (err)
			return err;
	}
	return 0;
}

/* Map id of this layout from the old pins of layout `from`: *fd. */
static int move_map(int maps_fd, const char *root, int from, enum cls_map_id id,
		    int *fd)
{
	const struct cls_map_spec *s = &cls_map_specs[id];
	bool own = s->inner || id == CLS_M_CONFIG || id == CLS_M_STATE;
	struct cls_map_past p;
	__u32 entries = 0;
	int old = -1, err;
	char why[256];

	err = cls_map_past(id, from, &p);
	if (!err && !p.added) {
		old = cls_pin_open(maps_fd, p.name);
		snprintf(why, sizeof(why), "%s: %s", p.name, strerror(-old));
		err = old < 0 ? old
			      : cls_map_check(old, p.shape[0], &entries, why,
					      sizeof(why));
		if (err)
			cls_set_error("%s/maps/%s (layout %d)", root, why,
				      from);
	}
	if (!err && !p.added && !p.n && !own) {
		*fd = old; /* carried as it is */
		return 0;
	}
	*fd = err ? err : cls_map_create(s, s->inner ? 0 : entries);
	err = *fd < 0 ? *fd : 0;
	/* New, or a cache of another shape: empty (the upkeep fills it). */
	if (!err && !p.added && !(s->derived && p.n))
		err = s->inner ? copy_slots(old, *fd, &p)
			       : copy(old, *fd, &p, false);
	if (old >= 0)
		close(old);
	return err;
}

/* A state the chain made (layout 3 had none) is ours; it counts routes. */
static int adopt_state(struct cls_maps *n, struct cls_state *s)
{
	struct cls_route *r;
	size_t count, i;
	int err;

	if (s->magic == CLS_STATE_MAGIC)
		return 0;
	s->magic = CLS_STATE_MAGIC;
	err = cls_route_dump(n, 0, CLS_SRC_ALL, &r, &count);
	for (i = 0; !err && i < count; i++)
		s->routes[cls_family_slot(r[i].prefix.family)]
			 [!!(r[i].flags & CLS_ROUTE_SYNCED)]++;
	if (!err)
		free(r);
	return err;
}

/* The lookup tables out of the new set's slots: the upkeep rebuilds them. */
static int caches_out(struct cls_maps *n)
{
	__u32 g;
	int s, err = 0;

	for (s = 0; s < CLS_NR_SLOTTED && !err; s++)
		for (g = 0; g < CLS_GENERATIONS && !err; g++)
			if (cls_slot_spec(s)->derived)
				err = cls_slot_clear(n, s, g);
	return err;
}

/* This layout's version in config and state; the old journal settled. */
static int settle(struct cls_maps *n)
{
	struct cls_config cfg;
	struct cls_state s;
	int err;

	err = cls_config_read(n, &cfg);
	if (!err) {
		cfg.layout = CLS_LAYOUT_VERSION;
		err = cls_config_write(n, &cfg);
	}
	if (!err)
		err = cls_state_read(n, &s);
	if (!err)
		err = adopt_state(n, &s);
	if (!err) {
		s.layout = CLS_LAYOUT_VERSION;
		err = cls_state_write(n, &s);
	}
	if (!err && s.journal.op != CLS_OP_NONE)
		err = caches_out(n) ?: cls_recover(n);
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
	int st_fd = -1, err;

	err = cls_handle_adopt(&n, root, fds, o);
	if (err)
		return err;
	err = settle(&n);
	if (!err && mkdirat(dir_fd, "staging", 0700) < 0)
		err = -errno;
	if (!err && (st_fd = openat(dir_fd, "staging",
				    O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
		err = -errno;
	if (!err)
		err = cls_layout_pin(&n, st_fd);
	cls_step("migrate: pinned in staging");
	/* The record last: it says staging/ is complete. */
	if (!err)
		err = cls_state_read(&n, &s);
	if (!err) {
		s.journal.migrate.from = from;
		err = cls_journal_begin(&n, &s, CLS_OP_MIGRATE);
	}
	cls_step("migrate: recorded");
	if (st_fd >= 0)
		close(st_fd);
	cls_handle_release(&n);
	return err;
}

int cls_migrate_stage(int dir_fd, const char *root, int from,
		      const struct cls_open_opts *o)
{
	int fds[CLS_NR_MAPS], id, maps_fd, err;

	for (id = 0; id < CLS_NR_MAPS; id++)
		fds[id] = -1;
	if (from < (int)cls_layouts[0].version || from >= CLS_LAYOUT_VERSION) {
		cls_set_error("%s: pins are layout %d; this classifier moves "
			      "layouts %u to %d only ('classifier purge' "
			      "starts over)",
			      root, from, cls_layouts[0].version,
			      CLS_LAYOUT_VERSION - 1);
		return -EPROTO;
	}
	cls_set_error("%s", "");
	err = cls_dir_remove(dir_fd, "staging");
	maps_fd = err ? err
		      : openat(dir_fd, "maps",
			       O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (!err && maps_fd < 0)
		err = -errno;
	for (id = 0; id < CLS_NR_MAPS && !err; id++)
		err = move_map(maps_fd, root, from, id, &fds[id]);
	cls_step("migrate: maps made");
	if (!err)
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
	int st_fd, id, err = 0;

	for (id = 0; id < CLS_NR_MAPS; id++)
		fds[id] = -1;
	st_fd = openat(dir_fd, "staging",
		       O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (st_fd < 0)
		return -errno;
	for (id = 0; id < CLS_NR_MAPS && !err; id++) {
		fds[id] = cls_pin_open(st_fd, cls_map_specs[id].name);
		if (fds[id] < 0)
			err = fds[id];
	}
	close(st_fd);
	return err;
}

int cls_migrate_commit(int dir_fd, const char *root)
{
	struct cls_maps n;
	struct cls_state s;
	int fd, id, err;

	err = cls_share_dir(dir_fd, root, "staging", true);
	if (err)
		return err;
	if (renameat2(dir_fd, "staging", dir_fd, "maps", RENAME_EXCHANGE) < 0) {
		err = -errno;
		cls_set_error("%s: swapping in the new layout: %s", root,
			      strerror(errno));
		return err;
	}
	cls_step("migrate: exchanged");
	/* staging/ now holds the old pins: nothing reads them any more. */
	err = cls_dir_remove(dir_fd, "staging");
	cls_step("migrate: old pins removed");
	memset(&n, 0, sizeof(n));
	for (id = 0; id < CLS_NR_MAPS; id++)
		n.fd[id] = -1;
	fd = openat(dir_fd, "maps",
		    O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (!err && fd >= 0) {
		n.fd[CLS_M_STATE] = cls_pin_open(fd, "state");
		err = n.fd[CLS_M_STATE] < 0 ? n.fd[CLS_M_STATE]
					    : cls_state_read(&n, &s);
		if (!err)
			err = cls_journal_end(&n, &s);
		if (n.fd[CLS_M_STATE] >= 0)
			close(n.fd[CLS_M_STATE]);
	}
	if (fd >= 0)
		close(fd);
	else if (!err)
		err = -errno;
	return err;
}
