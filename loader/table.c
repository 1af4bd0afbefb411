// SPDX-License-Identifier: GPL-2.0-only
/*
 * Resizing the DIR-24-8 table.  The programs reference the map directly
 * (a lookup through a map-in-map would cost the inlined array access), so
 * a new size means a new map and new programs: packets use the trie while
 * the new table is built and every attachment is switched over in place.
 */
#include <errno.h>
#include <stdio.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "classifier.skel.h"
#include "loader/loader.h"
#include "loader/loader_internal.h"
#include "maps/maps.h"

static int pin_over(const char *root, int fd)
{
	char tmp[PATH_MAX], path[PATH_MAX];
	int err;

	err = cls_pin_path(tmp, sizeof(tmp), root, "maps", "dir24_new");
	if (!err)
		err = cls_pin_path(path, sizeof(path), root, "maps",
				   CLS_MAP_DIR24);
	if (err)
		return err;
	unlink(tmp);
	if (bpf_obj_pin(fd, tmp))
		return -errno;
	/* rename() replaces the pin in one step: no moment without one. */
	if (rename(tmp, path) < 0) {
		err = -errno;
		unlink(tmp);
	}
	return err;
}

int cls_table_resize(const char *root, struct cls_maps *m, bool on,
		     __u32 groups)
{
	struct classifier_bpf *skel = NULL;
	int err;

	if (groups > CLS_DIR24_MAX_GROUPS)
		return -ERANGE;
	err = cls_dir24_suspend(m);
	if (!err)
		err = cls_load_new_dir24(root,
					 dir24_entries(on, groups) /
						 CLS_DIR24_PER_ELEM,
					 &skel);
	if (!err)
		err = cls_dir24_init_fd(bpf_map__fd(skel->maps.dir24));
	if (!err)
		err = pin_over(root, bpf_map__fd(skel->maps.dir24));
	if (err)
		goto out;
	cls_maps_close(m);
	err = cls_maps_open(m, root);
	if (!err)
		err = cls_dir24_rebuild(m, false);
	if (!err)
		err = cls_replace_all(root, skel);
	if (!err && on)
		err = cls_set_lookup_mode(m, CLS_LOOKUP_DIR24);
out:
	classifier_bpf__destroy(skel);
	return err;
}

int cls_table_refresh(const char *root, struct cls_maps *m)
{
	struct classifier_bpf *skel = NULL;
	int err;

	err = cls_dir24_suspend(m);
	if (!err)
		err = cls_load_reusing(root, &skel);
	if (!err)
		err = cls_dir24_rebuild(m, false);
	/* Programs of an interrupted resize may still hold the old map. */
	if (!err)
		err = cls_replace_all(root, skel);
	if (!err && (err = cls_dir24_map(m)) == 0 && m->dir24.on)
		err = cls_set_lookup_mode(m, CLS_LOOKUP_DIR24);
	classifier_bpf__destroy(skel);
	return err;
}
