// SPDX-License-Identifier: GPL-2.0-only
/*
 * classifier route load FILE: replace every route at once.
 *
 * Nothing is published until the whole file has parsed and the new tries
 * are full, so a bad line or a full map changes nothing, and packets see
 * either the old or the new table of a family.  Three things overlap:
 * parsing (two threads for a big file), a filler thread feeding parsed
 * routes to the kernel's new tries (the longest part, spent in the
 * kernel), and, once parsing is done, the one-pass fill of the IPv4
 * table, which packets stopped using (they ask the old trie meanwhile).
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
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
	 * The kernel inserts address-ordered routes much faster (1M routes:
	 * 1.3 s in order, 3.2 s shuffled).  Once a file turns out unordered,
	 * the filler stops taking its chunks and gets the rest sorted instead.
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

/* Into fams (ld->fam, which the filler reads, or a parser's own). */
static int add_route(struct load *ld, struct family_set *fams,
		     const struct cls_prefix *p, __u32 idx)
{
	struct family_set *fs = &fams[cls_family_slot(p->family)];
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
	if (fs->n && !fs->unordered && cls_route_cmp(slot(fs, fs->n - 1), r) > 0)
		__atomic_store_n(&fs->unordered, true, __ATOMIC_RELEASE);
	/* Hand over whole chunks: one wake-up per 64k routes. */
	__atomic_store_n(&fs->n, fs->n + 1, __ATOMIC_RELEASE);
	if (fs->n % CHUNK == 0 && fams == ld->fam) {
		pthread_mutex_lock(&ld->lock);
		pthread_cond_signal(&ld->more);
		pthread_mutex_unlock(&ld->lock);
	}
	return 0;
}

static const char *add_errstr(int err)
{
	return err == -E2BIG ? "more routes than the table holds" : strerror(-err);
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
	size_t i, n, filled, at[256];
	struct cls_route *r;

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
	/* Straight from the chunks into first-byte buckets, in file order. */
	memset(bounds, 0, 257 * sizeof(*bounds));
	for (i = filled; i < fs->n; i++)
		bounds[slot(fs, i)->prefix.addr[0] + 1]++;
	for (i = 1; i <= 256; i++)
		bounds[i] += bounds[i - 1];
	memcpy(at, bounds, sizeof(at));
	for (i = filled; i < fs->n; i++) {
		r = slot(fs, i);
		fs->rest[at[r->prefix.addr[0]]++] = *r;
	}
	fs->rest_n = n;
	return 0;
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

/* The whole input: a regular file mapped, anything else read. */
static int slurp(const char *file, char **buf, size_t *len, bool *mapped)
{
	int fd = strcmp(file, "-") ? open(file, O_RDONLY | O_CLOEXEC) : 0;
	size_t cap = 0, n = 0;
	struct stat st;
	char *b = NULL, *nb;
	ssize_t got;
	int err = 0;

	*mapped = false;
	if (fd < 0)
		return -errno;
	if (!fstat(fd, &st) && S_ISREG(st.st_mode) && st.st_size > 0) {
		b = mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
		if (b != MAP_FAILED) {
			*buf = b;
			*len = st.st_size;
			*mapped = true;
			goto out;
		}
		b = NULL;
	}
	for (;;) {
		if (n == cap) {
			cap = cap ? cap * 2 : 1 << 16;
			nb = realloc(b, cap);
			if (!nb) {
				err = -ENOMEM;
				break;
			}
			b = nb;
		}
		got = read(fd, b + n, cap - n);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0) {
			err = got < 0 ? -errno : 0;
			break;
		}
		n += got;
	}
	if (err)
		free(b);
	*buf = err ? NULL : b;
	*len = n;
out:
	if (fd)
		close(fd);
	return err;
}

/* One stretch of the input, parsed by one thread. */
struct part {
	struct load *ld;
	const char *p, *end;
	struct family_set *fam; /* ld->fam, or the part's own */
	struct family_set own[2];
	size_t lines;
	int err;
	size_t err_line; /* within the part */
	char msg[160];
};

