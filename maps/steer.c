// SPDX-License-Identifier: GPL-2.0-only
/*
 * Steering to CPUs: which CPU owns each TX queue (queue_cpu, read by
 * cls_steer per packet, so a change takes effect at the next packet), the
 * cpumap entries those CPUs need, and what cls_steer counted.
 * Every change is one map write per queue, made after the cpumap entry of
 * its CPU exists: a packet meets a queue's old CPU or its new one, both
 * with an entry, so no change needs the journal.  A spread over CPUs is
 * one BPF_MAP_UPDATE_BATCH, which a signal does not cut short; queues
 * move one by one inside it, each whole.  Entries are never taken out of
 * cpumap (a CPU no queue names costs an idle kthread); purge removes it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/bpf.h>

#include "lib/parse.h"
#include "maps/internal.h"

int cls_steer_cpu_check(const struct cls_maps *m, unsigned int cpu)
{
	char list[4096];
	FILE *f;
	size_t n;
	int has;

	if (cpu >= m->nr_cpus)
		return -ERANGE;
	f = fopen("/sys/devices/system/cpu/online", "r");
	if (!f)
		return -errno;
	n = fread(list, 1, sizeof(list) - 1, f);
	fclose(f);
	list[n] = '\0';
	has = cpulist_has(list, cpu);
	return has < 0 ? -EIO : has ? 0 : -ENXIO;
}

/* cpu's entry in cpumap, made if missing (a kthread bound to the CPU). */
static int cpumap_ensure(struct cls_maps *m, unsigned int cpu)
{
	int fd = m->fd[CLS_M_CPUMAP];
	__u32 qsize;

	if (!bpf_map_lookup_elem(fd, &cpu, &qsize) && qsize)
		return 0;
	qsize = CLS_STEER_QSIZE;
	return bpf_map_update_elem(fd, &cpu, &qsize, BPF_ANY) ? -errno : 0;
}

int cls_steer_set(struct cls_maps *m, unsigned int queue, int cpu)
{
	__u32 v = cpu < 0 ? 0 : (__u32)cpu + 1;
	int err;

	if (!m->locked)
		return -ENOLCK;
	if (queue > CLS_QUEUE_MAX)
		return -EDOM;
	if (cpu >= 0) {
		err = cls_steer_cpu_check(m, cpu);
		if (!err)
			err = cpumap_ensure(m, cpu);
		if (err)
			return err;
	}
	return bpf_map_update_elem(m->fd[CLS_M_QUEUE_CPU], &queue, &v, BPF_ANY)
		       ? -errno
		       : 0;
}

int cls_steer_spread(struct cls_maps *m, unsigned int queues, unsigned int cpus)
{
	LIBBPF_OPTS(bpf_map_batch_opts, opts, .elem_flags = BPF_ANY);
	__u32 keys[CLS_STEER_QUEUES], vals[CLS_STEER_QUEUES];
	__u32 count = CLS_STEER_QUEUES, q;
	unsigned int c;
	int err;

	if (!m->locked)
		return -ENOLCK;
	if (!queues || queues > CLS_STEER_QUEUES || !cpus)
		return -EDOM;
	for (c = 0; c < cpus; c++) {
		err = cls_steer_cpu_check(m, c);
		if (err)
			return err;
	}
	for (c = 0; c < cpus; c++) {
		err = cpumap_ensure(m, c);
		if (err)
			return err;
	}
	for (q = 0; q < CLS_STEER_QUEUES; q++) {
		keys[q] = q;
		vals[q] = q < queues ? q % cpus + 1 : 0;
	}
	if (bpf_map_update_batch(m->fd[CLS_M_QUEUE_CPU], keys, vals, &count,
				 &opts))
		return -errno;
	return count == CLS_STEER_QUEUES ? 0 : -EIO;
}

int cls_steer_read(const struct cls_maps *m, int cpu_of[CLS_STEER_QUEUES])
{
	__u32 *v, q;
	size_t len;

	v = cls_counters_copy(m->fd[CLS_M_QUEUE_CPU], CLS_STEER_QUEUES,
			      sizeof(*v), &len);
	if (!v)
		return -errno;
	for (q = 0; q < CLS_STEER_QUEUES; q++)
		cpu_of[q] = (int)v[q] - 1;
	free(v);
	return 0;
}

int cls_steer_stats(const struct cls_maps *m, struct cls_counter **out)
{
	size_t n = (size_t)m->nr_cpus * CLS_STEER_STRIDE, len;

	*out = cls_counters_copy(m->fd[CLS_M_STEER_STATS], n,
				 sizeof(struct cls_counter), &len);
	return *out ? 0 : -errno;
}
