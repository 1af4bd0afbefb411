// SPDX-License-Identifier: GPL-2.0-only
/*
 * Loading the BPF object against the pinned maps: every map the programs
 * use is bound by name to the map of an open handle, so the programs and
 * the library share exactly the maps maps/registry.c declares.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "classifier.skel.h"
#include "lib/log.h"
#include "loader/compat.h"
#include "loader/loader.h"
#include "loader/loader_internal.h"
#include "maps/maps.h"

int cls_bpffs_ensure(const char *bpffs, bool may_mount)
{
	int err = cls_bpffs_check(bpffs);

	if (err != -ENOTSUP || !may_mount)
		return err;
	if (mount("bpf", bpffs, "bpf", 0, "mode=0700") < 0)
		return -errno;
	pr_info("mounted bpffs at %s\n", bpffs);
	return 0;
}

int cls_pin_path(char *buf, size_t n, const char *root, const char *dir,
		 const char *name)
{
	int len = snprintf(buf, n, "%s/%s/%s", root, dir, name);

	return len < 0 || (size_t)len >= n ? -ENAMETOOLONG : 0;
}

int cls_make_dirs(const char *root)
{
	static const char *const sub[] = { "links", "tc" };
	char path[PATH_MAX];
	size_t i;

	for (i = 0; i < sizeof(sub) / sizeof(sub[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", root, sub[i]);
		if (mkdir(path, 0700) < 0 && errno != EEXIST)
			return -errno;
	}
	return 0;
}

int cls_load_fds(const int fds[CLS_NR_MAPS], struct classifier_bpf **out)
{
	struct classifier_bpf *skel;
	const char *stray;
	int err;

	skel = classifier_bpf__open();
	if (!skel)
		return -errno;
	err = cls_bind_maps(skel->obj, fds, &stray);
	if (stray)
		pr_warn("BPF map %s is not in the registry\n", stray);
	if (!err) {
		skel->rodata->cls_build_id = cls_build_id();
		/* The maps' capacity, bound above from fds (reuse_fd). */
		skel->rodata->cls_class_cap =
			bpf_map__max_entries(skel->maps.classes);
		err = classifier_bpf__load(skel);
	}
	if (err) {
		classifier_bpf__destroy(skel);
		return err;
	}
	*out = skel;
	return 0;
}

int cls_load(const struct cls_maps *m, struct classifier_bpf **out)
{
	return cls_load_fds(m->fd, out);
}

static __u64 build_id;

static void hash_build(void)
{
	const unsigned char *p;
	__u64 h = 0xcbf29ce484222325ULL; /* FNV-1a */
	size_t n, i;

	p = classifier_bpf__elf_bytes(&n);
	for (i = 0; i < n; i++)
		h = (h ^ p[i]) * 0x100000001b3ULL;
	build_id = h;
}

/* Hashing the object costs 0.1-0.2 ms: once per process. */
__u64 cls_build_id(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;

	pthread_once(&once, hash_build);
	return build_id;
}

/* The .rodata map of a loaded program holds its build id at offset 0. */
int cls_prog_build_id(__u32 prog_id, __u64 *id)
{
	__u32 map_ids[16], n, i, zero = 0;
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info);
	int fd, mfd, err = -ENOENT;

	fd = bpf_prog_get_fd_by_id(prog_id);
	if (fd < 0)
		return -errno;
	info.nr_map_ids = 16;
	info.map_ids = (__u64)(unsigned long)map_ids;
	if (bpf_obj_get_info_by_fd(fd, &info, &len)) {
		err = -errno;
		goto out;
	}
	n = info.nr_map_ids < 16 ? info.nr_map_ids : 16;
	for (i = 0; i < n && err == -ENOENT; i++) {
		struct bpf_map_info mi = {};
		__u32 mlen = sizeof(mi);
		char val[64];

		mfd = bpf_map_get_fd_by_id(map_ids[i]);
		if (mfd < 0)
			continue;
		if (!bpf_obj_get_info_by_fd(mfd, &mi, &mlen) &&
		    strstr(mi.name, ".rodata") && mi.value_size >= sizeof(*id) &&
		    mi.value_size <= sizeof(val) &&
		    !bpf_map_lookup_elem(mfd, &zero, val)) {
			memcpy(id, val, sizeof(*id));
			err = 0;
		}
		close(mfd);
	}
out:
	close(fd);
	return err;
}
