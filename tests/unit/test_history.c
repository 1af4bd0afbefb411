// SPDX-License-Identifier: GPL-2.0-only
/*
 * maps/history.c says, per landed layout, which maps it had: here each
 * one's maps as they were built (the commits in the Makefile's
 * UPGRADE_FROM), so a slip in the history, or a change of this build's
 * maps without a line there, fails before any upgrade test runs.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>
#include <linux/bpf.h>

#include "maps/history.h"

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
};

#define NR_WANT (sizeof(want) / sizeof(want[0]))

static void each_landed_layout_has_its_maps(void **state)
{
	struct cls_layout_map maps[CLS_HISTORY_MAX_MAPS];
	unsigned int v;
	size_t n, i, k, expected;

	(void)state;
	assert_int_equal(cls_layouts[0].version, 3);
	assert_int_equal(cls_layouts[cls_nr_layouts - 1].version,
			 CLS_LAYOUT_VERSION);
	for (v = 3; v <= CLS_LAYOUT_VERSION; v++) {
		assert_int_equal(cls_layout_maps(v, maps, &n), 0);
		for (expected = 0, k = 0; k < NR_WANT; k++) {
			const struct want *w = &want[k];

			if (w->layout != v)
				continue;
			expected++;
			for (i = 0; i < n && strcmp(maps[i].name, w->name); i++)
				;
			if (i == n)
				fail_msg("layout %u has no %s", v, w->name);
			print_message("  layout %u: %s\n", v, w->name);
			assert_int_equal(maps[i].spec->type, w->type);
			assert_int_equal(maps[i].spec->value_size,
					 w->value_size);
			if (w->slot_value_size)
				assert_int_equal(
					maps[i].spec->inner->value_size,
					w->slot_value_size);
		}
		if (n != expected)
			fail_msg("layout %u has %zu maps, not %zu", v, n,
				 expected);
	}
}

static void no_layout_before_3(void **state)
{
	struct cls_layout_map maps[CLS_HISTORY_MAX_MAPS];
	size_t n;

	(void)state;
	assert_int_equal(cls_layout_maps(2, maps, &n), -ENOENT);
	assert_int_equal(cls_layout_maps(CLS_LAYOUT_VERSION + 1, maps, &n),
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
