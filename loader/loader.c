// SPDX-License-Identifier: GPL-2.0-only
/* Loading the BPF object and pinning its maps. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "classifier.skel.h"
#include "lib/log.h"
#include "loader/compat.h"
#include "loader/loader_internal.h"
#include "maps/maps.h"

int cls_bpffs_ensure(const char *bpffs, bool may_mount)
{
	struct statfs st;

	if (statfs(bpffs, &st) < 0)
		return -errno;
	if ((unsigned long)st.f_type == BPF_FS_MAGIC)
		return 0;
	if (!may_mount)
		return -ENOTSUP;
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

static int mkdir_p(const char *path)
{
	return mkdir(path, 0700) < 0 && errno != EEXIST ? -errno : 0;
}

int cls_make_dirs(const char *root)
{
	static const char *const sub[] = { "maps", "links", "tc" };
	char path[PATH_MAX];
	size_t i;
	int err;

	err = mkdir_p(root);
	for (i = 0; !err && i < sizeof(sub) / sizeof(sub[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", root, sub[i]);
		err = mkdir_p(path);
	}
	return err;
}

static struct bpf_map *const *skel_maps(struct classifier_bpf *skel,
					const char *const **names, size_t *n)
{
	static struct bpf_map *maps[CLS_NR_MAPS];

	maps[0] = skel->maps.config;
	maps[1] = skel->maps.classes;
	maps[2] = skel->maps.class_meta;
	maps[3] = skel->maps.routes_v4;
	maps[4] = skel->maps.routes_v6;
	maps[5] = skel->maps.stats;
	maps[6] = skel->maps.dir24;
	*names = cls_map_names;
	*n = CLS_NR_MAPS;
	return maps;
}

/*
 * Open the object with every map bound to its pin; the maps must exist
 * (cls_setup).  A map from an incompatible build fails the load here,
 * before anything is attached.
 */
int cls_load_reusing(const char *root, struct classifier_bpf **out)
{
	return cls_load_new_dir24(root, 0, out);
}

int cls_load_new_dir24(const char *root, __u32 dir24_elems,
		       struct classifier_bpf **out)
{
	struct bpf_map *const *maps;
	struct classifier_bpf *skel;
	const char *const *names;
	char path[PATH_MAX];
	size_t i, n;
	int fd, err;

	skel = classifier_bpf__open();
	if (!skel)
		return -errno;
	maps = skel_maps(skel, &names, &n);
	for (i = 0; i < n; i++) {
		if (dir24_elems && maps[i] == skel->maps.dir24) {
			err = bpf_map__set_max_entries(maps[i], dir24_elems);
			if (err)
				goto err;
			continue;
		}
		err = cls_pin_path(path, sizeof(path), root, "maps", names[i]);
		if (err)
			goto err;
		fd = bpf_obj_get(path);
		if (fd < 0) {
			err = -errno;
			pr_debug("%s: %s\n", path, strerror(errno));
			goto err;
		}
		/* Sized at setup: take the pinned map's size. */
		if (maps[i] == skel->maps.stats || maps[i] == skel->maps.dir24) {
			struct bpf_map_info info = {};
			__u32 len = sizeof(info);

			if (!bpf_obj_get_info_by_fd(fd, &info, &len))
				bpf_map__set_max_entries(maps[i],
							 info.max_entries);
		}
		err = bpf_map__reuse_fd(maps[i], fd);
		close(fd);
		if (err)
			goto err;
	}
	err = classifier_bpf__load(skel);
	if (err)
		goto err;
	*out = skel;
	return 0;
err:
	classifier_bpf__destroy(skel);
	return err;
}

static int init_tables(struct classifier_bpf *skel)
{
	struct cls_config cfg = { .stats_on = 1,
				  .abi_version = CLS_ABI_VERSION,
				  .lookup_mode = CLS_LOOKUP_DIR24 };
	struct cls_class_meta meta = { .name = "default" };
	struct cls_class def = { .flags = CLS_F_VALID };
	int outer[2] = { bpf_map__fd(skel->maps.routes_v4),
			 bpf_map__fd(skel->maps.routes_v6) };
	__u32 zero = 0;
	int i, fd, err;

	for (i = 0; i < 2; i++) {
		fd = cls_trie_create(i ? AF_INET6 : AF_INET);
		if (fd < 0)
			return fd;
		err = bpf_map_update_elem(outer[i], &zero, &fd, BPF_ANY);
		close(fd);
		if (err)
			return -errno;
	}
	err = cls_dir24_init_fd(bpf_map__fd(skel->maps.dir24));
	if (err)
		return err;
	if (bpf_map_update_elem(bpf_map__fd(skel->maps.config), &zero, &cfg,
				BPF_ANY) ||
	    bpf_map_update_elem(bpf_map__fd(skel->maps.class_meta), &zero,
				&meta, BPF_ANY) ||
	    bpf_map_update_elem(bpf_map__fd(skel->maps.classes), &zero, &def,
				BPF_ANY))
		return -errno;
	return 0;
}

static int count_pinned(const char *root, const char *const *names, size_t n)
{
	char path[PATH_MAX];
	size_t i;
	int found = 0;

	for (i = 0; i < n; i++) {
		cls_pin_path(path, sizeof(path), root, "maps", names[i]);
		found += access(path, F_OK) == 0;
	}
	return found;
}

int cls_setup(const char *root, bool *created)
{
	struct bpf_map *const *maps;
	struct classifier_bpf *skel;
	const char *const *names;
	char path[PATH_MAX];
	size_t i, n, pinned = 0;
	int err, found;

	*created = false;
	err = cls_make_dirs(root);
	if (err)
		return err;
	/* The common case, everything pinned, needs no object opened. */
	found = count_pinned(root, cls_map_names, CLS_NR_MAPS);
	if (found == CLS_NR_MAPS)
		return 0;
	if (found) {
		pr_warn("%s/maps holds only %d of %d maps; run 'classifier purge' to start over\n",
			root, found, CLS_NR_MAPS);
		return -EUCLEAN;
	}
	skel = classifier_bpf__open();
	if (!skel)
		return -errno;
	maps = skel_maps(skel, &names, &n);
	err = bpf_map__set_max_entries(skel->maps.stats,
				       libbpf_num_possible_cpus() *
					       CLS_STATS_STRIDE);
	if (!err)
		err = bpf_map__set_max_entries(
			skel->maps.dir24,
			dir24_entries(true, CLS_DIR24_DEFAULT_GROUPS) /
				CLS_DIR24_PER_ELEM);
	if (err)
		goto out;
	err = classifier_bpf__load(skel);
	if (err)
		goto out;
	err = init_tables(skel);
	if (err)
		goto out;
	for (pinned = 0; pinned < n; pinned++) {
		cls_pin_path(path, sizeof(path), root, "maps", names[pinned]);
		err = bpf_map__pin(maps[pinned], path);
		if (err)
			goto unpin;
	}
	*created = true;
	goto out;
unpin:
	for (i = 0; i < pinned; i++)
		bpf_map__unpin(maps[i], NULL);
out:
	classifier_bpf__destroy(skel);
	return err;
}
