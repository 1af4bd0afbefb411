// SPDX-License-Identifier: GPL-2.0-only
/* classifier [OPTIONS] OBJECT COMMAND: option parsing, dispatch, -batch. */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"
#include "lib/log.h"
#include "lib/parse.h"
#include "loader/loader.h"

#define CLS_VERSION "0.1"
#define BATCH_MAX_ARGS 64

static const struct cmd {
	const char *name;
	int (*fn)(struct cli *c, int argc, char **argv);
} cmds[] = {
	{ "attach", do_attach }, { "detach", do_detach },
	{ "status", do_status }, { "class", do_class },
	{ "route", do_route },	 { "lookup", do_lookup },
	{ "stats", do_stats },	 { "purge", do_purge },
	{ "table", do_table },
};

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: classifier [OPTIONS] OBJECT { COMMAND | help }\n"
		"       classifier [OPTIONS] -batch FILE\n"
		"OBJECT and COMMAND:\n"
		"  attach dev IFACE [ egress | xdp ] [ mode { tcx | tc } ]\n"
		"                   [ xdp-mode { native | generic } ]\n"
		"  detach dev IFACE [ egress | xdp ]\n"
		"  status\n"
		"  class { add | set | del | list } ...\n"
		"  route { add | replace | del | list | flush | load } ...\n"
		"  lookup ADDR\n"
		"  stats [ show [ per-cpu ] | reset | on | off ]\n"
		"  table [ show | on [ groups N ] | off | rebuild ]  IPv4 DIR-24-8\n"
		"  purge                 detach everywhere, remove all pins\n"
		"OPTIONS:\n"
		"  -j, --json            JSON output (-p, --pretty: indented)\n"
		"  -v, --verbose         more messages (twice: libbpf debug)\n"
		"  --bpffs DIR           bpffs mount to pin under (default\n"
		"                        $CLASSIFIER_BPFFS or /sys/fs/bpf)\n"
		"  -b, -batch FILE       one command per line ('-': stdin)\n"
		"  -f, -force            with -batch: go on after errors\n"
		"  -V, --version\n"
		"Pins live in DIR/classifier. See README.md for examples.\n");
}

static void cli_release(struct cli *c)
{
	cli_classes_changed(c);
	if (c->maps_open)
		cls_maps_close(&c->maps);
	c->maps_open = false;
	cls_unlock_root(c->lock_fd);
	c->lock_fd = -1;
}

static int run_command(struct cli *c, int argc, char **argv)
{
	size_t i;

	if (argc < 1 || is_help(argv[0])) {
		usage(argc < 1 ? stderr : stdout);
		return argc < 1 ? -EINVAL : 0;
	}
	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		if (matches(argv[0], cmds[i].name)) {
			c->cmd = cmds[i].name;
			return cmds[i].fn(c, argc - 1, argv + 1);
		}
	}
	c->cmd = NULL;
	cli_err(c, "unknown object \"%s\"; try \"classifier help\"", argv[0]);
	return -EINVAL;
}

static int run_batch(struct cli *c, const char *file, bool force)
{
	FILE *f = strcmp(file, "-") ? fopen(file, "r") : stdin;
	char *line = NULL, *argv[BATCH_MAX_ARGS];
	size_t cap = 0, lineno = 0;
	int argc, err = 0, failed = 0;

	if (!f) {
		cli_err(c, "-batch %s: %s", file, strerror(errno));
		return -errno;
	}
	while (getline(&line, &cap, f) > 0) {
		lineno++;
		snprintf(c->where, sizeof(c->where), "%s:%zu: ", file, lineno);
		c->cmd = NULL;
		argc = split_args(line, argv, BATCH_MAX_ARGS);
		if (argc < 0) {
			cli_err(c, argc == -E2BIG ? "too many arguments" :
						    "unterminated quote");
			err = argc;
		} else if (argc > 0) {
			err = run_command(c, argc, argv);
		}
		if (err) {
			failed++;
			if (!force)
				break;
			err = 0;
		}
	}
	c->where[0] = '\0';
	free(line);
	if (f != stdin)
		fclose(f);
	return err ? err : failed ? -EINVAL : 0;
}

int main(int argc, char **argv)
{
	static const struct option long_opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "pretty", no_argument, NULL, 'p' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "bpffs", required_argument, NULL, 'B' },
		{ "batch", required_argument, NULL, 'b' },
		{ "force", no_argument, NULL, 'f' },
		{ "version", no_argument, NULL, 'V' },
		{ "help", no_argument, NULL, 'h' },
		{},
	};
	struct cli c = { .lock_fd = -1 };
	const char *batch = NULL;
	int opt, err, verbose = 0;
	bool force = false;

	c.bpffs = getenv("CLASSIFIER_BPFFS");
	/* '+': stop at the first non-option, the OBJECT. */
	while ((opt = getopt_long_only(argc, argv, "+jpvb:fVh", long_opts,
				       NULL)) != -1) {
		switch (opt) {
		case 'j':
			c.json = true;
			break;
		case 'p':
			c.json = c.pretty = true;
			break;
		case 'v':
			verbose++;
			break;
		case 'B':
			c.bpffs = optarg;
			break;
		case 'b':
			batch = optarg;
			break;
		case 'f':
			force = true;
			break;
		case 'V':
			printf("classifier %s (ABI %d)\n", CLS_VERSION,
			       CLS_ABI_VERSION);
			return 0;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	log_set_level(verbose >= 2 ? LOG_DEBUG :
		      verbose	   ? LOG_INFO :
				     LOG_WARN);
	log_setup_libbpf();
	if (c.bpffs && !*c.bpffs)
		c.bpffs = NULL;
	if (cls_root_path(c.root, sizeof(c.root), c.bpffs)) {
		fprintf(stderr, "classifier: --bpffs path too long\n");
		return 2;
	}
	if (batch) {
		if (optind != argc) {
			fprintf(stderr, "classifier: -batch takes no command\n");
			return 2;
		}
		err = run_batch(&c, batch, force);
	} else {
		err = run_command(&c, argc - optind, argv + optind);
	}
	cli_release(&c);
	return err ? 1 : 0;
}
