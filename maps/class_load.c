// SPDX-License-Identifier: GPL-2.0-only
/*
 * class load: the whole class set replaced by another.  A class whose
 * classid stays keeps its index, so its routes and counters stay with
 * it; a new classid takes a free index; a class the set does not name
 * goes, refused while a route points at it.  Only records that change are
 * written.  The records to write are staged in a map pinned as
 * maps/class_load before the journal names them, so a load killed at any
 * step is redone whole from it by the next lock-taker (a redo log): the
 * set is the old one or the new one once the command or its recovery
 * returns.  Packets meet the records as they are written, names before
 * actions, each record whole; a set published in one write needs the
 * classes in generation slots (docs/architecture.md, issue 22).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include "maps/internal.h"

#define LOAD_PIN "maps/class_load"

/* One index's records as the load leaves them (zero: no class there). */
struct load_rec {
	__u32 idx;
	__u32 rate_reset; /* the rate's clocks start again (full) */
	struct cls_class cls;
	struct cls_class_meta meta;
};

static const struct cls_map_spec load_spec = {
	.name = "cls_class_load",
	.type = BPF_MAP_TYPE_ARRAY,
	.key_size = sizeof(__u32),
	.value_size = sizeof(struct load_rec),
	.max_entries = 1,
	.size = CLS_SIZE_BY_NEED,
};

/* The staged records' pin (PATH_MAX, as the root's own length allows). */
static void load_pin(const struct cls_maps *m, char path[PATH_MAX])
{
	size_t n = strnlen(m->root, PATH_MAX - sizeof(LOAD_PIN) - 1);

	memcpy(path, m->root, n);
	memcpy(path + n, "/" LOAD_PIN, sizeof(LOAD_PIN) + 1);
}

struct by_id {
	__u32 classid, idx;
};

static int cmp_by_id(const void *a, const void *b)
{
	const struct by_id *x = a, *y = b;

	return x->classid < y->classid ? -1 : x->classid > y->classid;
}

/* Positions in e by classid, then by name (stable): duplicates adjacent. */
static int cmp_pos_id(const void *a, const void *b, void *arg)
{
	const struct cls_class_entry *e = arg;
	size_t i = *(const size_t *)a, j = *(const size_t *)b;
	__u32 x = e[i].cls.classid, y = e[j].cls.classid;

	return x != y ? (x < y ? -1 : 1) : (i > j) - (i < j);
}

static int cmp_pos_name(const void *a, const void *b, void *arg)
{
	const struct cls_class_entry *e = arg;
	size_t i = *(const size_t *)a, j = *(const size_t *)b;
	int c = strcmp(e[i].meta.name, e[j].meta.name);

	return c ? c : (i > j) - (i < j);
}

/* The first of k sorted positions equal to the one before: -EEXIST. */
static int first_dup(const struct cls_class_entry *e, const size_t *pos,
		     size_t k, bool by_name, struct cls_class_load_result *res)
{
	size_t i;

	for (i = 1; i < k; i++)
		if (by_name ? !strcmp(e[pos[i]].meta.name,
				      e[pos[i - 1]].meta.name)
			    : e[pos[i]].cls.classid ==
				      e[pos[i - 1]].cls.classid) {
			res->dup[0] = pos[i - 1];
			res->dup[1] = pos[i];
			return -EEXIST;
		}
	return 0;
}

/* Two entries sharing a classid or a name: -EEXIST, res->dup says which. */
static int find_dup(struct cls_class_entry *e, size_t n,
		    struct cls_class_load_result *res)
{
	size_t *pos = calloc(n + 1, sizeof(*pos)), i, k = 0;
	int err;

	if (!pos)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		if (e[i].idx != CLS_DEFAULT_CLASS)
			pos[k++] = i;
	qsort_r(pos, k, sizeof(*pos), cmp_pos_id, e);
	err = first_dup(e, pos, k, false, res);
	for (i = k = 0; !err && i < n; i++)
		if (e[i].meta.name[0])
			pos[k++] = i;
	if (!err) {
		qsort_r(pos, k, sizeof(*pos), cmp_pos_name, e);
		err = first_dup(e, pos, k, true, res);
	}
	free(pos);
	return err;
}

