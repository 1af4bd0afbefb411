// SPDX-License-Identifier: GPL-2.0-only
/*
 * Whole-table changes.  A new route set is built beside the live one: new
 * tries filled while the caller still adds routes (a filler thread feeds
 * the kernel, the longest part), then the lookup tables its policy wants
 * (maps/tables.c), each sized for the set and filled in one pass.  It is
 * published through the slot packets do not use and one write of the
 * generation: the commit point.  Packets keep the old set, table included,
 * until then.
 *
 * The journal records the publish: before the generation flips a crash
 * rolls back (the new maps in the spare slots are dropped), after it the
 * next process finishes (the old slots are emptied, the counts set).
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "maps/internal.h"

#define CHUNK (1U << 16)
#define MAX_CHUNKS                                                             \
	((CLS_MAX_ROUTES_V4 > CLS_MAX_ROUTES_V6 ? CLS_MAX_ROUTES_V4            \
						: CLS_MAX_ROUTES_V6) /         \
	 CHUNK)

/* Routes of one family in chunks that never move once written. */
struct family_set {
	struct cls_route *chunk[MAX_CHUNKS];
	size_t n;      /* added */
	size_t filled; /* handed to the kernel */
	int trie_fd;
	/*
	 * The kernel inserts address-ordered routes much faster (1M routes:
	 * 1.3 s in order, 3.2 s shuffled).  Once the input turns out
	 * unordered, the filler stops taking its chunks and gets the rest
	 * sorted instead.
	 */
	bool unordered;
	struct cls_route *rest;
	size_t rest_n;
	size_t rest_ready; /* sorted so far: the filler may take these */
	/* The family's final routes, sorted, one per prefix (commit). */
	struct cls_route *all;
	size_t all_n;
	/* Routes of the other scope that stay. */
	struct cls_route *kept;
	size_t kept_n;
};

struct cls_txn {
	struct cls_maps *m;
	enum cls_txn_scope scope;
	__u32 flags; /* of the routes added: CLS_ROUTE_SYNCED or 0 */
	struct family_set fam[2];
	pthread_mutex_t lock;
	pthread_cond_t more;
	pthread_t filler;
	bool filler_running;
	bool parsed;  /* no more routes are coming */
	bool aborted; /* stop filling */
	int fill_err;
	int table_fd;  /* the new IPv4 table, -1: none */
	int table6_fd; /* the new IPv6 table, -1: none */
	__u8 table6_format;
	__u32 shadowed;
	/* The table policy the new set is built for (and leaves in force). */
	__u32 table_mode;
	__u32 table_groups;
};

static struct cls_route *slot(struct family_set *fs, size_t i)
{
	return &fs->chunk[i / CHUNK][i % CHUNK];
}

static int add_one(struct cls_txn *t, const struct cls_route *in)
{
	struct family_set *fs = &t->fam[cls_family_slot(in->prefix.family)];
	struct cls_route *r;

	if (fs->n / CHUNK >= MAX_CHUNKS)
		return -E2BIG;
	if (!fs->chunk[fs->n / CHUNK]) {
		fs->chunk[fs->n / CHUNK] = malloc(CHUNK * sizeof(*r));
		if (!fs->chunk[fs->n / CHUNK])
			return -ENOMEM;
	}
	r = slot(fs, fs->n);
	r->prefix = in->prefix;
	r->class_idx = in->class_idx;
	r->flags = t->flags;
	if (fs->n && !fs->unordered &&
	    cls_route_cmp(slot(fs, fs->n - 1), r) > 0)
		__atomic_store_n(&fs->unordered, true, __ATOMIC_RELEASE);
	/* Hand over whole chunks: one wake-up per 64k routes. */
	__atomic_store_n(&fs->n, fs->n + 1, __ATOMIC_RELEASE);
	if (fs->n % CHUNK == 0) {
		pthread_mutex_lock(&t->lock);
		pthread_cond_signal(&t->more);
		pthread_mutex_unlock(&t->lock);
	}
	return 0;
}

