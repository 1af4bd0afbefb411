// SPDX-License-Identifier: GPL-2.0-only
/*
 * classifier route load FILE: replace every route at once.
 *
 * Nothing is published until the whole file has parsed and the new tries
 * are full, so a bad line or a full map changes nothing, and packets see
 * either the old or the new table of a family.  Three things overlap:
 * this thread parses, a filler thread feeds parsed routes to the kernel's
 * new tries (the longest part, spent in the kernel), and once parsing is
 * done this thread repaints the IPv4 table, which packets stopped using
 * (they ask the old trie meanwhile).
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "lib/parse.h"

#define CHUNK (1U << 16)
#define MAX_CHUNKS ((CLS_MAX_ROUTES_V4 > CLS_MAX_ROUTES_V6 ?                  \
			     CLS_MAX_ROUTES_V4 :                              \
			     CLS_MAX_ROUTES_V6) /                             \
			    CHUNK)

/* Routes of one family in chunks that never move once written. */
struct family_set {
	struct cls_route *chunk[MAX_CHUNKS];
	size_t n;      /* parsed */
	size_t filled; /* handed to the kernel */
	int trie_fd;
	/*
	 * The kernel inserts address-ordered routes much faster (2M routes in
	 * random order cost it ~1.7x).  Once a file turns out unordered, the
	 * filler stops taking its chunks and gets the rest sorted instead.
	 */
	bool unordered;
	struct cls_route *rest;
	size_t rest_n;
	size_t rest_ready; /* sorted so far: the filler may take these */
};

struct load {
	struct cli *c;
	struct family_set fam[2];
	pthread_mutex_t lock;
	pthread_cond_t more;
	bool parsed;  /* no more routes are coming */
	bool aborted; /* parsing failed: stop filling */
	int fill_err;
};

static struct cls_route *slot(struct family_set *fs, size_t i)
{
	return &fs->chunk[i / CHUNK][i % CHUNK];
}

static int cmp_addr(const void *a, const void *b)
{
	const struct cls_prefix *x = &((const struct cls_route *)a)->prefix;
	const struct cls_prefix *y = &((const struct cls_route *)b)->prefix;
	int c = memcmp(x->addr, y->addr, sizeof(x->addr));

	return c ? c : (int)x->len - (int)y->len;
}

static int add_route(struct load *ld, const struct cls_prefix *p, __u32 idx)
{
	struct family_set *fs = &ld->fam[cls_family_slot(p->family)];
	struct cls_route *r;

	if (fs->n / CHUNK >= MAX_CHUNKS)
		return -E2BIG;
	if (!fs->chunk[fs->n / CHUNK]) {
		fs->chunk[fs->n / CHUNK] = malloc(CHUNK * sizeof(*r));
		if (!fs->chunk[fs->n / CHUNK])
			return -ENOMEM;
	}
	r = slot(fs, fs->n);
	r->prefix = *p;
	r->class_idx = idx;
	if (fs->n && !fs->unordered && cmp_addr(slot(fs, fs->n - 1), r) > 0)
		__atomic_store_n(&fs->unordered, true, __ATOMIC_RELEASE);
	/* Hand over whole chunks: one wake-up per 64k routes. */
	__atomic_store_n(&fs->n, fs->n + 1, __ATOMIC_RELEASE);
	if (fs->n % CHUNK == 0) {
		pthread_mutex_lock(&ld->lock);
		pthread_cond_signal(&ld->more);
		pthread_mutex_unlock(&ld->lock);
	}
	return 0;
}

/* Next run of parsed, unfilled routes within one chunk; false when done. */
static bool next_run(struct load *ld, int *f, size_t *from, size_t *n)
{
	bool done = false;
	int k;

	pthread_mutex_lock(&ld->lock);
	for (;;) {
		if (ld->aborted) {
			done = true;
			goto out;
		}
		for (k = 0; k < 2; k++) {
			struct family_set *fs = &ld->fam[k];
			size_t avail = __atomic_load_n(&fs->n, __ATOMIC_ACQUIRE);
			size_t end = (fs->filled / CHUNK + 1) * CHUNK;

			if (__atomic_load_n(&fs->unordered, __ATOMIC_ACQUIRE))
				continue; /* its rest comes sorted */
			/* Partial chunks only once parsing is over. */
			if (!ld->parsed)
				avail = avail / CHUNK * CHUNK;
			if (avail > fs->filled) {
				*f = k;
				*from = fs->filled;
				*n = (avail < end ? avail : end) - fs->filled;
				fs->filled += *n;
				goto out;
			}
		}
		if (ld->parsed) {
			done = true;
			goto out;
		}
		pthread_cond_wait(&ld->more, &ld->lock);
	}
out:
	pthread_mutex_unlock(&ld->lock);
	return !done;
}

