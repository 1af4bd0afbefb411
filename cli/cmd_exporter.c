// SPDX-License-Identifier: GPL-2.0-only
/* classifier exporter [ listen ADDR:PORT ] [ timeout SECONDS ] */
#include <errno.h>
#include <string.h>

#include "cli/cli.h"
#include "lib/log.h"
#include "lib/parse.h"
#include "metrics/collect.h"
#include "metrics/exporter.h"

struct exporter_src {
	struct cli *c;
	int last_err; /* of the previous scrape, to log changes only */
};

/*
 * Every scrape opens the pins anew.  A scrape that cannot read them
 * serves classifier_up 0; the log says why once, and once when it is
 * over, not at every scrape.  Runs in the server's thread, while the
 * main thread only waits for a signal.
 */
static int scrape(void *ctx, struct metrics_snapshot *s)
{
	struct exporter_src *x = ctx;
	int err;

	err = metrics_collect_pinned(x->c->bpffs, true, s);
	if (err && err != x->last_err)
		cli_open_failed(x->c, err);
	else if (!err && x->last_err)
		cli_err(x->c, "state readable again");
	x->last_err = err;
	return err;
}

/*
 * listen ADDR:PORT (also "--listen ADDR:PORT", as the issue wrote it, and
 * "--listen=ADDR:PORT"), timeout SECONDS.
 */
static int parse_args(struct cli *c, int argc, char **argv,
		      struct exporter_opts *o)
{
	const char *key, *val;
	__u32 sec;

	while (argc) {
		key = argv[0];
		if (!strncmp(key, "--listen=", 9)) {
			o->listen = key + 9;
			argc--, argv++;
			continue;
		}
		if (strcmp(key, "listen") && strcmp(key, "--listen") &&
		    strcmp(key, "timeout")) {
			cli_err(c, "unknown argument \"%s\"", key);
			return -EINVAL;
		}
		if (argc < 2) {
			cli_err(c, "\"%s\" needs a value", key);
			return -EINVAL;
		}
		val = argv[1];
		argc -= 2, argv += 2;
		if (strcmp(key, "timeout")) {
			o->listen = val;
			continue;
		}
		if (parse_u32(val, &sec) || !sec || sec > 3600) {
			cli_err(c, "timeout \"%s\": expected seconds, 1-3600",
				val);
			return -EINVAL;
		}
		o->timeout_s = sec;
	}
	return 0;
}

static int exporter(struct cli *c, int argc, char **argv)
{
	struct exporter_opts o = {.listen = EXPORTER_DEFAULT_LISTEN};
	struct exporter_src x = {.c = c};
	struct metrics_source src = {scrape, &x};
	struct sockaddr_storage ss;
	const char *why;
	socklen_t len;
	int err;

	err = parse_args(c, argc, argv, &o);
	if (err)
		return err;
	if (exporter_parse_listen(o.listen, &ss, &len, &why)) {
		cli_err(c, "listen \"%s\": %s", o.listen, why);
		return -EINVAL;
	}
	/* Never hold the lock of a batch's earlier change while serving. */
	err = cli_maps_release(c);
	if (err)
		return err;
	pr_info("exporter: GET /metrics on %s\n", o.listen);
	err = exporter_run(&o, &src);
	if (err)
		cli_err(c, "%s: %s", o.listen, strerror(-err));
	return err;
}

static const struct cli_cmd exporter_cmds[] = {
	CLI_CMD(NULL, exporter, "[ listen ADDR:PORT ] [ timeout SECONDS ]"),
	{},
};

const struct cli_object cli_exporter_obj = {
	.name = "exporter",
	.cmds = exporter_cmds,
	.help = "Serves GET /metrics for Prometheus (the text of 'classifier\n"
		"stats prometheus', read afresh for every scrape) on\n"
		"ADDR:PORT, default " EXPORTER_DEFAULT_LISTEN "; IPv6 as "
		"[ADDR6]:PORT; numeric\n"
		"addresses only. Runs in the foreground until SIGTERM or "
		"SIGINT.\n"
		"--listen ADDR:PORT is the same as listen ADDR:PORT.\n"
		"timeout: a request and its answer get SECONDS (default 10) "
		"from\n"
		"the accept or the previous answer; above the scrape "
		"interval,\n"
		"Prometheus keeps its connection. When all 32 connections "
		"are\n"
		"held, a new one takes the place of the oldest request.\n",
};
