// SPDX-License-Identifier: GPL-2.0-only
/*
 * Counters: the stats and rate_stats arrays are mmap()ed and summed here,
 * so reading every class on every CPU costs no syscall per element.  A
 * read-only handle cannot map them (the kernel maps a map shared only
 * through a writable fd): it copies the arrays in batches instead.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include "maps/internal.h"

/* Batches of BATCH elements: up to 512 KiB of keys and counters a call. */
#define BATCH 16384

void *cls_counters_copy(int fd, size_t n, size_t sz, size_t *len)
{
	char *mem = calloc(n, sz);
	__u32 *keys = calloc(BATCH, sizeof(*keys)), out = 0, count;
	size_t done = 0;
	int err = mem && keys ? 0 : -ENOMEM;

	while (!err && done < n) {
		count = n - done < BATCH ? n - done : BATCH;
		if (bpf_map_lookup_batch(fd, done ? &out : NULL, &out, keys,
					 mem + done * sz, &count, NULL) &&
		    errno != ENOENT)
			err = -errno;
		else if (!count)
			err = -EIO; /* the array is shorter than it says */
		done += count;
	}
	free(keys);
	if (err) {
		free(mem);
		errno = -err;
		return NULL;
	}
	*len = n * sz;
	return mem;
}

/* The same through mmap (a writable handle): NULL with errno set. */
static void *counters_map(int fd, size_t n, size_t sz, size_t *len)
{
	long page = sysconf(_SC_PAGESIZE);
	void *p;

	*len = (n * sz + page - 1) / page * page;
	p = mmap(NULL, *len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	return p == MAP_FAILED ? NULL : p;
}

static void *counters(const struct cls_maps *m, enum cls_map_id id, size_t n,
		      size_t sz, size_t *len)
{
	return m->read_only ? cls_counters_copy(m->fd[id], n, sz, len)
			    : counters_map(m->fd[id], n, sz, len);
}

int cls_stats_map(struct cls_maps *m)
{
	if (m->stats_mem)
		return 0;
	m->rate_stats_mem =
		counters(m, CLS_M_RATE_STATS,
			 (size_t)m->nr_cpus * CLS_RATE_STATS_STRIDE(m->cap),
			 sizeof(struct cls_rate_counter), &m->rate_stats_len);
	if (!m->rate_stats_mem)
		return -errno;
	m->stats_mem = counters(m, CLS_M_STATS,
				(size_t)m->nr_cpus * CLS_STATS_STRIDE(m->cap),
				sizeof(struct cls_counter), &m->stats_len);
	return m->stats_mem ? 0 : -errno;
}

struct cls_rate_counter cls_rate_stats_sum(const struct cls_maps *m,
					   __u32 hook, __u32 idx)
{
	struct cls_rate_counter sum = {};
	const volatile struct cls_rate_counter *c;
	unsigned int cpu;

	for (cpu = 0; cpu < m->nr_cpus; cpu++) {
		c = &m->rate_stats_mem[(size_t)cpu *
					       CLS_RATE_STATS_STRIDE(m->cap) +
				       hook * m->cap + idx];
		sum.passed += c->passed;
		sum.dropped += c->dropped;
		sum.delayed += c->delayed;
		sum.marked += c->marked;
	}
	return sum;
}

struct cls_counter cls_stats_cpu(const struct cls_maps *m, unsigned int cpu,
				 __u32 slot)
{
	const volatile struct cls_counter *c =
		&m->stats_mem[(size_t)cpu * CLS_STATS_STRIDE(m->cap) + slot];
	struct cls_counter v = { .packets = c->packets, .bytes = c->bytes };

	return v;
}

struct cls_counter cls_stats_class_cpu(const struct cls_maps *m,
				       unsigned int cpu, __u32 idx)
{
	struct cls_counter e, i;

	e = cls_stats_cpu(m, cpu, CLS_STATS_EGRESS_BASE + idx);
	i = cls_stats_cpu(m, cpu, CLS_STATS_INGRESS_BASE(m->cap) + idx);
	e.packets += i.packets;
	e.bytes += i.bytes;
	return e;
}

struct cls_counter cls_stats_sum(const struct cls_maps *m, __u32 slot)
{
	struct cls_counter sum = {}, v;
	unsigned int cpu;

	for (cpu = 0; cpu < m->nr_cpus; cpu++) {
		v = cls_stats_cpu(m, cpu, slot);
		sum.packets += v.packets;
		sum.bytes += v.bytes;
	}
	return sum;
}

struct cls_counter cls_stats_class_sum(const struct cls_maps *m, __u32 idx)
{
	struct cls_counter e = cls_stats_sum(m, CLS_STATS_EGRESS_BASE + idx);
	struct cls_counter i =
		cls_stats_sum(m, CLS_STATS_INGRESS_BASE(m->cap) + idx);

	e.packets += i.packets;
	e.bytes += i.bytes;
	return e;
}

int cls_stats_get_enabled(struct cls_maps *m, bool *on)
{
	struct cls_config cfg;
	int err = cls_config_read(m, &cfg);

	if (!err)
		*on = cfg.stats_on;
	return err;
}

int cls_stats_set_enabled(struct cls_maps *m, bool on)
{
	struct cls_config cfg;
	int err = cls_config_read(m, &cfg);

	if (err)
		return err;
	cfg.stats_on = on;
	return cls_config_write(m, &cfg);
}

/*
 * The data path adds without atomics, so zeroing under traffic could lose
 * the reset to an add in flight.  Counting is paused, in-flight programs
 * are waited out, then the memory is cleared and counting resumes.
 * Packets in that window (microseconds) are not counted.  The journal
 * remembers whether counting was on, so a crash cannot leave it off.
 */
enum { RESET_PAUSED, RESET_ZEROED };

static int reset_from(struct cls_maps *m, struct cls_state *s)
{
	int err = 0;

	if (s->journal.phase == RESET_PAUSED) {
		err = cls_stats_set_enabled(m, false);
		cls_step("stats reset: paused");
		if (!err)
			err = cls_wait_for_programs(m);
		if (!err) {
			memset(m->stats_mem, 0, m->stats_len);
			memset(m->rate_stats_mem, 0, m->rate_stats_len);
		}
		cls_step("stats reset: zeroed");
		s->journal.phase = RESET_ZEROED;
		if (!err)
			err = cls_state_write(m, s);
	}
	if (!err && s->journal.stats.was_on)
		err = cls_stats_set_enabled(m, true);
	cls_step("stats reset: resumed");
	return err ? err : cls_journal_end(m, s);
}

int cls_stats_reset(struct cls_maps *m)
{
	struct cls_state s;
	bool on;
	int err;

	if (!m->locked)
		return -ENOLCK;
	err = cls_stats_map(m);
	if (!err)
		err = cls_stats_get_enabled(m, &on);
	if (!err)
		err = cls_state_for_change(m, &s);
	if (err)
		return err;
	s.journal.stats.was_on = on;
	err = cls_journal_begin(m, &s, CLS_OP_STATS_RESET);
	if (!err && (err = reset_from(m, &s)))
		cls_stats_recover(m, &s); /* or the next lock-taker does */
	return err;
}

int cls_stats_recover(struct cls_maps *m, struct cls_state *s)
{
	const struct cls_journal j = s->journal; /* ending it clears it */
	int err = cls_stats_map(m);

	if (!err)
		err = reset_from(m, s);
	if (!err)
		cls_notify(m, "finished an interrupted stats reset (pid %u); counting is %s",
			   j.pid, j.stats.was_on ? "on" : "off");
	return err;
}

const char *cls_reason_name(enum cls_reason r)
{
	static const char *const names[CLS_R_MAX] = {
		[CLS_R_NOT_IP] = "not_ip",
		[CLS_R_TRUNCATED] = "truncated",
		[CLS_R_MALFORMED] = "malformed",
		[CLS_R_EXT_LIMIT] = "ext_hdr_limit",
		[CLS_R_NO_TABLE] = "no_table",
	};

	return (unsigned int)r < CLS_R_MAX ? names[r] : "unknown";
}
