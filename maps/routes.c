// SPDX-License-Identifier: GPL-2.0-only
/*
 * Routes: prefix -> class index in two LPM tries, each behind a one-slot
 * ARRAY_OF_MAPS so a whole table is replaced by one update.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include "maps/maps.h"

/* Big enough for either key; the trie reads only key_size bytes. */
union cls_key {
	struct cls_v4_key v4;
	struct cls_v6_key v6;
	struct {
		__u32 prefixlen;
		__u8 addr[16];
	} any;
};

static size_t addr_len(int family)
{
	return family == AF_INET6 ? 16 : 4;
}

static size_t key_size(int family)
{
	return sizeof(__u32) + addr_len(family);
}

static void key_from_prefix(union cls_key *k, const struct cls_prefix *p)
{
	memset(k, 0, sizeof(*k));
	k->any.prefixlen = p->len;
	memcpy(k->any.addr, p->addr, addr_len(p->family));
}

static void prefix_from_key(struct cls_prefix *p, const union cls_key *k,
			    int family)
{
	memset(p, 0, sizeof(*p));
	p->family = family;
	p->len = k->any.prefixlen;
	memcpy(p->addr, k->any.addr, addr_len(family));
}

int cls_trie_create(int family)
{
	LIBBPF_OPTS(bpf_map_create_opts, opts, .map_flags = BPF_F_NO_PREALLOC);
	int fd;

	fd = bpf_map_create(BPF_MAP_TYPE_LPM_TRIE,
			    family == AF_INET6 ? "cls_routes_v6" :
						 "cls_routes_v4",
			    key_size(family), sizeof(__u32),
			    family == AF_INET6 ? CLS_MAX_ROUTES_V6 :
						 CLS_MAX_ROUTES_V4,
			    &opts);
	return fd < 0 ? -errno : fd;
}

int cls_trie_current(const struct cls_maps *m, int family)
{
	__u32 zero = 0, id;
	int fd;

	if (bpf_map_lookup_elem(m->routes_fd[cls_family_slot(family)], &zero,
				&id))
		return -errno;
	fd = bpf_map_get_fd_by_id(id);
	return fd < 0 ? -errno : fd;
}

int cls_trie_publish(struct cls_maps *m, int family, int trie_fd)
{
	int slot = cls_family_slot(family);
	__u32 zero = 0;

	if (bpf_map_update_elem(m->routes_fd[slot], &zero, &trie_fd, BPF_ANY))
		return -errno;
	if (m->trie_fd[slot] >= 0)
		close(m->trie_fd[slot]);
	m->trie_fd[slot] = -1;
	return 0;
}

/*
 * The live trie for many single-route changes (-batch): found once, then
 * kept until we publish another.  The lock keeps others from publishing.
 */
static int live_trie(struct cls_maps *m, int family)
{
	int slot = cls_family_slot(family);

	if (m->trie_fd[slot] < 0)
		m->trie_fd[slot] = cls_trie_current(m, family);
	return m->trie_fd[slot];
}

static int fill_one_by_one(int fd, const struct cls_route *r, size_t n)
{
	union cls_key k;
	size_t i;

	for (i = 0; i < n; i++) {
		key_from_prefix(&k, &r[i].prefix);
		if (bpf_map_update_elem(fd, &k, &r[i].class_idx, BPF_ANY))
			return -errno;
	}
	return 0;
}

#define FILL_CHUNK 8192

int cls_trie_fill(int fd, int family, const struct cls_route *r, size_t n)
{
	LIBBPF_OPTS(bpf_map_batch_opts, opts, .elem_flags = BPF_ANY);
	size_t ks = key_size(family), done = 0, i, chunk;
	__u32 *vals = NULL, count;
	__u8 *keys = NULL;
	union cls_key k;
	int err = 0;

	if (!n)
		return 0;
	keys = malloc(FILL_CHUNK * ks);
	vals = malloc(FILL_CHUNK * sizeof(*vals));
	if (!keys || !vals) {
		err = -ENOMEM;
		goto out;
	}
	while (done < n) {
		chunk = n - done < FILL_CHUNK ? n - done : FILL_CHUNK;
		for (i = 0; i < chunk; i++) {
			key_from_prefix(&k, &r[done + i].prefix);
			memcpy(keys + i * ks, &k, ks);
			vals[i] = r[done + i].class_idx;
		}
		count = chunk;
		if (bpf_map_update_batch(fd, keys, vals, &count, &opts)) {
			err = -errno;
			/* Kernels without batch ops on LPM tries. */
			if (done == 0 && count == 0 &&
			    (err == -EINVAL || err == -ENOTSUPP ||
			     err == -EOPNOTSUPP)) {
				err = fill_one_by_one(fd, r, n);
				goto out;
			}
			goto out;
		}
		done += chunk;
	}
out:
	free(keys);
	free(vals);
	return err;
}

