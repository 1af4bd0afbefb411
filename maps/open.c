// SPDX-License-Identifier: GPL-2.0-only
/*
 * Finding, checking, creating and locking the pinned state.
 *
 * <bpffs>/classifier must be a directory of this user that nobody else
 * can write; maps/ in it holds the pins, and the state map in there (its
 * magic and layout version) says they are ours and of which layout.  A
 * layout is created whole in staging/ and renamed to maps/, so a crash
 * leaves either no layout or a complete one.  Pins are opened through the
 * directory's fd, so a reader sees one directory even if maps/ is
 * replaced under it (as an upgrade does).
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/vfs.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "maps/internal.h"
#include "maps/layout.h"

int cls_root_path(char *root, size_t n, const char *bpffs)
{
	int len;

	if (!bpffs)
		bpffs = CLS_DEFAULT_BPFFS;
	if (!*bpffs)
		return -EINVAL;
	len = snprintf(root, n, "%s/%s", bpffs, CLS_PIN_DIR);
	return len < 0 || (size_t)len >= n ? -ENAMETOOLONG : 0;
}

int cls_bpffs_check(const char *path)
{
	struct statfs st;

	if (statfs(path, &st) < 0)
		return -errno;
	return (unsigned long)st.f_type == BPF_FS_MAGIC ? 0 : -ENOTSUP;
}

/* Ours: this user's directory (or root's, to read), writable by nobody else. */
int cls_check_dir(int fd, const char *path, bool reader)
{
	struct stat st;

	if (fstat(fd, &st) < 0)
		return -errno;
	if (st.st_uid != geteuid() && !(reader && st.st_uid == 0)) {
		cls_set_error("%s belongs to uid %u, not to this user (uid "
			      "%u): refusing to use it",
			      path, st.st_uid, geteuid());
		return -EUCLEAN;
	}
	if (st.st_mode & (S_IWGRP | S_IWOTH)) {
		cls_set_error("%s is writable by others (mode %04o): refusing "
			      "to use it",
			      path, st.st_mode & 07777);
		return -EUCLEAN;
	}
	return 0;
}

/* "pid 123 (classifier route load x)", from /proc/locks, if it can tell. */
static void lock_holder(int fd, char *buf, size_t n)
{
	char line[256], cmd[160], path[64];
	unsigned int maj, min;
	unsigned long ino;
	struct stat st;
	size_t len, i;
	FILE *f;
	int pid;

	snprintf(buf, n, "another process");
	if (fstat(fd, &st) < 0 || !(f = fopen("/proc/locks", "re")))
		return;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%*d: FLOCK %*s %*s %d %x:%x:%lu", &pid, &maj,
			   &min, &ino) != 4 ||
		    ino != st.st_ino || maj != major(st.st_dev) ||
		    min != minor(st.st_dev))
			continue;
		snprintf(path, sizeof(path), "/proc/%d/cmdline", pid);
		cmd[0] = '\0';
		len = 0;
		FILE *c = fopen(path, "re");

		if (c) {
			len = fread(cmd, 1, sizeof(cmd) - 1, c);
			fclose(c);
		}
		for (i = 0; i + 1 < len; i++)
			if (!cmd[i])
				cmd[i] = ' ';
		cmd[len] = '\0';
		snprintf(buf, n, "pid %d%s%s%s", pid, len ? " (" : "", cmd,
			 len ? ")" : "");
		break;
	}
	fclose(f);
}

int cls_lock_dir(int fd, const char *path, int wait_ms)
{
	struct timespec start, now;
	char who[200];
	long waited;

	if (wait_ms < 0)
		wait_ms = CLS_LOCK_WAIT_MS;
	clock_gettime(CLOCK_MONOTONIC, &start);
	for (;;) {
		if (!flock(fd, LOCK_EX | LOCK_NB))
			return 0;
		if (errno != EWOULDBLOCK && errno != EINTR)
			return -errno;
		clock_gettime(CLOCK_MONOTONIC, &now);
		waited = (now.tv_sec - start.tv_sec) * 1000 +
			 (now.tv_nsec - start.tv_nsec) / 1000000;
		if (waited >= wait_ms)
			break;
		poll(NULL, 0, 10);
	}
	lock_holder(fd, who, sizeof(who));
	cls_set_error("%s is locked by %s; waited %d.%03d s (-w SECONDS waits "
		      "longer)",
		      path, who, wait_ms / 1000, wait_ms % 1000);
	return -ETIMEDOUT;
}

