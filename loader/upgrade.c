// SPDX-License-Identifier: GPL-2.0-only
/*
 * classifier upgrade: pins of an older layout are moved to this one
 * (maps/migrate.c) and every attachment is pointed at this build's
 * programs, each in one step (a link update, a cls_bpf replace), so no
 * packet meets a device without classifier or a half-moved layout.  Run
 * again after a crash, it finishes what it had started.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "classifier.skel.h"
#include "loader/loader.h"
#include "loader/loader_internal.h"

/* Programs bound to fds run on every attachment. */
static int replace_with(const char *root, const int fds[CLS_NR_MAPS],
			size_t *moved)
{
	struct classifier_bpf *skel;
	int err = cls_load_fds(fds, &skel);

	if (!err)
		err = cls_replace_all(root, skel, moved);
	classifier_bpf__destroy(skel);
	return err;
}

/* The set complete in staging/ on every attachment, then live. */
static int make_live(int dir_fd, const char *root, size_t *moved)
{
	int fds[CLS_NR_MAPS], id, err;

	err = cls_staging_fds(dir_fd, fds);
	if (!err)
		err = replace_with(root, fds, moved);
	for (id = 0; id < CLS_NR_MAPS; id++)
		if (fds[id] >= 0)
			close(fds[id]);
	return err ?: cls_migrate_commit(dir_fd, root);
}

static int move_layout(int dir_fd, const char *root, int from,
		       const struct cls_open_opts *o,
		       struct cls_upgrade_result *res)
{
	int err, pending;

	pending = cls_staging_pending(dir_fd, root);
	if (pending < 0)
		return pending;
	/*
	 * An older build's upgrade, interrupted after its record: made live
	 * as that build would have, then moved on from its layout.
	 */
	if (pending && pending != CLS_LAYOUT_VERSION) {
		err = cls_migrate_commit(dir_fd, root);
		if (err)
			return err;
		if (o->notify)
			o->notify(o->notify_ctx,
				  "finished an older classifier's interrupted "
				  "upgrade to its layout");
		from = res->from = pending;
		pending = 0;
	}
	res->finished = pending;
	if (!pending) {
		if (from == CLS_LAYOUT_VERSION)
			return 0;
		err = cls_migrate_stage(dir_fd, root, from, o);
		if (err)
			return err;
	}
	err = make_live(dir_fd, root, &res->moved);
	res->migrated = !err;
	return err;
}

int cls_grow(struct cls_maps *m, __u32 need, size_t *moved)
{
	int err = cls_grow_stage(m, need);

	*moved = 0;
	if (err <= 0)
		return err;
	err = make_live(m->dir_fd, m->root, moved);
	return err ?: cls_reopen(m);
}

int cls_upgrade(const struct cls_open_opts *opts,
		struct cls_upgrade_result *res)
{
	struct cls_open_opts o = *opts;
	struct classifier_bpf *skel;
	char root[PATH_MAX];
	struct cls_maps m;
	int dir_fd, err;

	memset(res, 0, sizeof(*res));
	err = cls_root_path(root, sizeof(root), o.bpffs);
	if (err)
		return err;
	res->from = cls_layout_of(root);
	if (res->from <= 0)
		return res->from; /* nothing set up: nothing to upgrade */
	dir_fd = cls_lock_root(root, o.wait_ms);
	if (dir_fd < 0)
		return dir_fd;
	err = move_layout(dir_fd, root, res->from, &o, res);
	close(dir_fd);
	/* Moved: the attachments run this build on the maps now live. */
	if (err || res->migrated)
		return err;
	/* The layout is this one's now: every attachment gets this build. */
	o.write = true;
	err = cls_open(&m, &o);
	if (err)
		return err;
	err = cls_load(&m, &skel);
	if (!err)
		err = cls_replace_all(root, skel, &res->moved);
	classifier_bpf__destroy(skel);
	cls_close(&m);
	return err;
}
