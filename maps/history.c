// SPDX-License-Identifier: GPL-2.0-only
/*
 * Every layout that landed, and what each changed from the one before: a
 * line per map whose shape or meaning changed, with its shape before and
 * one conversion (struct cls_map_change).  A map no line names is carried
 * as it is.  maps/migrate.c composes the lines from a pinned layout's to
 * this one's, map by map.  Older layouts' shapes and records are frozen
 * here as they were built; a conversion writes its own layout's.  Those
 * of the newest are this build's types: before changing one, copy its
 * definition here (as struct v5_class) for the conversions writing it.
 */
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include <linux/bpf.h>

#include "maps/internal.h"

#define SPEC(nm, ty, key, val, n, fl, sz, in)                                  \
	{                                                                      \
		.name = nm, .type = BPF_MAP_TYPE_##ty, .key_size = key,        \
		.value_size = val, .max_entries = n, .flags = fl,              \
		.size = CLS_SIZE_##sz, .inner = in,                            \
	}
#define ARRAY(nm, val, n)    SPEC(nm, ARRAY, 4, val, n, 0, FIXED, NULL)
#define OUTER(nm, slots, in) SPEC(nm, ARRAY_OF_MAPS, 4, 4, slots, 0, FIXED, in)
#define TRIE(nm, key, n)                                                       \
	SPEC(nm, LPM_TRIE, key, 4, n, BPF_F_NO_PREALLOC, FIXED, NULL)
#define MMAP_F (BPF_F_MMAPABLE | BPF_F_INNER_MAP)

/* Layout 3 (until 2026-11-30): maps made by libbpf from the BPF object. */
struct v3_config {
	__u32 stats_on, abi_version, lookup_mode, pad;
};

/* Layout 5 (until 9ee4d3b): 12-byte classes, 32-byte names and journal. */
struct v5_class {
	__u32 classid;
	__u32 mark;
	__u16 flags;
	__u8 dscp;
	__u8 pad;
};

/* Layouts 4 and 5's state: the journal (112 bytes) before the sync status. */
struct v5_state {
	__u8 head[40]; /* magic .. routes, as this layout's */
	__u32 op, phase, pid, pad;
	union {
		struct {
			__u32 idx, del;
			struct v5_class cls;
			char name[CLS_NAME_MAX];
		} cls;
		__u8 raw[96];
	};
	__u8 sync[48];
	__u8 reserved[312];
};

_Static_assert(sizeof(struct v5_state) == CLS_STATE_SIZE &&
		       offsetof(struct cls_state, sync) == 40,
	       "layout 5's state");

static const struct cls_map_spec v3_trie4 =
	TRIE("cls_routes_v4", sizeof(struct cls_v4_key), CLS_MAX_ROUTES_V4);
static const struct cls_map_spec v3_trie6 =
	TRIE("cls_routes_v6", sizeof(struct cls_v6_key), CLS_MAX_ROUTES_V6);
static const struct cls_map_spec v4_table6_inner =
	SPEC("cls_table_v6", ARRAY, 4, 8, 1, MMAP_F, BY_NEED, NULL);

static const struct cls_map_spec v3_config =
	ARRAY("config", sizeof(struct v3_config), 1);
static const struct cls_map_spec v3_routes4 = OUTER("routes_v4", 1, &v3_trie4);
static const struct cls_map_spec v3_routes6 = OUTER("routes_v6", 1, &v3_trie6);
static const struct cls_map_spec v3_dir24 =
	SPEC("dir24", ARRAY, 4, 8, 1, BPF_F_MMAPABLE, BY_NEED, NULL);
static const struct cls_map_spec v4_table6 =
	OUTER("table_v6", CLS_GENERATIONS, &v4_table6_inner);
static const struct cls_map_spec v5_classes =
	ARRAY("classes", sizeof(struct v5_class), CLS_MAX_CLASSES);
static const struct cls_map_spec v5_class_meta =
	ARRAY("class_meta", CLS_NAME_MAX, CLS_MAX_CLASSES);
static const struct cls_map_spec v5_state =
	ARRAY("state", sizeof(struct v5_state), 1);

/* ---- 3 -> 4 ---- */

static void config_3to4(const void *key, const void *old, void *new)
{
	const struct v3_config *o = old;
	struct cls_config *n = new;

	(void)key;
	n->stats_on = o->stats_on; /* gen 0: layout 3's one slot */
}

