// SPDX-License-Identifier: GPL-2.0-only
/*
 * classifier route load FILE: read the file, parse it, hand the routes to
 * a route transaction of the maps library (which builds the new tables
 * beside the live ones and publishes them at once).
 *
 * The file is read whole before the lock is taken, so a slow or endless
 * input never holds other writers up; a big file is parsed by two
 * threads, one per half, while the library's filler feeds the kernel what
 * the first half yields.  Errors name the first bad line of the file, as
 * one thread reading in order would.  Nothing is published unless every
 * line parsed and every class resolved.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "lib/parse.h"

/* Routes handed to the transaction per call. */
#define BATCH 1024

/* One stretch of the input, parsed by one thread. */
struct part {
	struct cli *c;
	struct cls_txn *txn; /* the first part adds as it goes */
	const char *p, *end;
	struct cls_route *own; /* the second part keeps its routes */
	size_t own_n, own_cap;
	size_t lines;
	int err;
	char msg[160];
};

static int keep(struct part *pt, const struct cls_route *r, size_t n)
{
	struct cls_route *nr;

	if (pt->txn)
		return cls_txn_add(pt->txn, r, n);
	if (pt->own_n + n > pt->own_cap) {
		pt->own_cap = (pt->own_cap + n) * 2;
		nr = realloc(pt->own, pt->own_cap * sizeof(*nr));
		if (!nr)
			return -ENOMEM;
		pt->own = nr;
	}
	memcpy(pt->own + pt->own_n, r, n * sizeof(*r));
	pt->own_n += n;
	return 0;
}

static const char *add_errstr(int err)
{
	return err == -E2BIG ? "more routes than the table holds"
			     : strerror(-err);
}

/*
 * The line's class; files repeat a class line after line.  Only a whole
 * token is remembered: a longer one ("1:000...0010") is resolved every
 * time, or a token equal to its truncation would get its class.
 */
static int resolve(struct part *pt, const char *tok, char *last, size_t n,
		   __u32 *idx)
{
	size_t len = strlen(tok);
	int err;

	if (*last && !strcmp(tok, last))
		return 0;
	err = cls_class_resolve(&pt->c->maps, tok, idx);
	if (err) {
		cls_class_strerror(err, tok, pt->msg, sizeof(pt->msg));
		return err;
	}
	if (len < n)
		memcpy(last, tok, len + 1);
	else
		*last = '\0';
	return 0;
}

/* One route of the part's lines: its class resolved, then batched. */
struct part_reader {
	struct part *pt;
	struct cls_route batch[BATCH];
	size_t nb;
	char last_tok[64];
	__u32 idx;
};

static int flush_batch(struct part_reader *r)
{
	int err = r->nb ? keep(r->pt, r->batch, r->nb) : 0;

	r->nb = 0;
	if (err)
		snprintf(r->pt->msg, sizeof(r->pt->msg), "%s",
			 add_errstr(err));
	return err;
}

static int part_route(void *arg, const struct cls_prefix *pfx, char *tok)
{
	struct part_reader *r = arg;
	int err;

	err = resolve(r->pt, tok, r->last_tok, sizeof(r->last_tok), &r->idx);
	if (err)
		return err;
	r->batch[r->nb].prefix = *pfx;
	r->batch[r->nb].class_idx = r->idx;
	r->batch[r->nb].flags = 0;
	return ++r->nb == BATCH ? flush_batch(r) : 0;
}

static void *parse_part(void *arg)
{
	struct part *pt = arg;
	struct part_reader *r = calloc(1, sizeof(*r));
	struct parse_why why;
	int err;

	if (!r) {
		snprintf(pt->msg, sizeof(pt->msg), "%s", strerror(ENOMEM));
		pt->err = -ENOMEM;
		return NULL;
	}
	r->pt = pt;
	err = parse_route_buf(pt->p, pt->end - pt->p, part_route, r,
			      &pt->lines, &why);
	/* A bad line says why; a class or the transaction wrote msg. */
	if (err && why.text[0])
		snprintf(pt->msg, sizeof(pt->msg), "%s", why.text);
	if (!err)
		err = flush_batch(r);
	free(r);
	pt->err = err;
	return NULL;
}

/*
 * Big files in two halves on two threads: while an unordered file is read
 * the kernel has nothing to do yet, so parsing is all of the wait.
 */
#define SPLIT_MIN (1U << 20)

static int parse(struct cli *c, struct cls_txn *txn, const char *file,
		 const char *buf, size_t len, size_t *routes)
{
	struct part pt[2] = {};
	pthread_t thread;
	bool two = false;
	const char *mid;
	int err = 0, k;

	pt[0] = (struct part){.c = c, .txn = txn, .p = buf, .end = buf + len};
	if (len >= SPLIT_MIN) {
		mid = memchr(buf + len / 2, '\n', len - len / 2);
		if (mid && mid + 1 < buf + len) {
			pt[1] = (struct part){
				.c = c, .p = mid + 1, .end = buf + len};
			pt[0].end = mid + 1;
			two = !pthread_create(&thread, NULL, parse_part,
					      &pt[1]);
			if (!two) /* the first part reads it all */
				pt[0].end = buf + len;
		}
	}
	parse_part(&pt[0]);
	if (two)
		pthread_join(thread, NULL);
	for (k = 0; k < 2 && !err; k++)
		if (pt[k].err) {
			err = pt[k].err;
			cli_err(c, "%s:%zu: %s", file,
				pt[k].lines + (k ? pt[0].lines : 0), pt[k].msg);
		}
	/* The second half's routes after the first's, as one reader's. */
	if (!err && two && (err = cls_txn_add(txn, pt[1].own, pt[1].own_n)))
		cli_err(c, "%s: %s", file, add_errstr(err));
	*routes = pt[0].own_n + pt[1].own_n;
	free(pt[1].own);
	return err;
}

/* Lines that hold a route: no more than this counts them. */
static bool has_route_line(const char *buf, size_t len)
{
	const char *p = buf, *end = buf + len;

	while (p < end) {
		while (p < end &&
		       (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n'))
			p++;
		if (p < end && *p != '#')
			return true;
		while (p < end && *p != '\n')
			p++;
	}
	return false;
}

int cli_route_load(struct cli *c, int argc, char **argv)
{
	const struct cls_class_entry *classes;
	struct cls_txn *txn = NULL;
	struct cls_txn_result res;
	size_t len, routes, n;
	char *buf;
	int err;

	if (argc != 1) {
		cli_err(c, "expected FILE");
		return -EINVAL;
	}
	err = cli_read_input(c, argv[0], CLI_INPUT_MAX, &buf, &len);
	if (err)
		return err;
	if (!has_route_line(buf, len)) {
		cli_err(c,
			"%s: no routes in it (to remove every route, use "
			"'route flush')",
			argv[0]);
		free(buf);
		return -ENODATA;
	}
	err = cli_maps_write(c);
	/* Read once here: the parser threads then share it read-only. */
	if (!err && (err = cls_classes(&c->maps, &classes, &n)))
		cli_errno(c, err, "reading classes");
	if (!err && (err = cls_txn_begin(&c->maps, CLS_TXN_HAND, &txn)))
		cli_errno(c, err, "starting the load");
	if (!err)
		err = parse(c, txn, argv[0], buf, len, &routes);
	free(buf);
	if (err) {
		cls_txn_abort(txn);
		return err;
	}
	err = cls_txn_commit(txn, &res);
	if (err)
		return cli_errno(c, err, "loading the routes");
	return 0;
}
