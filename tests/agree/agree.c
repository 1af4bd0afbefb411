// SPDX-License-Identifier: GPL-2.0-only
/* What the table agreement tests share: setup, loads, a private bpffs. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "classifier.skel.h"
#include "loader/loader_internal.h"
#include "tests/agree/agree.h"

int agree_open(struct cls_maps *m, const char *bpffs, enum cls_table_mode mode,
	       __u32 groups, int *prog_fd)
{
	struct cls_open_opts o = { .bpffs = bpffs, .write = true,
				   .wait_ms = -1 };
	struct classifier_bpf *skel = NULL;
	struct cls_class_entry e;
	__u32 i;
	int err;

	size_t moved;

	err = cls_open(m, &o);
	/* Room for the classes: the set grows as the CLI grows it. */
	if (!err)
		err = cls_grow(m, AGREE_CLASSES, &moved);
	if (!err && mode != CLS_TABLE_AUTO)
		err = cls_table_set_policy(m, mode, groups);
	for (i = 1; i < AGREE_CLASSES && !err; i++) {
		memset(&e, 0, sizeof(e));
		e.idx = i;
		e.cls.classid = 1U << 16 | (0x100 + i);
		e.cls.flags = CLS_F_VALID | CLS_F_PRIORITY;
		err = cls_class_store(m, &e);
	}
	if (!err)
		err = cls_load(m, &skel);
	if (err)
		return err;
	*prog_fd = dup(bpf_program__fd(skel->progs.cls_egress));
	classifier_bpf__destroy(skel);
	return *prog_fd < 0 ? -errno : 0;
}

int agree_load(struct cls_maps *m, const struct cls_route *r, size_t n)
{
	struct cls_txn *t;
	int err;

	err = cls_txn_begin(m, CLS_TXN_HAND, &t);
	if (err)
		return err;
	err = cls_txn_add(t, r, n);
	if (err) {
		cls_txn_abort(t);
		return err;
	}
	return cls_txn_commit(t, NULL);
}

int agree_end_of_command(struct cls_maps *m)
{
	int err = cls_unlock(m);

	return err ? err : cls_lock(m, -1);
}

int agree_main(char *tmpl, int (*run)(const char *bpffs))
{
	int status = 0;
	pid_t pid;

	if (!mkdtemp(tmpl) || mount("bpf", tmpl, "bpf", 0, NULL)) {
		perror("private bpffs");
		return 2;
	}
	fflush(stdout);
	pid = fork();
	if (pid == 0)
		exit(run(tmpl));
	if (pid < 0 || waitpid(pid, &status, 0) < 0)
		status = -1;
	umount2(tmpl, MNT_DETACH);
	rmdir(tmpl);
	if (!WIFEXITED(status)) {
		printf("FAIL %s: child died (status %#x)\n0 passed, 1 failed\n",
		       tmpl, status);
		return 1;
	}
	return WEXITSTATUS(status);
}
