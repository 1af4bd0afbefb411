// SPDX-License-Identifier: GPL-2.0-only
/*
 * How the daemon reads a dump's answer among notifications
 * (rtsock_dump_msg(): whose message, how the dump ended, with which
 * error) and the kernel's route counts (kcount_parse(), from
 * /proc/net/fib_triestat as 6.18 writes it).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>

#include <cmocka.h>

#include "sync/kcount.h"
#include "sync/rtsock.h"

#define PORT 4242
#define SEQ  7

static union {
	struct nlmsghdr h;
	__u8 b[256];
} msg;

/* A message of type from (pid, seq), with an int payload of len bytes. */
static const struct nlmsghdr *mk(__u16 type, __u16 flags, __u32 pid, __u32 seq,
				 int payload, size_t len)
{
	memset(&msg, 0, sizeof(msg));
	msg.h.nlmsg_type = type;
	msg.h.nlmsg_flags = flags;
	msg.h.nlmsg_pid = pid;
	msg.h.nlmsg_seq = seq;
	msg.h.nlmsg_len = NLMSG_LENGTH(len);
	memcpy(NLMSG_DATA(&msg.h), &payload, len < 4 ? len : 4);
	return &msg.h;
}

static struct rtsock_dump dump(void)
{
	struct rtsock_dump d = {.portid = PORT, .seq = SEQ};

	return d;
}

/* What another process's change made the kernel say is a notification. */
static void test_events_are_not_the_dump(void **state)
{
	struct rtsock_dump d = dump();

	(void)state;
	assert_int_equal(rtsock_dump_msg(&d, mk(RTM_NEWROUTE, 0, 999, SEQ, 0,
						sizeof(struct rtmsg))),
			 RTSOCK_MSG_EVENT);
	assert_int_equal(rtsock_dump_msg(&d, mk(RTM_DELROUTE, 0, 0, 0, 0,
						sizeof(struct rtmsg))),
			 RTSOCK_MSG_EVENT);
	/* a notification may carry the requester's seq, never our port */
	assert_int_equal(rtsock_dump_msg(&d, mk(NLMSG_DONE, NLM_F_MULTI, 999,
						SEQ, 0, 4)),
			 RTSOCK_MSG_EVENT);
	assert_false(d.done);
	assert_int_equal(d.routes, 0);
}

static void test_routes_and_end(void **state)
{
	struct rtsock_dump d = dump();

	(void)state;
	assert_int_equal(rtsock_dump_msg(&d, mk(RTM_NEWROUTE, NLM_F_MULTI, PORT,
						SEQ, 0, sizeof(struct rtmsg))),
			 RTSOCK_MSG_ROUTE);
	assert_int_equal(d.routes, 1);
	assert_int_equal(rtsock_dump_msg(&d, mk(NLMSG_DONE, NLM_F_MULTI, PORT,
						SEQ, 0, 4)),
			 RTSOCK_MSG_END);
	assert_true(d.done);
	assert_int_equal(d.err, 0);
	assert_false(d.intr);
}

/* NLMSG_DONE says how the dump ended: a failed dump is no empty table. */
static void test_done_carries_the_error(void **state)
{
	static const int errs[] = {-EMSGSIZE, -ENOENT, -EINVAL, -ENOBUFS,
				   -EBUSY};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(errs) / sizeof(errs[0]); i++) {
		struct rtsock_dump d = dump();

		assert_int_equal(rtsock_dump_msg(&d, mk(NLMSG_DONE, NLM_F_MULTI,
							PORT, SEQ, errs[i], 4)),
				 RTSOCK_MSG_END);
		assert_true(d.done);
		assert_int_equal(d.err, errs[i]);
	}
}

/* Old kernels sent NLMSG_DONE without a payload; a positive one is none. */
static void test_done_shapes(void **state)
{
	struct rtsock_dump d = dump();

	(void)state;
	assert_int_equal(rtsock_dump_msg(&d, mk(NLMSG_DONE, NLM_F_MULTI, PORT,
						SEQ, 0, 0)),
			 RTSOCK_MSG_END);
	assert_int_equal(d.err, 0);
	d = dump();
	rtsock_dump_msg(&d, mk(NLMSG_DONE, NLM_F_MULTI, PORT, SEQ, 5, 4));
	assert_int_equal(d.err, -EPROTO);
	/* NLM_F_DUMP_INTR on any message of the dump */
	d = dump();
	rtsock_dump_msg(&d, mk(RTM_NEWROUTE, NLM_F_MULTI | NLM_F_DUMP_INTR,
			       PORT, SEQ, 0, sizeof(struct rtmsg)));
	assert_true(d.intr);
}

