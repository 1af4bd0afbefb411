// SPDX-License-Identifier: GPL-2.0-only
/*
 * Readers by group.  To let another user read the pins (the exporter's,
 * deploy/classifier-exporter.service), the pin directory gets a group,
 * group read access and the set-group-ID bit (chgrp GROUP, chmod 2750:
 * deploy/classifier.tmpfiles does it at boot).  What the library makes
 * under it then gets the same group and the same access: directories
 * r-x, map pins r, never w, as readers open them read-only
 * (cls_open_opts.read_only).  The links and programs that attachments
 * pin stay the owner's alone: the kernel opens those read-write only,
 * and a link opened so can detach the program.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "maps/layout.h"

/* NAME in at_fd: the pin directory's group, and read access for it. */
static int share_one(int at_fd, const char *name, const struct stat *root)
{
	struct stat st;
	mode_t want;

	if (fstatat(at_fd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return errno == ENOENT ? 0 : -errno;
	want = (st.st_mode & 07777 & ~(mode_t)(S_IWGRP | S_IWOTH)) | S_IRGRP;
	if (S_ISDIR(st.st_mode))
		want |= S_IXGRP | (root->st_mode & S_ISGID);
	/* The group first: a change of group may clear the mode's bits. */
	if (st.st_gid != root->st_gid &&
	    fchownat(at_fd, name, -1, root->st_gid, AT_SYMLINK_NOFOLLOW) < 0)
		return -errno;
	if (want != (st.st_mode & 07777) && fchmodat(at_fd, name, want, 0) < 0)
		return -errno;
	return 0;
}

int cls_share_dir(int dir_fd, const char *root, const char *sub, bool pins)
{
	const char *what = sub;
	struct stat r;
	int fd, id, err;

	if (fstat(dir_fd, &r) < 0)
		return -errno;
	if (!(r.st_mode & S_IRGRP))
		return 0;
	err = share_one(dir_fd, sub, &r);
	fd = !err && pins
		     ? openat(dir_fd, sub,
			      O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
		     : -1;
	if (!err && pins && fd < 0 && errno != ENOENT)
		err = -errno;
	for (id = 0; fd >= 0 && id < CLS_NR_MAPS && !err; id++) {
		what = cls_map_specs[id].name;
		err = share_one(fd, what, &r);
	}
	if (fd >= 0)
		close(fd);
	if (err)
		cls_set_error("%s/%s%s%s: giving it the pin directory's group "
			      "access (gid %u): %s",
			      root, sub, what != sub ? "/" : "",
			      what != sub ? what : "", r.st_gid,
			      strerror(-err));
	return err;
}

int cls_share_tree(int dir_fd, const char *root)
{
	int err = cls_share_dir(dir_fd, root, "maps", true);

	if (!err)
		err = cls_share_dir(dir_fd, root, "links", false);
	if (!err)
		err = cls_share_dir(dir_fd, root, "tc", false);
	return err;
}
