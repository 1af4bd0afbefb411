// SPDX-License-Identifier: GPL-2.0-only
/*
 * loader/tc_netlink.c against the running kernel, in a network namespace
 * of our own (it dies with the process, so nothing is left behind even on a
 * crash). The tc command cross-checks what the kernel really holds.
 * `make unit` builds and runs it.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <net/if.h>

#include <bpf/bpf.h>
#include <linux/bpf.h>

#include "lib/log.h"
#include "loader/tc_netlink.h"
#include "tests/tcnl/common.h"

#define DEV "tcnl0"
/*
 * Foreign filters need classifiers this kernel may lack as modules; cls_bpf
 * (classic bytecode, "return 0") and u32 without actions are built in here.
 */
#define CBPF_FILTER "bpf bytecode '1,6 0 0 0,'"
#define U32_FILTER  "u32 match u32 0 0 classid 1:1"
/* An ifindex no device in a fresh namespace has. */
#define BAD_IFINDEX 999999

/* A SCHED_CLS program that returns TC_ACT_UNSPEC (-1): r0 = -1; exit. */
static int load_prog(const char *name, __u32 *id)
{
	const struct bpf_insn insns[] = {
		{.code = BPF_ALU64 | BPF_MOV | BPF_K,
		 .dst_reg = BPF_REG_0,
		 .imm = -1},
		{.code = BPF_JMP | BPF_EXIT},
	};
	struct bpf_prog_info info;
	__u32 len = sizeof(info);
	int fd, err;

	fd = bpf_prog_load(BPF_PROG_TYPE_SCHED_CLS, name, "GPL", insns, 2,
			   NULL);
	if (fd < 0)
		return fd;
	memset(&info, 0, sizeof(info));
	err = bpf_obj_get_info_by_fd(fd, &info, &len);
	if (err) {
		close(fd);
		return err;
	}
	*id = info.id;
	return fd;
}

static int setup_netns(void)
{
	if (unshare(CLONE_NEWNET)) {
		perror("unshare(CLONE_NEWNET)");
		return -errno;
	}
	/* veth, not dummy: this kernel may be built without dummy. */
	if (sh("ip link add " DEV " type veth peer name " DEV "p") ||
	    sh("ip link set " DEV " up") || sh("ip link set " DEV "p up")) {
		fprintf(stderr, "cannot create veth pair " DEV "\n");
		return -1;
	}
	return 0;
}

static void test_clsact(int ifindex)
{
	bool created = false;
	int ret;

	ret = tc_clsact_ensure(ifindex, &created);
	check(ret == 0 && created,
	      "ensure on bare device creates clsact "
	      "(ret %d, created %d)",
	      ret, created);
	check(output_has("tc qdisc show dev " DEV, "qdisc clsact ffff:") == 1,
	      "tc qdisc show lists clsact");
	created = true;
	ret = tc_clsact_ensure(ifindex, &created);
	check(ret == 0 && !created,
	      "second ensure reuses clsact "
	      "(ret %d, created %d)",
	      ret, created);
}

static void test_attach_replace(int ifindex, int fd_a, __u32 id_a, int fd_b,
				__u32 id_b)
{
	__u32 id = 0;
	int ret;

	ret = tc_filter_query(ifindex, &id);
	check(ret == 0, "query before attach finds nothing (ret %d)", ret);
	ret = tc_clsact_count_filters(ifindex);
	check(ret == 0, "count before attach is 0 (ret %d)", ret);

	ret = tc_filter_attach(ifindex, fd_a, "cls_a");
	check(ret == 0, "attach prog A (ret %d, extack \"%s\")", ret,
	      tc_netlink_last_error());
	ret = tc_filter_query(ifindex, &id);
	check(ret == 1 && id == id_a,
	      "query returns prog A's id "
	      "(ret %d, id %u, want %u)",
	      ret, id, id_a);
	check(output_has("tc filter show dev " DEV " egress",
			 "pref 49573 bpf chain 0 handle 0x1 cls_a "
			 "direct-action") == 1,
	      "tc filter show: cls_a direct-action at pref 0xc1a5 handle 1");

	ret = tc_filter_attach(ifindex, fd_b, "cls_b");
	check(ret == 0, "attach prog B over A (ret %d, extack \"%s\")", ret,
	      tc_netlink_last_error());
	ret = tc_filter_query(ifindex, &id);
	check(ret == 1 && id == id_b,
	      "query returns prog B's id after "
	      "replace (ret %d, id %u, want %u)",
	      ret, id, id_b);
	ret = tc_clsact_count_filters(ifindex);
	check(ret == 1, "count stays 1 after replace (ret %d)", ret);
	check(output_has("tc filter show dev " DEV " egress", "cls_a") == 0,
	      "tc filter show no longer lists cls_a");

	ret = tc_filter_attach(ifindex, fd_b, "cls_b");
	check(ret == 0 && tc_clsact_count_filters(ifindex) == 1,
	      "attach of the same prog again is idempotent (ret %d)", ret);
}