int cls_txn_add(struct cls_txn *t, const struct cls_route *r, size_t n)
{
	size_t i;
	int err = 0;

	for (i = 0; i < n && !err; i++)
		err = add_one(t, &r[i]);
	return err;
}

/* Next run of added, unfilled routes within one chunk; false when done. */
static bool next_run(struct cls_txn *t, int *f, size_t *from, size_t *n)
{
	bool done = false;
	int k;

	pthread_mutex_lock(&t->lock);
	for (;;) {
		if (t->aborted) {
			done = true;
			goto out;
		}
		for (k = 0; k < 2; k++) {
			struct family_set *fs = &t->fam[k];
			size_t avail =
				__atomic_load_n(&fs->n, __ATOMIC_ACQUIRE);
			size_t end = (fs->filled / CHUNK + 1) * CHUNK;

			if (__atomic_load_n(&fs->unordered, __ATOMIC_ACQUIRE))
				continue; /* its rest comes sorted */
			/* Partial chunks only once adding is over. */
			if (!t->parsed)
				avail = avail / CHUNK * CHUNK;
			if (avail > fs->filled) {
				*f = k;
				*from = fs->filled;
				*n = (avail < end ? avail : end) - fs->filled;
				fs->filled += *n;
				goto out;
			}
		}
		if (t->parsed) {
			done = true;
			goto out;
		}
		pthread_cond_wait(&t->more, &t->lock);
	}
out:
	pthread_mutex_unlock(&t->lock);
	return !done;
}

/* How much of the family's sorted rest the filler may take from `from`. */
static size_t rest_ready(struct cls_txn *t, struct family_set *fs, size_t from)
{
	size_t ready;

	pthread_mutex_lock(&t->lock);
	while (!t->aborted && fs->rest_ready == from)
		pthread_cond_wait(&t->more, &t->lock);
	ready = t->aborted ? from : fs->rest_ready;
	pthread_mutex_unlock(&t->lock);
	return ready;
}

static void *filler(void *arg)
{
	struct cls_txn *t = arg;
	size_t from, n, ready;
	int f, err = 0;

	while (!err && next_run(t, &f, &from, &n))
		err = cls_trie_fill(t->fam[f].trie_fd, f ? AF_INET6 : AF_INET,
				    slot(&t->fam[f], from), n);
	for (f = 0; f < 2 && !err; f++) {
		struct family_set *fs = &t->fam[f];

		for (from = 0; !err && from < fs->rest_n; from = ready) {
			ready = rest_ready(t, fs, from);
			if (ready == from)
				break; /* aborted */
			err = cls_trie_fill(fs->trie_fd, f ? AF_INET6 : AF_INET,
					    fs->rest + from, ready - from);
		}
	}
	t->fill_err = err;
	return NULL;
}

/* What the filler has not taken of an unordered family, by first byte. */
static int gather_rest(struct cls_txn *t, struct family_set *fs,
		       size_t bounds[257])
{
	size_t i, n, filled, at[256];
	struct cls_route *r;

	/* Seen unordered under this lock, the filler takes no more of it. */
	pthread_mutex_lock(&t->lock);
	filled = fs->filled;
	pthread_mutex_unlock(&t->lock);
	if (!fs->unordered || fs->n == filled)
		return 0;
	n = fs->n - filled;
	fs->rest = malloc(n * sizeof(*fs->rest));
	if (!fs->rest)
		return -ENOMEM;
	/* Straight from the chunks into first-byte buckets, in input order. */
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
static int sort_rest(struct cls_txn *t, struct family_set *fs,
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
		pthread_mutex_lock(&t->lock);
		fs->rest_ready = bounds[b + 1];
		pthread_cond_broadcast(&t->more);
		pthread_mutex_unlock(&t->lock);
	}
	return 0;
}

