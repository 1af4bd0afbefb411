// SPDX-License-Identifier: GPL-2.0-only
/*
 * Moving the pins of an older layout to this one, in place.
 *
 * The new layout is built whole in staging/: maps whose shape did not
 * change (classes, names, counters) are pinned there as they are, so
 * counters keep counting through the move; the others are made new and
 * filled from the old ones.  The record in staging/state marks it
 * complete.  The loader then points every attachment at programs bound to
 * staging/ (both sets of maps say the same meanwhile), and one
 * renameat2(RENAME_EXCHANGE) makes staging/ the live maps/.  A crash
 * before the record: staging/ is dropped, the old layout stays.  After
 * it: the upgrade is run forward to the end.
 *
 * Layout 3 (classifier until 2026-11-30): config {stats_on, abi_version,
 * lookup_mode, pad}; routes_v4/routes_v6, one-slot ARRAY_OF_MAPS whose
 * tries map a prefix to a bare class index; dir24, a flat table; no IPv6
 * table.
 *
 * Layout 4 (until 2026-12-01): this one but for the IPv6 table, in 8-byte
 * elements, and config's last word, unused.  Its tries and IPv4 table are
 * carried with their slots; the IPv6 table is rebuilt from the live trie.
 * A change it left half done is first finished on its own pins, as its
 * classifier would have (the journal is the same): config and state are
 * copied after that.
 */
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include "maps/layout.h"

struct v3_config {
	__u32 stats_on;
	__u32 abi_version;
	__u32 lookup_mode;
	__u32 pad;
};

/* Maps an older layout shares with this one, shape for shape. */
static const enum cls_map_id carried_3[] = {CLS_M_CLASSES, CLS_M_CLASS_META,
					    CLS_M_STATS};
static const enum cls_map_id carried_4[] = {
	CLS_M_CLASSES, CLS_M_CLASS_META, CLS_M_STATS,
	CLS_M_TRIE_V4, CLS_M_TRIE_V6,	 CLS_M_TABLE_V4};

