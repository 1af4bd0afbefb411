// SPDX-License-Identifier: GPL-2.0-only
/* classifier route ... and classifier lookup ADDR */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "lib/parse.h"

static void route_usage(FILE *f)
{
	fprintf(f,
		"Usage: classifier route add PREFIX [ class ] CLASS\n"
		"       classifier route replace PREFIX [ class ] CLASS\n"
		"       classifier route del PREFIX\n"
		"       classifier route list [ v4 | v6 ]\n"
		"       classifier route flush\n"
		"       classifier route load FILE\n"
		"       classifier lookup ADDR\n"
		"PREFIX: 10.0.0.0/8, 2001:db8::/32, or an address (host route);\n"
		"        host bits must be clear. CLASS: tc classid (1:10,\n"
		"        hex as in tc) or class name.\n"
		"FILE:   one \"PREFIX CLASS\" per line, '#' comments, '-' for\n"
		"        stdin; replaces every route at once (what 'route list'\n"
		"        prints loads back).\n");
}

static int get_prefix(struct cli *c, const char *s, struct cls_prefix *p)
{
	const char *why = NULL;

	if (parse_prefix(s, p, &why)) {
		cli_err(c, "%s: %s", s, why ? why : "invalid prefix");
		return -EINVAL;
	}
	return 0;
}

const char *cli_class_errstr(int err, const char *tok, char *buf, size_t n)
{
	if (err == -ENOENT)
		snprintf(buf, n, "unknown class \"%s\" (see 'classifier class "
				 "list')", tok);
	else if (err == -EINVAL)
		snprintf(buf, n, "\"%s\" is neither a classid nor a class name",
			 tok);
	else
		snprintf(buf, n, "reading classes: %s", strerror(-err));
	return buf;
}

int cli_get_class(struct cli *c, const char *tok, __u32 *idx)
{
	int err = cli_class_resolve(c, tok, idx);
	char msg[128];

	if (err == -ENOENT || err == -EINVAL) {
		cli_err(c, "%s", cli_class_errstr(err, tok, msg, sizeof(msg)));
		return err;
	}
	return err ? cli_errno(c, err, "reading classes") : 0;
}

static int route_update(struct cli *c, int argc, char **argv, int how)
{
	struct cls_prefix p;
	const char *tok;
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
	tok = argv[1];
	err = get_prefix(c, argv[0], &p);
	if (!err)
		err = cli_maps_write(c);
	if (!err)
		err = cli_get_class(c, tok, &idx);
	if (err)
		return err;
	err = cls_route_update(&c->maps, &p, idx, how);
	if (err == -EEXIST) {
		cli_err(c, "%s: route exists (use 'route replace')", argv[0]);
		return err;
	}
	return err ? cli_errno(c, err, argv[0]) : 0;
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
	err = cls_route_delete(&c->maps, &p);
	if (err == -ENOENT) {
		cli_err(c, "%s: no such route", argv[0]);
		return err;
	}
	return err ? cli_errno(c, err, argv[0]) : 0;
}

/* Class labels by index, for printing many routes. */
static char (*label_table(struct cli *c))[CLASSID_STRLEN]
{
	char(*labels)[CLASSID_STRLEN];
	struct cls_class_entry *e;
	size_t n, i;

	labels = calloc(CLS_MAX_CLASSES, sizeof(*labels));
	if (!labels || cls_class_dump(&c->maps, &e, &n)) {
		free(labels);
		return NULL;
	}
	for (i = 0; i < CLS_MAX_CLASSES; i++)
		snprintf(labels[i], sizeof(labels[i]), "#%zu", i);
	for (i = 0; i < n; i++)
		class_label(&e[i], labels[e[i].idx], sizeof(labels[0]));
	free(e);
	return labels;
}

static int route_list(struct cli *c, int argc, char **argv)
{
	char(*labels)[CLASSID_STRLEN] = NULL;
	struct json_writer *jw = NULL;
	char buf[PREFIX_STRLEN];
	struct cls_route *r = NULL;
	int family = 0, err;
	size_t n, i;

	if (argc > 1 || (argc == 1 && strcmp(argv[0], "v4") &&
			 strcmp(argv[0], "v6"))) {
		cli_err(c, "expected [ v4 | v6 ]");
		return -EINVAL;
	}
	if (argc)
		family = !strcmp(argv[0], "v4") ? AF_INET : AF_INET6;
	err = cli_maps_read(c);
	if (err)
		return err;
	labels = label_table(c);
	if (!labels)
		return cli_errno(c, -ENOMEM, "reading classes");
	err = cls_route_dump(&c->maps, family, &r, &n);
	if (err) {
		cli_errno(c, err, "reading routes");
		goto out;
	}
	if (c->json) {
		jw = cli_json(c);
		if (!jw) {
			err = -ENOMEM;
			goto out;
		}
		jw_start_array(jw);
	}
	for (i = 0; i < n; i++) {
		const char *cls = r[i].class_idx < CLS_MAX_CLASSES ?
					  labels[r[i].class_idx] :
					  "?";

		format_prefix(&r[i].prefix, buf, sizeof(buf));
		if (!jw) {
			printf("%s %s\n", buf, cls);
			continue;
		}
		jw_start_object(jw);
		jw_string_field(jw, "prefix", buf);
		jw_string_field(jw, "class", cls);
		jw_uint_field(jw, "class_index", r[i].class_idx);
		jw_end_object(jw);
	}
	if (jw) {
		jw_end_array(jw);
		jw_destroy(&jw);
	}
out:
	free(labels);
	free(r);
	return err;
}

