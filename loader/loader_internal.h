/* SPDX-License-Identifier: GPL-2.0-only */
/* Shared between the loader's files only. */
#ifndef CLS_LOADER_INTERNAL_H
#define CLS_LOADER_INTERNAL_H

#include <stddef.h>
#include <linux/types.h>

struct classifier_bpf;

int cls_pin_path(char *buf, size_t n, const char *root, const char *dir,
		 const char *name);
int cls_make_dirs(const char *root);
int cls_load_reusing(const char *root, struct classifier_bpf **out);
/* The same, but with a new dir24 map of dir24_elems elements (0: reuse). */
int cls_load_new_dir24(const char *root, __u32 dir24_elems,
		       struct classifier_bpf **out);
/* Make every attachment run skel's programs (in place). */
int cls_replace_all(const char *root, struct classifier_bpf *skel);

#endif
