// SPDX-License-Identifier: GPL-2.0-only
/*
 * Classes: a dense index space in the `classes` ARRAY (what the data path
 * reads) with names in `class_meta` (what only we read).  The CLI keeps no
 * state: lookups by classid or name scan the few thousand slots.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/bpf.h>

#include "maps/maps.h"

static int read_one_by_one(int fd, void *vals, size_t size)
{
	__u32 i;

	for (i = 0; i < CLS_MAX_CLASSES; i++)
		if (bpf_map_lookup_elem(fd, &i, (char *)vals + i * size))
			return -errno;
	return 0;
}

/* The whole array in one or two syscalls where the kernel has batch ops. */
static int read_array(int fd, void *vals, size_t size)
{
	__u32 keys[CLS_MAX_CLASSES], out_batch, count = CLS_MAX_CLASSES;

	if (!bpf_map_lookup_batch(fd, NULL, &out_batch, keys, vals, &count,
				  NULL) ||
	    (errno == ENOENT && count == CLS_MAX_CLASSES))
		return 0;
	return read_one_by_one(fd, vals, size);
}

static int read_all(const struct cls_maps *m, struct cls_class *cls,
		    struct cls_class_meta *meta)
{
	int err = read_array(m->classes_fd, cls, sizeof(*cls));

	if (!err && meta)
		err = read_array(m->class_meta_fd, meta, sizeof(*meta));
	return err;
}

int cls_class_dump(const struct cls_maps *m, struct cls_class_entry **out,
		   size_t *n)
{
	struct cls_class_meta *meta = NULL;
	struct cls_class *cls = NULL;
	struct cls_class_entry *e = NULL;
	size_t count = 0;
	__u32 i;
	int err;

	cls = calloc(CLS_MAX_CLASSES, sizeof(*cls));
	meta = calloc(CLS_MAX_CLASSES, sizeof(*meta));
	e = calloc(CLS_MAX_CLASSES, sizeof(*e));
	if (!cls || !meta || !e) {
		err = -ENOMEM;
		goto out;
	}
	err = read_all(m, cls, meta);
	if (err)
		goto out;
	for (i = 0; i < CLS_MAX_CLASSES; i++) {
		if (!(cls[i].flags & CLS_F_VALID))
			continue;
		e[count].idx = i;
		e[count].cls = cls[i];
		e[count].meta = meta[i];
		e[count].meta.name[CLS_NAME_MAX - 1] = '\0';
		count++;
	}
out:
	free(cls);
	free(meta);
	if (err) {
		free(e);
		e = NULL;
	}
	*out = e;
	*n = count;
	return err;
}

int cls_class_find(const struct cls_maps *m, const char *tok,
		   struct cls_class_entry *found)
{
	struct cls_class_entry *e;
	bool by_name = !check_class_name(tok, NULL);
	__u32 classid = 0;
	size_t n, i;
	int err;

	if (!by_name && parse_classid(tok, &classid))
		return -EINVAL;
	err = cls_class_dump(m, &e, &n);
	if (err)
		return err;
	err = -ENOENT;
	for (i = 0; i < n; i++) {
		bool hit = by_name ? !strcmp(e[i].meta.name, tok) :
				     e[i].idx != CLS_DEFAULT_CLASS &&
					     e[i].cls.classid == classid;
		if (hit) {
			*found = e[i];
			err = 0;
			break;
		}
	}
	free(e);
	return err;
}

int cls_class_store(const struct cls_maps *m, const struct cls_class_entry *e)
{
	/* Meta first: a class is visible to the data path only when complete. */
	if (bpf_map_update_elem(m->class_meta_fd, &e->idx, &e->meta, BPF_ANY))
		return -errno;
	if (bpf_map_update_elem(m->classes_fd, &e->idx, &e->cls, BPF_ANY))
		return -errno;
	return 0;
}

int cls_class_alloc(const struct cls_maps *m)
{
	struct cls_class c;
	__u32 i;

	for (i = CLS_DEFAULT_CLASS + 1; i < CLS_MAX_CLASSES; i++) {
		if (bpf_map_lookup_elem(m->classes_fd, &i, &c))
			return -errno;
		if (!(c.flags & CLS_F_VALID))
			return i;
	}
	return -ENOSPC;
}

int cls_class_clear(const struct cls_maps *m, __u32 idx)
{
	struct cls_class_meta meta = {};
	struct cls_class c = {};

	if (bpf_map_update_elem(m->classes_fd, &idx, &c, BPF_ANY))
		return -errno;
	if (bpf_map_update_elem(m->class_meta_fd, &idx, &meta, BPF_ANY))
		return -errno;
	return 0;
}
