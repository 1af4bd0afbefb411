// SPDX-License-Identifier: GPL-2.0-only
/*
 * insncount: TCG plugin for qemu 7.2 that counts guest instructions executed
 * inside given address ranges, and how often each range's first instruction
 * ran (= calls of that function). Debian ships the plugin loader but neither
 * qemu-plugin.h nor the contrib plugins, so the few API declarations used
 * are written out below.
 *
 *   qemu-system-x86_64 -accel tcg,thread=single -plugin ./insncount.so,\
 *       arg=ffffffff81234560-ffffffff81234780-trie_lookup_elem,arg=...
 *
 * Counters are plain inline adds, so use one vCPU (or thread=single).
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef uint64_t qemu_plugin_id_t;
struct qemu_plugin_tb;
struct qemu_plugin_insn;
enum qemu_plugin_op { QEMU_PLUGIN_INLINE_ADD_U64 };
typedef void (*tb_trans_cb)(qemu_plugin_id_t id, struct qemu_plugin_tb *tb);
typedef void (*udata_cb)(qemu_plugin_id_t id, void *userdata);

void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id, tb_trans_cb cb);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
struct qemu_plugin_insn *qemu_plugin_tb_get_insn(const struct qemu_plugin_tb *tb,
						 size_t idx);
uint64_t qemu_plugin_insn_vaddr(const struct qemu_plugin_insn *insn);
void qemu_plugin_register_vcpu_insn_exec_inline(struct qemu_plugin_insn *insn,
						enum qemu_plugin_op op,
						void *ptr, uint64_t imm);
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t id, udata_cb cb,
				    void *userdata);
void qemu_plugin_outs(const char *string);

__attribute__((visibility("default"))) int qemu_plugin_version = 1;

#define MAXR 16
static struct range {
	uint64_t lo, hi;
	char name[64];
	uint64_t insns, entries;
} r[MAXR];
static int nr;

static void on_tb(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	size_t i, n = qemu_plugin_tb_n_insns(tb);
	int k;

	for (i = 0; i < n; i++) {
		struct qemu_plugin_insn *in = qemu_plugin_tb_get_insn(tb, i);
		uint64_t va = qemu_plugin_insn_vaddr(in);

		for (k = 0; k < nr; k++) {
			if (va < r[k].lo || va >= r[k].hi)
				continue;
			qemu_plugin_register_vcpu_insn_exec_inline(in,
				QEMU_PLUGIN_INLINE_ADD_U64, &r[k].insns, 1);
			if (va == r[k].lo)
				qemu_plugin_register_vcpu_insn_exec_inline(in,
					QEMU_PLUGIN_INLINE_ADD_U64, &r[k].entries, 1);
		}
	}
}

static void at_qemu_exit(qemu_plugin_id_t id, void *u)
{
	char line[256];
	int k;

	for (k = 0; k < nr; k++) {
		snprintf(line, sizeof(line),
			 "INSNCOUNT %s insns=%" PRIu64 " entries=%" PRIu64 "\n",
			 r[k].name, r[k].insns, r[k].entries);
		qemu_plugin_outs(line);
	}
}

__attribute__((visibility("default")))
int qemu_plugin_install(qemu_plugin_id_t id, const void *info, int argc,
			char **argv)
{
	int i;

	for (i = 0; i < argc && nr < MAXR; i++) {
		const char *a = argv[i];

		if (!strncmp(a, "arg=", 4))
			a += 4;
		if (sscanf(a, "%" SCNx64 "-%" SCNx64 "-%63s", &r[nr].lo,
			   &r[nr].hi, r[nr].name) != 3) {
			fprintf(stderr, "insncount: bad arg %s\n", argv[i]);
			return -1;
		}
		nr++;
	}
	qemu_plugin_register_vcpu_tb_trans_cb(id, on_tb);
	qemu_plugin_register_atexit_cb(id, at_qemu_exit, NULL);
	return 0;
}
