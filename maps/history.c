// SPDX-License-Identifier: GPL-2.0-only
/*
 * Every layout that landed, and what changed from the one before it: the
 * maps whose shape or meaning changed, each with its shape before and
 * one conversion (or none: see struct cls_map_change).  Everything not
 * named is carried as it is.  maps/migrate.c runs the chain from any of
 * them to this build's in staging/.
 *
 * The shapes and records of older layouts are frozen here as they were
 * built; a conversion writes its own layout's records.  Those of the
 * newest are this build's types: before changing one of those, copy its
 * definition here (as struct v5_class below) for the conversions that
 * write it.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include "maps/history.h"

#define SHAPE(nm, ty, key, val, n, fl, sz)                                     \
	.name = nm, .type = BPF_MAP_TYPE_##ty, .key_size = key,                \
	.value_size = val, .max_entries = n, .flags = fl,                      \
	.size = CLS_SIZE_##sz

#define OUTER_OF(nm, slots, in)                                                \
	{                                                                      \
		SHAPE(nm, ARRAY_OF_MAPS, 4, 4, slots, 0, FIXED), .inner = in,  \
	}

/*
 * Layout 3 (until 2026-11-30): maps made by libbpf from the BPF object.
 * config {stats_on, abi_version, lookup_mode, pad}; routes_v4/routes_v6,
 * one-slot ARRAY_OF_MAPS whose tries map a prefix to a bare class index;
 * dir24, a flat IPv4 table; no IPv6 table, no state map.
 */
struct v3_config {
	__u32 stats_on;
	__u32 abi_version;
	__u32 lookup_mode;
	__u32 pad;
};

static const struct cls_map_spec v3_config = {
	SHAPE("config", ARRAY, 4, sizeof(struct v3_config), 1, 0, FIXED),
};
static const struct cls_map_spec v3_trie4 = {
	SHAPE("cls_routes_v4", LPM_TRIE, sizeof(struct cls_v4_key), 4,
	      CLS_MAX_ROUTES_V4, BPF_F_NO_PREALLOC, FIXED),
};
static const struct cls_map_spec v3_trie6 = {
	SHAPE("cls_routes_v6", LPM_TRIE, sizeof(struct cls_v6_key), 4,
	      CLS_MAX_ROUTES_V6, BPF_F_NO_PREALLOC, FIXED),
};
static const struct cls_map_spec v3_routes4 = OUTER_OF("routes_v4", 1,
						       &v3_trie4);
static const struct cls_map_spec v3_routes6 = OUTER_OF("routes_v6", 1,
						       &v3_trie6);
static const struct cls_map_spec v3_dir24 = {
	SHAPE("dir24", ARRAY, 4, 8, 1, BPF_F_MMAPABLE, BY_NEED),
};

/* Layout 4 (until 2026-12-01): the IPv6 table in 8-byte elements. */
static const struct cls_map_spec v4_table6_inner = {
	SHAPE("cls_table_v6", ARRAY, 4, 8, 1, BPF_F_MMAPABLE | BPF_F_INNER_MAP,
	      BY_NEED),
};
static const struct cls_map_spec v4_table6 = OUTER_OF("table_v6",
						      CLS_GENERATIONS,
						      &v4_table6_inner);

/*
 * Layout 5 (until 9ee4d3b): 12-byte classes with 16-bit flags, 32-byte
 * names, and a state map whose journal (112 bytes) held them.
 */
struct v5_class {
	__u32 classid;
	__u32 mark;
	__u16 flags;
	__u8 dscp;
	__u8 pad;
};

struct v5_class_meta {
	char name[CLS_NAME_MAX];
};

/* Layouts 4 and 5's state map: the journal before the sync status. */
struct v5_state {
	__u32 magic;
	__u32 layout;
	__u32 class_gen;
	__u32 table_mode;
	__u32 table_groups;
	__u32 pad;
	__u32 routes[2][2];
	struct {
		__u32 op, phase, pid, pad;
		union {
			struct {
				__u32 idx;
				__u32 del;
				struct v5_class cls;
				struct v5_class_meta meta;
			} cls;
			__u8 raw[96];
		};
	} journal;
	__u8 sync[48];
	__u8 reserved[312];
};

