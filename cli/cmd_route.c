// SPDX-License-Identifier: GPL-2.0-only
/* classifier route ... and classifier lookup ADDR */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "lib/parse.h"

static int get_prefix(struct cli *c, const char *s, struct cls_prefix *p)
{
	struct parse_why why;

	if (parse_prefix(s, p, &why)) {
		cli_err(c, "%s: %s", s, why.text);
		return -EINVAL;
	}
	return 0;
}

static int route_update(struct cli *c, int argc, char **argv, int how)
{
	struct cls_prefix p;
	__u32 idx;
	int err;

	if (argc >= 2 && !strcmp(argv[1], "class")) {
		argv[1] = argv[0];
		argc--;
		argv++;
	}
	if (argc != 2) {
		cli_err(c, "expected PREFIX class CLASS");
		return -EINVAL;
	}
	err = get_prefix(c, argv[0], &p);
	if (!err)
		err = cli_maps_write(c);
	if (!err)
		err = cli_get_class(c, argv[1], &idx);
	if (err)
		return err;
	err = cls_route_set(&c->maps, &p, idx, how);
	if (err == -EEXIST) {
		cli_err(c, "%s: route exists (use 'route replace')", argv[0]);
		return err;
	}
	return err ? cli_errno(c, err, argv[0]) : 0;
}

static int route_add(struct cli *c, int argc, char **argv)
{
	return route_update(c, argc, argv, CLS_ROUTE_ADD);
}

static int route_replace(struct cli *c, int argc, char **argv)
{
	return route_update(c, argc, argv, CLS_ROUTE_REPLACE);
}

static int route_del(struct cli *c, int argc, char **argv)
{
	struct cls_prefix p;
	int err;

	if (argc != 1) {
		cli_err(c, "expected PREFIX");
		return -EINVAL;
	}
	err = get_prefix(c, argv[0], &p);
	if (!err)
		err = cli_maps_write(c);
	if (err)
		return err;
	err = cls_route_del(&c->maps, &p);
	if (err == -ENOENT) {
		cli_err(c, "%s: no such route", argv[0]);
		return err;
	}
	return err ? cli_errno(c, err, argv[0]) : 0;
}

static void class_text(struct cli *c, __u32 idx, char *buf, size_t n)
{
	const struct cls_class_entry *e = cls_class_at(&c->maps, idx);

	if (e)
		cls_class_label(e, buf, n);
	else
		snprintf(buf, n, "#%u", idx); /* a route to a deleted class */
}

static int route_list(struct cli *c, int argc, char **argv)
{
	enum cls_source_filter src = CLS_SRC_ALL;
	struct json_writer *jw = NULL;
	char buf[PREFIX_STRLEN], cls[CLASSID_STRLEN];
	struct cls_route *r = NULL;
	int family = 0, err, i;
	size_t n, k;

	for (i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "v4") && !family)
			family = AF_INET;
		else if (!strcmp(argv[i], "v6") && !family)
			family = AF_INET6;
		else if (!strcmp(argv[i], "hand") && src == CLS_SRC_ALL)
			src = CLS_SRC_HAND;
		else if (!strcmp(argv[i], "synced") && src == CLS_SRC_ALL)
			src = CLS_SRC_SYNCED;
		else {
			cli_err(c, "expected [ v4 | v6 ] [ hand | synced ]");
			return -EINVAL;
		}
	}
	err = cli_maps_read(c);
	if (err)
		return err;
	err = cls_route_dump(&c->maps, family, src, &r, &n);
	if (err)
		return cli_errno(c, err, "reading routes");
	if (c->json && !(jw = cli_json(c))) {
		free(r);
		return -ENOMEM;
	}
	if (jw)
		jw_start_array(jw);
	for (k = 0; k < n; k++) {
		bool synced = r[k].flags & CLS_ROUTE_SYNCED;

		format_prefix(&r[k].prefix, buf, sizeof(buf));
		class_text(c, r[k].class_idx, cls, sizeof(cls));
		if (!jw) {
			/* "route load" reads these lines back; '#' starts a comment. */
			printf("%s %s%s\n", buf, cls, synced ? " # synced" : "");
			continue;
		}
		jw_start_object(jw);
		jw_string_field(jw, "prefix", buf);
		jw_string_field(jw, "class", cls);
		jw_uint_field(jw, "class_index", r[k].class_idx);
		jw_string_field(jw, "source", synced ? "synced" : "hand");
		jw_end_object(jw);
	}
	if (jw) {
		jw_end_array(jw);
		jw_destroy(&jw);
	}
	free(r);
	return 0;
}

static int route_flush(struct cli *c, int argc, char **argv)
{
	struct cls_txn *txn;
	int err;

	(void)argv;
	if (cli_no_args(c, argc))
		return -EINVAL;
	err = cli_maps_write(c);
	if (err)
		return err;
	err = cls_txn_begin(&c->maps, CLS_TXN_HAND, &txn);
	if (!err)
		err = cls_txn_commit(txn, NULL);
	return err ? cli_errno(c, err, "flush") : 0;
}

static const struct cli_cmd route_cmds[] = {
	CLI_CMD("add", route_add, "PREFIX [ class ] CLASS"),
	CLI_CMD("replace", route_replace, "PREFIX [ class ] CLASS", .alias = "change"),
	CLI_CMD("del", route_del, "PREFIX", .alias = "delete"),
	CLI_CMD("list", route_list, "[ v4 | v6 ] [ hand | synced ]", .flags = CLI_DEFAULT, .alias = "show"),
	CLI_CMD("flush", route_flush, NULL),
	CLI_CMD("load", cli_route_load, "FILE"),
	{},
};

