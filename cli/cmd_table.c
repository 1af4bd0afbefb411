// SPDX-License-Identifier: GPL-2.0-only
/* classifier table ...: the IPv4 DIR-24-8 table */
#include <errno.h>
#include <string.h>

#include "cli/cli.h"
#include "lib/parse.h"

#define STR_(x) #x
#define STR(x) STR_(x)

const char *cli_table_mode_name(enum cls_table_mode mode)
{
	return mode == CLS_TABLE_ON ? "on" : mode == CLS_TABLE_OFF ? "off" :
								      "auto";
}

void cli_table_json(struct json_writer *jw, const struct cls_table_info *t)
{
	jw_start_object(jw);
	jw_string_field(jw, "mode", cli_table_mode_name(t->mode));
	jw_bool_field(jw, "on", t->on);
	jw_uint_field(jw, "groups", t->groups);
	jw_uint_field(jw, "groups_used", t->used);
	jw_uint_field(jw, "ask_trie", t->ask_trie);
	jw_uint_field(jw, "bytes", t->bytes);
	jw_name(jw, "ipv6");
	jw_start_object(jw);
	jw_bool_field(jw, "on", t->v6.on);
	jw_uint_field(jw, "units", t->v6.units);
	jw_uint_field(jw, "units_used", t->v6.used);
	jw_uint_field(jw, "ask_trie", t->v6.ask_trie);
	jw_uint_field(jw, "bytes", t->v6.bytes);
	jw_uint_field(jw, "format", t->v6.format);
	/* A table in a format this build cannot read, 0: none. */
	jw_uint_field(jw, "foreign_format", t->v6.foreign_format);
	jw_end_object(jw);
	jw_end_object(jw);
}

static int table_show(struct cli *c, int argc, char **argv)
{
	struct cls_table_info t;
	struct json_writer *jw;
	int err;

	(void)argv;
	if (cli_no_args(c, argc))
		return -EINVAL;
	err = cli_maps_read(c);
	if (err)
		return err;
	err = cls_table_info(&c->maps, &t);
	if (err)
		return cli_errno(c, err, "reading the table");
	if (c->json) {
		jw = cli_json(c);
		if (!jw)
			return -ENOMEM;
		cli_table_json(jw, &t);
		jw_destroy(&jw);
		return 0;
	}
	printf("tables   %s\n", cli_table_mode_name(t.mode));
	if (t.on)
		printf("ipv4     on: groups %u of %u used, %u /24s answered by the trie, %.1f MiB\n",
		       t.used, t.groups, t.ask_trie, t.bytes / 1048576.0);
	else
		printf("ipv4     off: the trie answers\n");
	if (t.v6.on)
		printf("ipv6     on: %zu of %zu units used, %zu slots answered by the trie, %.1f MiB, format %u\n",
		       t.v6.used, t.v6.units, t.v6.ask_trie,
		       t.v6.bytes / 1048576.0, t.v6.format);
	else if (t.v6.foreign_format)
		printf("ipv6     in format %u, which this build cannot read: the trie answers\n",
		       t.v6.foreign_format);
	else
		printf("ipv6     off: the trie answers\n");
	return 0;
}

static int set_policy(struct cli *c, enum cls_table_mode mode, __u32 groups)
{
	int err = cli_maps_write(c);

	if (!err && (err = cls_table_set_policy(&c->maps, mode, groups)))
		cli_errno(c, err, "building the table");
	return err;
}

static int table_on(struct cli *c, int argc, char **argv)
{
	__u32 groups = 0;

	if (argc && (argc != 2 || strcmp(argv[0], "groups"))) {
		cli_err(c, "expected [ groups N ]");
		return -EINVAL;
	}
	if (argc && (parse_u32(argv[1], &groups) ||
		     groups > CLS_DIR24_MAX_GROUPS)) {
		cli_err(c, "groups must be 0-%u", CLS_DIR24_MAX_GROUPS);
		return -EINVAL;
	}
	return set_policy(c, CLS_TABLE_ON, groups);
}

static int table_off(struct cli *c, int argc, char **argv)
{
	(void)argv;
	return cli_no_args(c, argc) ?: set_policy(c, CLS_TABLE_OFF, 0);
}

static int table_auto(struct cli *c, int argc, char **argv)
{
	(void)argv;
	return cli_no_args(c, argc) ?: set_policy(c, CLS_TABLE_AUTO, 0);
}

static int table_rebuild(struct cli *c, int argc, char **argv)
{
	int err;

	(void)argv;
	if (cli_no_args(c, argc))
		return -EINVAL;
	err = cli_maps_write(c);
	if (!err && (err = cls_table_rebuild(&c->maps)))
		cli_errno(c, err, "rebuilding the table");
	return err;
}

static const struct cli_cmd table_cmds[] = {
	CLI_CMD("show", table_show, NULL, .flags = CLI_DEFAULT),
	CLI_CMD("auto", table_auto, NULL, .flags = CLI_EXACT),
	CLI_CMD("on", table_on, "[ groups N ]", .flags = CLI_EXACT),
	CLI_CMD("off", table_off, NULL, .flags = CLI_EXACT),
	CLI_CMD("rebuild", table_rebuild, NULL),
	{},
};

const struct cli_object cli_table_obj = {
	.name = "table",
	.cmds = table_cmds,
	.help = "The IPv4 DIR-24-8 table answers IPv4 lookups in one or two\n"
		"memory reads, the IPv6 table (a multibit trie) IPv6 ones in a\n"
		"few; the LPM tries stay the truth. The IPv4 one takes 64 MiB\n"
		"plus 1 KiB per group; a group holds one /24 that has longer\n"
		"prefixes in it. When groups run out, those /24s are answered\n"
		"by the trie. auto (the default): on from " STR(CLS_TABLE_AUTO_ROUTES)
		" IPv4 routes, off\n"
		"below half that, groups sized by the routes with a quarter to\n"
		"spare and grown when they run out. on: always, sized the same\n"
		"way, or with exactly N groups.\n"
		"off: IPv4 asks the trie. A new table is built beside the one\n"
		"in use and replaces it at once.\n",
};