/* Routes pointing at an index gone[] marks: -EBUSY, count and example. */
static int routes_of_gone(struct cls_maps *m, const __u8 *gone,
			  struct cls_class_load_result *res)
{
	struct cls_route *r;
	size_t n, i;
	int err;

	err = cls_route_dump(m, 0, CLS_SRC_ALL, &r, &n);
	if (err)
		return err;
	for (i = 0; i < n; i++) {
		if (r[i].class_idx >= m->cap || !gone[r[i].class_idx])
			continue;
		if (!res->routes++)
			res->example = r[i];
	}
	free(r);
	return res->routes ? -EBUSY : 0;
}

static int batch_write(int fd, const __u32 *keys, const void *vals, __u32 n)
{
	LIBBPF_OPTS(bpf_map_batch_opts, opts);
	__u32 count = n;

	if (!n || !bpf_map_update_batch(fd, keys, vals, &count, &opts))
		return 0;
	return -errno;
}

/*
 * The staged records written: names, actions, clocks, each as one batch
 * (a redo: writing them again changes nothing).  The pin goes before the
 * record ends, so a record without its pin says all was written.
 */
static int apply(struct cls_maps *m, struct cls_state *s,
		 const struct load_rec *rec, __u32 n)
{
	struct cls_class_meta *meta = calloc(n + 1, sizeof(*meta));
	struct cls_rate_state *zero = calloc(n + 1, sizeof(*zero));
	struct cls_class *cls = calloc(n + 1, sizeof(*cls));
	__u32 *keys = calloc(n + 1, sizeof(*keys));
	__u32 *resets = calloc(n + 1, sizeof(*resets));
	char path[PATH_MAX];
	__u32 i, nr = 0;
	int err = meta && zero && cls && keys && resets ? 0 : -ENOMEM;

	for (i = 0; !err && i < n; i++) {
		keys[i] = rec[i].idx;
		meta[i] = rec[i].meta;
		cls[i] = rec[i].cls;
		if (rec[i].rate_reset)
			resets[nr++] = rec[i].idx;
	}
	if (!err)
		err = batch_write(m->fd[CLS_M_CLASS_META], keys, meta, n);
	cls_step("class load: names written");
	if (!err)
		err = batch_write(m->fd[CLS_M_CLASSES], keys, cls, n);
	cls_step("class load: actions written");
	if (!err)
		err = batch_write(m->fd[CLS_M_RATE_STATE], resets, zero, nr);
	cls_step("class load: rate clocks reset");
	load_pin(m, path);
	if (!err && unlink(path) && errno != ENOENT)
		err = -errno;
	cls_step("class load: staged records unpinned");
	free(meta);
	free(zero);
	free(cls);
	free(keys);
	free(resets);
	if (err)
		return err;
	s->class_gen++;
	cls_catalog_free(m);
	return cls_journal_end(m, s);
}

/* The staged records behind the pin, checked: n of them. */
static int read_staged(struct cls_maps *m, __u32 n, struct load_rec **out)
{
	LIBBPF_OPTS(bpf_map_batch_opts, opts);
	struct load_rec *rec = calloc(n + 1, sizeof(*rec));
	__u32 *keys = calloc(n + 1, sizeof(*keys)), out_batch, count = n;
	char path[PATH_MAX], why[256];
	__u32 entries;
	int fd, err;

	*out = NULL;
	load_pin(m, path);
	fd = bpf_obj_get(path);
	if (fd < 0) {
		err = -errno;
		goto out;
	}
	err = rec && keys ? cls_map_check(fd, &load_spec, &entries, why,
					  sizeof(why))
			  : -ENOMEM;
	if (!err && entries != n)
		err = -EUCLEAN;
	if (err == -EUCLEAN)
		cls_set_error("%s: not the records a class load staged", path);
	if (!err &&
	    bpf_map_lookup_batch(fd, NULL, &out_batch, keys, rec, &count,
				 &opts) &&
	    !(errno == ENOENT && count == n))
		err = -errno;
	close(fd);
out:
	free(keys);
	if (err)
		free(rec);
	else
		*out = rec;
	return err;
}

