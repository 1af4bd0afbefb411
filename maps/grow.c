// SPDX-License-Identifier: GPL-2.0-only
/*
 * Growing the class maps: a set whose classes need room past its
 * capacity (cls_maps.cap) gets maps indexed by class of a larger one.
 * The programs are loaded for one capacity (the counters' stride is a
 * constant), so a growth is a move to the same layout, made as an
 * upgrade is (maps/migrate.c): the new set is made whole in staging/,
 * the class-indexed maps new and copied (the counters restrided), every
 * other map carried as it is but the state (whose record marks staging/
 * complete); then the loader points every attachment at programs bound
 * to it and one renameat2(RENAME_EXCHANGE) makes it the live maps/.  A
 * crash before the record drops staging/ (the old set stays); after it,
 * the next change finishes the growth.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "maps/layout.h"

__u32 cls_cap_for(__u32 need)
{
	__u32 cap = CLS_CLASS_STEP;

	while (cap < need && cap < CLS_MAX_CLASSES)
		cap *= 2;
	return cap;
}

/* The first n elements of ARRAY in into out (size bytes each), batched. */
static int copy_array(int in, int out, size_t size, __u32 n)
{
	__u32 *keys, i, count = n;
	void *vals;
	int err;

	keys = malloc(sizeof(*keys) * n);
	vals = malloc(size * n);
	err = keys && vals ? cls_array_read(in, vals, size, n) : -ENOMEM;
	for (i = 0; !err && i < n; i++)
		keys[i] = i;
	if (!err && bpf_map_update_batch(out, keys, vals, &count, NULL))
		for (i = 0, err = 0; !err && i < n; i++)
			if (bpf_map_update_elem(out, &keys[i],
						(char *)vals + i * size,
						BPF_ANY))
				err = -errno;
	free(keys);
	free(vals);
	return err;
}

static void *map_all(int fd, size_t len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);

	return p == MAP_FAILED ? NULL : p;
}

/*
 * Per-CPU counters of a set of old classes into one of cap: each CPU's
 * slice, its runs (egress classes, ingress classes, the reasons) each
 * at its place in the wider slice.  sz: a counter's size; extra: the
 * slots after the classes (the reasons).
 */
static int restride(int in, int out, size_t sz, __u32 old, __u32 cap,
		    __u32 extra, unsigned int cpus_in, unsigned int cpus_out)
{
	size_t si = 2 * (size_t)old + extra, so = 2 * (size_t)cap + extra;
	size_t li = si * cpus_in * sz, lo = so * cpus_out * sz;
	unsigned int cpu, n = cpus_in < cpus_out ? cpus_in : cpus_out;
	char *a = map_all(in, li), *b = map_all(out, lo);
	int err = a && b ? 0 : -errno;

	for (cpu = 0; !err && cpu < n; cpu++) {
		const char *s = a + cpu * si * sz;
		char *d = b + cpu * so * sz;

		memcpy(d, s, old * sz);
		memcpy(d + cap * sz, s + old * sz, old * sz);
		memcpy(d + 2 * cap * sz, s + 2 * old * sz, extra * sz);
	}
	if (a)
		munmap(a, li);
	if (b)
		munmap(b, lo);
	return err;
}

/* The new set's map id: made for cap and copied, the state, or carried. */
static int grow_map(const struct cls_maps *m, enum cls_map_id id, __u32 cap,
		    unsigned int cpus)
{
	const struct cls_map_spec *s = &cls_map_specs[id];
	__u32 n = cls_class_entries(id, cap, cpus);
	int fd, err = 0;

	if (!n && id != CLS_M_STATE) {
		fd = dup(m->fd[id]);
		return fd < 0 ? -errno : fd;
	}
	fd = cls_map_create(s, n);
	if (fd < 0)
		return fd;
	switch (id) {
	case CLS_M_STATS:
		err = restride(m->fd[id], fd, sizeof(struct cls_counter),
			       m->cap, cap, CLS_REASON_SLOTS, m->nr_cpus, cpus);
		break;
	case CLS_M_RATE_STATS:
		err = restride(m->fd[id], fd, sizeof(struct cls_rate_counter),
			       m->cap, cap, 0, m->nr_cpus, cpus);
		break;
	default:
		err = copy_array(m->fd[id], fd, s->value_size,
				 id == CLS_M_STATE ? 1 : m->cap);
	}
	if (err) {
		close(fd);
		return err;
	}
	return fd;
}

int cls_grow_stage(struct cls_maps *m, __u32 need)
{
	unsigned int cpus = libbpf_num_possible_cpus();
	struct cls_open_opts o = {.notify = m->notify};
	__u32 cap = cls_cap_for(need);
	int fds[CLS_NR_MAPS], id, err = 0;
	struct cls_state s;
	struct cls_maps n;

	if (!m->locked)
		return -ENOLCK;
	if (need > CLS_MAX_CLASSES)
		return -ENOSPC;
	if (cap <= m->cap)
		return 0;
	/*
	 * Nothing half done comes along (the lock-taker settled it): a
	 * change's own pins (maps/class_load) are not the new set's.
	 */
	err = cls_state_read(m, &s);
	if (!err && s.journal.op != CLS_OP_NONE)
		err = -EBUSY;
	if (err)
		return err;
	for (id = 0; id < CLS_NR_MAPS; id++)
		fds[id] = -1;
	err = cls_dir_remove(m->dir_fd, "staging");
	for (id = 0; id < CLS_NR_MAPS && err >= 0; id++)
		err = fds[id] = grow_map(m, id, cap, cpus);
	if (err >= 0)
		err = cls_handle_adopt(&n, m->root, fds, &o);
	if (!err) {
		err = cls_layout_pin(&n, m->dir_fd);
		cls_step("grow: pinned in staging");
		/* The record last: it says staging/ is complete. */
		if (!err)
			err = cls_state_read(&n, &s);
		s.journal.migrate.from = CLS_LAYOUT_VERSION;
		if (!err)
			err = cls_journal_begin(&n, &s, CLS_OP_MIGRATE);
		cls_step("grow: recorded");
		cls_handle_release(&n);
	}
	for (id = 0; id < CLS_NR_MAPS; id++)
		if (fds[id] >= 0)
			close(fds[id]);
	if (err < 0) {
		cls_set_error("growing %s to %u classes: %s", m->root, cap,
			      strerror(-err));
		cls_dir_remove(m->dir_fd, "staging");
		return err;
	}
	return 1;
}