static int open_dir(int dir_fd, const char *name)
{
	int fd = openat(dir_fd, name,
			O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

	return fd < 0 ? -errno : fd;
}

static int carry(struct cls_maps *n, int old_fd, const char *root, int from)
{
	const enum cls_map_id *carried = from == 3 ? carried_3 : carried_4;
	size_t i, count = from == 3 ? sizeof(carried_3) / sizeof(carried_3[0])
				    : sizeof(carried_4) / sizeof(carried_4[0]);
	char why[256];
	int err;

	for (i = 0; i < count; i++) {
		enum cls_map_id id = carried[i];

		n->fd[id] = cls_pin_open(old_fd, cls_map_specs[id].name);
		if (n->fd[id] < 0) {
			cls_set_error("%s/maps/%s: %s", root,
				      cls_map_specs[id].name,
				      strerror(-n->fd[id]));
			return n->fd[id];
		}
		err = cls_map_check(n->fd[id], &cls_map_specs[id], NULL, why,
				    sizeof(why));
		if (err) {
			cls_set_error("%s/maps/%s", root, why);
			return err;
		}
	}
	return 0;
}

/* Every route of one old trie, re-encoded, into the new trie in slot 0. */
static int move_routes(struct cls_maps *n, int old_fd, const char *name,
		       int family, struct cls_route **out, size_t *count)
{
	enum cls_slotted s = family == AF_INET6 ? CLS_S_TRIE_V6 : CLS_S_TRIE_V4;
	size_t cap = 0;
	__u32 zero = 0, id;
	int outer, trie, fd, err;

	*out = NULL;
	*count = 0;
	outer = cls_pin_open(old_fd, name);
	if (outer < 0)
		return outer;
	trie = bpf_map_lookup_elem(outer, &zero, &id)
		       ? -errno
		       : bpf_map_get_fd_by_id(id);
	if (trie < 0 && trie != -ENOENT)
		trie = -errno;
	close(outer);
	if (trie < 0)
		return trie;
	/* A bare class index reads as a hand route of unknown length. */
	err = cls_trie_dump(trie, family, CLS_SRC_ALL, out, count, &cap);
	close(trie);
	if (!err)
		err = cls_route_sort(*out, *count);
	fd = err ? err : cls_slot_get(n, s, 0);
	if (fd < 0)
		return fd;
	err = cls_trie_fill(fd, family, *out, *count);
	close(fd);
	return err;
}

/* One entry of an old map, by pin name. */
static int read_old(int old_fd, const char *name, void *value)
{
	__u32 zero = 0;
	int fd = cls_pin_open(old_fd, name), err;

	if (fd < 0)
		return fd;
	err = bpf_map_lookup_elem(fd, &zero, value) ? -errno : 0;
	close(fd);
	return err;
}

/*
 * The IPv6 table the policy in s wants for these routes (address order)
 * into slot gen, and its format into config.
 */
static int table6_into(struct cls_maps *n, const struct cls_state *s,
		       const struct cls_route *r, size_t count, __u32 gen)
{
	int table6, err;
	__u8 format6;

	err = cls_table6_build(s, r, count, &table6, &format6);
	if (!err && table6 >= 0)
		err = cls_slot_set(n, CLS_S_TABLE_V6, gen, table6);
	if (!err)
		err = cls_table6_format_set(n, gen, format6);
	if (table6 >= 0)
		close(table6);
	return err;
}

static int fill_new(struct cls_maps *n, int old_fd, struct cls_state *s)
{
	struct cls_route *v4 = NULL, *v6 = NULL;
	struct v3_config old;
	struct cls_config cfg;
	size_t n4, n6;
	int table = -1, err;

	err = read_old(old_fd, "config", &old);
	if (!err)
		err = cls_config_read(n, &cfg);
	if (!err) {
		cfg.stats_on = old.stats_on;
		err = cls_config_write(n, &cfg);
	}
	if (!err)
		err = move_routes(n, old_fd, "routes_v4", AF_INET, &v4, &n4);
	if (!err)
		err = move_routes(n, old_fd, "routes_v6", AF_INET6, &v6, &n6);
	if (!err)
		err = cls_state_read(n, s);
	if (!err) {
		s->routes[0][0] = n4;
		s->routes[1][0] = n6;
		err = cls_table_build(s, v4, n4, &table);
	}
	if (!err && table >= 0)
		err = cls_slot_set(n, CLS_S_TABLE_V4, 0, table);
	if (!err)
		err = table6_into(n, s, v6, n6, 0);
	if (table >= 0)
		close(table);
	free(v4);
	free(v6);
	return err;
}

/* The IPv6 table for the live generation, from the carried live trie. */
static int table6_from_trie(struct cls_maps *n, const struct cls_state *s,
			    __u32 gen)
{
	struct cls_route *r = NULL;
	size_t count = 0, cap = 0;
	int trie, err;

	trie = cls_slot_get(n, CLS_S_TRIE_V6, gen);
	if (trie < 0)
		return trie;
	err = cls_trie_dump(trie, AF_INET6, CLS_SRC_ALL, &r, &count, &cap);
	close(trie);
	if (!err)
		err = cls_route_sort(r, count);
	if (!err)
		err = table6_into(n, s, r, count, gen);
	free(r);
	return err;
}

static int fill_from_4(struct cls_maps *n, int old_fd, const char *root,
		       const struct cls_open_opts *o, struct cls_state *s)
{
	struct cls_config old, cfg;
	int err;

	err = read_old(old_fd, "state", s);
	if (!err && s->journal.op != CLS_OP_NONE)
		err = cls_recover_previous(old_fd, root, o);
	if (!err)
		err = read_old(old_fd, "state", s);
	if (!err)
		err = read_old(old_fd, "config", &old);
	if (!err)
		err = cls_config_read(n, &cfg);
	if (err)
		return err;
	cfg.stats_on = old.stats_on;
	cfg.gen = old.gen & (CLS_GENERATIONS - 1);
	err = cls_config_write(n, &cfg);
	s->layout = CLS_LAYOUT_VERSION;
	if (!err)
		err = cls_state_write(n, s);
	return err ? err : table6_from_trie(n, s, cfg.gen);
}

int cls_migrate_stage(int dir_fd, const char *root, int from,
		      const struct cls_open_opts *o)
{
	struct cls_maps n;
	struct cls_state s;
	int old_fd = -1, st_fd = -1, id, err;

	memset(&n, 0, sizeof(n));
	for (id = 0; id < CLS_NR_MAPS; id++)
		n.fd[id] = -1;
	if (from != 3 && from != 4) {
		cls_set_error("%s: pins are layout %d; this classifier moves "
			      "layouts 3 and 4 only ('classifier purge' starts "
			      "over)",
			      root, from);
		return -EPROTO;
	}
	err = cls_dir_remove(dir_fd, "staging");
	if (!err)
		err = old_fd = open_dir(dir_fd, "maps");
	if (err >= 0)
		err = carry(&n, old_fd, root, from);
	if (!err)
		err = cls_layout_new_maps(&n);
	cls_step("migrate: maps made");
	if (!err)
		err = from == 3 ? fill_new(&n, old_fd, &s)
				: fill_from_4(&n, old_fd, root, o, &s);
	cls_step("migrate: maps filled");
	if (!err && mkdirat(dir_fd, "staging", 0700) < 0)
		err = -errno;
	if (!err)
		err = st_fd = open_dir(dir_fd, "staging");
	if (err >= 0)
		err = cls_layout_pin(&n, st_fd);
	cls_step("migrate: pinned in staging");
	/* The record last: it says staging/ is complete. */
	if (!err) {
		s.journal.migrate.from = from;
		err = cls_journal_begin(&n, &s, CLS_OP_MIGRATE);
	}
	cls_step("migrate: recorded");
	for (id = 0; id < CLS_NR_MAPS; id++)
		if (n.fd[id] >= 0)
			close(n.fd[id]);
	if (old_fd >= 0)
		close(old_fd);
	if (st_fd >= 0)
		close(st_fd);
	if (err < 0 && !*cls_open_error())
		cls_set_error("moving %s to layout %d: %s", root,
			      CLS_LAYOUT_VERSION, strerror(-err));
	return err < 0 ? err : 0;
}

int cls_staging_fds(int dir_fd, int fds[CLS_NR_MAPS])
{
	int st_fd, id, err = 0;

	for (id = 0; id < CLS_NR_MAPS; id++)
		fds[id] = -1;
	st_fd = open_dir(dir_fd, "staging");
	if (st_fd < 0)
		return st_fd;
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
	fd = open_dir(dir_fd, "maps");
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
		err = fd;
	return err;
}
