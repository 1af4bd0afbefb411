// SPDX-License-Identifier: GPL-2.0-only
/* What every command uses: error lines, map access, keyword matching. */
#include <errno.h>
#include <stdarg.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/cli.h"
#include "lib/log.h"
#include "loader/loader.h"

void cli_err(struct cli *c, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "classifier: %s%s%s", c->where, c->cmd ? c->cmd : "",
		c->cmd ? ": " : "");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

int cli_errno(struct cli *c, int err, const char *what)
{
	const char *hint = "";

	if (err == -EPERM || err == -EACCES)
		hint = " (classifier needs root: CAP_BPF and CAP_NET_ADMIN)";
	else if (err == -E2BIG || err == -ENOSPC)
		hint = " (table full)";
	cli_err(c, "%s: %s%s", what, strerror(-err), hint);
	return err;
}

bool matches(const char *arg, const char *word)
{
	size_t len = strlen(arg);

	return len && len <= strlen(word) && !strncmp(arg, word, len);
}

bool is_help(const char *arg)
{
	return !strcmp(arg, "help") || !strcmp(arg, "--help") ||
	       !strcmp(arg, "-h");
}

struct json_writer *cli_json(struct cli *c)
{
	struct json_writer *jw = jw_new(stdout, c->pretty);

	if (!jw)
		cli_err(c, "out of memory");
	return jw;
}

int cli_maps_read(struct cli *c)
{
	int err;

	if (c->maps_open)
		return 0;
	err = cls_maps_open(&c->maps, c->root);
	if (err == -ENOENT) {
		cli_err(c, "nothing set up under %s yet (add a class or route, or attach)",
			c->root);
		return err;
	}
	if (err)
		return cli_errno(c, err, c->root);
	c->maps_open = true;
	return 0;
}

int cli_maps_write(struct cli *c)
{
	const char *bpffs = c->bpffs ? c->bpffs : CLS_DEFAULT_BPFFS;
	bool created;
	int err;

	if (c->lock_fd >= 0 && c->maps_open)
		return 0;
	/* Only the default location is ours to mount; tests bring their own. */
	err = cls_bpffs_ensure(bpffs, !c->bpffs);
	if (err == -ENOTSUP) {
		cli_err(c, "%s is not a bpffs (mount -t bpf bpf %s)", bpffs,
			bpffs);
		return err;
	}
	if (err)
		return cli_errno(c, err, bpffs);
	if (c->lock_fd < 0) {
		if (mkdir(c->root, 0700) < 0 && errno != EEXIST)
			return cli_errno(c, -errno, c->root);
		err = cls_lock_root(c->root, &c->lock_fd);
		if (err)
			return cli_errno(c, err, c->root);
	}
	err = cls_setup(c->root, &created);
	if (err)
		return cli_errno(c, err, "setting up maps");
	if (created)
		pr_info("created maps under %s/maps\n", c->root);
	return cli_maps_read(c);
}

int cli_no_args(struct cli *c, int argc)
{
	if (!argc)
		return 0;
	cli_err(c, "takes no arguments");
	return -EINVAL;
}
