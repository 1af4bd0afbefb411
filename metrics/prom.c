// SPDX-License-Identifier: GPL-2.0-only
/*
 * Text exposition format 0.0.4: per metric family a HELP and a TYPE line,
 * then its samples "name{label="value",...} value".  Label values escape
 * backslash, double quote and newline; counters are unsigned integers and
 * durations are written as exact decimal seconds from nanoseconds.
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "metrics/prom.h"

struct label {
	const char *key;
	const char *val;
};
/* A NULL-terminated list of labels, written in place. */
/* clang-format off */
#define LABELS(...) ((const struct label[]){ __VA_ARGS__, { NULL, NULL } })
/* clang-format on */
#define NO_LABELS NULL

static const char *const dir_names[METRICS_NR_DIRS] = {
	[METRICS_EGRESS] = "egress",
	[METRICS_INGRESS] = "ingress",
};
static const char *const family_names[METRICS_NR_FAMILIES] = {
	[METRICS_V4] = "ipv4",
	[METRICS_V6] = "ipv6",
};
static const char *const source_names[METRICS_NR_SOURCES] = {
	[METRICS_HAND] = "hand",
	[METRICS_SYNCED] = "sync",
};

/*
 * Output goes through our own buffer, handed to stdio a block at a time:
 * a scrape of 4096 classes is some 16k lines, and stdio's per-call
 * locking and formatting cost several times the rest.
 */
struct out {
	FILE *f;
	size_t len;
	char buf[8192];
};

static void flush(struct out *o)
{
	fwrite(o->buf, 1, o->len, o->f);
	o->len = 0;
}

static void put(struct out *o, const char *s, size_t n)
{
	size_t k;

	while (n) {
		if (o->len == sizeof(o->buf))
			flush(o);
		k = sizeof(o->buf) - o->len;
		if (k > n)
			k = n;
		memcpy(o->buf + o->len, s, k);
		o->len += k;
		s += k;
		n -= k;
	}
}

static void puts_(struct out *o, const char *s)
{
	put(o, s, strlen(s));
}

static void put_u64(struct out *o, __u64 v)
{
	char d[20];
	int i = sizeof(d);

	do {
		d[--i] = '0' + v % 10;
		v /= 10;
	} while (v);
	put(o, d + i, sizeof(d) - i);
}

static void family(struct out *o, const char *name, const char *type,
		   const char *help)
{
	puts_(o, "# HELP ");
	puts_(o, name);
	put(o, " ", 1);
	puts_(o, help);
	puts_(o, "\n# TYPE ");
	puts_(o, name);
	put(o, " ", 1);
	puts_(o, type);
	put(o, "\n", 1);
}

static void put_label_value(struct out *o, const char *v)
{
	const char *run;

	for (run = v; *v; v++) {
		if (*v != '\\' && *v != '"' && *v != '\n')
			continue;
		put(o, run, v - run);
		put(o, *v == '\\' ? "\\\\" : *v == '"' ? "\\\"" : "\\n", 2);
		run = v + 1;
	}
	put(o, run, v - run);
}

static void sample_name(struct out *o, const char *name, const struct label *l)
{
	puts_(o, name);
	if (!l)
		return;
	put(o, "{", 1);
	for (; l->key; l++) {
		puts_(o, l->key);
		put(o, "=\"", 2);
		put_label_value(o, l->val ? l->val : "");
		put(o, "\",", l[1].key ? 2 : 1);
	}
	put(o, "}", 1);
}

static void sample(struct out *o, const char *name, const struct label *l,
		   __u64 v)
{
	sample_name(o, name, l);
	put(o, " ", 1);
	put_u64(o, v);
	put(o, "\n", 1);
}

/* A family of one sample without labels. */
static void single(struct out *o, const char *name, const char *type,
		   const char *help, __u64 v)
{
	family(o, name, type, help);
	sample(o, name, NO_LABELS, v);
}

/* A duration in nanoseconds as seconds, without rounding. */
static void sample_seconds(struct out *o, const char *name,
			   const struct label *l, __u64 ns)
{
	char frac[16];

	sample_name(o, name, l);
	put(o, " ", 1);
	put_u64(o, ns / 1000000000ULL);
	snprintf(frac, sizeof(frac), ".%09llu\n",
		 (unsigned long long)(ns % 1000000000ULL));
	puts_(o, frac);
}

static void write_up(struct out *o, bool up)
{
	single(o, "classifier_up", "gauge",
	       "1 if classifier's pinned state could be read.", up);
}

