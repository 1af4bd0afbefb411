// SPDX-License-Identifier: GPL-2.0-only
/*
 * One dispatcher for every object's command table, and the usage texts
 * made from the same tables, so each usage line is written once.
 */
#include <errno.h>
#include <string.h>

#include "cli/cli.h"

static const struct cli_object *const objects[] = {
	&cli_attach_obj, &cli_detach_obj, &cli_status_obj, &cli_upgrade_obj,
	&cli_class_obj,	 &cli_route_obj,  &cli_lookup_obj, &cli_stats_obj,
	&cli_table_obj,	 &cli_shape_obj,  &cli_steer_obj,  &cli_sync_obj,   &cli_exporter_obj,
	&cli_purge_obj,
};

#define NR_OBJECTS (sizeof(objects) / sizeof(objects[0]))

static void object_usage(FILE *f, const struct cli_object *o)
{
	const struct cli_cmd *cmd;
	const char *lead = "Usage:";

	for (cmd = o->cmds; cmd->fn; cmd++, lead = "      ")
		fprintf(f, "%s classifier %s%s%s%s%s\n", lead, o->name,
			cmd->verb ? " " : "", cmd->verb ? cmd->verb : "",
			cmd->args ? " " : "", cmd->args ? cmd->args : "");
	if (o->help)
		fputs(o->help, f);
	if (o->more_help)
		o->more_help(f);
}

void cli_usage(FILE *f)
{
	const struct cli_cmd *cmd;
	size_t i;

	fprintf(f, "Usage: classifier [OPTIONS] OBJECT { COMMAND | help }\n"
		   "       classifier [OPTIONS] -batch FILE\n"
		   "OBJECT and COMMAND:\n");
	for (i = 0; i < NR_OBJECTS; i++) {
		const struct cli_object *o = objects[i];

		fprintf(f, "  %s", o->name);
		if (!o->cmds[0].verb) {
			fprintf(f, "%s%s\n", o->cmds[0].args ? " " : "",
				o->cmds[0].args ? o->cmds[0].args : "");
			continue;
		}
		for (cmd = o->cmds; cmd->fn; cmd++)
			fprintf(f, "%s%s", cmd == o->cmds ? " { " : " | ",
				cmd->verb);
		fprintf(f, " } ...\n");
	}
	fprintf(f,
		"OPTIONS:\n"
		"  -j, --json            JSON output (-p, --pretty: indented)\n"
		"  -v, --verbose         more messages (twice: libbpf debug)\n"
		"  --bpffs DIR           bpffs mount to pin under (default\n"
		"                        $CLASSIFIER_BPFFS or /sys/fs/bpf)\n"
		"  -w, --wait SECONDS    wait this long for another "
		"classifier's\n"
		"                        lock (default %d; 0: fail at once)\n"
		"  -b, -batch FILE       one command per line ('-': stdin)\n"
		"  -f, -force            with -batch: go on after errors\n"
		"  -V, --version\n"
		"Pins live in DIR/classifier. 'classifier OBJECT help' "
		"explains one.\n",
		CLS_LOCK_WAIT_MS / 1000);
}

static const struct cli_cmd *find_verb(const struct cli_object *o,
				       const char *verb)
{
	const struct cli_cmd *cmd;

	for (cmd = o->cmds; cmd->fn; cmd++)
		if ((cmd->flags & CLI_EXACT) ? !strcmp(verb, cmd->verb)
					     : matches(verb, cmd->verb))
			return cmd;
	for (cmd = o->cmds; cmd->fn; cmd++)
		if (cmd->alias && !strcmp(verb, cmd->alias))
			return cmd;
	return NULL;
}

static int run_object(struct cli *c, const struct cli_object *o, int argc,
		      char **argv)
{
	const struct cli_cmd *cmd = o->cmds;

	c->cmd = o->name;
	if (argc && is_help(argv[0])) {
		object_usage(stdout, o);
		return 0;
	}
	if (cmd->verb) {
		if (!argc && !(cmd->flags & CLI_DEFAULT)) {
			cli_err(c,
				"expected a command; try \"classifier %s "
				"help\"",
				o->name);
			return -EINVAL;
		}
		if (argc) {
			cmd = find_verb(o, argv[0]);
			if (!cmd) {
				cli_err(c,
					"unknown command \"%s\"; try "
					"\"classifier %s help\"",
					argv[0], o->name);
				return -EINVAL;
			}
			argc--, argv++;
		}
		snprintf(c->cmd_buf, sizeof(c->cmd_buf), "%s %s", o->name,
			 cmd->verb);
		c->cmd = c->cmd_buf;
	}
	if (argc && is_help(argv[0])) {
		object_usage(stdout, o);
		return 0;
	}
	return cmd->fn(c, argc, argv);
}

int cli_run(struct cli *c, int argc, char **argv)
{
	size_t i;

	c->cmd = NULL;
	if (argc < 1 || is_help(argv[0])) {
		cli_usage(argc < 1 ? stderr : stdout);
		return argc < 1 ? -EINVAL : 0;
	}
	for (i = 0; i < NR_OBJECTS; i++)
		if (matches(argv[0], objects[i]->name))
			return run_object(c, objects[i], argc - 1, argv + 1);
	cli_err(c, "unknown object \"%s\"; try \"classifier help\"", argv[0]);
	return -EINVAL;
}
