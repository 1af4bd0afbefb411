/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef CLS_TEST_RATE_H
#define CLS_TEST_RATE_H

#include "maps/classifier_abi.h"

/* What the test writes for tests/prog/rate_test.bpf.c and reads back. */
struct rate_args {
	struct cls_rate rate;
	__u64 now;   /* the test's now, when step is 0 */
	__u64 step;  /* else: the shared clock's advance per packet */
	__u32 len;   /* the packet's length for the rate */
	__u32 clock; /* which clock of clocks */
};

struct rate_counts {
	__u64 passed;
	__u64 over;
	__u64 later;
	__u64 ce;
	__u64 last_depart;
	__u64 shared_now;
};

#ifndef __VMLINUX_H__

/* Runs the rate tests, adding to the counts; -errno if they cannot load. */
int rate_tests_run(int *passed, int *failed);
#endif

#endif
