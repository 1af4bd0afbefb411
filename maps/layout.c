// SPDX-License-Identifier: GPL-2.0-only
/*
 * Building a layout: every map created with its first contents, pinned in
 * staging/, and staging/ renamed to maps/ in one step.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "maps/layout.h"

static int pin_get(int dir_fd, const char *name, __u32 file_flags)
{
	LIBBPF_OPTS(bpf_obj_get_opts, o, .file_flags = file_flags);
	char path[64];
	int fd;

	snprintf(path, sizeof(path), "/proc/self/fd/%d/%s", dir_fd, name);
	fd = bpf_obj_get_opts(path, &o);
	return fd < 0 ? -errno : fd;
}

int cls_pin_open(int dir_fd, const char *name)
{
	return pin_get(dir_fd, name, 0);
}

int cls_pin_open_ro(int dir_fd, const char *name)
{
	return pin_get(dir_fd, name, BPF_F_RDONLY);
}

int cls_pin_at(int dir_fd, const char *name, int fd)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/self/fd/%d/%s", dir_fd, name);
	return bpf_obj_pin(fd, path) ? -errno : 0;
}

/* Layout 3 kept only the version word, at this offset of config. */
#define V3_CONFIG_SIZE 16

int cls_layout_at(int maps_fd)
{
	struct bpf_map_info info = {};
	__u32 len = sizeof(info), zero = 0;
	struct cls_state s;
	__u32 cfg[4];
	int fd, layout = 0;

	fd = cls_pin_open_ro(maps_fd, cls_map_specs[CLS_M_STATE].name);
	if (fd >= 0) {
		/* Layouts from 4 on have a state map: below, it is garbled. */
		layout = -EUCLEAN;
		if (!bpf_obj_get_info_by_fd(fd, &info, &len) &&
		    info.value_size == sizeof(s) &&
		    !bpf_map_lookup_elem(fd, &zero, &s) &&
		    s.magic == CLS_STATE_MAGIC && s.layout >= 4)
			layout = s.layout;
		close(fd);
		return layout;
	}
	fd = cls_pin_open_ro(maps_fd, cls_map_specs[CLS_M_CONFIG].name);
	if (fd < 0)
		return 0;
	if (!bpf_obj_get_info_by_fd(fd, &info, &len) &&
	    info.value_size == V3_CONFIG_SIZE &&
	    !bpf_map_lookup_elem(fd, &zero, cfg))
		layout = cfg[1];
	close(fd);
	return layout;
}

int cls_layout_of(const char *root)
{
	char path[PATH_MAX];
	int fd, layout;

	snprintf(path, sizeof(path), "%s/maps", root);
	fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? 0 : -errno;
	layout = cls_layout_at(fd);
	close(fd);
	return layout;
}

int cls_dir_open(int dir_fd, const char *name)
{
	int fd = openat(dir_fd, name,
			O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

	return fd < 0 ? -errno : fd;
}

int cls_dir_remove(int dir_fd, const char *name)
{
	struct dirent *de;
	DIR *d;
	int fd, err = 0;

	fd = cls_dir_open(dir_fd, name);
	if (fd < 0)
		return fd == -ENOENT ? 0 : fd;
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return -errno;
	}
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..") &&
		    unlinkat(fd, de->d_name, 0) < 0 && !err)
			err = -errno;
	closedir(d);
	if (!err && unlinkat(dir_fd, name, AT_REMOVEDIR) < 0)
		err = -errno;
	return err;
}

/*
 * maps/ leaves in one rename, so a reader finds the whole set or nothing
 * set up, never a set with pins missing.  "purging" is what a purge that
 * was killed left behind; the next one removes it.
 */