/* The staged records pinned whole (a pin left from before replaced). */
static int stage(struct cls_maps *m, const struct load_rec *rec, __u32 n)
{
	__u32 *keys = calloc(n + 1, sizeof(*keys)), i;
	char path[PATH_MAX];
	int fd = -1, err = keys ? 0 : -ENOMEM;

	load_pin(m, path);
	if (!err && unlink(path) && errno != ENOENT)
		err = -errno;
	if (!err) {
		fd = cls_map_create(&load_spec, n);
		err = fd < 0 ? fd : 0;
	}
	for (i = 0; !err && i < n; i++)
		keys[i] = i;
	if (!err)
		err = batch_write(fd, keys, rec, n);
	free(keys);
	if (!err && bpf_obj_pin(fd, path))
		err = -errno;
	if (fd >= 0)
		close(fd);
	return err;
}

/*
 * Recorded (phase 0: nothing written, a crash rolls back), staged and
 * pinned, recorded as staged (phase 1: from here a crash is redone), then
 * written.
 */
static int stage_and_apply(struct cls_maps *m, const struct load_rec *rec,
			   __u32 n)
{
	struct cls_state s;
	int err = cls_state_for_change(m, &s);

	if (err)
		return err;
	s.journal.load.n = n;
	err = cls_journal_begin(m, &s, CLS_OP_CLASS_LOAD);
	cls_step("class load: recorded");
	if (!err)
		err = stage(m, rec, n);
	cls_step("class load: records staged");
	if (!err) {
		s.journal.phase = 1;
		err = cls_state_write(m, &s);
	}
	cls_step("class load: recorded as staged");
	if (!err)
		err = apply(m, &s, rec, n);
	if (err)
		cls_class_load_recover(m, &s); /* or the next lock-taker does */
	return err;
}

/* The records a set's entry leaves at its index; 0: nothing changes. */
static int rec_for(const struct cls_class_entry *old,
		   const struct cls_class_entry *e, struct load_rec *r)
{
	memset(r, 0, sizeof(*r));
	r->idx = e->idx;
	r->cls = e->cls;
	r->cls.flags |= CLS_F_VALID;
	r->meta = e->meta;
	if (old && !memcmp(&old->cls, &r->cls, sizeof(r->cls)) &&
	    !memcmp(&old->meta, &r->meta, sizeof(r->meta)))
		return 0;
	r->rate_reset =
		!old ||
		(old->cls.flags & CLS_F_RATED) !=
			(r->cls.flags & CLS_F_RATED) ||
		memcmp(&old->cls.rate, &r->cls.rate, sizeof(r->cls.rate));
	return 1;
}

int cls_class_load(struct cls_maps *m, struct cls_class_entry *e, size_t n,
		   struct cls_class_load_result *res)
{
	const struct cls_class_entry *old, *o;
	struct by_id *ids = NULL, key, *hit;
	struct load_rec *rec = NULL;
	__u8 *used = NULL, *gone = NULL;
	size_t nold, i, nids = 0;
	__u32 nrec = 0, next = CLS_DEFAULT_CLASS + 1;
	int err;