/* How much of the family's sorted rest the filler may take from `from`. */
static size_t rest_ready(struct load *ld, struct family_set *fs, size_t from)
{
	size_t ready;

	pthread_mutex_lock(&ld->lock);
	while (!ld->aborted && fs->rest_ready == from)
		pthread_cond_wait(&ld->more, &ld->lock);
	ready = ld->aborted ? from : fs->rest_ready;
	pthread_mutex_unlock(&ld->lock);
	return ready;
}

static void *filler(void *arg)
{
	struct load *ld = arg;
	size_t from, n, ready;
	int f, err = 0;

	while (!err && next_run(ld, &f, &from, &n))
		err = cls_trie_fill(ld->fam[f].trie_fd, f ? AF_INET6 : AF_INET,
				    slot(&ld->fam[f], from), n);
	for (f = 0; f < 2 && !err; f++) {
		struct family_set *fs = &ld->fam[f];

		for (from = 0; !err && from < fs->rest_n; from = ready) {
			ready = rest_ready(ld, fs, from);
			if (ready == from)
				break; /* aborted */
			err = cls_trie_fill(fs->trie_fd, f ? AF_INET6 : AF_INET,
					    fs->rest + from, ready - from);
		}
	}
	ld->fill_err = err;
	return NULL;
}

/* What the filler has not taken of an unordered family, by first byte. */
static int gather_rest(struct load *ld, struct family_set *fs,
		       size_t bounds[257])
{
	size_t i, n, filled;

	/* Seen unordered under this lock, the filler takes no more of it. */
	pthread_mutex_lock(&ld->lock);
	filled = fs->filled;
	pthread_mutex_unlock(&ld->lock);
	if (!fs->unordered || fs->n == filled)
		return 0;
	n = fs->n - filled;
	fs->rest = malloc(n * sizeof(*fs->rest));
	if (!fs->rest)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		fs->rest[i] = *slot(fs, filled + i);
	fs->rest_n = n;
	return cls_route_partition(fs->rest, n, bounds);
}

/*
 * Sort the rest one first-byte bucket at a time, handing each to the
 * filler as soon as it is in order: the kernel starts on the lowest
 * addresses while the higher ones are still being sorted.
 */
static int sort_rest(struct load *ld, struct family_set *fs,
		     const size_t bounds[257])
{
	int b, err;

	for (b = 0; b < 256 && fs->rest_n; b++) {
		err = cls_route_sort(fs->rest + bounds[b],
				     bounds[b + 1] - bounds[b]);
		if (err)
			return err;
		if (bounds[b + 1] == bounds[b])
			continue;
		pthread_mutex_lock(&ld->lock);
		fs->rest_ready = bounds[b + 1];
		pthread_cond_broadcast(&ld->more);
		pthread_mutex_unlock(&ld->lock);
	}
	return 0;
}

static void parsing_over(struct load *ld, bool ok)
{
	pthread_mutex_lock(&ld->lock);
	ld->parsed = true;
	ld->aborted = !ok;
	pthread_cond_broadcast(&ld->more);
	pthread_mutex_unlock(&ld->lock);
}

static int parse_file(struct load *ld, const char *file)
{
	FILE *f = strcmp(file, "-") ? fopen(file, "r") : stdin;
	struct cli *c = ld->c;
	size_t cap = 0, lineno = 0, at;
	char *line = NULL, *tok;
	char last_tok[64] = "";
	struct cls_prefix p;
	const char *why;
	__u32 idx, last_idx = 0;
	int err = 0, rc;

	if (!f)
		return cli_errno(c, -errno, file);
	while (!err && getline(&line, &cap, f) > 0) {
		lineno++;
		why = NULL;
		rc = parse_route_line(line, &p, &tok, &why);
		if (rc < 0) {
			cli_err(c, "%s:%zu: %s", file, lineno,
				why ? why : "invalid line");
			err = rc;
		} else if (rc > 0) {
			/* Files repeat a class line after line. */
			if (strcmp(tok, last_tok)) {
				err = cli_class_resolve(c, tok, &last_idx);
				snprintf(last_tok, sizeof(last_tok), "%s",
					 err ? "" : tok);
			}
			idx = last_idx;
			if (!err)
				err = add_route(ld, &p, idx);
			if (err) {
				/* Name the line in what cli_get_class() says. */
				at = strlen(c->where);
				snprintf(c->where + at, sizeof(c->where) - at,
					 "%s:%zu: ", file, lineno);
				if (err == -E2BIG)
					cli_err(c, "more routes than the "
						   "table holds");
				else if (cli_get_class(c, tok, &idx) == 0)
					cli_err(c, "%s", strerror(-err));
				c->where[at] = '\0';
			}
		}
	}
	if (!err && ferror(f))
		err = cli_errno(c, -EIO, file);
	free(line);
	if (f != stdin)
		fclose(f);
	return err;
}