int cls_lock_root(const char *root, int wait_ms)
{
	int fd, err;

	cls_set_error("%s", "");
	fd = open(root, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		err = -errno;
		cls_set_error("%s: %s", root, strerror(errno));
		return err;
	}
	err = cls_check_dir(fd, root, false);
	if (!err)
		err = cls_lock_dir(fd, root, wait_ms);
	if (err) {
		close(fd);
		return err;
	}
	return fd;
}

static int check_pin(struct cls_maps *m, enum cls_map_id id)
{
	const struct cls_map_spec *s = &cls_map_specs[id];
	char why[256];
	__u32 entries;
	int err;

	err = cls_map_check(m->fd[id], s, &entries, why, sizeof(why));
	if (err) {
		cls_set_error("%s/maps/%s", m->root, why);
		return err;
	}
	/* The per-CPU maps' slices: as many as they have room for. */
	if (s->size == CLS_SIZE_PER_CPU)
		m->nr_cpus = entries / s->max_entries;
	if (id == CLS_M_CLASSES)
		m->cap = entries;
	return 0;
}

/*
 * The maps indexed by class agree on one capacity, the classes map's:
 * each of its size for that capacity, the counters' for as many CPUs as
 * they have slices (at least every possible CPU).
 */
static int check_cap(struct cls_maps *m)
{
	__u32 entries, want;
	char why[256];
	bool per_cpu;
	int id;

	if (!m->cap || m->cap > CLS_MAX_CLASSES) {
		cls_set_error("%s/maps/classes: room for %u classes, not 1 to "
			      "%u: refusing",
			      m->root, m->cap, CLS_MAX_CLASSES);
		return -EUCLEAN;
	}
	m->nr_cpus = 0;
	for (id = 0; id < CLS_NR_MAPS; id++) {
		want = cls_class_entries(id, m->cap, 1);
		if (!want || cls_map_check(m->fd[id], &cls_map_specs[id],
					   &entries, why, sizeof(why)))
			continue;
		per_cpu = want != m->cap;
		if (per_cpu && !m->nr_cpus && !(entries % want))
			m->nr_cpus = entries / want;
		if (per_cpu)
			want *= m->nr_cpus;
		if (entries != want ||
		    (per_cpu &&
		     m->nr_cpus < (unsigned int)libbpf_num_possible_cpus())) {
			cls_set_error("%s/maps/%s: %u entries, not %u for %u "
				      "classes: refusing",
				      m->root, cls_map_specs[id].name, entries,
				      want, m->cap);
			return -EUCLEAN;
		}
	}
	return 0;
}

/*
 * The layout version first, from the state map (whose shape no layout
 * changes): pins of another layout are named as such, not as maps of the
 * wrong shape.  Layout 3 had no state map.
 */
static int check_layout(struct cls_maps *m, int maps_fd)
{
	int layout = cls_layout_at(maps_fd);

	if (layout < 0) {
		cls_set_error("%s/maps/state: layout version unreadable: "
			      "refusing",
			      m->root);
		return -EUCLEAN;
	}
	if (layout > CLS_LAYOUT_VERSION) {
		cls_set_error("%s: pins are layout %d, newer than this "
			      "classifier's %d: refusing (run the newer "
			      "classifier)",
			      m->root, layout, CLS_LAYOUT_VERSION);
		return -EPROTO;
	}
	if (layout > 0 && layout < CLS_LAYOUT_VERSION) {
		cls_set_error("%s: pins are layout %d; this classifier uses "
			      "%d: run 'classifier upgrade'",
			      m->root, layout, CLS_LAYOUT_VERSION);
		return -EPROTO;
	}
	return 0;
}

/* The state map marks the pins as ours; config repeats its version. */
static int check_state(struct cls_maps *m)
{
	struct cls_config cfg;
	struct cls_state s;
	int err;

	err = cls_state_read(m, &s);
	if (!err)
		err = cls_config_read(m, &cfg);
	if (err)
		return err;
	if (s.magic != CLS_STATE_MAGIC) {
		cls_set_error("%s/maps/state: not classifier's (bad magic %#x)",
			      m->root, s.magic);
		return -EUCLEAN;
	}
	if (s.layout != CLS_LAYOUT_VERSION || cfg.layout != s.layout) {
		cls_set_error("%s: layout version unreadable (state says %u, "
			      "config %u): refusing",
			      m->root, s.layout, cfg.layout);
		return -EUCLEAN;
	}
	return 0;
}