static void adding_over(struct cls_txn *t, bool ok)
{
	pthread_mutex_lock(&t->lock);
	t->parsed = true;
	t->aborted = !ok;
	pthread_cond_broadcast(&t->more);
	pthread_mutex_unlock(&t->lock);
}

static bool same_prefix(const struct cls_route *a, const struct cls_route *b)
{
	return a->prefix.len == b->prefix.len &&
	       !memcmp(a->prefix.addr, b->prefix.addr, sizeof(a->prefix.addr));
}

/*
 * The family's final set, sorted, one route per prefix: what was added
 * (a repeated prefix: the last one), merged with the kept routes (a hand
 * route wins over a synced one at the same prefix).  Also the kept routes
 * the trie still needs: those no added route replaces.
 */
static int final_set(struct cls_txn *t, struct family_set *fs)
{
	size_t i, j = 0, n = 0, k = 0, out = 0;
	struct cls_route *a, *r;
	bool hand_added = t->scope == CLS_TXN_HAND;
	int err;

	a = malloc((fs->n + fs->kept_n + 1) * sizeof(*a));
	if (!a)
		return -ENOMEM;
	for (i = 0; i < fs->n; i += CHUNK)
		memcpy(a + i, fs->chunk[i / CHUNK],
		       (fs->n - i < CHUNK ? fs->n - i : CHUNK) * sizeof(*a));
	err = cls_route_sort(a, fs->n);
	if (err) {
		free(a);
		return err;
	}
	/* Stable: of equal prefixes the last added is last; keep it. */
	for (i = 0; i < fs->n; i++)
		if (i + 1 == fs->n || !same_prefix(&a[i], &a[i + 1]))
			a[n++] = a[i];
	r = malloc((n + fs->kept_n + 1) * sizeof(*r));
	if (!r) {
		free(a);
		return -ENOMEM;
	}
	/* Merge; fs->kept keeps only what the trie must still get. */
	for (i = 0; i < n || j < fs->kept_n;) {
		if (j == fs->kept_n ||
		    (i < n && cls_route_cmp(&a[i], &fs->kept[j]) < 0)) {
			r[out++] = a[i++];
		} else if (i == n || cls_route_cmp(&a[i], &fs->kept[j]) > 0) {
			fs->kept[k++] = fs->kept[j];
			r[out++] = fs->kept[j++];
		} else if (hand_added) {
			r[out++] = a[i++];
			j++;
		} else {
			t->shadowed++;
			fs->kept[k++] = fs->kept[j];
			r[out++] = fs->kept[j++];
			i++;
		}
	}
	fs->kept_n = k;
	free(a);
	fs->all = r;
	fs->all_n = out;
	return 0;
}

static void txn_free(struct cls_txn *t)
{
	size_t i;
	int f;

	if (t->filler_running) {
		adding_over(t, false);
		pthread_join(t->filler, NULL);
	}
	for (f = 0; f < 2; f++) {
		struct family_set *fs = &t->fam[f];

		if (fs->trie_fd >= 0)
			close(fs->trie_fd);
		for (i = 0; i < MAX_CHUNKS; i++)
			free(fs->chunk[i]);
		free(fs->rest);
		free(fs->all);
		free(fs->kept);
	}
	if (t->table_fd >= 0)
		close(t->table_fd);
	if (t->table6_fd >= 0)
		close(t->table6_fd);
	pthread_mutex_destroy(&t->lock);
	pthread_cond_destroy(&t->more);
	free(t);
}

void cls_txn_abort(struct cls_txn *t)
{
	if (t)
		txn_free(t);
}

/* The routes of the other scope, which the new set keeps. */
static int dump_kept(struct cls_txn *t, const struct cls_state *s)
{
	enum cls_source_filter src =
		t->scope == CLS_TXN_HAND ? CLS_SRC_SYNCED : CLS_SRC_HAND;
	int f, err = 0;

	for (f = 0; f < 2 && !err; f++) {
		if (!s->routes[f][src])
			continue;
		err = cls_route_dump(t->m, f ? AF_INET6 : AF_INET, src,
				     &t->fam[f].kept, &t->fam[f].kept_n);
	}
	return err;
}

