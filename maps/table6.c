// SPDX-License-Identifier: GPL-2.0-only
/*
 * An IPv6 table map: creating one sized for a route set, mapping it, and
 * writing it through maps/mbt6.c.  A leaf, as table.c is for IPv4: the
 * route code decides what to paint and passes the cover of a deleted
 * route.  The map is mapped whole: whole 4 MiB elements, one for up to
 * about 30k prefixes, about 100 MiB for a million; what a set does not
 * use of its last element is room for later changes.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include "maps/internal.h"

/* Room for later single changes: an eighth, and a little for small sets. */
#define SPARE_UNITS(u) ((u) / 8 + 1024)

/*
 * From this many routes the table gets a 24-bit first level (format 3):
 * 64 MiB, one level less under every /24.  Below it that would take the
 * table past twice the trie's memory (~120 B a route; the table's nodes
 * take ~85).
 */
#define WIDE_ROUTES 500000

bool cls_table6_wide(size_t n)
{
	return n >= WIDE_ROUTES;
}

/*
 * Through a read-only fd (the kernel maps a map only through a writable
 * one): the range reserved, and the last element, which ends with the
 * header, copied into its place.  Only the gauges read it.
 */
static void *header_copy(int fd, __u32 elems)
{
	size_t elem = sizeof(mbt6_elem), len = (size_t)elems * elem;
	char *p = mmap(NULL, len, PROT_NONE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	__u32 last = elems - 1;

	if (p == MAP_FAILED)
		return p;
	if (!elems ||
	    mprotect(p + (size_t)last * elem, elem, PROT_READ | PROT_WRITE) ||
	    bpf_map_lookup_elem(fd, &last, p + (size_t)last * elem)) {
		int err = elems ? errno : EUCLEAN;

		munmap(p, len);
		errno = err;
		return MAP_FAILED;
	}
	return p;
}

static int view(struct cls_table6 *t, int fd, bool wide)
{
	struct bpf_map_info info = {};
	__u32 len = sizeof(info);
	size_t entries;
	void *p;
	int err;

	if (bpf_obj_get_info_by_fd(fd, &info, &len))
		return -errno;
	entries = (size_t)info.max_entries * MBT6_PER_ELEM;
	t->header_only = (fcntl(fd, F_GETFL) & O_ACCMODE) == O_RDONLY;
	p = t->header_only ? header_copy(fd, info.max_entries)
			   : mmap(NULL, entries * sizeof(__u32),
				  PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		return -errno;
	t->fd = fd;
	t->mem = p;
	t->len = entries * sizeof(__u32);
	err = mbt6_view(&t->m, p, entries, wide);
	if (err) {
		cls_table6_unmap(t);
		return -EUCLEAN; /* not a table of ours */
	}
	return 0;
}

int cls_table6_map(struct cls_table6 *t, int fd, unsigned int format)
{
	bool wide = format == MBT6_FORMAT_WIDE;
	int err = view(t, fd, wide);

	if (!err && (t->m.hdr->magic != MBT6_MAGIC || t->m.hdr->wide != wide)) {
		cls_table6_unmap(t);
		err = -EUCLEAN;
	}
	return err;
}

void cls_table6_unmap(struct cls_table6 *t)
{
	if (t->mem)
		munmap(t->mem, t->len);
	t->mem = NULL;
	t->fd = -1;
	t->header_only = false;
}

size_t cls_table6_units(const struct cls_route *r, size_t n, bool wide)
{
	struct mbt6 count = {.wide = wide};
	struct mbt6_fill f;
	size_t i;

	mbt6_fill_begin(&f, &count);
	for (i = 0; i < n; i++)
		if (mbt6_fill_add(&f, r[i].prefix.addr, r[i].prefix.len,
				  r[i].class_idx))
			break;
	mbt6_fill_end(&f);
	return mbt6_fill_units(&f) + SPARE_UNITS(mbt6_fill_units(&f));
}

int cls_table6_create(size_t units, bool wide)
{
	struct cls_table6 t = { .fd = -1 };
	int fd, err;

	/* Rounded up to whole elements, the pool must still be addressable. */
	if (units > MBT6_MAX_UNITS - MBT6_PER_ELEM / MBT6_UNIT_ENTRIES)
		return -ERANGE;
	fd = cls_map_create(cls_slot_spec(CLS_S_TABLE_V6),
			    mbt6_elems(units, wide));
	if (fd < 0)
		return fd;
	err = view(&t, fd, wide);
	if (!err)
		mbt6_clear(&t.m);
	cls_table6_unmap(&t);
	if (err) {
		close(fd);
		return err;
	}
	return fd;
}

int cls_table6_fill(struct cls_table6 *t, const struct cls_route *r, size_t n)
{
	struct mbt6_fill f;
	size_t i;
	int err = 0;

	mbt6_fill_begin(&f, &t->m);
	for (i = 0; i < n && !err; i++)
		err = mbt6_fill_add(&f, r[i].prefix.addr, r[i].prefix.len,
				    r[i].class_idx);
	mbt6_fill_end(&f);
	return err;
}

int cls_table6_paint(struct cls_table6 *t, const struct cls_prefix *p,
		     __u32 class_idx)
{
	return mbt6_add(&t->m, p->addr, p->len, class_idx);
}

int cls_table6_unpaint(struct cls_table6 *t, const struct cls_prefix *p,
		       const struct cls_route *cover)
{
	return mbt6_del(&t->m, p->addr, p->len, cover != NULL,
			cover ? cover->prefix.len : 0,
			cover ? cover->class_idx : 0);
}