static void write_info(struct out *o, const struct metrics_snapshot *s)
{
	write_up(o, true);
	family(o, "classifier_build_info", "gauge",
	       "Version and build id of the binary reading the metrics.");
	sample(o, "classifier_build_info",
	       LABELS({"version", s->version}, {"build_id", s->build_id}), 1);
	single(o, "classifier_layout_version", "gauge",
	       "Version of the layout of the pinned maps.", s->layout);
	single(o, "classifier_stats_enabled", "gauge",
	       "1 if per-class counting is on (classifier stats on|off).",
	       s->stats_on);
}

static void write_class_counter(struct out *o, const struct metrics_snapshot *s,
				const char *name, const char *help, bool bytes)
{
	const struct metrics_class *c;
	size_t i;
	int d;

	family(o, name, "counter", help);
	for (i = 0; i < s->nr_classes; i++) {
		c = &s->classes[i];
		for (d = 0; d < METRICS_NR_DIRS; d++)
			sample(o, name,
			       LABELS({"class", c->label}, {"name", c->name},
				      {"direction", dir_names[d]}),
			       bytes ? c->dir[d].bytes : c->dir[d].packets);
	}
}

/* Rated classes only: the others have no such series. */
static void write_rate_counters(struct out *o, const struct metrics_snapshot *s)
{
	static const char *const name = "classifier_class_rate_packets_total";
	const struct metrics_class *c;
	const struct cls_rate_counter *r;
	size_t i;
	int d;

	for (i = 0; i < s->nr_classes && !s->classes[i].rate_kind; i++)
		;
	if (i == s->nr_classes)
		return;
	family(o, name, "counter",
	       "What a class's rate (police or pace) did with its packets, by "
	       "direction: passed (within the rate; paced: sent), dropped "
	       "(over the rate; paced: past the horizon), delayed (paced), "
	       "marked (over the rate and remarked; paced: CE).");
	for (i = 0; i < s->nr_classes; i++) {
		c = &s->classes[i];
		for (d = 0; c->rate_kind && d < METRICS_NR_DIRS; d++) {
			r = &c->rate[d];
#define RATE_SAMPLE(what)                                                      \
	sample(o, name,                                                        \
	       LABELS({"class", c->label}, {"name", c->name},                  \
		      {"direction", dir_names[d]}, {"rate", c->rate_kind},     \
		      {"outcome", #what}),                                     \
	       r->what)
			RATE_SAMPLE(passed);
			RATE_SAMPLE(dropped);
			RATE_SAMPLE(delayed);
			RATE_SAMPLE(marked);
#undef RATE_SAMPLE
		}
	}
}

static void write_classes(struct out *o, const struct metrics_snapshot *s)
{
	int r;

	single(o, "classifier_classes", "gauge",
	       "Classes defined, the default class included.", s->nr_classes);
	single(o, "classifier_classes_max", "gauge",
	       "Classes the maps have room for (they grow as classes need).",
	       s->class_room);
	write_class_counter(
		o, s, "classifier_class_packets_total",
		"Packets put in the class, by direction "
		"(egress: tc, by destination; ingress: XDP, by source).",
		false);
	write_class_counter(
		o, s, "classifier_class_bytes_total",
		"Bytes of the packets put in the class, by direction.", true);
	write_rate_counters(o, s);
	family(o, "classifier_unclassified_packets_total", "counter",
	       "Packets no route classified, by reason (no_table: given the "
	       "default class; the others passed untouched); counted even "
	       "with stats off.");
	for (r = 0; r < CLS_R_MAX; r++)
		sample(o, "classifier_unclassified_packets_total",
		       LABELS({"reason", s->unclassified[r].name}),
		       s->unclassified[r].count.packets);
	family(o, "classifier_unclassified_bytes_total", "counter",
	       "Bytes of the packets no route classified, by reason.");
	for (r = 0; r < CLS_R_MAX; r++)
		sample(o, "classifier_unclassified_bytes_total",
		       LABELS({"reason", s->unclassified[r].name}),
		       s->unclassified[r].count.bytes);
}

static void write_routes(struct out *o, const struct metrics_snapshot *s)
{
	int fam, src;

	family(o, "classifier_routes", "gauge",
	       "Routes in the tables, by family and by source "
	       "(hand: added with classifier route; sync: by the sync "
	       "daemon).");
	for (fam = 0; fam < METRICS_NR_FAMILIES; fam++)
		for (src = 0; src < METRICS_NR_SOURCES; src++)
			sample(o, "classifier_routes",
			       LABELS({"family", family_names[fam]},
				      {"source", source_names[src]}),
			       s->routes[fam][src]);
}

enum table_gauge {
	TG_ENABLED,
	TG_CAPACITY,
	TG_USED,
	TG_FALLBACKS,
	TG_BYTES,
	TG_MAX,
};

static const struct {
	const char *name, *help;
} table_gauges[TG_MAX] = {
	[TG_ENABLED] = {"classifier_table_enabled",
			"1 if packets are looked up in the table (IPv4: "
			"DIR-24-8, IPv6: multibit); 0: the trie answers."},
	[TG_CAPACITY] = {"classifier_table_capacity",
			 "Room in the table: IPv4 second-level groups (a /24 "
			 "each), IPv6 32-byte units."},
	[TG_USED] = {"classifier_table_used", "Of that room, what is in use."},
	[TG_FALLBACKS] = {"classifier_table_trie_fallbacks",
			  "Parts of the address space left to the trie for "
			  "want of room (IPv4: /24s, IPv6: slots)."},
	[TG_BYTES] = {"classifier_table_memory_bytes",
		      "Size of the table's map."},
};

static __u64 table_value(const struct metrics_table *t, enum table_gauge g)
{
	switch (g) {
	case TG_ENABLED:
		return t->on;
	case TG_CAPACITY:
		return t->capacity;
	case TG_USED:
		return t->used;
	case TG_FALLBACKS:
		return t->ask_trie;
	default:
		return t->bytes;
	}
}

static void write_tables(struct out *o, const struct metrics_snapshot *s)
{
	int g, fam;

	if (!s->table[METRICS_V4].available && !s->table[METRICS_V6].available)
		return;
	for (g = 0; g < TG_MAX; g++) {
		family(o, table_gauges[g].name, "gauge", table_gauges[g].help);
		for (fam = 0; fam < METRICS_NR_FAMILIES; fam++)
			if (s->table[fam].available)
				sample(o, table_gauges[g].name,
				       LABELS({"family", family_names[fam]}),
				       table_value(&s->table[fam], g));
	}
}

/*
 * Run time is counted only while the kernel's accounting is on: the
 * sysctl, or a BPF_ENABLE_STATS holder (such as bpftop) that the
 * sysctl does not show.  Counters that moved say it was on.
 */
static bool run_time_counted(const struct metrics_snapshot *s)
{
	size_t i;

	for (i = 0; i < s->nr_prog; i++)
		if (s->prog[i].run_cnt)
			return true;
	return s->bpf_stats.on && s->nr_prog;
}

static void write_prog_counter(struct out *o, const struct metrics_snapshot *s,
			       const char *name, const char *help,
			       bool run_time)
{
	const struct metrics_prog *p;
	const struct label *l;
	char id[16];
	size_t i;

	family(o, name, "counter", help);
	for (i = 0; i < s->nr_prog; i++) {
		p = &s->prog[i];
		snprintf(id, sizeof(id), "%u", p->id);
		l = LABELS({"prog_id", id}, {"name", p->name});
		if (run_time)
			sample_seconds(o, name, l, p->run_time_ns);
		else
			sample(o, name, l, p->run_cnt);
	}
}

static void write_programs(struct out *o, const struct metrics_snapshot *s)
{
	const struct metrics_attachment *a;
	const struct metrics_prog *p;
	char id[16];
	size_t i;

	family(o, "classifier_attachment_up", "gauge",
	       "Attachments of classifier's programs: 1 if the device "
	       "exists, 0 if the attachment outlived it.");
	for (i = 0; i < s->nr_att; i++) {
		a = &s->att[i];
		snprintf(id, sizeof(id), "%u", a->prog_id);
		sample(o, "classifier_attachment_up",
		       LABELS({"dev", a->dev}, {"hook", a->hook},
			      {"mode", a->mode}, {"prog_id", id}),
		       a->live);
	}
	family(o, "classifier_program_info", "gauge",
	       "Attached programs: id, name, the kernel's tag (a hash of "
	       "the instructions) and the classifier build they came from.");
	for (i = 0; i < s->nr_prog; i++) {
		p = &s->prog[i];
		snprintf(id, sizeof(id), "%u", p->id);
		sample(o, "classifier_program_info",
		       LABELS({"prog_id", id}, {"name", p->name},
			      {"tag", p->tag}, {"build_id", p->build_id}),
		       1);
	}
	if (s->bpf_stats.known) {
		single(o, "classifier_kernel_bpf_stats_enabled", "gauge",
		       "1 if sysctl kernel.bpf_stats_enabled is on "
		       "(the kernel counts programs' run time).",
		       s->bpf_stats.on);
	}
	if (!run_time_counted(s))
		return;
	write_prog_counter(o, s, "classifier_program_run_time_seconds_total",
			   "Time the kernel spent running the program, counted "
			   "while its BPF run-time accounting was on.",
			   true);
	write_prog_counter(
		o, s, "classifier_program_runs_total",
		"Runs of the program, counted while its BPF run-time "
		"accounting was on.",
		false);
}

static void write_sync(struct out *o, const struct metrics_snapshot *s)
{
	const struct metrics_sync *y = &s->sync;

	single(o, "classifier_sync_up", "gauge",
	       "1 if the route sync daemon is running.", y->running);
	/* What a stopped daemon left is no measurement of anything. */
	if (!y->running)
		return;
	single(o, "classifier_sync_start_time_seconds", "gauge",
	       "Unix time the sync daemon started.", y->started);
	single(o, "classifier_sync_routes", "gauge",
	       "Routes the sync daemon keeps in the tables.", y->routes);
	single(o, "classifier_sync_shadowed_routes", "gauge",
	       "Prefixes the sync rules select that a route added by hand "
	       "holds.",
	       y->shadowed);
	single(o, "classifier_sync_last_resync_timestamp_seconds", "gauge",
	       "Unix time of the sync daemon's last full read of the "
	       "kernel's tables (0: none yet).",
	       y->last_resync);
	single(o, "classifier_sync_events_total", "counter",
	       "Route changes the sync daemon received from the kernel.",
	       y->events);
	single(o, "classifier_sync_errors_total", "counter",
	       "Route changes the sync daemon failed to apply.", y->errors);
	family(o, "classifier_sync_lag_seconds", "gauge",
	       "From a change in the kernel's table to the classifier's, "
	       "for the last change.");
	sample_seconds(o, "classifier_sync_lag_seconds", NO_LABELS,
		       y->lag_us * 1000ULL);
}

int prom_write(FILE *f, const struct metrics_snapshot *s)
{
	struct out *o = malloc(sizeof(*o));

	if (!o)
		return -ENOMEM;
	o->f = f;
	o->len = 0;
	write_info(o, s);
	write_classes(o, s);
	write_routes(o, s);
	write_tables(o, s);
	write_programs(o, s);
	write_sync(o, s);
	family(o, "classifier_collect_duration_seconds", "gauge",
	       "Time taken to read this snapshot of the maps.");
	sample_seconds(o, "classifier_collect_duration_seconds", NO_LABELS,
		       s->collect_ns);
	flush(o);
	free(o);
	return ferror(f) ? -EIO : 0;
}

int prom_write_down(FILE *f)
{
	struct out o = {.f = f};

	write_up(&o, false);
	flush(&o);
	return ferror(f) ? -EIO : 0;
}

static int sync_dir_of(const char *path)
{
	char buf[PATH_MAX];
	int fd, err = 0;

	if (snprintf(buf, sizeof(buf), "%s", path) >= (int)sizeof(buf))
		return -ENAMETOOLONG;
	fd = open(dirname(buf), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fsync(fd))
		err = -errno;
	close(fd);
	return err;
}

int prom_write_file(const char *path, const struct metrics_snapshot *s)
{
	char tmp[PATH_MAX];
	bool renamed = false;
	FILE *f = NULL;
	int fd, err;

	/* Unique, so two writers never share a half-written file. */
	if (snprintf(tmp, sizeof(tmp), "%s.tmp.XXXXXX", path) >=
	    (int)sizeof(tmp))
		return -ENAMETOOLONG;
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0)
		return -errno;
	f = fdopen(fd, "w");
	if (!f) {
		err = -errno;
		close(fd);
		goto out;
	}
	err = fchmod(fd, 0644) ? -errno : prom_write(f, s);
	if (!err && fflush(f))
		err = -errno;
	if (!err && fsync(fd))
		err = -errno;
	if (fclose(f) && !err)
		err = -errno;
	if (!err && rename(tmp, path))
		err = -errno;
	if (!err) {
		renamed = true;
		err = sync_dir_of(path);
	}
out:
	if (err && !renamed)
		unlink(tmp);
	return err;
}