static void test_error_ends_the_dump(void **state)
{
	struct rtsock_dump d = dump();

	(void)state;
	assert_int_equal(
		rtsock_dump_msg(&d, mk(NLMSG_ERROR, 0, PORT, SEQ, -EINVAL,
				       sizeof(struct nlmsgerr))),
		RTSOCK_MSG_END);
	assert_int_equal(d.err, -EINVAL);
	d = dump();
	/* too short to say which error: still an error */
	rtsock_dump_msg(&d, mk(NLMSG_ERROR, 0, PORT, SEQ, 0, 4));
	assert_int_equal(d.err, -EPROTO);
	d = dump();
	/* an acknowledgement (error 0) ends a request well */
	rtsock_dump_msg(
		&d, mk(NLMSG_ERROR, 0, PORT, SEQ, 0, sizeof(struct nlmsgerr)));
	assert_true(d.done);
	assert_int_equal(d.err, 0);
}

static const char triestat[] =
	"Basic info: size of leaf: 48 bytes, size of tnode: 40 bytes.\n"
	"Id 100:\n"
	"\tAver depth:     1.66\n"
	"\tMax depth:      2\n"
	"\tLeaves:         3\n"
	"\tPrefixes:       4\n"
	"\tInternal nodes: 2\n"
	"\t  2: 2\n"
	"\tPointers: 8\n"
	"Null ptrs: 4\n"
	"Total size: 1  kB\n"
	"Id -1294967296:\n"
	"\tPrefixes:       1000000\n"
	"Main:\n"
	"\tAver depth:     1.66\n"
	"\tPrefixes:       3\n"
	"\tPointers: 6\n"
	"Null ptrs: 2\n"
	"Total size: 1  kB\n"
	"Local:\n"
	"\tAver depth:     1.66\n"
	"\tPrefixes:       3\n"
	"\tPointers: 6\n"
	"Null ptrs: 2\n"
	"Total size: 1  kB\n";

static struct kcount parse(const char *text)
{
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	struct kcount kc;

	assert_non_null(f);
	assert_int_equal(kcount_parse(f, &kc), 0);
	fclose(f);
	return kc;
}

static void test_kcount(void **state)
{
	struct kcount kc = parse(triestat);
	__u64 n;

	(void)state;
	assert_int_equal(kc.n, 4);
	assert_true(kcount_get(&kc, 100, &n));
	assert_int_equal(n, 4);
	/* table ids past 2^31 are printed with %d */
	assert_true(kcount_get(&kc, 3000000000U, &n));
	assert_int_equal(n, 1000000);
	assert_false(kcount_get(&kc, 101, &n));
	/* main and local print the same trie: neither count is its own */
	assert_true(kc.merged);
	assert_false(kcount_get(&kc, RT_TABLE_MAIN, &n));
	assert_false(kcount_get(&kc, RT_TABLE_LOCAL, &n));
	kcount_free(&kc);
}

static void test_kcount_unmerged(void **state)
{
	struct kcount kc = parse("Main:\n\tPrefixes:       7\n"
				 "Local:\n\tPrefixes:       9\n");
	__u64 n;

	(void)state;
	assert_false(kc.merged);
	assert_true(kcount_get(&kc, RT_TABLE_MAIN, &n));
	assert_int_equal(n, 7);
	assert_true(kcount_get(&kc, RT_TABLE_LOCAL, &n));
	assert_int_equal(n, 9);
	kcount_free(&kc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_events_are_not_the_dump),
		cmocka_unit_test(test_routes_and_end),
		cmocka_unit_test(test_done_carries_the_error),
		cmocka_unit_test(test_done_shapes),
		cmocka_unit_test(test_error_ends_the_dump),
		cmocka_unit_test(test_kcount),
		cmocka_unit_test(test_kcount_unmerged),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
