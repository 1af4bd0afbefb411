// SPDX-License-Identifier: GPL-2.0-only
/*
 * Moving the pins of an older layout to this one, in place: the chain.
 *
 * The old pins are checked against their layout's shapes (maps/history.c),
 * then each layout's changes are applied in turn, 3 -> 4 -> 5 -> ..., to a
 * set of maps held in memory: a map no layout changed is carried as it
 * is (counters keep counting), a changed one is made anew and filled by
 * its conversion.  The result is this build's layout, made whole in
 * staging/ with one record that marks it complete.  The loader then
 * points every attachment at programs bound to staging/ (both sets say
 * the same meanwhile), and one renameat2(RENAME_EXCHANGE) makes it the
 * live maps/.  A crash before the record: staging/ is dropped, the old
 * layout stays.  After it: the upgrade is run forward to the end.
 *
 * The new set shares only maps that hold what packets read (classes,
 * names, counters, the slots' tries and tables) with the old one: its
 * config, state and slotted outer maps are its own.  So the old layout's
 * journal, converted forward with the state, is settled on the new set by
 * this build's recovery without disturbing what the old programs read
 * (the old record itself stays until the exchange removes the old pins);
 * the lookup tables leave its slots first, and the upkeep builds them.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include "maps/history.h"
#include "maps/layout.h"

#define MAX_MAPS CLS_HISTORY_MAX_MAPS

struct set_map {
	const char *name;
	const struct cls_map_spec *spec; /* its shape in that layout */
	int fd;				 /* -1: not made yet */
	bool made;			 /* by this upgrade, else the old pin */
};

/* The maps of one layout. */
struct set {
	unsigned int version;
	struct set_map map[MAX_MAPS];
	size_t n;
};

struct cls_chain {
	const char *root;
	struct set old, new;
};

static struct set_map *find(struct set *s, const char *name)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		if (!strcmp(s->map[i].name, name))
			return &s->map[i];
	return NULL;
}

static const struct cls_map_change *change_of(const struct cls_layout *l,
					      const char *name)
{
	const struct cls_map_change *c;

	for (c = l->changes; c->name; c++)
		if (!strcmp(c->name, name))
			return c;
	return NULL;
}

/* The maps of layout `version`, none made yet. */
static int shapes_of(unsigned int version, struct set *s)
{
	struct cls_layout_map maps[MAX_MAPS];
	size_t i;
	int err;

	memset(s, 0, sizeof(*s));
	s->version = version;
	err = cls_layout_maps(version, maps, &s->n);
	for (i = 0; i < s->n; i++)
		s->map[i] = (struct set_map){
			.name = maps[i].name, .spec = maps[i].spec, .fd = -1};
	if (err)
		s->n = 0;
	return err;
}

static void set_close(struct set *s)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		if (s->map[i].fd >= 0)
			close(s->map[i].fd);
	s->n = 0;
}

static int bad_pin(const char *root, const char *why, int err)
{
	cls_set_error("%s/maps/%s", root, why);
	return err;
}

/* The old pins, each checked against its layout's shape. */
static int open_old(struct cls_chain *c, int maps_fd, unsigned int from)
{
	char why[256];
	size_t i;
	int err;

	err = shapes_of(from, &c->old);
	for (i = 0; i < c->old.n && !err; i++) {
		struct set_map *m = &c->old.map[i];

		m->fd = cls_pin_open(maps_fd, m->name);
		if (m->fd == -ENOENT) {
			snprintf(why, sizeof(why),
				 "%s is missing: these are not whole layout "
				 "%u pins ('classifier purge' starts over)",
				 m->name, from);
			return bad_pin(c->root, why, -EUCLEAN);
		}
		if (m->fd < 0) {
			snprintf(why, sizeof(why), "%s: %s", m->name,
				 strerror(-m->fd));
			return bad_pin(c->root, why, m->fd);
		}
		err = cls_map_check(m->fd, m->spec, NULL, why, sizeof(why));
		if (err)
			return bad_pin(c->root, why, err);
	}
	return err;
}

static int entries_of(int fd, __u32 *n)
{
	struct bpf_map_info info = {};
	__u32 len = sizeof(info);

	if (bpf_obj_get_info_by_fd(fd, &info, &len))
		return -errno;
	*n = info.max_entries;
	return 0;
}

/* The map in slot g of an outer map, -ENOENT if empty. */
static int slot_fd(int outer, __u32 g)
{
	__u32 id;
	int fd;

	if (bpf_map_lookup_elem(outer, &g, &id))
		return -errno;
	fd = bpf_map_get_fd_by_id(id);
	return fd < 0 ? -errno : fd;
}