int cls_txn_begin(struct cls_maps *m, enum cls_txn_scope scope,
		  struct cls_txn **out)
{
	struct cls_state s;
	struct cls_txn *t;
	int f, err;

	*out = NULL;
	if (!m->locked)
		return -ENOLCK;
	t = calloc(1, sizeof(*t));
	if (!t)
		return -ENOMEM;
	t->m = m;
	t->scope = scope;
	t->flags = scope == CLS_TXN_SYNCED ? CLS_ROUTE_SYNCED : 0;
	t->table_fd = -1;
	t->table6_fd = -1;
	pthread_mutex_init(&t->lock, NULL);
	pthread_cond_init(&t->more, NULL);
	for (f = 0; f < 2; f++)
		t->fam[f].trie_fd = -1;
	err = cls_state_for_change(m, &s);
	t->table_mode = s.table_mode;
	t->table_groups = s.table_groups;
	if (!err && scope == CLS_TXN_TABLE) {
		/* The same tries in the new generation, the table rebuilt. */
		for (f = 0; f < 2 && !err; f++) {
			int fd = cls_live_fd(m,
					     f ? CLS_S_TRIE_V6 : CLS_S_TRIE_V4);

			t->fam[f].trie_fd = fd < 0 ? fd : dup(fd);
			if (t->fam[f].trie_fd < 0)
				err = fd < 0 ? fd : -errno;
		}
		for (f = 0; f < 2 && !err; f++)
			err = cls_route_dump(m, f ? AF_INET6 : AF_INET,
					     CLS_SRC_ALL, &t->fam[f].kept,
					     &t->fam[f].kept_n);
		t->parsed = true;
		goto out;
	}
	if (!err)
		err = dump_kept(t, &s);
	for (f = 0; f < 2 && !err; f++) {
		t->fam[f].trie_fd = cls_trie_create(f ? AF_INET6 : AF_INET);
		if (t->fam[f].trie_fd < 0)
			err = t->fam[f].trie_fd;
	}
	if (!err) {
		err = -pthread_create(&t->filler, NULL, filler, t);
		t->filler_running = !err;
	}
out:
	if (err) {
		txn_free(t);
		return err;
	}
	*out = t;
	return 0;
}

/* Everything added is in the new tries; the final sets and the table. */
static int finish_fill(struct cls_txn *t, const struct cls_state *s)
{
	size_t bounds[2][257];
	int f, err = 0;

	for (f = 0; f < 2 && !err; f++)
		err = gather_rest(t, &t->fam[f], bounds[f]);
	adding_over(t, !err);
	for (f = 0; f < 2 && !err; f++)
		err = sort_rest(t, &t->fam[f], bounds[f]);
	if (err)
		adding_over(t, false);
	/* While the filler still feeds the kernel. */
	for (f = 0; f < 2 && !err; f++)
		err = final_set(t, &t->fam[f]);
	if (!err)
		err = cls_table_build(s, t->fam[0].all, t->fam[0].all_n,
				      &t->table_fd);
	if (!err)
		err = cls_table6_build(s, t->fam[1].all, t->fam[1].all_n,
				       &t->table6_fd, &t->table6_format);
	if (t->filler_running) {
		pthread_join(t->filler, NULL);
		t->filler_running = false;
		if (!err)
			err = t->fill_err;
	}
	for (f = 0; f < 2 && !err && t->scope != CLS_TXN_TABLE; f++)
		err = cls_trie_fill(t->fam[f].trie_fd, f ? AF_INET6 : AF_INET,
				    t->fam[f].kept, t->fam[f].kept_n);
	return err;
}

enum { SWAP_STAGED, SWAP_COMMITTED };

