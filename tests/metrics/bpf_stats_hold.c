// SPDX-License-Identifier: GPL-2.0-only
/*
 * Hold the kernel's BPF run-time accounting on (BPF_ENABLE_STATS) until
 * killed: refcounted, unlike sysctl kernel.bpf_stats_enabled, so nothing
 * else on the host is left with it on.  Prints "on" once it holds it.
 * For tests/netns/test_metrics_prometheus.sh.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>

int main(void)
{
	int fd = bpf_enable_stats(BPF_STATS_RUN_TIME);

	if (fd < 0) {
		fprintf(stderr, "bpf_stats_hold: BPF_ENABLE_STATS: %s\n",
			strerror(errno));
		return 1;
	}
	printf("on\n");
	fflush(stdout);
	for (;;)
		pause();
}
