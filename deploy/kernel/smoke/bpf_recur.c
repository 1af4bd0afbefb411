// SPDX-License-Identifier: GPL-2.0-only
/*
 * bpf_recur: runs the BPF trampoline's recursion check (patch 4:
 * __bpf_prog_enter_recur -> bpf_prog_get_recursion_context()) with a real
 * recursion, inside the qemu guests of vmtest.sh. No libbpf, no clang.
 *
 *   TP    raw_tracepoint program on the bpf_trace_printk tracepoint;
 *         counts its runs in cnt[1]
 *   F     fentry program attached to TP (a BPF trampoline on TP's entry);
 *         counts its runs in cnt[0], then calls bpf_trace_printk()
 *
 * One BPF_PROG_TEST_RUN of TP: the trampoline enters F (outer); F's
 * bpf_trace_printk() fires the tracepoint, which runs TP again, whose
 * trampoline tries to enter F again on the same CPU: that nested entry
 * must be refused and counted in F's recursion_misses, then TP's body runs
 * and the outer F finishes. Per test run: F runs 1, F misses 1, TP runs 2,
 * TP misses 0 (the tracepoint's own check in __bpf_trace_run() sees TP
 * once: a test run does not go through it). Were the nested F let in, it
 * would call bpf_trace_printk() under trace_printk_lock again: a hang.
 *
 * Why not fentry on a kernel function, as upstream's selftests do: 6.1's
 * arm64 JIT pokes only BPF text (bpf_arch_text_poke() returns -ENOTSUPP for
 * kernel functions, which need ftrace direct calls: arm64 has them from
 * 6.4 on), so a BPF program is the target on both architectures.
 *
 * Half the runs are on the calling CPU (task context), half are sent to
 * the other CPU with BPF_F_TEST_RUN_ON_CPU (hardirq context, an IPI), so
 * the nesting is refused at two interrupt context levels.
 *
 *   bpf_recur [N]    N test runs (default 100); exit 0 if the counts hold.
 *                    Pins F and TP as /sys/fs/bpf/recur_{fentry,tp} when
 *                    /sys/fs/bpf is a bpffs, for `bpftool prog show`.
 */
#define _GNU_SOURCE
#include <linux/bpf.h>
#include <linux/btf.h>
#include <sched.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "bpf_insn.h"

/* cnt[key] += 1 (cnt: array of u64) */
#define COUNT(fd, key) \
	ST(BPF_W, 10, -4, key), LD_MAP(1, fd), MOV64_REG(2, 10), ADD64_IMM(2, -4), \
	CALL(BPF_FUNC_map_lookup_elem), JEQ_IMM(0, 0, 3), LDX(BPF_DW, 1, 0, 0), \
	ADD64_IMM(1, 1), STX(BPF_DW, 0, 1, 0)

static char log_buf[65536];

/* BTF for TP: "int recur_tp(void *ctx)" is type [4], so F can attach. */
#define TP_BTF_ID 4
static int load_btf(void)
{
	static const char str[] = "\0int\0ctx\0recur_tp";
	static const uint32_t types[] = {
		/* [1] int */
		1, BTF_KIND_INT << 24, 4, BTF_INT_SIGNED << 24 | 32,
		/* [2] void * */
		0, BTF_KIND_PTR << 24, 0,
		/* [3] int (void *ctx) */
		0, BTF_KIND_FUNC_PROTO << 24 | 1, 1, 5, 2,
		/* [4] recur_tp */
		9, BTF_KIND_FUNC << 24 | BTF_FUNC_GLOBAL, 3,
	};
	static char b[sizeof(struct btf_header) + sizeof(types) + sizeof(str)];
	struct btf_header h = {
		.magic = BTF_MAGIC, .version = BTF_VERSION,
		.hdr_len = sizeof(h), .type_off = 0, .type_len = sizeof(types),
		.str_off = sizeof(types), .str_len = sizeof(str),
	};
	union bpf_attr a = { 0 };
	int fd;

	memcpy(b, &h, sizeof(h));
	memcpy(b + sizeof(h), types, sizeof(types));
	memcpy(b + sizeof(h) + sizeof(types), str, sizeof(str));
	a.btf = (uintptr_t)b;
	a.btf_size = sizeof(b);
	a.btf_log_buf = (uintptr_t)log_buf;
	a.btf_log_size = sizeof(log_buf);
	a.btf_log_level = 1;
	fd = sys_bpf(BPF_BTF_LOAD, &a);
	if (fd < 0)
		fprintf(stderr, "BTF_LOAD: %m\n%s\n", log_buf);
	return fd;
}

static int prog_load(union bpf_attr *a, const struct bpf_insn *insns, int n,
		     const char *name)
{
	int fd;

	a->insns = (uintptr_t)insns;
	a->insn_cnt = n;
	a->license = (uintptr_t)"GPL";
	a->log_buf = (uintptr_t)log_buf;
	a->log_size = sizeof(log_buf);
	a->log_level = 1;
	strncpy(a->prog_name, name, sizeof(a->prog_name) - 1);
	fd = sys_bpf(BPF_PROG_LOAD, a);
	if (fd < 0)
		fprintf(stderr, "load %s: %m\n%s\n", name, log_buf);
	return fd;
}

static int prog_info(int fd, struct bpf_prog_info *info)
{
	union bpf_attr a = { 0 };

	memset(info, 0, sizeof(*info));
	a.info.bpf_fd = fd;
	a.info.info_len = sizeof(*info);
	a.info.info = (uintptr_t)info;
	return sys_bpf(BPF_OBJ_GET_INFO_BY_FD, &a);
}

