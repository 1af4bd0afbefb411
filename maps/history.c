// SPDX-License-Identifier: GPL-2.0-only
/*
 * Every layout that landed, as what it changed from the one before: a
 * line per map whose shape or meaning changed (struct cls_map_change).  A
 * map no line names is carried as it is.  maps/migrate.c composes the
 * lines from a pinned layout's to this one's, map by map.  Older layouts'
 * shapes and records are frozen here as they were built; those of the
 * newest are this build's types: before changing one, copy its
 * definition here (as struct v5_class) for the conversions writing it.
 */
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include <linux/bpf.h>

#include "maps/internal.h"

/* A shape before, as its layout built it (FIXED size but where told). */
#define SHAPE(nm, ty, key, val, n, ...)                                        \
	(&(const struct cls_map_spec){.name = nm,                              \
				      .type = BPF_MAP_TYPE_##ty,               \
				      .key_size = key,                         \
				      .value_size = val,                       \
				      .max_entries = n,                        \
				      __VA_ARGS__})
#define OUTER(nm, slots, in) SHAPE(nm, ARRAY_OF_MAPS, 4, 4, slots, .inner = in)
#define TRIE(nm, key, n)                                                       \
	SHAPE(nm, LPM_TRIE, sizeof(key), 4, n, .flags = BPF_F_NO_PREALLOC)
#define TABLE(nm, fl)                                                          \
	SHAPE(nm, ARRAY, 4, 8, 1, .flags = BPF_F_MMAPABLE | (fl),              \
	      .size = CLS_SIZE_BY_NEED)

/* Layout 5 (until 9ee4d3b): 12-byte classes, 32-byte names and journal. */
struct v5_class {
	__u32 classid, mark;
	__u16 flags;
	__u8 dscp, pad;
};

/* Layouts 4 and 5's state: the journal (112 bytes) before the sync status. */
struct v5_state {
	__u8 head[40]; /* magic .. routes, as this layout's */
	struct {
		__u8 op_phase_pid[16];
		union {
			struct {
				__u32 idx, del;
				struct v5_class cls;
				char name[CLS_NAME_MAX];
			} cls;
			__u8 raw[96];
		};
	} journal;
	__u8 sync[48];
};

_Static_assert(offsetof(struct v5_state, sync) == 152 &&
		       offsetof(struct cls_state, sync) == 40,
	       "layout 5's state");

/* 4: a bare class index becomes a hand route that knows its length. */
static void route_3to4(const void *key, const void *old, void *new)
{
	const __u32 *plen = key; /* both keys start with it */

	*(__u32 *)new = cls_route_value(*(const __u32 *)old, *plen, 0);
}

/* 6: records with room (this build's types, until they change). */
_Static_assert(CLS_LAYOUT_VERSION <= 8 && sizeof(struct cls_class) == 64 &&
		       sizeof(struct cls_class_meta) == 128 &&
		       sizeof(struct cls_journal) == 272 &&
		       sizeof(struct cls_sync_status) == 48 &&
		       sizeof(struct cls_config) == 16,
	       "layout 6's records (7's, 8's too) changed: freeze them here first");

static void class_5to6(const void *key, const void *old, void *new)
{
	const struct v5_class *o = old;

	(void)key;
	*(struct cls_class *)new = (struct cls_class){
		.classid = o->classid,
		.mark = o->mark,
		.flags = o->flags,
		.dscp = o->dscp,
	};
}

/* The journal moves behind the sync status, its class record grown. */
static void state_5to6(const void *key, const void *old, void *new)
{
	const struct v5_state *o = old;
	struct cls_state *n = new;

	memcpy(n, o->head, sizeof(o->head));
	memcpy(&n->sync, o->sync, sizeof(n->sync));
	memcpy(&n->journal, &o->journal, sizeof(o->journal));
	if (n->journal.op != CLS_OP_CLASS)
		return;
	class_5to6(key, &o->journal.cls.cls, &n->journal.cls.cls);
	memcpy(n->journal.cls.meta.name, o->journal.cls.name, CLS_NAME_MAX);
}

/* clang-format off */
const struct cls_map_change cls_history[] = {
	/* 4: generation slots, route values with their length, the journal */
	{4, "config", .keep = 4}, /* stats_on; gen 0 is layout 3's one slot */
	{4, "trie_v4", "routes_v4", .before = OUTER("routes_v4", 1,
	    TRIE("cls_routes_v4", struct cls_v4_key, CLS_MAX_ROUTES_V4)),
	 .value = route_3to4},
	{4, "trie_v6", "routes_v6", .before = OUTER("routes_v6", 1,
	    TRIE("cls_routes_v6", struct cls_v6_key, CLS_MAX_ROUTES_V6)),
	 .value = route_3to4},
	{4, "table_v4", "dir24", .before = TABLE("dir24", 0)},
	{4, "table_v6", .added = true},
	{4, "state", .added = true}, /* the chain gives it its magic, counts */
	/* 5: the IPv6 table in 4 MiB elements, rebuilt from the trie */
	{5, "table_v6", .before = OUTER("table_v6", CLS_GENERATIONS,
	    TABLE("cls_table_v6", BPF_F_INNER_MAP))},
	/* 6: records with room; names widened, their room zero */
	{6, "classes", .before = SHAPE("classes", ARRAY, 4,
	    sizeof(struct v5_class), CLS_CLASSES_BEFORE_8), .value = class_5to6},
	{6, "class_meta", .before = SHAPE("class_meta", ARRAY, 4,
	    CLS_NAME_MAX, CLS_CLASSES_BEFORE_8)},
	{6, "state", .value = state_5to6},
	/* 7: the rates' maps, made empty (every clock full) */
	{7, "rate_state", .added = true},
	{7, "rate_stats", .added = true},
	/* 8: steering to CPUs, made empty (no queue steered) */
	{8, "queue_cpu", .added = true},
	{8, "cpumap", .added = true},
	{8, "steer_stats", .added = true},
	/*
	 * 8: also the maps indexed by class sized by the set's capacity, no
	 * longer 4096 (maps/grow.c): a layout 7 set is one with room for
	 * 4096 classes, every map carried as it is.
	 */
};
/* clang-format on */

int cls_map_past(enum cls_map_id id, unsigned int from, struct cls_map_past *p)
{
	size_t k = sizeof(cls_history) / sizeof(cls_history[0]);
	const struct cls_map_change *c;

	memset(p, 0, sizeof(*p));
	p->from = from;
	p->name = cls_map_specs[id].name;
	p->shape[0] = &cls_map_specs[id];
	if (from < CLS_LAYOUT_OLDEST || from > CLS_LAYOUT_VERSION)
		return -ENOENT;
	/* Newest first: the line of the map's name then in each layout. */
	while (k-- > 0 && !p->added) {
		c = &cls_history[k];
		if (c->layout <= from || strcmp(c->name, p->name))
			continue;
		p->change[p->n] = c;
		p->shape[p->n + 1] = c->before ?: p->shape[p->n];
		p->added = c->added;
		p->name = c->was ?: c->name;
		p->n++;
	}
	return 0;
}
