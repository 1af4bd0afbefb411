// SPDX-License-Identifier: GPL-2.0-only
/*
 * The registry: CLS_MAPS (maps/classifier_abi.h) as specs.  Maps are
 * created from these specs, and a pin is used only if the map behind it
 * has exactly this shape, so a pin replaced by another program's map is
 * refused, never written.  The BPF object declares its maps from the same
 * list; the loader binds them by name.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "maps/internal.h"

#define USERS_BPF  true
#define USERS_USER false
#define KIND_TRUTH false
#define KIND_CACHE true

#define SHAPE(_name, _type, _key, _val, _n, _flags, _size)                     \
	.name = _name, .type = BPF_MAP_TYPE_##_type, .key_size = sizeof(_key), \
	.value_size = sizeof(_val), .max_entries = _n, .flags = _flags,        \
	.size = CLS_SIZE_##_size

/* The slots' shapes first: the outer maps point at them. */
#define INNER_NONE(...)
#define INNER(_id, _name, _type, _key, _val, _n, _flags, _size, _kind)         \
	static const struct cls_map_spec inner_##_name = {                     \
		SHAPE("cls_" #_name, _type, _key, _val, _n, _flags, _size),    \
		.derived = KIND_##_kind,                                       \
	};
CLS_MAPS(INNER_NONE, INNER)

#define SPEC(_id, _name, _type, _key, _val, _n, _flags, _size, _who)           \
	[CLS_M_##_id] = {SHAPE(#_name, _type, _key, _val, _n, _flags, _size),  \
			 .bpf = USERS_##_who},
#define OUTER(_id, _name, _type, _key, _val, _n, _flags, _size, _kind)         \
	[CLS_M_##_id] = {                                                      \
		SHAPE(#_name, ARRAY_OF_MAPS, __u32, __u32, CLS_GENERATIONS, 0, \
		      FIXED),                                                  \
		.inner = &inner_##_name,                                       \
		.bpf = true,                                                   \
		.derived = KIND_##_kind,                                       \
	},

const struct cls_map_spec cls_map_specs[CLS_NR_MAPS] = {CLS_MAPS(SPEC, OUTER)};

#define SLOT_NONE(...)
#define SLOT(_id, ...) [CLS_S_##_id] = CLS_M_##_id,

enum cls_map_id cls_slot_map(enum cls_slotted s)
{
	static const enum cls_map_id outer[CLS_NR_SLOTTED] = {
		CLS_MAPS(SLOT_NONE, SLOT)};

	return outer[s];
}

const struct cls_map_spec *cls_slot_spec(enum cls_slotted s)
{
	return cls_map_specs[cls_slot_map(s)].inner;
}

static __u32 entries_of(const struct cls_map_spec *s, __u32 entries)
{
	switch (s->size) {
	case CLS_SIZE_PER_CPU:
		return s->max_entries * libbpf_num_possible_cpus();
	case CLS_SIZE_BY_NEED:
		return entries ?: s->max_entries;
	default:
		return s->max_entries;
	}
}

__u32 cls_class_entries(enum cls_map_id id, __u32 cap, unsigned int cpus)
{
	switch (id) {
	case CLS_M_CLASSES:
	case CLS_M_CLASS_META:
	case CLS_M_RATE_STATE:
		return cap;
	case CLS_M_STATS:
		return CLS_STATS_STRIDE(cap) * cpus;
	case CLS_M_RATE_STATS:
		return CLS_RATE_STATS_STRIDE(cap) * cpus;
	default:
		return 0;
	}
}

int cls_map_create(const struct cls_map_spec *s, __u32 entries)
{
	LIBBPF_OPTS(bpf_map_create_opts, opts, .map_flags = s->flags);
	int fd, inner = -1;

	if (s->inner) {
		/* The template: what every slot's map must look like. */
		inner = cls_map_create(s->inner, 0);
		if (inner < 0)
			return inner;
		opts.inner_map_fd = inner;
	}
	fd = bpf_map_create(s->type, s->name, s->key_size, s->value_size,
			    entries_of(s, entries), &opts);
	if (fd < 0)
		fd = -errno;
	if (inner >= 0)
		close(inner);
	return fd;
}

/* Whether n entries are what the spec's size allows; if not, why. */
static bool size_ok(const struct cls_map_spec *s, __u32 n, char *why,
		    size_t len)
{
	unsigned int cpus = libbpf_num_possible_cpus();
	bool ok;

	switch (s->size) {
	case CLS_SIZE_PER_CPU:
		ok = n && !(n % s->max_entries) && n / s->max_entries >= cpus;
		if (!ok)
			snprintf(why, len, ": not %u for each of %u CPUs",
				 s->max_entries, cpus);
		return ok;
	case CLS_SIZE_BY_NEED:
		return n;
	default:
		if (n != s->max_entries)
			snprintf(why, len, ": not %u", s->max_entries);
		return n == s->max_entries;
	}
}

int cls_map_check(int fd, const struct cls_map_spec *s, __u32 *entries,
		  char *why, size_t n)
{
	struct bpf_map_info info = {};
	__u32 len = sizeof(info);
	char size[64] = "";

	if (bpf_obj_get_info_by_fd(fd, &info, &len)) {
		snprintf(why, n, "%s: %s", s->name, strerror(errno));
		return -errno;
	}
	if (!size_ok(s, info.max_entries, size, sizeof(size)) ||
	    info.type != s->type || info.key_size != s->key_size ||
	    info.value_size != s->value_size || info.map_flags != s->flags ||
	    strncmp(info.name, s->name, sizeof(info.name) - 1)) {
		snprintf(why, n,
			 "%s is not classifier's map (type %u, key %u, value "
			 "%u, %u entries%s, flags %#x, name \"%.16s\")",
			 s->name, info.type, info.key_size, info.value_size,
			 info.max_entries, size, info.map_flags, info.name);
		return -EUCLEAN;
	}
	if (entries)
		*entries = info.max_entries;
	return 0;
}

int cls_bind_maps(struct bpf_object *obj, const int fds[CLS_NR_MAPS],
		  const char **stray)
{
	struct bpf_map *map;
	int id, fd, err = 0;

	*stray = NULL;
	for (id = 0; id < CLS_NR_MAPS && !err; id++) {
		if (!cls_map_specs[id].bpf)
			continue;
		map = bpf_object__find_map_by_name(obj, cls_map_specs[id].name);
		fd = !map  ? -ENOENT
		     : fds ? fds[id]
			   : cls_map_create(
				     &cls_map_specs[id],
				     cls_class_entries(
					     id, CLS_CLASS_STEP,
					     libbpf_num_possible_cpus()));
		err = fd < 0 ? fd : bpf_map__reuse_fd(map, fd);
		if (!fds && fd >= 0)
			close(fd);
	}
	/* A map the object has and the registry lacks would be made anew. */
	bpf_object__for_each_map (map, obj)
		if (!err && bpf_map__fd(map) < 0 &&
		    !strchr(bpf_map__name(map), '.')) {
			*stray = bpf_map__name(map);
			err = -EUCLEAN;
		}
	return err;
}
