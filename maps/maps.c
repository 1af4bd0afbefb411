// SPDX-License-Identifier: GPL-2.0-only
/* Finding, opening and locking the pinned maps. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "maps/maps.h"

const char *const cls_map_names[CLS_NR_MAPS] = {
	CLS_MAP_CONFIG,	   CLS_MAP_CLASSES,   CLS_MAP_CLASS_META,
	CLS_MAP_ROUTES_V4, CLS_MAP_ROUTES_V6, CLS_MAP_STATS,
	CLS_MAP_DIR24,
};

int cls_root_path(char *root, size_t n, const char *bpffs)
{
	int len;

	if (!bpffs || !*bpffs)
		bpffs = CLS_DEFAULT_BPFFS;
	len = snprintf(root, n, "%s/%s", bpffs, CLS_PIN_DIR);
	return len < 0 || (size_t)len >= n ? -ENAMETOOLONG : 0;
}

static int open_pinned(const char *root, const char *name)
{
	char path[PATH_MAX];
	int fd;

	if (snprintf(path, sizeof(path), "%s/maps/%s", root, name) >=
	    (int)sizeof(path))
		return -ENAMETOOLONG;
	fd = bpf_obj_get(path);
	return fd < 0 ? -errno : fd;
}

int cls_maps_open(struct cls_maps *m, const char *root)
{
	struct {
		const char *name;
		int *fd;
	} want[] = {
		{ CLS_MAP_CONFIG, &m->config_fd },
		{ CLS_MAP_CLASSES, &m->classes_fd },
		{ CLS_MAP_CLASS_META, &m->class_meta_fd },
		{ CLS_MAP_ROUTES_V4, &m->routes_fd[0] },
		{ CLS_MAP_ROUTES_V6, &m->routes_fd[1] },
		{ CLS_MAP_STATS, &m->stats_fd },
		{ CLS_MAP_DIR24, &m->dir24_fd },
	};
	struct bpf_map_info info = {};
	__u32 len = sizeof(info);
	size_t i;
	int err;

	memset(m, 0, sizeof(*m));
	m->root_fd = -1;
	m->trie_fd[0] = m->trie_fd[1] = -1;
	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		*want[i].fd = -1;
	snprintf(m->root, sizeof(m->root), "%s", root);

	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		err = open_pinned(root, want[i].name);
		if (err < 0)
			goto err;
		*want[i].fd = err;
	}
	err = bpf_obj_get_info_by_fd(m->stats_fd, &info, &len);
	if (err) {
		err = -errno;
		goto err;
	}
	m->nr_cpus = info.max_entries / CLS_STATS_STRIDE;
	return 0;
err:
	cls_maps_close(m);
	return err;
}

void cls_maps_close(struct cls_maps *m)
{
	int *fds[] = { &m->config_fd,	 &m->classes_fd,  &m->class_meta_fd,
		       &m->routes_fd[0], &m->routes_fd[1], &m->stats_fd,
		       &m->dir24_fd,	 &m->trie_fd[0],  &m->trie_fd[1] };
	size_t i;

	if (m->stats_mem)
		munmap(m->stats_mem, m->stats_len);
	m->stats_mem = NULL;
	cls_dir24_unmap(m);
	for (i = 0; i < sizeof(fds) / sizeof(fds[0]); i++) {
		if (*fds[i] >= 0)
			close(*fds[i]);
		*fds[i] = -1;
	}
}

int cls_lock_root(const char *root, int *fd_out)
{
	int fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	if (flock(fd, LOCK_EX) < 0) {
		int err = -errno;

		close(fd);
		return err;
	}
	*fd_out = fd;
	return 0;
}

void cls_unlock_root(int fd)
{
	if (fd >= 0)
		close(fd); /* drops the flock */
}

int cls_wait_for_programs(const struct cls_maps *m)
{
	__u32 zero = 0, id;
	int inner, err;

	/*
	 * An update of a map-in-map slot returns only after an RCU grace
	 * period (maybe_wait_bpf_programs()): rewriting the v4 slot with the
	 * trie it already holds is our user-space synchronize_rcu().
	 */
	if (bpf_map_lookup_elem(m->routes_fd[0], &zero, &id))
		return -errno;
	inner = bpf_map_get_fd_by_id(id);
	if (inner < 0)
		return -errno;
	err = bpf_map_update_elem(m->routes_fd[0], &zero, &inner, BPF_ANY);
	err = err ? -errno : 0;
	close(inner);
	return err;
}

int cls_get_config(const struct cls_maps *m, struct cls_config *cfg)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(m->config_fd, &zero, cfg) ? -errno : 0;
}

int cls_set_config(const struct cls_maps *m, const struct cls_config *cfg)
{
	__u32 zero = 0;

	return bpf_map_update_elem(m->config_fd, &zero, cfg, BPF_ANY) ? -errno :
									0;
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
