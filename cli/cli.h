/* SPDX-License-Identifier: GPL-2.0-only */
/* What the `classifier` command's parts share. */
#ifndef CLS_CLI_H
#define CLS_CLI_H

#include <stdbool.h>
#include <stdio.h>

#include "lib/json.h"
#include "maps/maps.h"

struct cli {
	/* options */
	bool json;
	bool pretty;
	const char *bpffs; /* NULL: /sys/fs/bpf */
	/* state for one run (one command, or a whole batch) */
	char root[PATH_MAX];
	struct cls_maps maps;
	bool maps_open;
	int lock_fd;
	struct class_index *classes; /* read once per run, see class_index.c */
	const char *cmd;   /* "route add", for error lines */
	char where[PATH_MAX + 32]; /* "FILE:LINE: " inside a batch */
};

/* One line on stderr: "classifier: [where]<cmd>: <message>". */
void cli_err(struct cli *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* The same for a negative errno, with a hint for the common ones. */
int cli_errno(struct cli *c, int err, const char *what);

/* Pinned maps for reading; -ENOENT (reported) if nothing is set up. */
int cli_maps_read(struct cli *c);
/* Pinned maps for a change: mounts bpffs, creates the maps, takes the lock. */
int cli_maps_write(struct cli *c);

/* Class token (classid or name) -> index: -ENOENT, -EINVAL (neither). */
int cli_class_resolve(struct cli *c, const char *tok, __u32 *idx);
/* The same, with the error reported. */
int cli_get_class(struct cli *c, const char *tok, __u32 *idx);
/* Read the classes for cli_class_resolve() now (it is then thread-safe). */
int cli_class_index(struct cli *c);
/* What cli_get_class() says when resolving tok failed with err. */
const char *cli_class_errstr(int err, const char *tok, char *buf, size_t n);
/* classifier route load FILE */
int cli_route_load(struct cli *c, int argc, char **argv);
/* After a class was added, changed or deleted. */
void cli_classes_changed(struct cli *c);

/* iproute2's matches(): arg is a non-empty prefix of word. */
bool matches(const char *arg, const char *word);
bool is_help(const char *arg);
/* -EINVAL, reported, for a command that takes none. */
int cli_no_args(struct cli *c, int argc);

struct json_writer *cli_json(struct cli *c);

int do_attach(struct cli *c, int argc, char **argv);
int do_detach(struct cli *c, int argc, char **argv);
int do_status(struct cli *c, int argc, char **argv);
int do_purge(struct cli *c, int argc, char **argv);
int do_class(struct cli *c, int argc, char **argv);
int do_route(struct cli *c, int argc, char **argv);
int do_lookup(struct cli *c, int argc, char **argv);
int do_stats(struct cli *c, int argc, char **argv);
int do_table(struct cli *c, int argc, char **argv);

struct cls_table_info {
	bool on;     /* the map has a table */
	bool active; /* packets use it (not mid-rebuild) */
	__u32 groups, used, ask_trie;
	size_t bytes;
};
int cli_table_summary(struct cli *c, struct cls_table_info *t);
void cli_table_json(struct json_writer *jw, const struct cls_table_info *t);

/* Format a class for output: its classid, or "default" for index 0. */
void class_label(const struct cls_class_entry *e, char *buf, size_t n);

#endif
