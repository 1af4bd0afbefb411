// SPDX-License-Identifier: GPL-2.0-only
/* What every command uses: error lines, map access, input files. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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
		hint = " (classifier needs root: CAP_BPF, CAP_PERFMON, CAP_SYS_ADMIN, CAP_NET_ADMIN)";
	else if (err == -E2BIG || err == -ENOSPC)
		hint = " (table full)";
	else if (err == -EALREADY)
		hint = " (an earlier change failed half-way and could not be "
		       "finished: the next classifier command finishes it)";
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

int cli_no_args(struct cli *c, int argc)
{
	if (!argc)
		return 0;
	cli_err(c, "takes no arguments");
	return -EINVAL;
}

/* A change found half done and finished or rolled back: say so. */
static void notify(void *ctx, const char *line)
{
	(void)ctx;
	fprintf(stderr, "classifier: %s\n", line);
}

int cli_upgrade(struct cli *c, bool quiet)
{
	struct cls_open_opts o = {
		.bpffs = c->bpffs, .wait_ms = c->wait_ms, .notify = notify};
	struct cls_upgrade_result res;
	const char *why;
	int err;

	err = cls_upgrade(&o, &res);
	if (err) {
		why = cls_open_error();
		if (*why)
			cli_err(c, "%s", why);
		else
			cli_errno(c, err, "upgrade");
		return err;
	}
	if (res.finished && res.from == CLS_LAYOUT_VERSION)
		fprintf(stderr, "classifier: finished an interrupted growth "
				"of the class maps\n");
	else if (res.finished)
		fprintf(stderr,
			"classifier: finished an interrupted upgrade from "
			"layout %d\n",
			res.from);
	else if (res.migrated)
		fprintf(stderr,
			"classifier: moved the pins from layout %d to %d\n",
			res.from, CLS_LAYOUT_VERSION);
	else if (!quiet && !res.from)
		pr_info("nothing set up under %s: nothing to upgrade\n",
			c->root);
	if (!quiet && res.moved)
		fprintf(stderr,
			"classifier: %zu attachment%s run%s build %016llx\n",
			res.moved, res.moved == 1 ? "" : "s",
			res.moved == 1 ? "s" : "",
			(unsigned long long)cls_build_id());
	return 0;
}

int cli_grow(struct cli *c, __u32 need)
{
	size_t moved;
	int err;

	if (need > CLS_MAX_CLASSES) {
		cli_err(c, "%u classes: more than the %d there can be", need,
			CLS_MAX_CLASSES);
		return -ENOSPC;
	}
	err = cls_grow(&c->maps, need, &moved);
	if (err) {
		if (*cls_open_error())
			cli_err(c, "%s", cls_open_error());
		else
			cli_errno(c, err, "growing the class maps");
		return err;
	}
	pr_info("room for %u classes (%zu attachment%s reloaded)\n",
		c->maps.cap, moved, moved == 1 ? "" : "s");
	return 0;
}

int cli_upgrade_if_needed(struct cli *c)
{
	int layout;

	if (c->maps_open)
		return 0;
	layout = cls_layout_of(c->root);
	if (layout <= 0 || layout == CLS_LAYOUT_VERSION)
		return 0;
	return cli_upgrade(c, true);
}

int cli_open_failed(struct cli *c, int err)
{
	const char *why = cls_open_error();

	if (*why)
		cli_err(c, "%s", why);
	else if (err == -ENOENT)
		cli_err(c,
			"nothing set up under %s yet (add a class or route, or "
			"attach)",
			c->root);
	else
		cli_errno(c, err, c->root);
	return err;
}

int cli_maps_read(struct cli *c)
{
	struct cls_open_opts o = {.bpffs = c->bpffs, .notify = notify};
	int err;

	if (c->maps_open)
		return 0;
	err = cls_open(&c->maps, &o);
	if (err)
		return cli_open_failed(c, err);
	c->maps_open = true;
	return 0;
}

int cli_maps_write(struct cli *c)
{
	struct cls_open_opts o = {.bpffs = c->bpffs,
				  .write = true,
				  .wait_ms = c->wait_ms,
				  .notify = notify};
	int err;

	if (c->maps_open) {
		err = cls_lock(&c->maps, c->wait_ms);
		return err ? cli_open_failed(c, err) : 0;
	}
	/* Only the default location is ours to mount; tests bring their own. */
	if (!c->bpffs) {
		err = cls_bpffs_ensure(CLS_DEFAULT_BPFFS, true);
		if (err)
			return cli_errno(c, err, CLS_DEFAULT_BPFFS);
	}
	err = cls_open(&c->maps, &o);
	/* Any change finishes an upgrade (or growth) a crash interrupted. */
	if (err == -EINPROGRESS && !(err = cli_upgrade(c, true)))
		err = cls_open(&c->maps, &o);
	if (err)
		return cli_open_failed(c, err);
	c->maps_open = true;
	return 0;
}

int cli_maps_release(struct cli *c)
{
	int err;

	if (!c->maps_open)
		return 0;
	c->maps_open = false;
	err = cls_close(&c->maps);
	if (err) {
		c->cmd = NULL;
		cli_upkeep_failed(c, err);
	}
	return err;
}

int cli_upkeep_failed(struct cli *c, int err)
{
	const char *what = cls_open_error();

	return cli_errno(c, err, *what ? what : "finishing the change");
}

int cli_get_class(struct cli *c, const char *tok, __u32 *idx)
{
	int err = cls_class_resolve(&c->maps, tok, idx);
	char msg[160];

	if (err)
		cli_err(c, "%s",
			cls_class_strerror(err, tok, msg, sizeof(msg)));
	return err;
}

int cli_read_input(struct cli *c, const char *file, size_t max, char **buf,
		   size_t *len)
{
	bool in = !strcmp(file, "-");
	size_t cap = 0, n = 0;
	struct stat st;
	char *b = NULL, *nb;
	ssize_t got;
	int fd, err = 0;

	/* O_NONBLOCK: opening a FIFO nobody writes must not hang us. */
	fd = in ? STDIN_FILENO
		: open(file, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return cli_errno(c, -errno, file);
	if (!in && (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))) {
		close(fd);
		cli_err(c,
			"%s: not a regular file (give '-' to read standard "
			"input)",
			file);
		return -EINVAL;
	}
	for (;;) {
		if (n == cap) {
			cap = cap ? cap * 2 : 1 << 16;
			if (cap > max + 1)
				cap = max + 1;
			nb = realloc(b, cap + 1);
			if (!nb) {
				err = cli_errno(c, -ENOMEM, file);
				break;
			}
			b = nb;
		}
		got = read(fd, b + n, cap - n);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			err = cli_errno(c, -errno, file);
			break;
		}
		if (!got)
			break;
		n += got;
		if (n > max) {
			cli_err(c, "%s: larger than %zu MiB", file, max >> 20);
			err = -EFBIG;
			break;
		}
	}
	if (!in)
		close(fd);
	if (err) {
		free(b);
		return err;
	}
	if (!b)
		b = calloc(1, 1);
	b[n] = '\0';
	*buf = b;
	*len = n;
	return b ? 0 : cli_errno(c, -ENOMEM, file);
}