/* The table fill wants the IPv4 routes in one array. */
static int paint_table(struct load *ld)
{
	struct family_set *fs = &ld->fam[0];
	struct cls_route *all;
	size_t i;
	int err;

	if (!ld->c->maps.dir24.on)
		return 0;
	/* Nothing was filled before the file turned out unordered. */
	if (fs->rest_n == fs->n)
		return cls_dir24_fill(&ld->c->maps, fs->rest, fs->n);
	all = malloc((fs->n ? fs->n : 1) * sizeof(*all));
	if (!all)
		return -ENOMEM;
	for (i = 0; i < fs->n; i += CHUNK)
		memcpy(all + i, fs->chunk[i / CHUNK],
		       (fs->n - i < CHUNK ? fs->n - i : CHUNK) * sizeof(*all));
	err = cls_dir24_fill(&ld->c->maps, all, fs->n);
	free(all);
	return err;
}

static int publish(struct load *ld)
{
	struct cli *c = ld->c;
	int f, err = 0;

	for (f = 0; !err && f < 2; f++)
		if ((err = cls_trie_publish(&c->maps, f ? AF_INET6 : AF_INET,
					    ld->fam[f].trie_fd)))
			cli_errno(c, err, "publishing table");
	if (!err && c->maps.dir24.on &&
	    (err = cls_set_lookup_mode(&c->maps, CLS_LOOKUP_DIR24)))
		cli_errno(c, err, "switching to the IPv4 table");
	return err;
}

static int prepare(struct load *ld)
{
	struct cli *c = ld->c;
	int f, err;

	err = cli_maps_write(c);
	if (!err && (err = cls_dir24_map(&c->maps)))
		return cli_errno(c, err, "mapping the IPv4 table");
	for (f = 0; !err && f < 2; f++) {
		ld->fam[f].trie_fd = cls_trie_create(f ? AF_INET6 : AF_INET);
		if (ld->fam[f].trie_fd < 0)
			err = cli_errno(c, ld->fam[f].trie_fd, "creating table");
	}
	if (!err && (err = cls_dir24_suspend(&c->maps)))
		cli_errno(c, err, "suspending the IPv4 table");
	return err;
}

static int run(struct load *ld, const char *file)
{
	struct cli *c = ld->c;
	size_t bounds[2][257];
	pthread_t thread;
	int f, err;

	err = pthread_create(&thread, NULL, filler, ld);
	if (err)
		return cli_errno(c, -err, "starting the filler");
	err = parse_file(ld, file);
	for (f = 0; f < 2 && !err; f++)
		if ((err = gather_rest(ld, &ld->fam[f], bounds[f])))
			cli_errno(c, err, "sorting routes");
	parsing_over(ld, !err);
	for (f = 0; f < 2 && !err; f++)
		if ((err = sort_rest(ld, &ld->fam[f], bounds[f]))) {
			cli_errno(c, err, "sorting routes");
			parsing_over(ld, false);
		}
	if (!err && (err = paint_table(ld)))
		cli_errno(c, err, "building the IPv4 table");
	pthread_join(thread, NULL);
	if (!err && (err = ld->fill_err))
		cli_errno(c, err, "filling table");
	return err;
}

int cli_route_load(struct cli *c, int argc, char **argv)
{
	struct load *ld;
	size_t i;
	int f, err;

	if (argc != 1) {
		cli_err(c, "expected FILE");
		return -EINVAL;
	}
	ld = calloc(1, sizeof(*ld));
	if (!ld)
		return cli_errno(c, -ENOMEM, "route load");
	ld->c = c;
	ld->fam[0].trie_fd = ld->fam[1].trie_fd = -1;
	pthread_mutex_init(&ld->lock, NULL);
	pthread_cond_init(&ld->more, NULL);
	err = prepare(ld);
	if (!err)
		err = run(ld, argv[0]);
	if (!err)
		err = publish(ld);
	/* Whatever failed, leave the table equal to the trie that is live. */
	if (err && c->maps.dir24_mem && cls_dir24_rebuild(&c->maps, true))
		cli_err(c, "IPv4 table left off; 'classifier table rebuild' restores it");
	for (f = 0; f < 2; f++) {
		if (ld->fam[f].trie_fd >= 0)
			close(ld->fam[f].trie_fd);
		for (i = 0; i < MAX_CHUNKS; i++)
			free(ld->fam[f].chunk[i]);
		free(ld->fam[f].rest);
	}
	pthread_mutex_destroy(&ld->lock);
	pthread_cond_destroy(&ld->more);
	free(ld);
	return err;
}