static int slot_put(int outer, __u32 g, int fd)
{
	return bpf_map_update_elem(outer, &g, &fd, BPF_ANY) ? -errno : 0;
}

#define CHUNK 4096

static void convert_one(cls_value_fn fn, const void *key, const void *old,
			size_t vi, void *new, size_t vo)
{
	memset(new, 0, vo);
	if (fn)
		fn(key, old, new);
	else
		memcpy(new, old, vi < vo ? vi : vo);
}

/* Kernels without batch operations on this map type. */
static int copy_one_by_one(int in, const struct cls_map_spec *is, int out,
			   size_t vo, cls_value_fn fn, __u8 *key, __u8 *val,
			   __u8 *conv)
{
	__u8 *next = key + is->key_size;
	void *prev = NULL;

	while (!bpf_map_get_next_key(in, prev, next)) {
		memcpy(key, next, is->key_size);
		prev = key;
		if (bpf_map_lookup_elem(in, key, val))
			return -errno;
		convert_one(fn, key, val, is->value_size, conv, vo);
		if (bpf_map_update_elem(out, key, conv, BPF_ANY))
			return -errno;
	}
	return errno == ENOENT ? 0 : -errno;
}

static bool no_batch(int err)
{
	return err == -EINVAL || err == -ENOTSUPP || err == -EOPNOTSUPP;
}

/* count converted elements into out, in one call where the kernel can. */
static int put(int out, const __u8 *keys, size_t ks, const __u8 *vals,
	       size_t vs, __u32 count)
{
	LIBBPF_OPTS(bpf_map_batch_opts, opts, .elem_flags = BPF_ANY);
	__u32 i, n = count;
	int err;

	if (!count || !bpf_map_update_batch(out, keys, vals, &n, &opts))
		return 0;
	err = -errno;
	if (n || !no_batch(err))
		return err;
	for (i = 0; i < count; i++)
		if (bpf_map_update_elem(out, keys + i * ks, vals + i * vs,
					BPF_ANY))
			return -errno;
	return 0;
}

/* Elements of `in` through fn (NULL: widened with zeros) into `out`. */
static int copy_elems(int in, const struct cls_map_spec *is, int out,
		      const struct cls_map_spec *os, cls_value_fn fn)
{
	size_t ks = is->key_size, vi = is->value_size, vo = os->value_size;
	__u8 *keys, *vals, *conv, *batch;
	void *at = NULL;
	__u32 count, i;
	int err = 0, done = 0;

	if (ks != os->key_size)
		return -EINVAL;
	keys = malloc(CHUNK * ks);
	vals = malloc(CHUNK * vi);
	conv = malloc(CHUNK * vo);
	batch = malloc(2 * ks);
	if (!keys || !vals || !conv || !batch)
		err = -ENOMEM;
	while (!err && !done) {
		count = CHUNK;
		if (bpf_map_lookup_batch(in, at, batch, keys, vals, &count,
					 NULL)) {
			err = -errno;
			if (!at && no_batch(err)) {
				err = copy_one_by_one(in, is, out, vo, fn,
						      batch, vals, conv);
				break;
			}
			if (err != -ENOENT)
				break;
			err = 0;
			done = 1;
		}
		at = batch;
		for (i = 0; i < count; i++)
			convert_one(fn, keys + i * ks, vals + i * vi, vi,
				    conv + i * vo, vo);
		err = put(out, keys, ks, conv, vo, count);
	}
	free(keys);
	free(vals);
	free(conv);
	free(batch);
	return err;
}

/* The old map's elements into the new one, slot by slot if slotted. */
static int convert(const struct set_map *o, struct set_map *n,
		   cls_value_fn fn)
{
	const struct cls_map_spec *is = o->spec->inner, *os = n->spec->inner;
	char why[256];
	__u32 g, entries;
	int in, out, err = 0;

	if (!is)
		return copy_elems(o->fd, o->spec, n->fd, n->spec, fn);
	for (g = 0; g < o->spec->max_entries && g < n->spec->max_entries &&
		    !err;
	     g++) {
		in = slot_fd(o->fd, g);
		if (in == -ENOENT)
			continue;
		if (in < 0)
			return in;
		err = cls_map_check(in, is, &entries, why, sizeof(why));
		out = err ? err : cls_map_create(os, entries);
		err = out < 0 ? out : copy_elems(in, is, out, os, fn);
		if (!err)
			err = slot_put(n->fd, g, out);
		if (out >= 0)
			close(out);
		close(in);
	}
	return err;
}