static const char *const swap_what[] = {
	[CLS_SWAP_LOAD] = "route load",
	[CLS_SWAP_FLUSH] = "route flush",
	[CLS_SWAP_SYNC] = "sync of the routes",
	[CLS_SWAP_TABLE] = "rebuild of the lookup tables",
};

/*
 * Every write of a map-in-map slot returns only after an RCU grace period
 * (10-25 ms here), and a publish writes eight of them: they are made from
 * threads at once, so the waits overlap.  fd < 0 empties the slot.
 */
struct slot_write {
	struct cls_maps *m;
	enum cls_slotted k;
	__u32 gen;
	int fd;
	int err;
};

static void *write_slot(void *arg)
{
	struct slot_write *w = arg;

	w->err = w->fd >= 0 ? cls_slot_set(w->m, w->k, w->gen, w->fd) :
			      cls_slot_clear(w->m, w->k, w->gen);
	return NULL;
}

static int write_slots(struct cls_maps *m, __u32 gen,
		       const int fds[CLS_NR_SLOTTED])
{
	struct slot_write w[CLS_NR_SLOTTED];
	pthread_t th[CLS_NR_SLOTTED];
	bool started[CLS_NR_SLOTTED];
	int k, err = 0;

	for (k = 0; k < CLS_NR_SLOTTED; k++) {
		w[k] = (struct slot_write){ m, k, gen, fds[k], 0 };
		started[k] = !pthread_create(&th[k], NULL, write_slot, &w[k]);
		if (!started[k])
			write_slot(&w[k]);
	}
	for (k = 0; k < CLS_NR_SLOTTED; k++) {
		if (started[k])
			pthread_join(th[k], NULL);
		if (!err)
			err = w[k].err;
	}
	return err;
}

static int clear_slots(struct cls_maps *m, __u32 gen)
{
	int none[CLS_NR_SLOTTED], k;

	for (k = 0; k < CLS_NR_SLOTTED; k++)
		none[k] = -1;
	return write_slots(m, gen, none);
}

/* After the flip: no program reads the old slots any more; empty them. */
static int swap_finish(struct cls_maps *m, struct cls_state *s)
{
	__u32 old = !s->journal.swap.gen;
	int err;

	cls_live_forget(m);
	m->gen = s->journal.swap.gen;
	m->gen_known = true;
	err = cls_wait_for_programs(m);
	cls_step("swap: programs waited for");
	if (!err)
		err = cls_fail("swap: empty the old slots");
	if (!err)
		err = clear_slots(m, old);
	cls_step("swap: old slots emptied");
	if (err)
		return err;
	memcpy(s->routes, s->journal.swap.routes, sizeof(s->routes));
	s->table_mode = s->journal.swap.table_mode;
	s->table_groups = s->journal.swap.table_groups;
	return cls_journal_end(m, s);
}

/* Before the flip: the new maps in the spare slots go, nothing else. */
static int drop_staged(struct cls_maps *m, struct cls_state *s)
{
	int err = clear_slots(m, s->journal.swap.gen);

	return err ? err : cls_journal_end(m, s);
}

static int flip(struct cls_maps *m, __u32 gen)
{
	struct cls_config cfg;
	int err = cls_config_read(m, &cfg);

	if (err)
		return err;
	cfg.gen = gen;
	return cls_config_write(m, &cfg);
}

static int publish(struct cls_txn *t, struct cls_state *s,
		   enum cls_swap_kind kind, const __u32 routes[2][2])
{
	const int fds[CLS_NR_SLOTTED] = {
		[CLS_S_TRIE_V4] = t->fam[0].trie_fd,
		[CLS_S_TRIE_V6] = t->fam[1].trie_fd,
		[CLS_S_TABLE_V4] = t->table_fd,
		[CLS_S_TABLE_V6] = t->table6_fd,
	};
	struct cls_maps *m = t->m;
	__u32 gen;
	int err;

