// SPDX-License-Identifier: GPL-2.0-only
/*
 * When resyncs happen (sync/schedule.c): wants at a time, wants for the
 * quiet after a storm with their bound, and the spacing after a resync.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "sync/schedule.h"

#define MS 1000000ULL
#define S  (1000 * MS)

static void test_want_at_a_time(void **state)
{
	struct schedule s = {0};
	const char *why;

	(void)state;
	assert_int_equal(schedule_due(&s, NULL), 0);
	schedule_want(&s, "link down", 100, 10 * S);
	assert_int_equal(schedule_due(&s, &why), 10 * S + 100 * MS);
	assert_string_equal(why, "link down");
	/* an earlier want wins, a later one does not move it */
	schedule_want(&s, "reload", 0, 10 * S);
	schedule_want(&s, "retry", 1000, 10 * S);
	assert_int_equal(schedule_due(&s, &why), 10 * S);
	assert_string_equal(why, "reload");
}

/* Once the tables are quiet: SYNC_QUIET_MS after the last activity. */
static void test_settle_waits_for_quiet(void **state)
{
	struct schedule s = {0};
	const char *why;
	__u64 t;

	(void)state;
	schedule_activity(&s, 5 * S);
	schedule_settle(&s, "overrun", 5 * S);
	assert_int_equal(schedule_due(&s, &why), 5 * S + SYNC_QUIET_MS * MS);
	assert_string_equal(why, "overrun");
	/* the storm goes on: the resync waits */
	schedule_activity(&s, 6 * S);
	assert_int_equal(schedule_due(&s, NULL), 6 * S + SYNC_QUIET_MS * MS);
	/* the first reason stays */
	schedule_settle(&s, "changed during the dump", 6 * S);
	schedule_due(&s, &why);
	assert_string_equal(why, "overrun");
	/* a storm that never ends still gets one, SYNC_SETTLE_MAX_MS on */
	for (t = 6 * S; t < 5 * S + 2 * SYNC_SETTLE_MAX_MS * MS; t += 100 * MS)
		schedule_activity(&s, t);
	assert_int_equal(schedule_due(&s, NULL),
			 5 * S + SYNC_SETTLE_MAX_MS * MS);
	/* a want at a time that comes first wins */
	schedule_want(&s, "reload", 0, 7 * S);
	assert_int_equal(schedule_due(&s, &why), 7 * S);
	assert_string_equal(why, "reload");
}

/*
 * A resync answers the wants made before it; the next starts no sooner
 * than the last took, and a second at least, after it ended.
 */
static void test_begin_end_and_spacing(void **state)
{
	struct schedule s = {0};

	(void)state;
	schedule_want(&s, "start", 0, 1 * S);
	schedule_settle(&s, "overrun", 1 * S);
	schedule_begin(&s, 2 * S);
	assert_int_equal(schedule_due(&s, NULL), 0);
	/* wanted while it runs: stays */
	schedule_activity(&s, 3 * S);
	schedule_settle(&s, "changed during the dump", 3 * S);
	schedule_end(&s, 5 * S);
	/* it took 3 s: the next no sooner than 3 s after its end */
	assert_int_equal(schedule_due(&s, NULL), 8 * S);
	schedule_begin(&s, 8 * S);
	schedule_end(&s, 8 * S + 10 * MS);
	schedule_want(&s, "link down", 0, 8 * S + 20 * MS);
	assert_int_equal(schedule_due(&s, NULL),
			 8 * S + 10 * MS + SYNC_RESYNC_HOLDOFF_MS * MS);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_want_at_a_time),
		cmocka_unit_test(test_settle_waits_for_quiet),
		cmocka_unit_test(test_begin_end_and_spacing),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
