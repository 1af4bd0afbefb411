/* SPDX-License-Identifier: GPL-2.0-only */
/* Shared between the loader's files only. */
#ifndef CLS_LOADER_INTERNAL_H
#define CLS_LOADER_INTERNAL_H

#include <stddef.h>

struct classifier_bpf;

int cls_pin_path(char *buf, size_t n, const char *root, const char *dir,
		 const char *name);
int cls_make_dirs(const char *root);
int cls_load_reusing(const char *root, struct classifier_bpf **out);

#endif
