/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The pin directory's layout (maps/open.c, maps/layout.c, maps/migrate.c):
 *   <root>/maps/      the pins of the live layout
 *   <root>/staging/   a layout being built (created, or migrated to)
 * Pins are reached through directory fds: /proc/self/fd/N/NAME.
 */
#ifndef CLS_MAPS_LAYOUT_H
#define CLS_MAPS_LAYOUT_H

#include "maps/internal.h"

int cls_pin_open(int dir_fd, const char *name);
/* The same, read-only (BPF_F_RDONLY): a write through it is -EPERM. */
int cls_pin_open_ro(int dir_fd, const char *name);
int cls_pin_at(int dir_fd, const char *name, int fd);
/*
 * The directory belongs to this user (a reader: or to root) and nobody
 * else can write it.
 */
int cls_check_dir(int fd, const char *path, bool reader);
int cls_lock_dir(int fd, const char *path, int wait_ms);
/*
 * Directory sub of the pin directory (dir_fd), and the map pins in it
 * with pins, given the pin directory's group access (maps/share.c).
 */
int cls_share_dir(int dir_fd, const char *root, const char *sub, bool pins);

/*
 * Layout version of the pins in a maps/ directory: 0 none, 3, 4, ...;
 * -EUCLEAN for a state map that is not ours or says nonsense.
 */
int cls_layout_at(int maps_fd);
/*
 * Whatever a crash left in staging/: a half-built layout is removed; an
 * upgrade that reached its record is -EINPROGRESS (the upgrade finishes
 * it).
 */
int cls_layout_settle(int dir_fd, const char *root);
/* A new, empty layout in maps/ (built in staging/, renamed). */
int cls_layout_create(int dir_fd, const char *root);
/* A subdirectory of dir_fd (not a symlink): its fd, or -errno. */
int cls_dir_open(int dir_fd, const char *name);
/* Unpin everything in a subdirectory of dir_fd and remove it. */
int cls_dir_remove(int dir_fd, const char *name);
/* Pin every map of m (fds in m->fd) into a new staging/ of dir_fd. */
int cls_layout_pin(struct cls_maps *m, int dir_fd);

#endif