/* The trie first: it is the truth, and the table follows it. */
int cls_route_update(struct cls_maps *m, const struct cls_prefix *p,
		     __u32 class_idx, int how)
{
	union cls_key k;
	int fd, err = 0;

	fd = live_trie(m, p->family);
	if (fd < 0)
		return fd;
	key_from_prefix(&k, p);
	if (bpf_map_update_elem(fd, &k, &class_idx,
				how == CLS_ROUTE_ADD ? BPF_NOEXIST : BPF_ANY))
		err = -errno;
	return err ? err : cls_dir24_route_changed(m, p, true, class_idx);
}

int cls_route_delete(struct cls_maps *m, const struct cls_prefix *p)
{
	union cls_key k;
	int fd, err = 0;

	fd = live_trie(m, p->family);
	if (fd < 0)
		return fd;
	key_from_prefix(&k, p);
	if (bpf_map_delete_elem(fd, &k))
		err = -errno;
	return err ? err : cls_dir24_route_changed(m, p, false, 0);
}

static int grow(struct cls_route **out, size_t *cap, size_t need)
{
	struct cls_route *r;

	if (need <= *cap)
		return 0;
	while (*cap < need)
		*cap = *cap ? *cap * 2 : 1024;
	r = realloc(*out, *cap * sizeof(**out));
	if (!r)
		return -ENOMEM;
	*out = r;
	return 0;
}

static int dump_one_by_one(int fd, int family, struct cls_route **out,
			   size_t *n, size_t *cap)
{
	union cls_key k, next;
	void *prev = NULL;
	__u32 val;
	int err;

	while (!bpf_map_get_next_key(fd, prev, &next)) {
		k = next;
		prev = &k;
		/* A racing delete is not an error: the route is gone. */
		if (bpf_map_lookup_elem(fd, &k, &val))
			continue;
		err = grow(out, cap, *n + 1);
		if (err)
			return err;
		prefix_from_key(&(*out)[*n].prefix, &k, family);
		(*out)[*n].class_idx = val;
		(*n)++;
	}
	return errno == ENOENT ? 0 : -errno;
}

#define DUMP_CHUNK 8192

/* Kernels with batch ops on LPM tries: thousands of routes per syscall. */
static int dump_batched(int fd, int family, struct cls_route **out,
			size_t *n, size_t *cap)
{
	size_t ks = key_size(family), i;
	union cls_key batch, k;
	__u32 vals[DUMP_CHUNK], count;
	void *in = NULL;
	__u8 *keys;
	int err = 0, done = 0;

	keys = malloc(DUMP_CHUNK * ks);
	if (!keys)
		return -ENOMEM;
	while (!err && !done) {
		count = DUMP_CHUNK;
		if (bpf_map_lookup_batch(fd, in, &batch, keys, vals, &count,
					 NULL)) {
			if (errno != ENOENT) {
				err = -errno;
				break;
			}
			done = 1;
		}
		in = &batch;
		err = grow(out, cap, *n + count);
		for (i = 0; !err && i < count; i++) {
			memset(&k, 0, sizeof(k));
			memcpy(&k, keys + i * ks, ks);
			prefix_from_key(&(*out)[*n].prefix, &k, family);
			(*out)[*n].class_idx = vals[i];
			(*n)++;
		}
	}
	free(keys);
	return err;
}

static int dump_family(const struct cls_maps *m, int family,
		       struct cls_route **out, size_t *n, size_t *cap)
{
	size_t start = *n;
	int fd, err;

