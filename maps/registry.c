// SPDX-License-Identifier: GPL-2.0-only
/*
 * Every pinned map, declared once: its pin name (also its BPF name), shape
 * and what its slots hold.  Maps are created from these specs, and a pin
 * is used only if the map behind it has exactly this shape, so a pin
 * replaced by another program's map is refused, never written.  The BPF
 * object declares the same maps (xdp_tc/maps.bpf.h); the loader binds
 * them by name and tests/prog checks the two agree.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include "maps/internal.h"

static const struct cls_map_spec trie_v4_inner = {
	.name = "cls_trie_v4",
	.type = BPF_MAP_TYPE_LPM_TRIE,
	.key_size = sizeof(struct cls_v4_key),
	.value_size = sizeof(__u32),
	.max_entries = CLS_MAX_ROUTES_V4,
	.flags = BPF_F_NO_PREALLOC,
};

static const struct cls_map_spec trie_v6_inner = {
	.name = "cls_trie_v6",
	.type = BPF_MAP_TYPE_LPM_TRIE,
	.key_size = sizeof(struct cls_v6_key),
	.value_size = sizeof(__u32),
	.max_entries = CLS_MAX_ROUTES_V6,
	.flags = BPF_F_NO_PREALLOC,
};

static const struct cls_map_spec table_inner = {
	.name = "cls_table_v4",
	.type = BPF_MAP_TYPE_ARRAY,
	.key_size = sizeof(__u32),
	.value_size = CLS_DIR24_PER_ELEM * sizeof(__u32),
	.flags = BPF_F_MMAPABLE | BPF_F_INNER_MAP,
};

static const struct cls_map_spec table6_inner = {
	.name = "cls_table_v6",
	.type = BPF_MAP_TYPE_ARRAY,
	.key_size = sizeof(__u32),
	.value_size = MBT6_PER_ELEM * sizeof(__u32),
	.flags = BPF_F_MMAPABLE | BPF_F_INNER_MAP,
};

#define OUTER(nm, in)                                                          \
	{                                                                      \
		.name = nm, .type = BPF_MAP_TYPE_ARRAY_OF_MAPS,                \
		.key_size = sizeof(__u32), .value_size = sizeof(__u32),        \
		.max_entries = CLS_GENERATIONS, .inner = &in, .bpf = true,     \
	}

const struct cls_map_spec cls_map_specs[CLS_NR_MAPS] = {
	[CLS_M_CONFIG] = {.name = "config",
			  .type = BPF_MAP_TYPE_ARRAY,
			  .key_size = sizeof(__u32),
			  .value_size = sizeof(struct cls_config),
			  .max_entries = 1,
			  .bpf = true},
	[CLS_M_CLASSES] = {.name = "classes",
			   .type = BPF_MAP_TYPE_ARRAY,
			   .key_size = sizeof(__u32),
			   .value_size = sizeof(struct cls_class),
			   .max_entries = CLS_MAX_CLASSES,
			   .bpf = true},
	/* Names: only user space reads them; here the CLI stays stateless. */
	[CLS_M_CLASS_META] = {.name = "class_meta",
			      .type = BPF_MAP_TYPE_ARRAY,
			      .key_size = sizeof(__u32),
			      .value_size = sizeof(struct cls_class_meta),
			      .max_entries = CLS_MAX_CLASSES,
			      .bpf = true},
	/* nr_cpus * CLS_STATS_STRIDE entries: sized at creation. */
	[CLS_M_STATS] = {.name = "stats",
			 .type = BPF_MAP_TYPE_ARRAY,
			 .key_size = sizeof(__u32),
			 .value_size = sizeof(struct cls_counter),
			 .flags = BPF_F_MMAPABLE,
			 .bpf = true},
	[CLS_M_TRIE_V4] = OUTER("trie_v4", trie_v4_inner),
	[CLS_M_TRIE_V6] = OUTER("trie_v6", trie_v6_inner),
	[CLS_M_TABLE_V4] = OUTER("table_v4", table_inner),
	[CLS_M_TABLE_V6] = OUTER("table_v6", table6_inner),
	[CLS_M_STATE] = {.name = "state",
			 .type = BPF_MAP_TYPE_ARRAY,
			 .key_size = sizeof(__u32),
			 .value_size = sizeof(struct cls_state),
			 .max_entries = 1},
};

enum cls_map_id cls_slot_map(enum cls_slotted s)
{
	static const enum cls_map_id outer[CLS_NR_SLOTTED] = {
		[CLS_S_TRIE_V4] = CLS_M_TRIE_V4,
		[CLS_S_TRIE_V6] = CLS_M_TRIE_V6,
		[CLS_S_TABLE_V4] = CLS_M_TABLE_V4,
		[CLS_S_TABLE_V6] = CLS_M_TABLE_V6,
	};

	return outer[s];
}

const struct cls_map_spec *cls_slot_spec(enum cls_slotted s)
{
	return cls_map_specs[cls_slot_map(s)].inner;
}

/* max_entries 0 in a spec: the caller's size. */
int cls_map_create(const struct cls_map_spec *s, __u32 max_entries)
{
	LIBBPF_OPTS(bpf_map_create_opts, opts, .map_flags = s->flags);
	int fd, inner = -1;

	if (s->inner) {
		/* The template: what every slot's map must look like. */
		inner = cls_map_create(s->inner, s->inner->max_entries ?: 1);
		if (inner < 0)
			return inner;
		opts.inner_map_fd = inner;
	}
	fd = bpf_map_create(s->type, s->name, s->key_size, s->value_size,
			    s->max_entries ?: max_entries, &opts);
	if (fd < 0)
		fd = -errno;
	if (inner >= 0)
		close(inner);
	return fd;
}

int cls_map_check(int fd, const struct cls_map_spec *s, char *why, size_t n)
{
	struct bpf_map_info info = {};
	__u32 len = sizeof(info);

	if (bpf_obj_get_info_by_fd(fd, &info, &len)) {
		snprintf(why, n, "%s: %s", s->name, strerror(errno));
		return -errno;
	}
	if (info.type != s->type || info.key_size != s->key_size ||
	    info.value_size != s->value_size || info.map_flags != s->flags ||
	    (s->max_entries && info.max_entries != s->max_entries) ||
	    strncmp(info.name, s->name, sizeof(info.name) - 1)) {
		snprintf(why, n,
			 "%s is not classifier's map (type %u, key %u, value "
			 "%u, %u entries, flags %#x, name \"%.16s\")",
			 s->name, info.type, info.key_size, info.value_size,
			 info.max_entries, info.map_flags, info.name);
		return -EUCLEAN;
	}
	return 0;
}
