// SPDX-License-Identifier: GPL-2.0-only
/*
 * The BPF object's maps are the registry's: every map the built object
 * defines is in maps/registry.c with the programs as users, of the same
 * type, key, value, flags and size (a map sized at run time: its
 * template), and its slots' shape too; every map the registry gives the
 * programs is in the object.  Both sides expand CLS_MAPS, so this catches
 * a map written into the object by hand, or an expansion that drifted.
 * Opening the object parses it only: no kernel, no privileges.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>
#include <bpf/libbpf.h>

#include "classifier.skel.h"
#include "maps/maps.h"

static const struct cls_map_spec *spec_named(const char *name)
{
	int id;

	for (id = 0; id < CLS_NR_MAPS; id++)
		if (!strcmp(cls_map_specs[id].name, name))
			return &cls_map_specs[id];
	return NULL;
}

#define SAME(what, obj, reg)                                                   \
	do {                                                                   \
		if ((obj) != (reg))                                            \
			fail_msg("BPF map %s: %s %#x in the object, %#x in "   \
				 "the registry",                               \
				 name, what, (unsigned int)(obj),              \
				 (unsigned int)(reg));                         \
	} while (0)

/* The object's definition of one map against its spec, field by field. */
static void same_shape(struct bpf_map *map, const struct cls_map_spec *s)
{
	const char *name = bpf_map__name(map);

	SAME("type", bpf_map__type(map), s->type);
	SAME("key size", bpf_map__key_size(map), s->key_size);
	SAME("value size", bpf_map__value_size(map), s->value_size);
	SAME("flags", bpf_map__map_flags(map), s->flags);
	/* A size chosen at run time: the object holds the template. */
	SAME("max_entries", bpf_map__max_entries(map), s->max_entries);
	SAME("slots", !!bpf_map__inner_map(map), !!s->inner);
	if (s->inner)
		same_shape(bpf_map__inner_map(map), s->inner);
}

static void object_maps_are_the_registry(void **state)
{
	struct classifier_bpf *skel = classifier_bpf__open();
	const struct cls_map_spec *s;
	struct bpf_map *map;
	int id, found = 0;

	(void)state;
	assert_non_null(skel);
	bpf_object__for_each_map (map, skel->obj) {
		const char *name = bpf_map__name(map);

		if (strchr(name, '.'))
			continue; /* .rodata: the build id */
		s = spec_named(name);
		if (!s)
			fail_msg("BPF map %s is not in the registry", name);
		if (!s->bpf)
			fail_msg("BPF map %s is user space's only", name);
		same_shape(map, s);
		found++;
	}
	for (id = 0; id < CLS_NR_MAPS; id++) {
		s = &cls_map_specs[id];
		if (s->bpf && !bpf_object__find_map_by_name(skel->obj, s->name))
			fail_msg("the registry gives the programs %s, the "
				 "object has no such map",
				 s->name);
		found -= s->bpf;
	}
	assert_int_equal(found, 0);
	classifier_bpf__destroy(skel);
}

/* The generation-slotted maps are the registry's outer maps, in order. */
static void slots_are_outer_maps(void **state)
{
	int s;

	(void)state;
	for (s = 0; s < CLS_NR_SLOTTED; s++) {
		const struct cls_map_spec *outer =
			&cls_map_specs[cls_slot_map(s)];

		assert_int_equal(outer->type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
		assert_int_equal(outer->max_entries, CLS_GENERATIONS);
		assert_ptr_equal(outer->inner, cls_slot_spec(s));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(object_maps_are_the_registry),
		cmocka_unit_test(slots_are_outer_maps),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