	fd = cls_trie_current(m, family);
	if (fd < 0)
		return fd;
	err = dump_batched(fd, family, out, n, cap);
	if (err == -EINVAL || err == -ENOTSUPP || err == -EOPNOTSUPP) {
		*n = start;
		err = dump_one_by_one(fd, family, out, n, cap);
	}
	close(fd);
	return err;
}

int cls_route_dump(const struct cls_maps *m, int family,
		   struct cls_route **out, size_t *n)
{
	size_t cap = 0, n4;
	int err = 0;

	*out = NULL;
	*n = 0;
	if (family != AF_INET6)
		err = dump_family(m, AF_INET, out, n, &cap);
	n4 = *n;
	if (!err && family != AF_INET)
		err = dump_family(m, AF_INET6, out, n, &cap);
	if (!err)
		err = cls_route_sort(*out, n4);
	if (!err && *n > n4)
		err = cls_route_sort(*out + n4, *n - n4);
	if (err) {
		free(*out);
		*out = NULL;
		*n = 0;
	}
	return err;
}

static void mask_prefix(struct cls_prefix *p, unsigned int len)
{
	unsigned int i, bits = addr_len(p->family) * 8;

	for (i = len; i < bits; i++)
		p->addr[i / 8] &= ~(0x80 >> (i % 8));
	p->len = len;
}

/*
 * get_next_key() of a key that is not in the trie returns the first key,
 * and of one that is, a later key (or ENOENT): that tells exact presence,
 * which the LPM lookup alone does not.
 */
static int trie_has_exact(int fd, const union cls_key *first,
			  const union cls_key *k, size_t ks)
{
	union cls_key next;

	if (bpf_map_get_next_key(fd, k, &next))
		return errno == ENOENT ? 1 : -errno;
	return memcmp(&next, first, ks) != 0;
}

int cls_route_lookup(const struct cls_maps *m, const struct cls_prefix *addr,
		     struct cls_route *match, bool *found)
{
	size_t ks = key_size(addr->family);
	union cls_key k, first;
	struct cls_prefix p;
	int fd, err = 0, len, has;
	__u32 val;

	*found = false;
	fd = cls_trie_current(m, addr->family);
	if (fd < 0)
		return fd;
	key_from_prefix(&k, addr);
	if (bpf_map_lookup_elem(fd, &k, &val)) {
		err = errno == ENOENT ? 0 : -errno;
		goto out;
	}
	memset(&first, 0, sizeof(first));
	if (bpf_map_get_next_key(fd, NULL, &first)) {
		err = -errno;
		goto out;
	}
	for (len = addr->len; len >= 0; len--) {
		p = *addr;
		mask_prefix(&p, len);
		key_from_prefix(&k, &p);
		has = trie_has_exact(fd, &first, &k, ks);
		if (has < 0) {
			err = has;
			goto out;
		}
		if (has) {
			match->prefix = p;
			match->class_idx = val;
			*found = true;
			break;
		}
	}
	if (!*found)
		err = -EAGAIN; /* the table changed under us */
out:
	close(fd);
	return err;
}

int cls_route_flush(struct cls_maps *m)
{
	int family, fd, err = 0;
	int fds[2] = { -1, -1 };

	/* Create both first so a failure changes nothing. */
	for (family = 0; family < 2; family++) {
		fd = cls_trie_create(family ? AF_INET6 : AF_INET);
		if (fd < 0) {
			err = fd;
			goto out;
		}
		fds[family] = fd;
	}
	err = cls_dir24_suspend(m);
	for (family = 0; family < 2 && !err; family++)
		err = cls_trie_publish(m, family ? AF_INET6 : AF_INET,
				       fds[family]);
	if (!err)
		err = cls_dir24_build(m, NULL, 0);
out:
	for (family = 0; family < 2; family++)
		if (fds[family] >= 0)
			close(fds[family]);
	return err;
}

int cls_route_count_class(const struct cls_maps *m, __u32 class_idx)
{
	struct cls_route *r;
	size_t n, i;
	int err, count = 0;

	err = cls_route_dump(m, 0, &r, &n);
	if (err)
		return err;
	for (i = 0; i < n; i++)
		count += r[i].class_idx == class_idx;
	free(r);
	return count;
}
