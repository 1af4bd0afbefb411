// SPDX-License-Identifier: GPL-2.0-only
/*
 * maps/history.c says, per landed layout, what it changed; walked back
 * from this build's maps (cls_map_past) it gives each landed layout's
 * maps, here checked against them as they were built (the commits of the
 * Makefile's UPGRADE_FROM): a slip in the history, or a change of this
 * build's maps without a line there, fails before any upgrade runs.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>
#include <linux/bpf.h>

#include "maps/internal.h"

struct want {
	unsigned int layout;
	const char *name;
	__u32 type, value_size;
	__u32 slot_value_size; /* of the maps in its slots, if slotted */
};

/* An array of values of that size; a slotted map whose maps hold them. */
/* clang-format off */
#define A(l, name, size) {l, name, BPF_MAP_TYPE_ARRAY, size, 0}
#define S(l, name, size) {l, name, BPF_MAP_TYPE_ARRAY_OF_MAPS, 4, size}
#define CPUMAP(l, name, size) {l, name, BPF_MAP_TYPE_CPUMAP, size, 0}
/* clang-format on */

static const struct want want[] = {
	A(3, "config", 16),	 A(3, "classes", 12),
	A(3, "class_meta", 32),	 A(3, "stats", 16),
	S(3, "routes_v4", 4),	 S(3, "routes_v6", 4),
	A(3, "dir24", 8),

	A(4, "config", 16),	 A(4, "classes", 12),
	A(4, "class_meta", 32),	 A(4, "stats", 16),
	S(4, "trie_v4", 4),	 S(4, "trie_v6", 4),
	S(4, "table_v4", 8),	 S(4, "table_v6", 8),
	A(4, "state", 512),

	A(5, "config", 16),	 A(5, "classes", 12),
	A(5, "class_meta", 32),	 A(5, "stats", 16),
	S(5, "trie_v4", 4),	 S(5, "trie_v6", 4),
	S(5, "table_v4", 8),	 S(5, "table_v6", 4U << 20),
	A(5, "state", 512),

	A(6, "config", 16),	 A(6, "classes", 64),
	A(6, "class_meta", 128), A(6, "stats", 16),
	S(6, "trie_v4", 4),	 S(6, "trie_v6", 4),
	S(6, "table_v4", 8),	 S(6, "table_v6", 4U << 20),
	A(6, "state", 512),

	A(7, "config", 16),	 A(7, "classes", 64),
	A(7, "class_meta", 128), A(7, "stats", 16),
	S(7, "trie_v4", 4),	 S(7, "trie_v6", 4),
	S(7, "table_v4", 8),	 S(7, "table_v6", 4U << 20),
	A(7, "state", 512),	 A(7, "rate_state", 64),
	A(7, "rate_stats", 32),

	A(8, "config", 16),	 A(8, "classes", 64),
	A(8, "class_meta", 128), A(8, "stats", 16),
	S(8, "trie_v4", 4),	 S(8, "trie_v6", 4),
	S(8, "table_v6", 4U << 20), S(8, "table_v4", 8),
	A(8, "state", 512),	 A(8, "rate_state", 64),
	A(8, "rate_stats", 32),	 A(8, "queue_cpu", 4),
	CPUMAP(8, "cpumap", 4),	 A(8, "steer_stats", 16),
};

#define NR_WANT (sizeof(want) / sizeof(want[0]))

static void each_landed_layout_has_its_maps(void **state)
{
	struct cls_map_past p;
	unsigned int v;
	size_t k, present, expected;
	int id;

	(void)state;
	assert_int_equal(CLS_LAYOUT_OLDEST, 3);
	for (v = 3; v <= CLS_LAYOUT_VERSION; v++) {
		for (present = 0, id = 0; id < CLS_NR_MAPS; id++) {
			assert_int_equal(cls_map_past(id, v, &p), 0);
			if (p.added)
				continue;
			present++;
			for (k = 0;
			     k < NR_WANT && (want[k].layout != v ||
					     strcmp(want[k].name, p.name));
			     k++)
				;
			if (k == NR_WANT)
				fail_msg("layout %u had %s, not expected", v,
					 p.name);
			print_message("  layout %u: %s\n", v, p.name);
			assert_int_equal(p.shape[p.n]->type, want[k].type);
			assert_int_equal(p.shape[p.n]->value_size,
					 want[k].value_size);
			if (want[k].slot_value_size)
				assert_int_equal(
					p.shape[p.n]->inner->value_size,
					want[k].slot_value_size);
		}
		for (expected = 0, k = 0; k < NR_WANT; k++)
			expected += want[k].layout == v;
		if (present != expected)
			fail_msg("layout %u had %zu maps, not %zu", v, present,
				 expected);
	}
}

static void no_layout_before_3(void **state)
{
	struct cls_map_past p;

	(void)state;
	assert_int_equal(cls_map_past(CLS_M_CLASSES, 2, &p), -ENOENT);
	assert_int_equal(
		cls_map_past(CLS_M_CLASSES, CLS_LAYOUT_VERSION + 1, &p),
		-ENOENT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(each_landed_layout_has_its_maps),
		cmocka_unit_test(no_layout_before_3),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