_Static_assert(sizeof(struct v5_class) == 12, "layout 5's class");
_Static_assert(sizeof(struct v5_state) == CLS_STATE_SIZE, "layout 5's state");

static const struct cls_map_spec v5_classes = {
	SHAPE("classes", ARRAY, 4, sizeof(struct v5_class), CLS_MAX_CLASSES, 0,
	      FIXED),
};
static const struct cls_map_spec v5_class_meta = {
	SHAPE("class_meta", ARRAY, 4, sizeof(struct v5_class_meta),
	      CLS_MAX_CLASSES, 0, FIXED),
};
static const struct cls_map_spec v5_state = {
	SHAPE("state", ARRAY, 4, sizeof(struct v5_state), 1, 0, FIXED),
};

/* ---- 3 -> 4 ---- */

static void config_3to4(const void *key, const void *old, void *new)
{
	const struct v3_config *o = old;
	struct cls_config *n = new;

	(void)key;
	memset(n, 0, sizeof(*n));
	n->stats_on = o->stats_on;
	n->layout = 4; /* gen 0: layout 3's one slot */
}

/* A bare class index becomes a hand route that knows its length. */
static void route_3to4(const void *key, const void *old, void *new)
{
	const __u32 *plen = key; /* both keys start with it */

	*(__u32 *)new = cls_route_value(*(const __u32 *)old, *plen, 0);
}

/* Elements of the map in a slot of the slotted map `name`, made before. */
static int slot_entries(const struct cls_step_maps *made, const char *name,
			__u32 slot, __u32 *n)
{
	__u8 key[64], next[64];
	void *prev = NULL;
	size_t i;
	__u32 id;
	int fd;

	*n = 0;
	for (i = 0; i < made->n && strcmp(made->name[i], name); i++)
		;
	if (i == made->n || made->fd[i] < 0)
		return -EINVAL;
	if (bpf_map_lookup_elem(made->fd[i], &slot, &id))
		return errno == ENOENT ? 0 : -errno;
	fd = bpf_map_get_fd_by_id(id);
	if (fd < 0)
		return -errno;
	while (!bpf_map_get_next_key(fd, prev, next)) {
		memcpy(key, next, sizeof(key));
		prev = key;
		(*n)++;
	}
	close(fd);
	return errno == ENOENT ? 0 : -errno;
}

/* A state map for layout 3's pins: ours, auto tables, the counts. */
static int state_from_3(const struct cls_step_maps *made, int fd)
{
	struct v5_state s = {.magic = CLS_STATE_MAGIC,
			     .layout = 4,
			     .table_mode = CLS_TABLE_AUTO};
	__u32 zero = 0;
	int err;

	err = slot_entries(made, "trie_v4", 0, &s.routes[0][0]);
	if (!err)
		err = slot_entries(made, "trie_v6", 0, &s.routes[1][0]);
	if (!err && bpf_map_update_elem(fd, &zero, &s, BPF_ANY))
		err = -errno;
	return err;
}

static const struct cls_map_change changes_4[] = {
	{"config", .before = &v3_config, .value = config_3to4},
	{"trie_v4", .was = "routes_v4", .before = &v3_routes4,
	 .value = route_3to4},
	{"trie_v6", .was = "routes_v6", .before = &v3_routes6,
	 .value = route_3to4},
	{"table_v4", .was = "dir24", .before = &v3_dir24},
	{"table_v6", .added = true},
	{"state", .added = true, .build = state_from_3},
	{},
};

/* ---- 4 -> 5: a table of another shape, rebuilt from the trie ---- */

static const struct cls_map_change changes_5[] = {
	{"table_v6", .before = &v4_table6},
	{},
};

/* ---- 5 -> 6: records with room (this build's types) ---- */