	memset(res, 0, sizeof(*res));
	if (!m->locked)
		return -ENOLCK;
	err = cls_classes(m, &old, &nold);
	/* The default class keeps its name unless given one. */
	o = cls_class_at(m, CLS_DEFAULT_CLASS);
	for (i = 0; !err && o && i < n; i++)
		if (e[i].idx == CLS_DEFAULT_CLASS && !e[i].meta.name[0])
			memcpy(e[i].meta.name, o->meta.name,
			       sizeof(e[i].meta.name));
	if (!err)
		err = find_dup(e, n, res);
	if (err)
		return err;
	ids = calloc(nold + 1, sizeof(*ids));
	used = calloc(m->cap, 1);
	gone = calloc(m->cap, 1);
	rec = calloc(n + nold + 1, sizeof(*rec));
	if (!ids || !used || !gone || !rec) {
		err = -ENOMEM;
		goto out;
	}
	/* A shaping class's HTB class follows it: class add/set/del do that. */
	for (i = 0; i < nold; i++)
		if (old[i].cls.flags & CLS_F_SHAPE) {
			err = -EOPNOTSUPP;
			goto out;
		}
	for (i = 0; i < nold; i++)
		if (old[i].idx != CLS_DEFAULT_CLASS)
			ids[nids++] =
				(struct by_id){old[i].cls.classid, old[i].idx};
	qsort(ids, nids, sizeof(*ids), cmp_by_id);
	used[CLS_DEFAULT_CLASS] = 1;
	/* Classids that stay keep their index. */
	for (i = 0; i < n; i++) {
		if (e[i].idx == CLS_DEFAULT_CLASS)
			continue;
		key.classid = e[i].cls.classid;
		hit = bsearch(&key, ids, nids, sizeof(*ids), cmp_by_id);
		e[i].idx = hit ? hit->idx : CLS_CLASS_NEW;
		if (hit)
			used[hit->idx] = 1;
	}
	for (i = 0; i < nold; i++)
		gone[old[i].idx] = !used[old[i].idx];
	for (i = 0; !err && i < n; i++) {
		o = e[i].idx == CLS_CLASS_NEW ? NULL
					      : cls_class_at(m, e[i].idx);
		/* Never silently drop what a newer build set. */
		if (o && (o->cls.flags & ~CLS_F_KNOWN)) {
			res->dup[0] = i;
			err = -EPERM;
			break;
		}
		if (e[i].idx == CLS_CLASS_NEW) {
			while (next < m->cap && used[next])
				next++;
			if (next == m->cap) {
				err = -ENOSPC;
				break;
			}
			e[i].idx = next;
			used[next] = 1;
			res->added++;
		}
		if (rec_for(o, &e[i], &rec[nrec])) {
			nrec++;
			res->changed += o != NULL;
		}
	}
	if (!err)
		err = routes_of_gone(m, gone, res);
	for (i = 0; !err && i < nold; i++) {
		if (!gone[old[i].idx] || used[old[i].idx])
			continue;
		/* Removed: its records zero, its clocks full for the next. */
		rec[nrec] =
			(struct load_rec){.idx = old[i].idx, .rate_reset = 1};
		nrec++;
		res->removed++;
	}
	if (!err && nrec)
		err = stage_and_apply(m, rec, nrec);
out:
	free(ids);
	free(used);
	free(gone);
	free(rec);
	return err;
}

int cls_class_load_recover(struct cls_maps *m, struct cls_state *s)
{
	const struct cls_journal j = s->journal; /* ending it clears it */
	struct load_rec *rec = NULL;
	char path[PATH_MAX];
	int err;

	if (j.phase == 0) {
		/* Nothing written: the staged records go. */
		load_pin(m, path);
		err = unlink(path) && errno != ENOENT ? -errno : 0;
		if (!err)
			err = cls_journal_end(m, s);
		if (!err)
			cls_notify(m,
				   "rolled back an interrupted class load "
				   "(pid %u)",
				   j.pid);
		return err;
	}
	err = read_staged(m, j.load.n, &rec);
	/* Unpinned only once every record was written: nothing is left. */
	if (err == -ENOENT) {
		s->class_gen++;
		cls_catalog_free(m);
		err = cls_journal_end(m, s);
	} else if (!err) {
		err = apply(m, s, rec, j.load.n);
	}
	free(rec);
	if (!err)
		cls_notify(m,
			   "finished an interrupted class load of %u records "
			   "(pid %u)",
			   j.load.n, j.pid);
	return err;
}
