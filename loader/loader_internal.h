/* SPDX-License-Identifier: GPL-2.0-only */
/* Shared between the loader's files only. */
#ifndef CLS_LOADER_INTERNAL_H
#define CLS_LOADER_INTERNAL_H

#include <stddef.h>
#include <linux/types.h>

#include "maps/maps.h"

struct classifier_bpf;

int cls_pin_path(char *buf, size_t n, const char *root, const char *dir,
		 const char *name);
int cls_make_dirs(const char *root);
/* The BPF object with its maps bound to these (maps/registry.c order). */
int cls_load_fds(const int fds[CLS_NR_MAPS], struct classifier_bpf **out);
int cls_load(const struct cls_maps *m, struct classifier_bpf **out);
/* Make every attachment run skel's programs (in place). */
int cls_replace_all(const char *root, struct classifier_bpf *skel,
		    size_t *moved);

#endif
