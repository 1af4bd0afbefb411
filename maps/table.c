// SPDX-License-Identifier: GPL-2.0-only
/* The pinned DIR-24-8 map: mapping it, and whole-table (re)builds. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include "maps/maps.h"

/*
 * The table is mapped in windows: a BPF array's mmap() installs every page
 * at once, which for 200 MiB costs more than a route change itself.  The
 * whole range is reserved, and pages of the map are mapped over it as the
 * painter is about to touch them.
 */
static size_t page_size(void)
{
	return (size_t)sysconf(_SC_PAGESIZE);
}

static int map_pages(struct cls_maps *m, size_t first, size_t last)
{
	size_t pg = page_size(), run;
	void *p;

	for (; first <= last; first += run) {
		for (run = 0; first + run <= last && !m->dir24_mapped[first + run];
		     run++)
			;
		if (!run) {
			run = 1;
			continue;
		}
		p = mmap((char *)m->dir24_mem + first * pg, run * pg,
			 PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED,
			 m->dir24_fd, first * pg);
		if (p == MAP_FAILED)
			return -errno;
		memset(m->dir24_mapped + first, 1, run);
	}
	return 0;
}

/* Make entries [first, first + n) of the table accessible. */
static int map_entries(struct cls_maps *m, size_t first, size_t n)
{
	size_t pg = page_size();

	if (!n)
		return 0;
	return map_pages(m, first * sizeof(__u32) / pg,
			 ((first + n) * sizeof(__u32) - 1) / pg);
}

int cls_dir24_map(struct cls_maps *m)
{
	struct bpf_map_info info = {};
	__u32 info_len = sizeof(info);
	size_t pg = page_size(), entries, pages;
	void *p;
	int err;

	if (m->dir24_mem)
		return 0;
	if (bpf_obj_get_info_by_fd(m->dir24_fd, &info, &info_len))
		return -errno;
	/* Array elements are 8 bytes apart: each holds two entries. */
	entries = (size_t)info.max_entries * CLS_DIR24_PER_ELEM;
	pages = (entries * sizeof(__u32) + pg - 1) / pg;
	p = mmap(NULL, pages * pg, PROT_NONE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED)
		return -errno;
	m->dir24_mapped = calloc(pages, 1);
	m->dir24_mem = p;
	m->dir24_len = pages * pg;
	err = m->dir24_mapped ? 0 : -ENOMEM;
	if (!err)
		err = map_entries(m, entries - CLS_DIR24_HDR_ENTRIES,
				  CLS_DIR24_HDR_ENTRIES);
	if (!err)
		err = dir24_view(&m->dir24, p, entries);
	if (err)
		cls_dir24_unmap(m);
	return err;
}

void cls_dir24_unmap(struct cls_maps *m)
{
	if (m->dir24_mem)
		munmap(m->dir24_mem, m->dir24_len);
	free(m->dir24_mapped);
	m->dir24_mem = NULL;
	m->dir24_mapped = NULL;
}

int cls_dir24_map_all(struct cls_maps *m)
{
	int err = cls_dir24_map(m);

	return err ? err : map_pages(m, 0, m->dir24_len / page_size() - 1);
}

static int map_group(struct cls_maps *m, __u32 g)
{
	return map_entries(m,
			   CLS_DIR24_L1_ENTRIES +
				   (size_t)g * CLS_DIR24_GROUP_SIZE,
			   CLS_DIR24_GROUP_SIZE);
}

/* Map what painting addr/len may touch: its first-level range, the groups
 * those entries point to, and the group it may hand out next. */
static int map_for_route(struct cls_maps *m, __u32 addr, unsigned int len)
{
	struct dir24 *d = &m->dir24;
	size_t first = len ? addr >> 8 : 0, n, i;
	__u32 e;
	int err;

	n = len > 24 ? 1 : (size_t)1 << (24 - len);
	err = map_entries(m, first, n);
	for (i = first; !err && i < first + n; i++) {
		e = d->t[i];
		if ((e & CLS_DIR24_GROUP_BIT) && e != CLS_DIR24_ASK_TRIE)
			err = map_group(m, e & ~CLS_DIR24_GROUP_BIT);
	}
	if (!err && len > 24 && d->hdr->used < d->groups)
		err = map_group(m, d->hdr->used);
	return err;
}

/* A new map: empty, bookkeeping written. */
static int init_table(int fd)
{
	struct cls_maps m = { .dir24_fd = fd };
	int err;

	err = cls_dir24_map(&m);
	if (!err)
		err = cls_dir24_map_all(&m);
	if (!err)
		dir24_clear(&m.dir24);
	cls_dir24_unmap(&m);
	return err;
}

int cls_dir24_init_fd(int fd)
{
	return init_table(fd);
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

static __u32 host_addr(const struct cls_prefix *p)
{
	return (__u32)p->addr[0] << 24 | (__u32)p->addr[1] << 16 |
	       (__u32)p->addr[2] << 8 | p->addr[3];
}

int cls_dir24_fill(struct cls_maps *m, const struct cls_route *r, size_t n)
{
	struct cls_route *sorted = NULL;
	struct dir24_fill f;
	size_t i;
	int err;

	err = cls_dir24_map(m);
	if (err || !m->dir24.on)
		return err;
	err = cls_dir24_map_all(m);
	if (err)
		return err;
	if (!cls_route_sorted(r, n)) {
		sorted = malloc(n * sizeof(*sorted));
		if (!sorted)
			return -ENOMEM;
		memcpy(sorted, r, n * sizeof(*sorted));
		err = cls_route_sort(sorted, n);
		r = sorted;
		if (err) {
			free(sorted);
			return err;
		}
	}
	dir24_fill_begin(&f, &m->dir24);
	for (i = 0; i < n && !err; i++)
		err = dir24_fill_add(&f, host_addr(&r[i].prefix),
				     r[i].prefix.len, r[i].class_idx);
	dir24_fill_end(&f);
	free(sorted);
	return err;
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

int cls_dir24_lookup(struct cls_maps *m, __u32 addr, __u32 *cls, bool *ask)
{
	__u32 e;
	int err;

	err = cls_dir24_map(m);
	if (!err && m->dir24.on)
		err = map_entries(m, addr >> 8, 1);
	if (err || !m->dir24.on) {
		*ask = true;
		return err;
	}
	e = m->dir24.t[addr >> 8];
	if ((e & CLS_DIR24_GROUP_BIT) && e != CLS_DIR24_ASK_TRIE)
		err = map_group(m, e & ~CLS_DIR24_GROUP_BIT);
	if (!err)
		*cls = dir24_lookup(&m->dir24, addr, ask);
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
	err = map_for_route(m, host_addr(p), p->len);
	if (err)
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
