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
	int wait_ms;	   /* -1: the library's default */
	/* state for one run (one command, or a whole batch) */
	char root[PATH_MAX];
	struct cls_maps maps;
	bool maps_open;
	const char *cmd;	   /* "route add", for error lines */
	char cmd_buf[48];
	char where[PATH_MAX + 32]; /* "FILE:LINE: " inside a batch */
};

/*
 * A command table: one per object, one line of usage per verb.  A NULL
 * verb is the object's only command (`lookup ADDR`); the first entry runs
 * when no verb is given if its flags say CLI_DEFAULT.  Verbs match by
 * unique prefix (iproute2's matches()) unless CLI_EXACT, in table order.
 */
#define CLI_DEFAULT (1U << 0)
#define CLI_EXACT (1U << 1)

struct cli_cmd {
	const char *verb;
	int (*fn)(struct cli *c, int argc, char **argv);
	const char *args;  /* usage: what follows the verb */
	unsigned int flags;
	const char *alias; /* one more spelling ("change"), matched exactly */
};

/* { verb, handler, args } and, named, .flags or .alias */
#define CLI_CMD(v, f, a, ...) { .verb = v, .fn = f, .args = a, __VA_ARGS__ }

struct cli_object {
	const char *name;
	const struct cli_cmd *cmds; /* ends with an all-zero entry */
	const char *help;	    /* explanation after the usage lines */
	void (*more_help)(FILE *f); /* what follows from a table, after it */
};

extern const struct cli_object cli_attach_obj, cli_detach_obj,
	cli_status_obj, cli_upgrade_obj, cli_purge_obj, cli_class_obj,
	cli_route_obj, cli_lookup_obj, cli_stats_obj, cli_table_obj,
	cli_exporter_obj, cli_sync_obj, cli_shape_obj, cli_steer_obj;

/* Run one command line (OBJECT VERB ARGS...). */
int cli_run(struct cli *c, int argc, char **argv);
/* Usage of every object, for `classifier help`. */
void cli_usage(FILE *f);

/* One line on stderr: "classifier: [where]<cmd>: <message>". */
void cli_err(struct cli *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* The same for a negative errno, with a hint for the common ones. */
int cli_errno(struct cli *c, int err, const char *what);
/* The library's upkeep at the end of a change failed: what it was doing. */
int cli_upkeep_failed(struct cli *c, int err);

/*
 * Report why the pins could not be opened (or read): the library's
 * reason, "nothing set up" for -ENOENT, or the errno.  Returns err.
 */
int cli_open_failed(struct cli *c, int err);
/* Pinned maps for reading; -ENOENT (reported) if nothing is set up. */
int cli_maps_read(struct cli *c);
/* Pinned maps for a change: mounts bpffs, creates the pins, locks. */
int cli_maps_write(struct cli *c);
/* Done with the maps: upkeep, unlock, close; reports the upkeep's error. */
int cli_maps_release(struct cli *c);

/* classifier upgrade (quiet: say nothing when there is nothing to do). */
int cli_upgrade(struct cli *c, bool quiet);
/* Pins of an older layout, or an interrupted upgrade: upgrade them. */
int cli_upgrade_if_needed(struct cli *c);
/* Room for need classes in the open, locked maps (loader's cls_grow). */
int cli_grow(struct cli *c, __u32 need);

/* Class token -> index, or the one error line of the library's wording. */
int cli_get_class(struct cli *c, const char *tok, __u32 *idx);

/* iproute2's matches(): arg is a non-empty prefix of word. */
bool matches(const char *arg, const char *word);
bool is_help(const char *arg);
/* -EINVAL, reported, for a command that takes none. */
int cli_no_args(struct cli *c, int argc);

struct json_writer *cli_json(struct cli *c);

/*
 * Read a whole input (a regular file, or '-' for standard input) into
 * memory, at most max bytes: a FIFO, a device or a directory is refused.
 */
int cli_read_input(struct cli *c, const char *file, size_t max, char **buf,
		   size_t *len);
/* The most a route file or a batch may hold. */
#define CLI_INPUT_MAX (1ULL << 30)

/* classifier route load FILE (cli/route_file.c) */
int cli_route_load(struct cli *c, int argc, char **argv);

/* Shaping (cli/cmd_shape.c): its part of `status`, detach and purge. */
void cli_shape_status_text(struct cli *c);
void cli_shape_status_json(struct cli *c, struct json_writer *jw);
/* Remove dev's tree if classifier shapes it (*unshaped: it did). */
int cli_shape_detach(struct cli *c, const char *dev, bool *unshaped);
/* Remove every tree classifier made. */
int cli_shape_purge(struct cli *c);

/* Steering (cli/cmd_steer.c): its part of `status`. */
void cli_steer_status_text(struct cli *c);
void cli_steer_status_json(struct cli *c, struct json_writer *jw);

/* The table summary, shared by `status` and `table show`. */
void cli_table_json(struct json_writer *jw, const struct cls_table_info *t);
const char *cli_table_mode_name(enum cls_table_mode mode);

#endif