/* Open and check every pin of maps/ (fd: that directory). */
static int open_pins(struct cls_maps *m, int maps_fd)
{
	struct stat st;
	int id, err;

	m->maps_ino = fstat(maps_fd, &st) ? 0 : st.st_ino;
	err = check_layout(m, maps_fd);
	for (id = 0; id < CLS_NR_MAPS && !err; id++) {
		const char *name = cls_map_specs[id].name;

		m->fd[id] = m->read_only ? cls_pin_open_ro(maps_fd, name)
					 : cls_pin_open(maps_fd, name);
		if (m->fd[id] == -ENOENT) {
			cls_set_error(
				"%s/maps/%s is missing: the pins are "
				"incomplete ('classifier purge' starts over)",
				m->root, name);
			return -EUCLEAN;
		}
		if (m->fd[id] < 0) {
			cls_set_error("%s/maps/%s: %s", m->root, name,
				      strerror(-m->fd[id]));
			return m->fd[id];
		}
		err = check_pin(m, id);
	}
	return err ?: check_cap(m) ?: check_state(m);
}

static void close_fds(struct cls_maps *m)
{
	int id;

	cls_live_forget(m);
	cls_catalog_free(m);
	cls_tree_close(m);
	if (m->stats_mem && m->read_only)
		free(m->stats_mem);
	else if (m->stats_mem)
		munmap(m->stats_mem, m->stats_len);
	m->stats_mem = NULL;
	if (m->rate_stats_mem && m->read_only)
		free(m->rate_stats_mem);
	else if (m->rate_stats_mem)
		munmap(m->rate_stats_mem, m->rate_stats_len);
	m->rate_stats_mem = NULL;
	for (id = 0; id < CLS_NR_MAPS; id++) {
		if (m->fd[id] >= 0)
			close(m->fd[id]);
		m->fd[id] = -1;
	}
}

static void init_handle(struct cls_maps *m, const struct cls_open_opts *o)
{
	int i;

	memset(m, 0, sizeof(*m));
	m->dir_fd = -1;
	m->table.fd = -1;
	m->table6.fd = -1;
	for (i = 0; i < CLS_NR_MAPS; i++)
		m->fd[i] = -1;
	for (i = 0; i < CLS_NR_SLOTTED; i++)
		m->live[i] = -1;
	m->read_only = o->read_only && !o->write;
	m->notify = o->notify;
	m->notify_ctx = o->notify_ctx;
}

static void unlock(struct cls_maps *m)
{
	flock(m->dir_fd, LOCK_UN);
	m->locked = false;
}

static void teardown(struct cls_maps *m)
{
	close_fds(m);
	if (m->locked)
		unlock(m);
	if (m->dir_fd >= 0)
		close(m->dir_fd);
	m->dir_fd = -1;
}

/*
 * A reader that finds a change left half done finishes it too, if no
 * writer holds the lock (one that does is still making that change).
 */
static int recover_if_idle(struct cls_maps *m)
{
	struct cls_state s;
	int err;

	err = cls_state_read(m, &s);
	if (err || s.journal.op == CLS_OP_NONE ||
	    flock(m->dir_fd, LOCK_EX | LOCK_NB))
		return err;
	m->locked = true;
	err = cls_recover(m);
	unlock(m);
	cls_live_forget(m);
	cls_catalog_free(m);
	return err;
}

/* The pin directory for a change: made if missing, on a bpffs. */
static int make_root(const char *root, const char *bpffs)
{
	int err = cls_bpffs_check(bpffs);

	if (err == -ENOTSUP)
		cls_set_error("%s is not a bpffs (mount -t bpf bpf %s)", bpffs,
			      bpffs);
	else if (err)
		cls_set_error("%s: %s", bpffs, strerror(-err));
	if (!err && mkdir(root, 0700) < 0 && errno != EEXIST) {
		err = -errno;
		cls_set_error("%s: %s", root, strerror(errno));
	}
	return err;
}

/*
 * What a crash left in staging/ settled: a half-built set (a growth or
 * an upgrade before its record) dropped, which the user is told of
 * (the state map's shape is every layout's since 4).
 */
static int settle(struct cls_maps *m)
{
	int fd = cls_pin_open(m->dir_fd, "maps/state"), st, err;
	struct cls_state s;
	__u32 zero = 0;

	/* After the exchange staging/ holds the old set: recovery says. */
	if (fd >= 0 && !bpf_map_lookup_elem(fd, &zero, &s) &&
	    s.journal.op == CLS_OP_MIGRATE) {
		close(fd);
		fd = -1;
	} else if (fd >= 0) {
		close(fd);
		fd = 0;
	}
	st = fd < 0 ? -1 : cls_dir_open(m->dir_fd, "staging");
	if (st >= 0)
		close(st);
	err = cls_layout_settle(m->dir_fd, m->root);
	if (!err && st >= 0)
		cls_notify(m, "rolled back an interrupted growth or upgrade "
			      "(its half-built staging/ dropped)");
	return err;
}