/* One map of the new layout, made and filled as its change says. */
static int make(struct cls_chain *c, struct set_map *n,
		const struct cls_map_change *ch)
{
	struct set_map *o = ch->added ? NULL
				      : find(&c->old, ch->was ? ch->was
							      : ch->name);
	__u32 entries = 0;
	int err;

	if (!ch->added && !o)
		return -EINVAL; /* the history says a map that is not there */
	if (o && !n->spec->inner && (err = entries_of(o->fd, &entries)))
		return err;
	n->fd = cls_map_create(n->spec, entries);
	if (n->fd < 0)
		return n->fd;
	n->made = true;
	if (ch->build) {
		struct cls_step_maps made = {.n = c->new.n};
		size_t i;

		for (i = 0; i < made.n; i++) {
			made.name[i] = c->new.map[i].name;
			made.fd[i] = c->new.map[i].fd;
		}
		return ch->build(&made, n->fd);
	}
	if (o && (ch->value || !n->spec->derived))
		return convert(o, n, ch->value);
	return 0; /* new, or a cache: the upkeep fills it */
}

/* From the old set's layout to the next: the new set. */
static int step(struct cls_chain *c)
{
	const struct cls_layout *l = cls_history_of(c->old.version + 1);
	const struct cls_map_change *ch;
	struct set_map *o;
	size_t i;
	int err;

	err = l ? shapes_of(l->version, &c->new) : -ENOENT;
	for (i = 0; i < c->new.n && !err; i++) {
		struct set_map *n = &c->new.map[i];

		ch = change_of(l, n->name);
		if (ch) {
			err = make(c, n, ch);
			continue;
		}
		o = find(&c->old, n->name);
		if (!o)
			return -EINVAL;
		n->fd = dup(o->fd);
		n->made = o->made;
		if (n->fd < 0)
			err = -errno;
	}
	if (err)
		return err;
	set_close(&c->old);
	c->old = c->new;
	c->new.n = 0;
	return 0;
}

/*
 * Config, state and the slotted maps' outer maps of the old pins get
 * copies of their own: settling the journal and the upkeep write them,
 * and the old programs read the old ones until the exchange.
 */
static int unshare(struct set_map *m, enum cls_map_id id)
{
	const struct cls_map_spec *s = m->spec;
	__u32 g;
	int fd, in, err = 0;

	if (m->made || (!s->inner && id != CLS_M_CONFIG && id != CLS_M_STATE))
		return 0;
	fd = cls_map_create(s, 0);
	if (fd < 0)
		return fd;
	if (!s->inner)
		err = copy_elems(m->fd, s, fd, s, NULL);
	for (g = 0; s->inner && g < s->max_entries && !err; g++) {
		in = slot_fd(m->fd, g);
		if (in == -ENOENT)
			continue;
		err = in < 0 ? in : slot_put(fd, g, in);
		if (in >= 0)
			close(in);
	}
	if (err) {
		close(fd);
		return err;
	}
	close(m->fd);
	m->fd = fd;
	m->made = true;
	return 0;
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

/* This layout's version in config and state, and the old journal settled. */
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
	if (!err) {
		s.layout = CLS_LAYOUT_VERSION;
		err = cls_state_write(n, &s);
	}
	if (!err && s.journal.op != CLS_OP_NONE)
		err = caches_out(n);
	if (!err && s.journal.op != CLS_OP_NONE)
		err = cls_recover(n);
	cls_step("migrate: settled");
	if (!err)
		err = cls_table_maintain(n);
	cls_step("migrate: tables built");
	return err;
}

/* The new set, settled, pinned in staging/, then the record. */
static int stage(struct cls_chain *c, int dir_fd, int from,
		 const struct cls_open_opts *o)
{
	int fds[CLS_NR_MAPS], id, st_fd = -1, err = 0;
	struct cls_maps n;
	struct cls_state s;

	for (id = 0; id < CLS_NR_MAPS && !err; id++)
		err = unshare(&c->old.map[id], id);
	if (err)
		return err;
	for (id = 0; id < CLS_NR_MAPS; id++) {
		fds[id] = c->old.map[id].fd;
		c->old.map[id].fd = -1;
	}
	err = cls_handle_adopt(&n, c->root, fds, o);
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
	struct cls_chain c = {.root = root};
	char what[32];
	int maps_fd, err;

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
	if (!err)
		err = open_old(&c, maps_fd, from);
	while (!err && c.old.version < CLS_LAYOUT_VERSION) {
		err = step(&c);
		snprintf(what, sizeof(what), "migrate: layout %u made",
			 c.old.version);
		cls_step(what);
	}
	if (!err)
		err = stage(&c, dir_fd, from, o);
	set_close(&c.old);
	set_close(&c.new);
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
