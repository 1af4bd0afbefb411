/* SPDX-License-Identifier: GPL-2.0-only */
/* Shared between the loader's files only. */
#ifndef CLS_LOADER_INTERNAL_H
#define CLS_LOADER_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#include "loader/loader.h"
#include "maps/maps.h"

struct bpf_program;
struct classifier_bpf;

int cls_pin_path(char *buf, size_t n, const char *root, const char *dir,
		 const char *name);
int cls_make_dirs(const char *root);
/* The BPF object with its maps bound to these (maps/registry.c order). */
int cls_load_fds(const int fds[CLS_NR_MAPS], struct classifier_bpf **out);
int cls_load(const struct cls_maps *m, struct classifier_bpf **out);
/* skel's program for a hook on a device of that link. */
struct bpf_program *cls_prog_for(struct classifier_bpf *skel,
				 enum cls_hook hook, enum cls_link link);
/* Whether a program of ours, by its name, is one for L3 devices. */
bool cls_prog_is_l3(const char *prog_name);
/* Make every attachment run skel's programs (in place). */
int cls_replace_all(const char *root, struct classifier_bpf *skel,
		    size_t *moved);

#endif