int cls_open(struct cls_maps *m, const struct cls_open_opts *o)
{
	const char *bpffs = o->bpffs ? o->bpffs : CLS_DEFAULT_BPFFS;
	int maps_fd = -1, err;

	init_handle(m, o);
	cls_set_error("%s", "");
	err = cls_root_path(m->root, sizeof(m->root), o->bpffs);
	if (err) {
		cls_set_error(err == -EINVAL ? "--bpffs: empty path"
					     : "--bpffs: path too long");
		return err;
	}
	if (o->write && (err = make_root(m->root, bpffs)))
		return err;
	m->dir_fd =
		open(m->root, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (m->dir_fd < 0) {
		err = -errno;
		if (err != -ENOENT)
			cls_set_error("%s: %s", m->root, strerror(errno));
		return err;
	}
	err = cls_check_dir(m->dir_fd, m->root, m->read_only);
	if (!err && o->write) {
		err = cls_lock_dir(m->dir_fd, m->root, o->wait_ms);
		m->locked = !err;
	}
	if (!err && o->write)
		err = settle(m);
	if (!err) {
		maps_fd = cls_dir_open(m->dir_fd, "maps");
		if (maps_fd == -ENOENT && o->write) {
			err = cls_layout_create(m->dir_fd, m->root);
			if (!err)
				maps_fd = cls_dir_open(m->dir_fd, "maps");
		}
		if (!err && maps_fd < 0)
			err = maps_fd;
	}
	if (!err)
		err = cls_check_dir(maps_fd, m->root, m->read_only);
	if (!err)
		err = open_pins(m, maps_fd);
	if (maps_fd >= 0)
		close(maps_fd);
	if (!err && m->locked)
		err = cls_recover(m);
	if (!err && m->locked)
		err = cls_share_tree(m->dir_fd, m->root);
	/* Best effort: what a reader cannot finish, the next writer does. */
	if (!err && !m->locked && !m->read_only)
		recover_if_idle(m);
	if (err)
		teardown(m);
	return err;
}

int cls_handle_adopt(struct cls_maps *m, const char *root,
		     int fds[CLS_NR_MAPS], const struct cls_open_opts *o)
{
	int id, err = 0;

	init_handle(m, o);
	snprintf(m->root, sizeof(m->root), "%s", root);
	m->locked = true; /* the caller holds the lock */
	for (id = 0; id < CLS_NR_MAPS; id++) {
		m->fd[id] = fds[id];
		fds[id] = -1;
	}
	for (id = 0; id < CLS_NR_MAPS && !err; id++)
		err = check_pin(m, id);
	if (!err)
		err = check_cap(m);
	if (err)
		cls_handle_release(m);
	return err;
}

int cls_reopen(struct cls_maps *m)
{
	int maps_fd, err;

	close_fds(m);
	maps_fd = cls_dir_open(m->dir_fd, "maps");
	if (maps_fd < 0)
		return maps_fd;
	err = open_pins(m, maps_fd);
	close(maps_fd);
	return err;
}

void cls_handle_release(struct cls_maps *m)
{
	close_fds(m);
	m->locked = false;
}

/*
 * A set made live since m opened its pins (a growth: maps/grow.c; its
 * maps/ is another directory) replaces the one m holds, whose state and
 * class maps nothing reads any more.
 */
static int reopen_if_moved(struct cls_maps *m)
{
	struct stat st;

	if (fstatat(m->dir_fd, "maps", &st, AT_SYMLINK_NOFOLLOW))
		return -errno;
	return st.st_ino == m->maps_ino ? 0 : cls_reopen(m);
}

int cls_lock(struct cls_maps *m, int wait_ms)
{
	int err;

	if (m->locked)
		return 0;
	err = cls_lock_dir(m->dir_fd, m->root, wait_ms);
	if (err)
		return err;
	m->locked = true;
	/* Another process may have published or changed classes meanwhile. */
	cls_live_forget(m);
	cls_catalog_free(m);
	err = reopen_if_moved(m);
	if (!err)
		err = cls_recover(m);
	if (err)
		unlock(m);
	return err;
}

int cls_unlock(struct cls_maps *m)
{
	int err;

	if (!m->locked)
		return 0;
	err = cls_table_maintain(m);
	unlock(m);
	return err;
}

int cls_close(struct cls_maps *m)
{
	int err = 0;

	if (m->locked && m->fd[CLS_M_STATE] >= 0)
		err = cls_table_maintain(m);
	teardown(m);
	return err;
}
