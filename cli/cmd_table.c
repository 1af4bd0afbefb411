// SPDX-License-Identifier: GPL-2.0-only
/* classifier table ...: the IPv4 DIR-24-8 table */
#include <errno.h>
#include <string.h>

#include "cli/cli.h"
#include "lib/parse.h"
#include "loader/loader.h"

static void table_usage(FILE *f)
{
	fprintf(f,
		"Usage: classifier table [ show ]\n"
		"       classifier table on [ groups N ]\n"
		"       classifier table off\n"
		"       classifier table rebuild\n"
		"The IPv4 DIR-24-8 table answers IPv4 lookups in constant time;\n"
		"the LPM trie stays the truth. It takes 64 MiB plus 1 KiB per\n"
		"group; a group holds one /24 that has longer prefixes in it.\n"
		"When groups run out, those /24s are answered by the trie.\n"
		"Default: on, %u groups (192 MiB). on/off rebuilds and switches every\n"
		"attachment in place; packets use the trie meanwhile.\n",
		CLS_DIR24_DEFAULT_GROUPS);
}

int cli_table_summary(struct cli *c, struct cls_table_info *t)
{
	struct cls_config cfg;
	int err;

	err = cls_dir24_map(&c->maps);
	if (!err)
		err = cls_get_config(&c->maps, &cfg);
	if (err)
		return err;
	t->on = c->maps.dir24.on;
	t->groups = c->maps.dir24.groups;
	t->used = c->maps.dir24.hdr->used;
	t->ask_trie = c->maps.dir24.hdr->ask_trie;
	t->bytes = c->maps.dir24_len;
	t->active = cfg.lookup_mode == CLS_LOOKUP_DIR24;
	return 0;
}

void cli_table_json(struct json_writer *jw, const struct cls_table_info *t)
{
	jw_start_object(jw);
	jw_bool_field(jw, "on", t->on);
	jw_bool_field(jw, "in_use", t->active);
	jw_uint_field(jw, "groups", t->groups);
	jw_uint_field(jw, "groups_used", t->used);
	jw_uint_field(jw, "ask_trie", t->ask_trie);
	jw_uint_field(jw, "bytes", t->bytes);
	jw_end_object(jw);
}

static int table_show(struct cli *c)
{
	struct cls_table_info t;
	struct json_writer *jw;
	int err;

	err = cli_maps_read(c);
	if (err)
		return err;
	err = cli_table_summary(c, &t);
	if (err)
		return cli_errno(c, err, "reading the table");
	if (!c->json) {
		printf("ipv4 table %s%s\n", t.on ? "on" : "off",
		       t.on && !t.active ? " (not in use: run 'classifier table rebuild')" : "");
		if (t.on)
			printf("groups %u of %u used, %u /24s answered by the trie, %.1f MiB\n",
			       t.used, t.groups, t.ask_trie,
			       t.bytes / 1048576.0);
		return 0;
	}
	jw = cli_json(c);
	if (!jw)
		return -ENOMEM;
	cli_table_json(jw, &t);
	jw_destroy(&jw);
	return 0;
}

static int table_on(struct cli *c, int argc, char **argv)
{
	__u32 groups = CLS_DIR24_DEFAULT_GROUPS;
	int err;

	if (argc == 2 && !strcmp(argv[0], "groups")) {
		if (parse_u32(argv[1], &groups) ||
		    groups > CLS_DIR24_MAX_GROUPS) {
			cli_err(c, "groups must be 0-%u", CLS_DIR24_MAX_GROUPS);
			return -EINVAL;
		}
	} else if (argc) {
		cli_err(c, "expected [ groups N ]");
		return -EINVAL;
	}
	err = cli_maps_write(c);
	if (!err && (err = cls_table_resize(c->root, &c->maps, true, groups)))
		cli_errno(c, err, "resizing the table");
	return err;
}

int do_table(struct cli *c, int argc, char **argv)
{
	const char *verb = argc ? argv[0] : "show";
	int err;

	if (argc)
		argc--, argv++;
	if (is_help(verb) || (argc && is_help(argv[0]))) {
		table_usage(stdout);
		return 0;
	}
	if (matches(verb, "show")) {
		c->cmd = "table";
		return cli_no_args(c, argc) ?: table_show(c);
	}
	if (!strcmp(verb, "on")) {
		c->cmd = "table on";
		return table_on(c, argc, argv);
	}
	if (!strcmp(verb, "off") || matches(verb, "rebuild")) {
		bool off = !strcmp(verb, "off");

		c->cmd = off ? "table off" : "table rebuild";
		if (cli_no_args(c, argc))
			return -EINVAL;
		err = cli_maps_write(c);
		if (err)
			return err;
		err = off ? cls_table_resize(c->root, &c->maps, false, 0) :
			    cls_table_refresh(c->root, &c->maps);
		return err ? cli_errno(c, err, "table") : 0;
	}
	c->cmd = "table";
	cli_err(c, "unknown command \"%s\"; try \"classifier table help\"",
		verb);
	return -EINVAL;
}
