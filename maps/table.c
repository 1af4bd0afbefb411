// SPDX-License-Identifier: GPL-2.0-only
/*
 * An IPv4 table map: creating one, mapping it, and writing it through
 * maps/dir24.c.  A leaf: the route code decides what to paint and passes
 * the cover of a deleted route; nothing here reads the trie.
 *
 * The table is mapped in windows: a BPF array's mmap() installs every page
 * at once, which for 200 MiB costs more than a route change itself.  The
 * whole range is reserved, and pages of the map are mapped over it as the
 * painter is about to touch them.  The kernel maps a map only through a
 * writable fd: through a read-only one, the pages are copied in instead
 * (cls_table_info and lookups read them so).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include "maps/internal.h"

static size_t page_size(void)
{
	return (size_t)sysconf(_SC_PAGESIZE);
}

/* Pages [first, first + run) of the map, copied: ARRAY elements in order. */
static int copy_pages(struct cls_table *t, size_t first, size_t run)
{
	size_t pg = page_size(), per = pg / sizeof(__u64);
	__u32 from = first * per, n = run * per, in, out, *keys;
	char *at = (char *)t->mem + first * pg;
	int err = 0;

	if (mprotect(at, run * pg, PROT_READ | PROT_WRITE) < 0)
		return -errno;
	keys = calloc(n, sizeof(*keys));
	if (!keys)
		return -ENOMEM;
	/* A batch starts after in_batch; element 0 has none before it. */
	in = from - 1;
	if (bpf_map_lookup_batch(t->fd, from ? &in : NULL, &out, keys, at, &n,
				 NULL) &&
	    errno != ENOENT)
		err = -errno;
	free(keys);
	return err;
}

static int map_pages(struct cls_table *t, size_t first, size_t last)
{
	size_t pg = page_size(), run;
	void *p;

	for (; first <= last; first += run) {
		for (run = 0; first + run <= last && !t->mapped[first + run];
		     run++)
			;
		if (!run) {
			run = 1;
			continue;
		}
		if (t->copied) {
			int err = copy_pages(t, first, run);

			if (err)
				return err;
		} else {
			p = mmap((char *)t->mem + first * pg, run * pg,
				 PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED,
				 t->fd, first * pg);
			if (p == MAP_FAILED)
				return -errno;
		}
		memset(t->mapped + first, 1, run);
	}
	return 0;
}

/* Make entries [first, first + n) of the table accessible. */
static int map_entries(struct cls_table *t, size_t first, size_t n)
{
	size_t pg = page_size();

	if (!n)
		return 0;
	return map_pages(t, first * sizeof(__u32) / pg,
			 ((first + n) * sizeof(__u32) - 1) / pg);
}

/* Reserve the map's range and map its bookkeeping. */
static int table_view(struct cls_table *t, int fd)
{
	struct bpf_map_info info = {};
	__u32 info_len = sizeof(info);
	size_t pg = page_size(), entries, pages;
	void *p;
	int err;

	if (bpf_obj_get_info_by_fd(fd, &info, &info_len))
		return -errno;
	/* Array elements are 8 bytes apart: each holds two entries. */
	entries = (size_t)info.max_entries * CLS_DIR24_PER_ELEM;
	pages = (entries * sizeof(__u32) + pg - 1) / pg;
	p = mmap(NULL, pages * pg, PROT_NONE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED)
		return -errno;
	t->fd = fd;
	t->mem = p;
	t->len = pages * pg;
	t->copied = (fcntl(fd, F_GETFL) & O_ACCMODE) == O_RDONLY;
	t->mapped = calloc(pages, 1);
	err = t->mapped ? 0 : -ENOMEM;
	if (!err)
		err = map_entries(t, entries - CLS_DIR24_HDR_ENTRIES,
				  CLS_DIR24_HDR_ENTRIES);
	if (!err)
		err = dir24_view(&t->d, p, entries);
	/* Too small to have a first level: not one of ours. */
	if (!err && !t->d.on)
		err = -EUCLEAN;
	if (err)
		cls_table_unmap(t);
	return err;
}

int cls_table_map(struct cls_table *t, int fd)
{
	int err = table_view(t, fd);

	if (!err && t->d.hdr->magic != CLS_DIR24_MAGIC) {
		cls_table_unmap(t);
		err = -EUCLEAN;
	}
	return err;
}