static void *parse_part(void *arg)
{
	struct part *pt = arg;
	const char *p = pt->p, *nl, *why;
	char *line = NULL, *tok, *nline, last_tok[64] = "";
	size_t cap = 0, n;
	struct cls_prefix pfx;
	__u32 last_idx = 0;
	int rc, err = 0;

	while (p < pt->end && !err) {
		nl = memchr(p, '\n', pt->end - p);
		n = (nl ? nl : pt->end) - p;
		if (n >= cap) {
			cap = n + 256;
			nline = realloc(line, cap);
			if (!nline) {
				err = -ENOMEM;
				snprintf(pt->msg, sizeof(pt->msg), "%s",
					 strerror(ENOMEM));
				break;
			}
			line = nline;
		}
		memcpy(line, p, n);
		line[n] = '\0';
		p += n + (nl != NULL);
		pt->lines++;
		why = NULL;
		rc = parse_route_line(line, &pfx, &tok, &why);
		if (rc <= 0) {
			err = rc;
			if (rc)
				snprintf(pt->msg, sizeof(pt->msg), "%s",
					 why ? why : "invalid line");
			continue;
		}
		/* Files repeat a class line after line. */
		if (strcmp(tok, last_tok)) {
			err = cli_class_resolve(pt->ld->c, tok, &last_idx);
			if (err) {
				cli_class_errstr(err, tok, pt->msg,
						 sizeof(pt->msg));
				break;
			}
			snprintf(last_tok, sizeof(last_tok), "%s", tok);
		}
		err = add_route(pt->ld, pt->fam, &pfx, last_idx);
		if (err)
			snprintf(pt->msg, sizeof(pt->msg), "%s",
				 add_errstr(err));
	}
	free(line);
	pt->err = err;
	pt->err_line = err ? pt->lines : 0;
	return NULL;
}

/* The second part's routes after the first's, as if one thread read both. */
static int append_part(struct load *ld, struct part *pt)
{
	struct cls_route *r;
	size_t i;
	int f, err = 0;

	for (f = 0; f < 2 && !err; f++)
		for (i = 0; i < pt->own[f].n && !err; i++) {
			r = slot(&pt->own[f], i);
			err = add_route(ld, ld->fam, &r->prefix, r->class_idx);
		}
	return err;
}

/*
 * Big files are parsed by two threads, one per half: while an unordered
 * file is read the kernel has nothing to do yet, so parsing is all of
 * the wait.  Errors are reported as one thread reading in order would:
 * the first bad line of the file.
 */
#define SPLIT_MIN (1U << 20)

static int parse_file(struct load *ld, const char *file)
{
	struct part pt[2] = {};
	struct cli *c = ld->c;
	pthread_t thread;
	bool mapped, two = false;
	const char *mid;
	size_t len = 0, i;
	char *buf = NULL;
	int err, k;

	err = slurp(file, &buf, &len, &mapped);
	if (err)
		return cli_errno(c, err, file);
	err = cli_class_index(c);
	if (err) {
		cli_errno(c, err, "reading classes");
		goto out;
	}
	pt[0] = (struct part){ .ld = ld, .p = buf, .end = buf + len,
			       .fam = ld->fam };
	if (len >= SPLIT_MIN) {
		mid = memchr(buf + len / 2, '\n', len - len / 2);
		if (mid && mid + 1 < buf + len) {
			pt[1] = (struct part){ .ld = ld, .p = mid + 1,
					       .end = buf + len };
			pt[1].fam = pt[1].own;
			pt[0].end = mid + 1;
			two = !pthread_create(&thread, NULL, parse_part, &pt[1]);
			if (!two) /* the first part reads it all */
				pt[0].end = buf + len;
		}
	}
	parse_part(&pt[0]);
	if (two)
		pthread_join(thread, NULL);
	for (k = 0; k < 2; k++)
		if (pt[k].err) {
			err = pt[k].err;
			cli_err(c, "%s:%zu: %s", file,
				pt[k].err_line + (k ? pt[0].lines : 0),
				pt[k].msg);
			break;
		}
	if (!err && two && (err = append_part(ld, &pt[1])))
		cli_err(c, "%s: %s", file, add_errstr(err));
out:
	for (k = 0; k < 2; k++)
		for (i = 0; i < MAX_CHUNKS; i++)
			free(pt[1].own[k].chunk[i]);
	if (mapped)
		munmap(buf, len);
	else
		free(buf);
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