int cls_remove_pins(const char *root)
{
	static const char *const dirs[] = {"purging", "staging", "links", "tc"};
	size_t i;
	int fd, err;

	fd = open(root, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? 0 : -errno;
	err = cls_dir_remove(fd, "purging");
	if (!err && renameat(fd, "maps", fd, "purging") < 0 && errno != ENOENT)
		err = -errno;
	cls_step("purge: maps/ out of sight");
	for (i = 0; i < sizeof(dirs) / sizeof(dirs[0]) && !err; i++)
		err = cls_dir_remove(fd, dirs[i]);
	close(fd);
	if (!err && rmdir(root) < 0 && errno != ENOENT)
		err = -errno;
	return err;
}

/* The record of a complete upgrade in staging/: its layout, or 0. */
static int staged_upgrade(int dir_fd, __u32 *from)
{
	struct cls_state s;
	__u32 zero = 0;
	int sfd, err;

	sfd = cls_pin_open(dir_fd, "staging/state");
	if (sfd < 0)
		return 0;
	/*
	 * Every layout with a state map has its magic and version there, and
	 * from 6 on its journal where this build's is: a layout 4 or 5
	 * build's staging/ reads as half-built (its pins in maps/ are whole).
	 */
	err = bpf_map_lookup_elem(sfd, &zero, &s) ? -errno : 0;
	close(sfd);
	if (err || s.magic != CLS_STATE_MAGIC ||
	    s.journal.op != CLS_OP_MIGRATE || s.layout < 4)
		return 0;
	*from = s.journal.migrate.from;
	return s.layout;
}

int cls_layout_settle(int dir_fd, const char *root)
{
	__u32 from = 0;
	int err;

	if (staged_upgrade(dir_fd, &from) && from == CLS_LAYOUT_VERSION) {
		cls_set_error("%s: growing the class maps was interrupted: "
			      "run 'classifier upgrade' to finish it",
			      root);
		return -EINPROGRESS;
	} else if (from) {
		cls_set_error("%s: an upgrade from layout %u was "
			      "interrupted: run 'classifier upgrade' "
			      "to finish it",
			      root, from);
		return -EINPROGRESS;
	}
	err = cls_dir_remove(dir_fd, "staging");
	if (err)
		cls_set_error("%s/staging: %s", root, strerror(-err));
	return err;
}

int cls_staging_pending(int dir_fd, const char *root)
{
	__u32 from;
	int layout = staged_upgrade(dir_fd, &from);

	return layout ? layout : cls_layout_settle(dir_fd, root);
}

int cls_layout_pin(struct cls_maps *m, int dir_fd)
{
	int id, err = mkdirat(dir_fd, "staging", 0700) < 0 ? -errno : 0;
	char name[32];

	for (id = 0; id < CLS_NR_MAPS && !err; id++) {
		snprintf(name, sizeof(name), "staging/%s",
			 cls_map_specs[id].name);
		err = cls_pin_at(dir_fd, name, m->fd[id]);
	}
	return err;
}

static int new_trie_in_slot(struct cls_maps *m, enum cls_slotted s)
{
	int fd, err;

	fd = cls_trie_create(s == CLS_S_TRIE_V6 ? AF_INET6 : AF_INET);
	if (fd < 0)
		return fd;
	err = cls_slot_set(m, s, 0, fd);
	close(fd);
	return err;
}

static int new_maps(struct cls_maps *m)
{
	struct cls_config cfg = {.stats_on = 1, .layout = CLS_LAYOUT_VERSION};
	struct cls_class_meta meta = {.name = "default"};
	struct cls_class def = {.flags = CLS_F_VALID};
	struct cls_state s = {.magic = CLS_STATE_MAGIC,
			      .layout = CLS_LAYOUT_VERSION,
			      .table_mode = CLS_TABLE_AUTO};
	__u32 zero = 0;
	int id, err = 0;

	for (id = 0; id < CLS_NR_MAPS && !err; id++) {
		m->fd[id] = cls_map_create(
			&cls_map_specs[id],
			cls_class_entries(id, CLS_CLASS_STEP,
					  libbpf_num_possible_cpus()));
		if (m->fd[id] < 0)
			err = m->fd[id];
	}
	if (!err)
		err = new_trie_in_slot(m, CLS_S_TRIE_V4);
	if (!err)
		err = new_trie_in_slot(m, CLS_S_TRIE_V6);
	if (!err &&
	    (bpf_map_update_elem(m->fd[CLS_M_CLASS_META], &zero, &meta,
				 BPF_ANY) ||
	     bpf_map_update_elem(m->fd[CLS_M_CLASSES], &zero, &def, BPF_ANY)))
		err = -errno;
	if (!err)
		err = cls_config_write(m, &cfg);
	if (!err)
		err = cls_state_write(m, &s);
	return err;
}

int cls_layout_create(int dir_fd, const char *root)
{
	struct cls_maps m;
	int id, err;

	memset(&m, 0, sizeof(m));
	for (id = 0; id < CLS_NR_MAPS; id++)
		m.fd[id] = -1;
	err = new_maps(&m);
	cls_step("create: maps made");
	if (!err)
		err = cls_layout_pin(&m, dir_fd);
	cls_step("create: pinned in staging");
	if (!err && renameat(dir_fd, "staging", dir_fd, "maps") < 0)
		err = -errno;
	for (id = 0; id < CLS_NR_MAPS; id++)
		if (m.fd[id] >= 0)
			close(m.fd[id]);
	if (err) {
		cls_set_error("creating the maps under %s: %s", root,
			      strerror(-err));
		cls_dir_remove(dir_fd, "staging");
	}
	return err;
}
