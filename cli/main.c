// SPDX-License-Identifier: GPL-2.0-only
/* classifier [OPTIONS] OBJECT COMMAND: option parsing and -batch. */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "lib/log.h"
#include "lib/parse.h"
#include "lib/version.h"
#include "loader/loader.h"

#define BATCH_MAX_ARGS 64

/*
 * The whole batch is read before its first command runs: an input that
 * never ends (a FIFO, a terminal) must not hold the lock a command took.
 */
static int run_batch(struct cli *c, const char *file, bool force)
{
	char *buf, *line, *next, *argv[BATCH_MAX_ARGS];
	size_t len, lineno = 0;
	int argc, err = 0, failed = 0;

	err = cli_read_input(c, file, CLI_INPUT_MAX, &buf, &len);
	if (err)
		return err;
	for (line = buf; line < buf + len; line = next) {
		next = memchr(line, '\n', buf + len - line);
		next = next ? next + 1 : buf + len;
		lineno++;
		snprintf(c->where, sizeof(c->where), "%s:%zu: ", file, lineno);
		c->cmd = NULL;
		if (memchr(line, '\0', next - line)) {
			cli_err(c, "NUL byte in the line");
			err = -EINVAL;
			break;
		}
		if (next[-1] == '\n')
			next[-1] = '\0';
		argc = split_args(line, argv, BATCH_MAX_ARGS);
		if (argc < 0) {
			cli_err(c, argc == -E2BIG ? "too many arguments" :
						    "unterminated quote");
			err = argc;
		} else if (argc > 0) {
			err = cli_run(c, argc, argv);
		}
		if (err) {
			failed++;
			if (!force)
				break;
			err = 0;
		}
	}
	c->where[0] = '\0';
	free(buf);
	return err ? err : failed ? -EINVAL : 0;
}

static int parse_wait(const char *s, int *ms)
{
	__u32 sec;

	if (parse_u32(s, &sec) || sec > 86400)
		return -EINVAL;
	*ms = sec * 1000;
	return 0;
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
		{ "wait", required_argument, NULL, 'w' },
		{ "version", no_argument, NULL, 'V' },
		{ "help", no_argument, NULL, 'h' },
		{},
	};
	struct cli c = { .wait_ms = -1 };
	const char *batch = NULL, *env;
	int opt, err, verbose = 0;
	bool force = false;

	/* An empty variable is unset; an empty --bpffs is a mistake. */
	env = getenv("CLASSIFIER_BPFFS");
	c.bpffs = env && *env ? env : NULL;
	/* '+': stop at the first non-option, the OBJECT. */
	while ((opt = getopt_long_only(argc, argv, "+jpvb:fw:Vh", long_opts,
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
		case 'w':
			if (parse_wait(optarg, &c.wait_ms)) {
				fprintf(stderr, "classifier: --wait: \"%s\" is not a number of seconds (0-86400)\n",
					optarg);
				return 2;
			}
			break;
		case 'V':
			printf("classifier %s (layout %d, build %016llx)\n",
			       CLS_VERSION, CLS_LAYOUT_VERSION, cls_build_id());
			return 0;
		case 'h':
			cli_usage(stdout);
			return 0;
		default:
			cli_usage(stderr);
			return 2;
		}
	}
	log_set_level(verbose >= 2 ? LOG_DEBUG :
		      verbose	   ? LOG_INFO :
				     LOG_WARN);
	log_setup_libbpf();
	err = cls_root_path(c.root, sizeof(c.root), c.bpffs);
	if (err) {
		fprintf(stderr, "classifier: --bpffs: %s\n",
			err == -EINVAL ? "empty path" : "path too long");
		return 2;
	}
	if (batch) {
		if (optind != argc) {
			fprintf(stderr, "classifier: -batch takes no command\n");
			return 2;
		}
		err = run_batch(&c, batch, force);
	} else {
		err = cli_run(&c, argc - optind, argv + optind);
	}
	if (cli_maps_release(&c) && !err)
		err = -EIO;
	return err ? 1 : 0;
}