static void test_count_both_hooks(int ifindex)
{
	int ret;

	if (sh("tc filter add dev " DEV " ingress pref 7 " CBPF_FILTER)) {
		check(0, "tc filter add ingress " CBPF_FILTER);
		return;
	}
	ret = tc_clsact_count_filters(ifindex);
	check(ret == 2, "count includes ingress filters (ret %d, want 2)", ret);
	sh("tc filter del dev " DEV " ingress pref 7");
	ret = tc_clsact_count_filters(ifindex);
	check(ret == 1, "count back to 1 (ret %d)", ret);
}

static void test_detach(int ifindex)
{
	__u32 id = 0;
	int ret;

	ret = tc_filter_detach(ifindex);
	check(ret == 0, "detach (ret %d)", ret);
	ret = tc_filter_query(ifindex, &id);
	check(ret == 0, "query after detach finds nothing (ret %d)", ret);
	check(output_has("tc filter show dev " DEV " egress", "bpf") == 0,
	      "tc filter show egress is empty");
	ret = tc_filter_detach(ifindex);
	check(ret == -ENOENT, "detach twice -> -ENOENT (ret %d)", ret);
}

/* Detach removes exactly our filter, never a neighbour or a look-alike. */
static void test_detach_exact(int ifindex, int fd)
{
	__u32 id = 0;
	int before;
	int ret;

	if (sh("tc filter add dev " DEV " egress pref 10 " CBPF_FILTER)) {
		check(0, "tc filter add egress pref 10 " CBPF_FILTER);
		return;
	}
	ret = tc_filter_attach(ifindex, fd, "cls_a");
	check(ret == 0, "attach next to a foreign filter (ret %d)", ret);
	ret = tc_filter_detach(ifindex);
	check(ret == 0 && tc_clsact_count_filters(ifindex) == 1,
	      "detach leaves the foreign pref 10 filter (ret %d)", ret);
	sh("tc filter del dev " DEV " egress pref 10");

	if (sh("tc filter add dev " DEV
	       " egress pref 49573 protocol all " U32_FILTER)) {
		check(0, "tc filter add u32 at our pref");
		return;
	}
	before = tc_clsact_count_filters(ifindex);
	ret = tc_filter_query(ifindex, &id);
	check(ret == 0, "query ignores a u32 filter at our pref (ret %d)", ret);
	ret = tc_filter_attach(ifindex, fd, "cls_a");
	check(ret < 0 && tc_netlink_last_error()[0],
	      "attach over a foreign kind fails with extack (ret %d, "
	      "\"%s\")",
	      ret, tc_netlink_last_error());
	ret = tc_filter_detach(ifindex);
	check(ret == -ENOENT && before > 0 &&
		      tc_clsact_count_filters(ifindex) == before,
	      "detach leaves the u32 filter at our pref (ret %d)", ret);
	sh("tc filter del dev " DEV " egress pref 49573");
}

static void test_delete(int ifindex, int fd)
{
	__u32 id = 0;
	int ret;

	ret = tc_clsact_delete(ifindex);
	check(ret == 0, "delete clsact (ret %d)", ret);
	check(output_has("tc qdisc show dev " DEV, "clsact") == 0,
	      "tc qdisc show no longer lists clsact");
	ret = tc_clsact_delete(ifindex);
	check(ret == -ENOENT, "delete twice -> -ENOENT (ret %d)", ret);
	ret = tc_filter_detach(ifindex);
	check(ret == -ENOENT, "detach without clsact -> -ENOENT (ret %d)", ret);
	ret = tc_filter_query(ifindex, &id);
	check(ret == 0, "query without clsact -> 0 (ret %d)", ret);
	ret = tc_clsact_count_filters(ifindex);
	check(ret == 0, "count without clsact -> 0 (ret %d)", ret);
	ret = tc_filter_attach(ifindex, fd, "cls_a");
	check(ret < 0 && tc_netlink_last_error()[0],
	      "attach without clsact fails with extack (ret %d, \"%s\")", ret,
	      tc_netlink_last_error());
}

