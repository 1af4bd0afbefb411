// SPDX-License-Identifier: GPL-2.0-only
/*
 * The exporter's slot policy (metrics/conns.c): an exchange has its time
 * from its start, whatever it sends meanwhile; when every slot is held,
 * the exchange that began first gives its slot up.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "metrics/conns.h"

static void test_admit_while_room(void **state)
{
	struct conn *victim, *c[3];
	struct conns s;
	int i;

	(void)state;
	assert_int_equal(conns_init(&s, 3, 1000), 0);
	for (i = 0; i < 3; i++) {
		assert_null(conns_victim(&s));
		c[i] = conns_add(&s, 10 + i, 100 * i);
		assert_non_null(c[i]);
	}
	assert_int_equal(s.held, 3);
	/* Full: the exchange that began first goes, not the newest. */
	victim = conns_victim(&s);
	assert_ptr_equal(victim, c[0]);
	assert_int_equal(s.evicted, 1);
	conns_close(&s, victim);
	assert_int_equal(s.held, 2);
	assert_non_null(conns_add(&s, 13, 300));
	/* A connection on its way out still takes room until it is gone. */
	conns_del(&s, c[0]);
	assert_int_equal(s.held, 3);
	conns_free(&s);
}

static void test_answer_restarts_clock(void **state)
{
	struct conn *victim, *a, *b;
	struct conns s;

	(void)state;
	assert_int_equal(conns_init(&s, 2, 1000), 0);
	a = conns_add(&s, 10, 0);
	b = conns_add(&s, 11, 100);
	/* a's answer is out at 500: its next exchange is younger than b's. */
	conns_restart(a, 500);
	victim = conns_victim(&s);
	assert_ptr_equal(victim, b);
	conns_free(&s);
}

static void test_deadline(void **state)
{
	struct conn *a, *b;
	struct conns s;

	(void)state;
	assert_int_equal(conns_init(&s, 4, 1000), 0);
	assert_int_equal(conns_next_deadline(&s, 0), -1);
	a = conns_add(&s, 10, 0);
	b = conns_add(&s, 11, 400);
	assert_int_equal(conns_next_deadline(&s, 300), 700);
	assert_null(conns_expired(&s, 999));
	assert_ptr_equal(conns_expired(&s, 1000), a);
	conns_close(&s, a);
	assert_null(conns_expired(&s, 1000));
	assert_int_equal(conns_next_deadline(&s, 1000), 400);
	assert_ptr_equal(conns_expired(&s, 5000), b);
	assert_int_equal(conns_next_deadline(&s, 5000), 0);
	assert_int_equal(s.expired, 2);
	conns_free(&s);
}

static void test_room_for_closing(void **state)
{
	struct conns s;
	int i;

	(void)state;
	/* Two slots, and room for two more on their way out. */
	assert_int_equal(conns_init(&s, 2, 1000), 0);
	for (i = 0; i < 4; i++) {
		struct conn *victim = conns_victim(&s);

		if (victim)
			conns_close(&s, victim);
		assert_non_null(conns_add(&s, 10 + i, i));
	}
	assert_int_equal(s.held, 2);
	assert_int_equal(s.evicted, 2);
	assert_null(conns_add(&s, 14, 4));
	conns_free(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_admit_while_room),
		cmocka_unit_test(test_answer_restarts_clock),
		cmocka_unit_test(test_deadline),
		cmocka_unit_test(test_room_for_closing),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