_Static_assert(CLS_LAYOUT_VERSION == 6 && sizeof(struct cls_class) == 64 &&
		       sizeof(struct cls_class_meta) == 128 &&
		       sizeof(struct cls_journal) == 272 &&
		       sizeof(struct cls_sync_status) == 48 &&
		       sizeof(struct cls_config) == 16,
	       "layout 6's records changed: freeze them here first");

static void class_5to6(const void *key, const void *old, void *new)
{
	const struct v5_class *o = old;
	struct cls_class *n = new;

	(void)key;
	memset(n, 0, sizeof(*n));
	n->classid = o->classid;
	n->mark = o->mark;
	n->flags = o->flags;
	n->dscp = o->dscp;
}

/* The journal moves behind the sync status, its class record grown. */
static void state_5to6(const void *key, const void *old, void *new)
{
	const struct v5_state *o = old;
	struct cls_state *n = new;

	memset(n, 0, sizeof(*n));
	n->magic = o->magic;
	n->layout = o->layout;
	n->class_gen = o->class_gen;
	n->table_mode = o->table_mode;
	n->table_groups = o->table_groups;
	memcpy(n->routes, o->routes, sizeof(n->routes));
	memcpy(&n->sync, o->sync, sizeof(n->sync));
	n->journal.op = o->journal.op;
	n->journal.phase = o->journal.phase;
	n->journal.pid = o->journal.pid;
	if (o->journal.op != CLS_OP_CLASS) {
		memcpy(n->journal.raw, o->journal.raw, sizeof(o->journal.raw));
		return;
	}
	n->journal.cls.idx = o->journal.cls.idx;
	n->journal.cls.del = o->journal.cls.del;
	class_5to6(key, &o->journal.cls.cls, &n->journal.cls.cls);
	memcpy(n->journal.cls.meta.name, o->journal.cls.meta.name,
	       sizeof(o->journal.cls.meta.name));
}

static const struct cls_map_change changes_6[] = {
	{"classes", .before = &v5_classes, .value = class_5to6},
	{"class_meta", .before = &v5_class_meta}, /* names; room zero */
	{"state", .before = &v5_state, .value = state_5to6},
	{},
};

const struct cls_layout cls_layouts[] = {
	{3, (const struct cls_map_change[]){{}}},
	{4, changes_4},
	{5, changes_5},
	{6, changes_6},
};

const unsigned int cls_nr_layouts = sizeof(cls_layouts) / sizeof(cls_layouts[0]);

_Static_assert(sizeof(cls_layouts) / sizeof(cls_layouts[0]) ==
		       CLS_LAYOUT_VERSION - 2,
	       "every layout from 3 has a line");

const struct cls_layout *cls_history_of(unsigned int version)
{
	unsigned int i;

	for (i = 0; i < cls_nr_layouts; i++)
		if (cls_layouts[i].version == version)
			return &cls_layouts[i];
	return NULL;
}

static struct cls_layout_map *map_named(struct cls_layout_map *m, size_t n,
					const char *name)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(m[i].name, name))
			return &m[i];
	return NULL;
}

int cls_layout_maps(unsigned int version, struct cls_layout_map *out, size_t *n)
{
	const struct cls_map_change *c;
	struct cls_layout_map *m;
	unsigned int v;
	int id;

	*n = 0;
	if (!cls_history_of(version))
		return -ENOENT;
	for (id = 0; id < CLS_NR_MAPS; id++)
		out[(*n)++] = (struct cls_layout_map){cls_map_specs[id].name,
						      &cls_map_specs[id]};
	for (v = CLS_LAYOUT_VERSION; v > version; v--)
		for (c = cls_history_of(v)->changes; c->name; c++) {
			m = map_named(out, *n, c->name);
			if (!m)
				return -EINVAL;
			if (c->added) {
				*m = out[--*n];
				continue;
			}
			m->name = c->was ? c->was : c->name;
			if (c->before)
				m->spec = c->before;
		}
	return 0;
}