static void test_bad_ifindex(int fd)
{
	bool created = true;
	__u32 id = 0;
	int ret;

	ret = tc_clsact_ensure(BAD_IFINDEX, &created);
	check(ret < 0 && !created, "ensure on bad ifindex (ret %d)", ret);
	ret = tc_clsact_ensure(0, &created);
	check(ret < 0, "ensure on ifindex 0 (ret %d)", ret);
	ret = tc_clsact_delete(BAD_IFINDEX);
	check(ret < 0, "delete on bad ifindex (ret %d)", ret);
	ret = tc_filter_attach(BAD_IFINDEX, fd, "cls_a");
	check(ret < 0, "attach on bad ifindex (ret %d)", ret);
	ret = tc_filter_detach(BAD_IFINDEX);
	check(ret < 0, "detach on bad ifindex (ret %d)", ret);
	ret = tc_filter_query(BAD_IFINDEX, &id);
	check(ret < 0, "query on bad ifindex (ret %d)", ret);
	ret = tc_clsact_count_filters(BAD_IFINDEX);
	check(ret < 0, "count on bad ifindex (ret %d)", ret);
}

static void test_ingress_qdisc(int ifindex)
{
	bool created = true;
	int ret;

	if (sh("tc qdisc add dev " DEV " ingress")) {
		check(0, "tc qdisc add ingress");
		return;
	}
	ret = tc_clsact_ensure(ifindex, &created);
	check(ret == -EEXIST && !created && tc_netlink_last_error()[0],
	      "ensure over an ingress qdisc -> -EEXIST (ret %d, \"%s\")", ret,
	      tc_netlink_last_error());
	ret = tc_clsact_delete(ifindex);
	check(ret == -ENOENT && output_has("tc qdisc show dev " DEV,
					   "qdisc ingress") == 1,
	      "delete leaves the ingress qdisc alone (ret %d)", ret);
	sh("tc qdisc del dev " DEV " ingress");
}

/* What RTM_GETLINK tells: a veth is Ethernet, a tun is none (L3). */
static void test_link_query(int ifindex)
{
	struct tc_link l;
	int ret, tun;

	ret = tc_link_query(ifindex, &l);
	check(ret == 0 && l.type == 1 && !strcmp(l.kind, "veth"),
	      "link of a veth: type %u kind \"%s\" (ret %d)", l.type, l.kind,
	      ret);
	ret = tc_link_query(BAD_IFINDEX, &l);
	check(ret == -ENODEV, "link of a bad ifindex -> -ENODEV (ret %d)", ret);
	if (sh("ip tuntap add dev tcnltun mode tun")) {
		check(0, "ip tuntap add dev tcnltun mode tun");
		return;
	}
	tun = if_nametoindex("tcnltun");
	ret = tc_link_query(tun, &l);
	check(ret == 0 && l.type == 0xfffe && !strcmp(l.kind, "tun"),
	      "link of a tun: type %#x kind \"%s\" (ret %d)", l.type, l.kind,
	      ret);
	sh("ip link del tcnltun");
}

int main(void)
{
	__u32 id_a = 0, id_b = 0;
	int fd_a = -1, fd_b = -1;
	int ifindex;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (setup_netns())
		return 2;
	ifindex = if_nametoindex(DEV);
	fd_a = load_prog("cls_a", &id_a);
	fd_b = load_prog("cls_b", &id_b);
	if (!ifindex || fd_a < 0 || fd_b < 0) {
		fprintf(stderr, "setup failed: ifindex %d, prog fds %d %d\n",
			ifindex, fd_a, fd_b);
		return 2;
	}

	test_clsact(ifindex);
	test_attach_replace(ifindex, fd_a, id_a, fd_b, id_b);
	test_count_both_hooks(ifindex);
	test_detach(ifindex);
	test_detach_exact(ifindex, fd_a);
	test_delete(ifindex, fd_a);
	test_bad_ifindex(fd_a);
	test_ingress_qdisc(ifindex);
	test_link_query(ifindex);

	close(fd_a);
	close(fd_b);
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
