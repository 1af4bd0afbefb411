// SPDX-License-Identifier: GPL-2.0-only
/* The pinned DIR-24-8 map: mapping it, and whole-table (re)builds. */
#include <errno.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include "maps/maps.h"

/* mmap a dir24 map; *len gets the mapping's length. */
static int map_table(int fd, struct dir24 *d, void **mem, size_t *len)
{
	struct bpf_map_info info = {};
	__u32 info_len = sizeof(info);
	long page = sysconf(_SC_PAGESIZE);
	size_t bytes, entries;
	void *p;
	int err;

	if (bpf_obj_get_info_by_fd(fd, &info, &info_len))
		return -errno;
	/* Array elements are 8 bytes apart: each holds two entries. */
	entries = (size_t)info.max_entries * CLS_DIR24_PER_ELEM;
	bytes = entries * sizeof(__u32);
	bytes = (bytes + page - 1) / page * page;
	p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		return -errno;
	err = dir24_view(d, p, entries);
	if (err) {
		munmap(p, bytes);
		return err;
	}
	*mem = p;
	*len = bytes;
	return 0;
}

int cls_dir24_map(struct cls_maps *m)
{
	if (m->dir24_mem)
		return 0;
	return map_table(m->dir24_fd, &m->dir24, &m->dir24_mem,
			 &m->dir24_len);
}

int cls_dir24_init_fd(int fd)
{
	struct dir24 d;
	size_t len;
	void *mem;
	int err;

	err = map_table(fd, &d, &mem, &len);
	if (err)
		return err;
	dir24_clear(&d);
	munmap(mem, len);
	return 0;
}

int cls_set_lookup_mode(const struct cls_maps *m, enum cls_lookup_mode mode)
{
	struct cls_config cfg;
	int err = cls_get_config(m, &cfg);

	if (err || cfg.lookup_mode == (__u32)mode)
		return err;
	cfg.lookup_mode = mode;
	return cls_set_config(m, &cfg);
}

int cls_dir24_suspend(struct cls_maps *m)
{
	int err = cls_set_lookup_mode(m, CLS_LOOKUP_TRIE);

	/* After this no packet still reads the table. */
	return err ? err : cls_wait_for_programs(m);
}

static int by_len(const void *a, const void *b)
{
	return (int)((const struct cls_route *)a)->prefix.len -
	       (int)((const struct cls_route *)b)->prefix.len;
}

static __u32 host_addr(const struct cls_prefix *p)
{
	return (__u32)p->addr[0] << 24 | (__u32)p->addr[1] << 16 |
	       (__u32)p->addr[2] << 8 | p->addr[3];
}

/*
 * Shortest prefixes first: each then paints over what it covers and never
 * needs to look at what it does not.
 */
int cls_dir24_fill(struct cls_maps *m, const struct cls_route *r, size_t n)
{
	struct cls_route *sorted;
	size_t i;
	int err;

	err = cls_dir24_map(m);
	if (err || !m->dir24.on)
		return err;
	sorted = malloc((n ? n : 1) * sizeof(*sorted));
	if (!sorted)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		sorted[i] = r[i];
	qsort(sorted, n, sizeof(*sorted), by_len);
	dir24_clear(&m->dir24);
	for (i = 0; i < n; i++)
		dir24_paint(&m->dir24, host_addr(&sorted[i].prefix),
			    sorted[i].prefix.len, sorted[i].class_idx);
	free(sorted);
	return 0;
}

int cls_dir24_build(struct cls_maps *m, const struct cls_route *r, size_t n)
{
	int err;

	err = cls_dir24_map(m);
	if (!err)
		err = cls_dir24_suspend(m);
	if (!err)
		err = cls_dir24_fill(m, r, n);
	if (!err && m->dir24.on)
		err = cls_set_lookup_mode(m, CLS_LOOKUP_DIR24);
	return err;
}

int cls_dir24_rebuild(struct cls_maps *m, bool switch_on)
{
	struct cls_route *r;
	size_t n;
	int err;

	err = cls_route_dump(m, AF_INET, &r, &n);
	if (err)
		return err;
	err = switch_on ? cls_dir24_build(m, r, n) : cls_dir24_fill(m, r, n);
	free(r);
	return err;
}

/* Keep the table equal to the trie after one route changed there. */
int cls_dir24_route_changed(struct cls_maps *m, const struct cls_prefix *p,
			    bool added, __u32 class_idx)
{
	struct cls_route cover;
	struct cls_prefix above;
	bool found = false;
	int err;

	if (p->family != AF_INET)
		return 0;
	err = cls_dir24_map(m);
	if (err || !m->dir24.on)
		return err;
	if (added) {
		dir24_paint(&m->dir24, host_addr(p), p->len, class_idx);
		return 0;
	}
	if (p->len) {
		above = *p;
		above.len = p->len - 1;
		err = cls_route_lookup(m, &above, &cover, &found);
		if (err)
			return err;
	}
	dir24_unpaint(&m->dir24, host_addr(p), p->len, found,
		      found ? cover.prefix.len : 0,
		      found ? cover.class_idx : 0);
	return 0;
}