void cls_table_unmap(struct cls_table *t)
{
	if (t->mem)
		munmap(t->mem, t->len);
	free(t->mapped);
	t->mem = NULL;
	t->mapped = NULL;
	t->fd = -1;
}

static int map_all(struct cls_table *t)
{
	return map_pages(t, 0, t->len / page_size() - 1);
}

int cls_table_create(__u32 groups)
{
	struct cls_table t = {.fd = -1};
	int fd, err;

	if (groups > CLS_DIR24_MAX_GROUPS)
		return -ERANGE;
	fd = cls_map_create(cls_slot_spec(CLS_S_TABLE_V4),
			    dir24_entries(true, groups) / CLS_DIR24_PER_ELEM);
	if (fd < 0)
		return fd;
	/* A new map is all zero, no route anywhere: only the header to write.
	 */
	err = table_view(&t, fd);
	if (!err)
		dir24_init(&t.d);
	cls_table_unmap(&t);
	if (err) {
		close(fd);
		return err;
	}
	return fd;
}

int cls_table_fill(struct cls_table *t, const struct cls_route *r, size_t n)
{
	struct dir24_fill f;
	size_t i;
	int err;

	err = map_all(t);
	if (err)
		return err;
	dir24_fill_begin(&f, &t->d, true);
	for (i = 0; i < n && !err; i++)
		err = dir24_fill_add(&f, cls_prefix_v4(&r[i].prefix),
				     r[i].prefix.len, r[i].class_idx);
	dir24_fill_end(&f);
	return err;
}

static int map_group(struct cls_table *t, __u32 g)
{
	return map_entries(
		t, CLS_DIR24_L1_ENTRIES + (size_t)g * CLS_DIR24_GROUP_SIZE,
		CLS_DIR24_GROUP_SIZE);
}

/*
 * What painting addr/len may touch: its first-level range, the groups
 * those entries point to, and the group it may hand out next.
 */
int cls_table_map_for(struct cls_table *t, const struct cls_prefix *p)
{
	struct dir24 *d = &t->d;
	__u32 addr = cls_prefix_v4(p);
	size_t first = p->len ? addr >> 8 : 0, n, i;
	__u32 e;
	int err;

	n = p->len > 24 ? 1 : (size_t)1 << (24 - p->len);
	err = map_entries(t, first, n);
	for (i = first; !err && i < first + n; i++) {
		e = d->t[i];
		if ((e & CLS_DIR24_GROUP_BIT) && e != CLS_DIR24_ASK_TRIE)
			err = map_group(t, e & ~CLS_DIR24_GROUP_BIT);
	}
	if (!err && p->len > 24 && d->hdr->used < d->groups)
		err = map_group(t, d->hdr->used);
	return err;
}

void cls_table_paint(struct cls_table *t, const struct cls_prefix *p,
		     __u32 class_idx)
{
	dir24_paint(&t->d, cls_prefix_v4(p), p->len, class_idx);
}

void cls_table_unpaint(struct cls_table *t, const struct cls_prefix *p,
		       const struct cls_route *cover)
{
	dir24_unpaint(&t->d, cls_prefix_v4(p), p->len, cover != NULL,
		      cover ? cover->prefix.len : 0,
		      cover ? cover->class_idx : 0);
}

int cls_table_entry(struct cls_table *t, __u32 addr, __u32 *cls, bool *ask)
{
	__u32 e;
	int err;

	err = map_entries(t, addr >> 8, 1);
	if (err)
		return err;
	e = t->d.t[addr >> 8];
	if ((e & CLS_DIR24_GROUP_BIT) && e != CLS_DIR24_ASK_TRIE)
		err = map_group(t, e & ~CLS_DIR24_GROUP_BIT);
	if (!err)
		*cls = dir24_lookup(&t->d, addr, ask);
	return err;
}

__u32 cls_table_groups_needed(const struct cls_route *r, size_t n)
{
	__u32 need = 0, last = 0;
	bool any = false;
	size_t i;

	for (i = 0; i < n; i++) {
		__u32 blk = cls_prefix_v4(&r[i].prefix) >> 8;

		if (r[i].prefix.len <= 24 || (any && blk == last))
			continue;
		need++;
		last = blk;
		any = true;
	}
	return need;
}