const struct cli_object cli_route_obj = {
	.name = "route",
	.cmds = route_cmds,
	.help = "PREFIX: 10.0.0.0/8, 2001:db8::/32, or an address (host route);\n"
		"        host bits must be clear. CLASS: tc classid (1:10,\n"
		"        hex as in tc) or class name.\n"
		"FILE:   one \"PREFIX CLASS\" per line, '#' comments, '-' for\n"
		"        stdin; replaces every route added by hand at once (what\n"
		"        'route list' prints loads back). An empty file is refused.\n"
		"Routes come from an operator (hand) or from 'classifier sync'\n"
		"(synced). Sync never overwrites or removes a hand route; flush\n"
		"and load change hand routes only; adding or replacing a route\n"
		"by hand takes over a synced one.\n",
};

enum table_answer { TABLE_NONE, TABLE_AGREES, TABLE_ASKS_TRIE, TABLE_DIFFERS };

static const char *const table_text[2][4] = {
	{
		[TABLE_NONE] = "",
		[TABLE_AGREES] = " (ipv4 table agrees)",
		[TABLE_ASKS_TRIE] = " (ipv4 table defers to the trie)",
		[TABLE_DIFFERS] =
			" (IPV4 TABLE DIFFERS: run 'classifier table rebuild')",
	},
	{
		[TABLE_NONE] = "",
		[TABLE_AGREES] = " (ipv6 table agrees)",
		[TABLE_ASKS_TRIE] = " (ipv6 table defers to the trie)",
		[TABLE_DIFFERS] =
			" (IPV6 TABLE DIFFERS: run 'classifier table rebuild')",
	},
};

static const char *const table_json[] = {
	[TABLE_NONE] = "none",
	[TABLE_AGREES] = "agrees",
	[TABLE_ASKS_TRIE] = "trie",
	[TABLE_DIFFERS] = "differs",
};

/* What the family's table answers, compared with the trie's idx. */
static enum table_answer table_answer(struct cli *c,
				      const struct cls_prefix *addr, __u32 idx)
{
	bool ask, none;
	__u32 a, got;
	int err;

	if (addr->family == AF_INET) {
		a = (__u32)addr->addr[0] << 24 | (__u32)addr->addr[1] << 16 |
		    (__u32)addr->addr[2] << 8 | addr->addr[3];
		err = cls_table_lookup(&c->maps, a, &got, &ask);
		none = c->maps.table.fd < 0;
	} else {
		err = cls_table6_lookup(&c->maps, addr->addr, &got, &ask);
		none = c->maps.table6.fd < 0;
	}
	if (err || none)
		return TABLE_NONE;
	if (ask)
		return TABLE_ASKS_TRIE;
	return got == idx ? TABLE_AGREES : TABLE_DIFFERS;
}

static int lookup(struct cli *c, int argc, char **argv)
{
	struct cls_class_entry e;
	char pbuf[PREFIX_STRLEN] = "", label[CLASSID_STRLEN];
	enum table_answer table;
	struct json_writer *jw;
	struct cls_prefix addr;
	struct cls_route match;
	struct parse_why why;
	const char *name;
	__u32 idx = CLS_DEFAULT_CLASS;
	bool found;
	int err;

	if (argc != 1) {
		cli_err(c, "expected ADDR");
		return -EINVAL;
	}
	if (parse_addr(argv[0], &addr, &why)) {
		cli_err(c, "%s: %s", argv[0], why.text);
		return -EINVAL;
	}
	err = cli_maps_read(c);
	if (err)
		return err;
	err = cls_route_lookup(&c->maps, &addr, &match, &found);
	if (err)
		return cli_errno(c, err, argv[0]);
	if (found) {
		idx = match.class_idx;
		format_prefix(&match.prefix, pbuf, sizeof(pbuf));
	}
	/* Report the class as stored, even a stale index with no class. */
	if (cls_class_get(&c->maps, idx, &e) == 0)
		cls_class_label(&e, label, sizeof(label));
	else
		snprintf(label, sizeof(label), "#%u", idx);
	name = idx != CLS_DEFAULT_CLASS ? e.meta.name : "";
	table = table_answer(c, &addr, idx);
	if (!c->json) {
		printf("%s via %s class %s%s%s%s%s\n", argv[0],
		       found ? pbuf : "(no route)", label, *name ? " name " : "",
		       name, found && match.flags & CLS_ROUTE_SYNCED ?
				     " synced" : "",
		       table_text[addr.family == AF_INET6][table]);
		return table == TABLE_DIFFERS ? -EUCLEAN : 0;
	}
	jw = cli_json(c);
	if (!jw)
		return -ENOMEM;
	jw_start_object(jw);
	jw_string_field(jw, "address", argv[0]);
	if (found)
		jw_string_field(jw, "prefix", pbuf);
	else
		jw_name(jw, "prefix"), jw_null(jw);
	jw_string_field(jw, "class", label);
	jw_string_field(jw, "name", e.meta.name);
	jw_uint_field(jw, "class_index", idx);
	if (found)
		jw_string_field(jw, "source", match.flags & CLS_ROUTE_SYNCED ?
						      "synced" : "hand");
	jw_string_field(jw, addr.family == AF_INET6 ? "ipv6_table" :
						      "ipv4_table",
			table_json[table]);
	jw_end_object(jw);
	jw_destroy(&jw);
	return table == TABLE_DIFFERS ? -EUCLEAN : 0;
}

static const struct cli_cmd lookup_cmds[] = {
	CLI_CMD(NULL, lookup, "ADDR"),
	{},
};

const struct cli_object cli_lookup_obj = {
	.name = "lookup",
	.cmds = lookup_cmds,
	.help = "Which route and class packets to (tc egress) or from (XDP)\n"
		"ADDR get, and whether its lookup table says the same.\n",
};
