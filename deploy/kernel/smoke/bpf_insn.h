/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The bpf(2) call and a BPF instruction assembler in macros, shared by the
 * guest test programs (bpf_smoke.c, bpf_recur.c): they load hand-assembled
 * programs with no libbpf or clang, so they build statically for any arch.
 */
#ifndef BPF_INSN_H
#define BPF_INSN_H

#include <linux/bpf.h>
#include <sys/syscall.h>
#include <unistd.h>

static inline int sys_bpf(int cmd, union bpf_attr *a)
{
	return syscall(__NR_bpf, cmd, a, sizeof(*a));
}

#define INSN(c, d, s, o, i) ((struct bpf_insn){ .code = (c), .dst_reg = (d), \
	.src_reg = (s), .off = (o), .imm = (i) })
#define MOV64_IMM(d, i)    INSN(BPF_ALU64 | BPF_MOV | BPF_K, d, 0, 0, i)
#define MOV64_REG(d, s)    INSN(BPF_ALU64 | BPF_MOV | BPF_X, d, s, 0, 0)
#define ADD64_IMM(d, i)    INSN(BPF_ALU64 | BPF_ADD | BPF_K, d, 0, 0, i)
#define ADD64_REG(d, s)    INSN(BPF_ALU64 | BPF_ADD | BPF_X, d, s, 0, 0)
#define MUL64_IMM(d, i)    INSN(BPF_ALU64 | BPF_MUL | BPF_K, d, 0, 0, i)
#define LDX(sz, d, s, o)   INSN(BPF_LDX | BPF_MEM | (sz), d, s, o, 0)
#define STX(sz, d, s, o)   INSN(BPF_STX | BPF_MEM | (sz), d, s, o, 0)
#define ST(sz, d, o, i)    INSN(BPF_ST | BPF_MEM | (sz), d, 0, o, i)
#define JGT_REG(d, s, o)   INSN(BPF_JMP | BPF_JGT | BPF_X, d, s, o, 0)
#define JEQ_IMM(d, i, o)   INSN(BPF_JMP | BPF_JEQ | BPF_K, d, 0, o, i)
#define JA(o)              INSN(BPF_JMP | BPF_JA, 0, 0, o, 0)
#define CALL(f)            INSN(BPF_JMP | BPF_CALL, 0, 0, 0, f)
#define EXIT()             INSN(BPF_JMP | BPF_EXIT, 0, 0, 0, 0)
#define LD_MAP(d, fd)      INSN(BPF_LD | BPF_DW | BPF_IMM, d, BPF_PSEUDO_MAP_FD, 0, fd), \
			   INSN(0, 0, 0, 0, 0)

#endif
