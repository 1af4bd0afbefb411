// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * What the tc egress body left in skb->queue_mapping, which
 * BPF_PROG_TEST_RUN does not copy out: the same body as the programs
 * (xdp_tc/classifier.bpf.c, included whole), then the queue_mapping
 * copied to cb[0], which it does.  (An fexit program on cls_egress
 * would read the real program's skb, but this machine refuses to load
 * one: EPERM.)  The test binds these programs to its fixture's maps.
 */
#include "xdp_tc/classifier.bpf.c"

SEC("tc")
int queue_of_egress(struct __sk_buff *skb)
{
	int verdict = cls_egress_run(skb, false);

	skb->cb[0] = skb->queue_mapping;
	return verdict;
}

SEC("tc")
int queue_of_egress_l3(struct __sk_buff *skb)
{
	int verdict = cls_egress_run(skb, true);

	skb->cb[0] = skb->queue_mapping;
	return verdict;
}