/* A bare class index becomes a hand route that knows its length. */
static void route_3to4(const void *key, const void *old, void *new)
{
	const __u32 *plen = key; /* both keys start with it */

	*(__u32 *)new = cls_route_value(*(const __u32 *)old, *plen, 0);
}

static const struct cls_map_change changes_4[] = {
	{"config", .before = &v3_config, .value = config_3to4},
	{"trie_v4", .was = "routes_v4", .before = &v3_routes4,
	 .value = route_3to4},
	{"trie_v6", .was = "routes_v6", .before = &v3_routes6,
	 .value = route_3to4},
	{"table_v4", .was = "dir24", .before = &v3_dir24},
	{"table_v6", .added = true},
	{"state", .added = true}, /* the stage gives it its magic and counts */
	{},
};

/* ---- 4 -> 5: a table of another shape, rebuilt from the trie ---- */

static const struct cls_map_change changes_5[] = {
	{"table_v6", .before = &v4_table6},
	{},
};

/* ---- 5 -> 6: records with room (this build's types) ---- */

_Static_assert(CLS_LAYOUT_VERSION == 7 && sizeof(struct cls_class) == 64 &&
		       sizeof(struct cls_class_meta) == 128 &&
		       sizeof(struct cls_journal) == 272 &&
		       sizeof(struct cls_sync_status) == 48 &&
		       sizeof(struct cls_config) == 16,
	       "layout 6's records (7's too) changed: freeze them here first");

static void class_5to6(const void *key, const void *old, void *new)
{
	const struct v5_class *o = old;
	struct cls_class *n = new;

	(void)key;
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

	memcpy(n, o->head, sizeof(o->head));
	memcpy(&n->sync, o->sync, sizeof(n->sync));
	memcpy(&n->journal, &o->op, 16); /* op, phase, pid */
	if (o->op != CLS_OP_CLASS) {
		memcpy(n->journal.raw, o->raw, sizeof(o->raw));
		return;
	}
	n->journal.cls.idx = o->cls.idx;
	n->journal.cls.del = o->cls.del;
	class_5to6(key, &o->cls.cls, &n->journal.cls.cls);
	memcpy(n->journal.cls.meta.name, o->cls.name, sizeof(o->cls.name));
}

static const struct cls_map_change changes_6[] = {
	{"classes", .before = &v5_classes, .value = class_5to6},
	{"class_meta", .before = &v5_class_meta}, /* names; room zero */
	{"state", .before = &v5_state, .value = state_5to6},
	{},
};

/* ---- 6 -> 7: the rates' maps, made empty (every clock full) ---- */

static const struct cls_map_change changes_7[] = {
	{"rate_state", .added = true},
	{"rate_stats", .added = true},
	{},
};

const struct cls_layout cls_layouts[] = {
	{3, (const struct cls_map_change[]){{}}},
	{4, changes_4},
	{5, changes_5},
	{6, changes_6},
	{7, changes_7},
};

_Static_assert(sizeof(cls_layouts) / sizeof(cls_layouts[0]) ==
		       CLS_LAYOUT_VERSION - 2,
	       "every layout from 3 has a line");

/* The line of map `name` in layout v, if it changed there. */
static const struct cls_map_change *change_at(unsigned int v, const char *name)
{
	const struct cls_map_change *c;

	for (c = cls_layouts[v - cls_layouts[0].version].changes; c->name; c++)
		if (!strcmp(c->name, name))
			return c;
	return NULL;
}

int cls_map_past(enum cls_map_id id, unsigned int from, struct cls_map_past *p)
{
	const struct cls_map_change *c;
	unsigned int v;

	memset(p, 0, sizeof(*p));
	p->name = cls_map_specs[id].name;
	p->shape[0] = &cls_map_specs[id];
	if (from < cls_layouts[0].version || from > CLS_LAYOUT_VERSION)
		return -ENOENT;
	for (v = CLS_LAYOUT_VERSION; v > from && !p->added; v--) {
		c = change_at(v, p->name);
		if (!c)
			continue;
		memmove(p->change + 1, p->change, p->n * sizeof(c));
		memmove(p->shape + 1, p->shape, ++p->n * sizeof(p->shape[0]));
		p->change[0] = c;
		p->added = c->added;
		p->name = c->was ? c->was : c->name;
		if (c->before)
			p->shape[0] = c->before;
	}
	return 0;
}