	err = cls_live_gen(m, &gen);
	if (err)
		return err;
	gen = !gen;
	s->journal.swap.gen = gen;
	s->journal.swap.kind = kind;
	memcpy(s->journal.swap.routes, routes, sizeof(s->journal.swap.routes));
	s->journal.swap.table_mode = t->table_mode;
	s->journal.swap.table_groups = t->table_groups;
	err = cls_journal_begin(m, s, CLS_OP_SWAP);
	cls_step("swap: recorded");
	if (!err)
		err = write_slots(m, gen, fds);
	if (!err)
		err = cls_table6_format_set(m, gen,
					    t->table6_fd >= 0 ? t->table6_format
							      : 0);
	cls_step("swap: staged");
	if (!err) {
		s->journal.phase = SWAP_COMMITTED;
		err = cls_state_write(m, s);
	}
	cls_step("swap: staged whole");
	if (err) {
		/* Nothing published: leave the spare slots empty. */
		drop_staged(m, s);
		return err;
	}
	err = flip(m, gen);
	cls_step("swap: generation flipped");
	if (!err)
		err = swap_finish(m, s);
	if (err)
		cls_swap_recover(m, s); /* forward, or the next taker does */
	return err;
}

int cls_txn_commit(struct cls_txn *t, struct cls_txn_result *res)
{
	struct cls_maps *m = t->m;
	enum cls_swap_kind kind;
	__u32 routes[2][2];
	struct cls_state s;
	int f, err;

	err = cls_state_for_change(m, &s);
	if (!err) {
		struct cls_state policy = s;

		policy.table_mode = t->table_mode;
		policy.table_groups = t->table_groups;
		err = finish_fill(t, &policy);
	}
	if (err)
		goto out;
	memcpy(routes, s.routes, sizeof(routes));
	if (t->scope != CLS_TXN_TABLE) {
		int src = t->scope == CLS_TXN_SYNCED;

		/* What is left of the kept routes is the other source's. */
		for (f = 0; f < 2; f++) {
			routes[f][!src] = t->fam[f].kept_n;
			routes[f][src] = t->fam[f].all_n - t->fam[f].kept_n;
		}
	}
	kind = t->scope == CLS_TXN_TABLE    ? CLS_SWAP_TABLE
	       : t->scope == CLS_TXN_SYNCED ? CLS_SWAP_SYNC
	       : t->fam[0].n + t->fam[1].n  ? CLS_SWAP_LOAD
					    : CLS_SWAP_FLUSH;
	err = publish(t, &s, kind, routes);
	if (!err && res) {
		int src = t->scope == CLS_TXN_SYNCED;

		for (f = 0; f < 2; f++)
			res->routes[f] = routes[f][src];
		res->shadowed = t->shadowed;
	}
out:
	txn_free(t);
	return err;
}

int cls_swap_recover(struct cls_maps *m, struct cls_state *s)
{
	const struct cls_journal j = s->journal; /* ending it clears it */
	const char *what = j.swap.kind < 4 ? swap_what[j.swap.kind] :
					      "whole-table change";
	__u32 gen;
	int err;

	cls_live_forget(m);
	err = cls_live_gen(m, &gen);
	if (err)
		return err;
	if (gen != j.swap.gen && j.phase != SWAP_COMMITTED) {
		err = drop_staged(m, s);
		if (!err)
			cls_notify(m, "rolled back an interrupted %s (pid %u): the routes are as before it",
				   what, j.pid);
		return err;
	}
	if (gen != j.swap.gen)
		err = flip(m, j.swap.gen);
	if (!err)
		err = swap_finish(m, s);
	if (!err)
		cls_notify(m, "finished an interrupted %s (pid %u): the new routes are live",
			   what, j.pid);
	return err;
}

int cls_txn_set_policy(struct cls_txn *t, __u32 mode, __u32 groups)
{
	if (t->scope != CLS_TXN_TABLE)
		return -EINVAL;
	t->table_mode = mode;
	t->table_groups = groups;
	return 0;
}