static int route_flush(struct cli *c, int argc, char **argv)
{
	int err;

	(void)argv;
	if (cli_no_args(c, argc))
		return -EINVAL;
	err = cli_maps_write(c);
	if (!err)
		err = cls_route_flush(&c->maps);
	return err ? cli_errno(c, err, "flush") : 0;
}

int do_route(struct cli *c, int argc, char **argv)
{
	const char *verb = argc ? argv[0] : "list";

	if (argc)
		argc--, argv++;
	if (is_help(verb)) {
		route_usage(stdout);
		return 0;
	}
	if (argc && is_help(argv[0])) {
		route_usage(stdout);
		return 0;
	}
	if (matches(verb, "add")) {
		c->cmd = "route add";
		return route_update(c, argc, argv, CLS_ROUTE_ADD);
	}
	if (matches(verb, "replace") || !strcmp(verb, "change")) {
		c->cmd = "route replace";
		return route_update(c, argc, argv, CLS_ROUTE_REPLACE);
	}
	if (matches(verb, "delete")) {
		c->cmd = "route del";
		return route_del(c, argc, argv);
	}
	if (matches(verb, "list") || matches(verb, "show")) {
		c->cmd = "route list";
		return route_list(c, argc, argv);
	}
	if (matches(verb, "flush")) {
		c->cmd = "route flush";
		return route_flush(c, argc, argv);
	}
	if (matches(verb, "load")) {
		c->cmd = "route load";
		return cli_route_load(c, argc, argv);
	}
	cli_err(c, "unknown command \"%s\"; try \"classifier route help\"",
		verb);
	return -EINVAL;
}

enum table_answer { TABLE_NONE, TABLE_AGREES, TABLE_ASKS_TRIE, TABLE_DIFFERS };

static const char *const table_text[] = {
	[TABLE_NONE] = "",
	[TABLE_AGREES] = " (ipv4 table agrees)",
	[TABLE_ASKS_TRIE] = " (ipv4 table defers to the trie)",
	[TABLE_DIFFERS] = " (IPV4 TABLE DIFFERS: run 'classifier table rebuild')",
};

static const char *const table_json[] = {
	[TABLE_NONE] = "none",
	[TABLE_AGREES] = "agrees",
	[TABLE_ASKS_TRIE] = "trie",
	[TABLE_DIFFERS] = "differs",
};

/* What the DIR-24-8 table would answer, compared with the trie's idx. */
static enum table_answer table_answer(struct cli *c,
				      const struct cls_prefix *addr, __u32 idx)
{
	struct cls_config cfg;
	__u32 a, got;
	bool ask;

	a = (__u32)addr->addr[0] << 24 | (__u32)addr->addr[1] << 16 |
	    (__u32)addr->addr[2] << 8 | addr->addr[3];
	if (addr->family != AF_INET || cls_get_config(&c->maps, &cfg) ||
	    cfg.lookup_mode != CLS_LOOKUP_DIR24 ||
	    cls_dir24_lookup(&c->maps, a, &got, &ask))
		return TABLE_NONE;
	if (ask)
		return TABLE_ASKS_TRIE;
	return got == idx ? TABLE_AGREES : TABLE_DIFFERS;
}

int do_lookup(struct cli *c, int argc, char **argv)
{
	enum table_answer table;
	struct cls_class_entry e = {};
	struct json_writer *jw;
	struct cls_prefix addr;
	struct cls_route match;
	char pbuf[PREFIX_STRLEN] = "", label[CLASSID_STRLEN];
	const char *why = NULL;
	__u32 idx = CLS_DEFAULT_CLASS, i;
	bool found;
	int err;

	if (argc != 1 || is_help(argv[0])) {
		if (argc == 1) {
			route_usage(stdout);
			return 0;
		}
		cli_err(c, "expected ADDR");
		return -EINVAL;
	}
	if (parse_addr(argv[0], &addr, &why)) {
		cli_err(c, "%s: %s", argv[0], why ? why : "invalid address");
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
	{
		struct cls_class_entry *all;
		size_t n;

		if (!cls_class_dump(&c->maps, &all, &n)) {
			for (i = 0; i < n; i++)
				if (all[i].idx == idx)
					e = all[i];
			free(all);
		}
	}
	e.idx = idx;
	class_label(&e, label, sizeof(label));
	table = table_answer(c, &addr, idx);
	if (!c->json) {
		printf("%s via %s class %s%s%s%s\n", argv[0],
		       found ? pbuf : "(no route)", label,
		       e.meta.name[0] ? " name " : "", e.meta.name,
		       table_text[table]);
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
	jw_string_field(jw, "ipv4_table", table_json[table]);
	jw_end_object(jw);
	jw_destroy(&jw);
	return table == TABLE_DIFFERS ? -EUCLEAN : 0;
}