static void pin(int fd, const char *path)
{
	union bpf_attr a = { 0 };

	unlink(path);
	a.pathname = (uintptr_t)path;
	a.bpf_fd = fd;
	if (sys_bpf(BPF_OBJ_PIN, &a) == 0)
		printf("recur: pinned %s\n", path);
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 100;
	int cnt, btf, tp, f, link_tp, link_f, i, here, there, bad = 0;
	uint64_t got[2], args[1] = { 0 };
	struct bpf_prog_info fi, ti;
	union bpf_attr a = { 0 };
	uint32_t key;
	cpu_set_t set;

	setvbuf(stdout, NULL, _IOLBF, 0);
	a.map_type = BPF_MAP_TYPE_ARRAY;
	a.key_size = 4;
	a.value_size = 8;
	a.max_entries = 2;
	cnt = sys_bpf(BPF_MAP_CREATE, &a);
	btf = load_btf();
	if (cnt < 0 || btf < 0) {
		perror("map/btf");
		return 1;
	}

	struct bpf_insn tp_insns[] = { COUNT(cnt, 1), MOV64_IMM(0, 0), EXIT() };
	struct bpf_func_info finfo = { .insn_off = 0, .type_id = TP_BTF_ID };

	memset(&a, 0, sizeof(a));
	a.prog_type = BPF_PROG_TYPE_RAW_TRACEPOINT;
	a.prog_btf_fd = btf;
	a.func_info = (uintptr_t)&finfo;
	a.func_info_cnt = 1;
	a.func_info_rec_size = sizeof(finfo);
	tp = prog_load(&a, tp_insns, sizeof(tp_insns) / sizeof(tp_insns[0]), "recur_tp");
	if (tp < 0)
		return 1;

	/* "r\n": bpf_trace_printk() wants the NUL inside fmt_size */
	struct bpf_insn f_insns[] = {
		COUNT(cnt, 0),
		ST(BPF_W, 10, -8, 'r' | '\n' << 8),
		MOV64_REG(1, 10), ADD64_IMM(1, -8), MOV64_IMM(2, 4),
		CALL(BPF_FUNC_trace_printk),
		MOV64_IMM(0, 0), EXIT(),
	};

	memset(&a, 0, sizeof(a));
	a.prog_type = BPF_PROG_TYPE_TRACING;
	a.expected_attach_type = BPF_TRACE_FENTRY;
	a.attach_prog_fd = tp;
	a.attach_btf_id = TP_BTF_ID;
	f = prog_load(&a, f_insns, sizeof(f_insns) / sizeof(f_insns[0]), "recur_fentry");
	if (f < 0)
		return 1;

	memset(&a, 0, sizeof(a));
	a.raw_tracepoint.name = (uintptr_t)"bpf_trace_printk";
	a.raw_tracepoint.prog_fd = tp;
	link_tp = sys_bpf(BPF_RAW_TRACEPOINT_OPEN, &a);
	memset(&a, 0, sizeof(a));
	a.raw_tracepoint.prog_fd = f;		/* no name: fentry, its trampoline */
	link_f = sys_bpf(BPF_RAW_TRACEPOINT_OPEN, &a);
	if (link_tp < 0 || link_f < 0) {
		perror("attach");
		return 1;
	}
	printf("recur: fentry prog attached to raw_tp prog on bpf_trace_printk\n");

	CPU_ZERO(&set);
	CPU_SET(0, &set);
	sched_setaffinity(0, sizeof(set), &set);
	here = there = 0;
	for (i = 0; i < n; i++) {
		memset(&a, 0, sizeof(a));
		a.test.prog_fd = tp;
		a.test.ctx_in = (uintptr_t)args;
		a.test.ctx_size_in = sizeof(args);
		if (i % 2 && sysconf(_SC_NPROCESSORS_ONLN) > 1) {
			a.test.flags = BPF_F_TEST_RUN_ON_CPU;
			a.test.cpu = 1;		/* from CPU 0: runs in an IPI */
			there++;
		} else {
			here++;
		}
		if (sys_bpf(BPF_PROG_TEST_RUN, &a)) {
			perror("test_run");
			return 1;
		}
	}

	for (key = 0; key < 2; key++) {
		memset(&a, 0, sizeof(a));
		a.map_fd = cnt;
		a.key = (uintptr_t)&key;
		a.value = (uintptr_t)&got[key];
		if (sys_bpf(BPF_MAP_LOOKUP_ELEM, &a))
			return 1;
	}
	if (prog_info(f, &fi) || prog_info(tp, &ti)) {
		perror("prog_info");
		return 1;
	}
	printf("recur: %d test runs of recur_tp (%d on cpu0, %d sent to cpu1)\n",
	       n, here, there);
	printf("recur: recur_fentry id %u: runs %llu (want %d), recursion_misses %llu (want %d)\n",
	       fi.id, (unsigned long long)got[0], n,
	       (unsigned long long)fi.recursion_misses, n);
	printf("recur: recur_tp id %u: runs %llu (want %d), recursion_misses %llu (want 0)\n",
	       ti.id, (unsigned long long)got[1], 2 * n,
	       (unsigned long long)ti.recursion_misses);
	bad = got[0] != (uint64_t)n || fi.recursion_misses != (uint64_t)n ||
	      got[1] != (uint64_t)2 * n || ti.recursion_misses != 0;
	if (access("/sys/fs/bpf", F_OK) == 0) {
		pin(f, "/sys/fs/bpf/recur_fentry");
		pin(tp, "/sys/fs/bpf/recur_tp");
	}
	printf("RECUR %s\n", bad ? "FAIL" : "PASS");
	return bad;
}
