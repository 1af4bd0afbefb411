// SPDX-License-Identifier: GPL-2.0-only
/*
 * classifier status: everything an operator checks first, from counts the
 * library keeps (no walk over the routes), so it answers at once at any
 * table size.
 */
#include <errno.h>
#include <stdlib.h>
#include <time.h>

#include "cli/cli.h"
#include "loader/loader.h"

struct status {
	struct cls_attachment *a;
	size_t n;
	size_t classes;
	__u32 routes[2][2];
	bool stats_on;
	struct cls_table_info table;
	struct cls_state state;
	__u64 build;
};

static const char *hook_name(const struct cls_attachment *a)
{
	if (a->hook == CLS_HOOK_XDP)
		return "xdp";
	if (a->hook == CLS_HOOK_STEER)
		return "steer";
	return a->tcx ? "egress tcx" : "egress tc";
}

/* "current", "older", or "other" build than this classifier's. */
static const char *build_of(const struct status *st,
			    const struct cls_attachment *a, __u64 *id)
{
	if (cls_prog_build_id(a->prog_id, id))
		return "older";
	return *id == st->build ? "current" : "other";
}

/* Why the sync daemon last read the kernel's tables whole. */
static const char *resync_reason(__u32 r)
{
	static const char *const names[] = {
		[CLS_RESYNC_NONE] = "none",
		[CLS_RESYNC_START] = "start",
		[CLS_RESYNC_OVERRUN] = "overrun",
		[CLS_RESYNC_RULES] = "rules",
		[CLS_RESYNC_LINK] = "link",
		[CLS_RESYNC_ADDR] = "address",
		[CLS_RESYNC_KERNEL] = "kernel",
		[CLS_RESYNC_RETRY] = "retry",
		[CLS_RESYNC_PERIODIC] = "periodic",
		[CLS_RESYNC_HAND] = "hand",
	};

	return r < sizeof(names) / sizeof(names[0]) && names[r] ? names[r]
								 : "unknown";
}

static void status_json(struct cli *c, const struct status *st,
			struct json_writer *jw)
{
	const struct cls_sync_status *sy = &st->state.sync;
	char build[24];
	__u64 id;
	size_t i;

	jw_start_object(jw);
	jw_string_field(jw, "pins", c->root);
	jw_uint_field(jw, "layout", st->state.layout);
	snprintf(build, sizeof(build), "%016llx", st->build);
	jw_string_field(jw, "build_id", build);
	jw_bool_field(jw, "stats_enabled", st->stats_on);
	jw_uint_field(jw, "classes", st->classes);
	jw_uint_field(jw, "max_classes", CLS_MAX_CLASSES);
	jw_uint_field(jw, "class_room", c->maps.cap);
	jw_uint_field(jw, "routes_v4", st->routes[0][0] + st->routes[0][1]);
	jw_uint_field(jw, "routes_v6", st->routes[1][0] + st->routes[1][1]);
	jw_name(jw, "routes");
	jw_start_object(jw);
	for (i = 0; i < 2; i++) {
		jw_name(jw, i ? "v6" : "v4");
		jw_start_object(jw);
		jw_uint_field(jw, "hand", st->routes[i][0]);
		jw_uint_field(jw, "synced", st->routes[i][1]);
		jw_end_object(jw);
	}
	jw_end_object(jw);
	jw_uint_field(jw, "cpus", c->maps.nr_cpus);
	jw_name(jw, "tables");
	cli_table_json(jw, &st->table);
	jw_name(jw, "sync");
	jw_start_object(jw);
	jw_bool_field(jw, "running", cls_sync_running(sy));
	jw_uint_field(jw, "pid", sy->pid);
	jw_uint_field(jw, "routes", sy->routes);
	jw_uint_field(jw, "shadowed", sy->shadowed);
	jw_uint_field(jw, "errors", sy->errors);
	jw_uint_field(jw, "events", sy->events);
	jw_uint_field(jw, "started", sy->started);
	jw_uint_field(jw, "last_resync", sy->last_resync);
	jw_string_field(jw, "last_resync_reason",
			resync_reason(sy->last_reason));
	jw_uint_field(jw, "lag_us", sy->lag_us);
	jw_end_object(jw);
	cli_shape_status_json(c, jw);
	cli_steer_status_json(c, jw);
	jw_name(jw, "attached");
	jw_start_array(jw);
	for (i = 0; i < st->n; i++) {
		const struct cls_attachment *a = &st->a[i];
		const char *b = build_of(st, a, &id);

		jw_start_object(jw);
		jw_string_field(jw, "dev", a->ifname);
		jw_string_field(jw, "hook",
				a->hook == CLS_HOOK_XDP	  ? "xdp" :
				a->hook == CLS_HOOK_STEER ? "steer" :
							    "egress");
		if (a->hook == CLS_HOOK_EGRESS)
			jw_string_field(jw, "mode", a->tcx ? "tcx" : "tc");
		jw_uint_field(jw, "prog_id", a->prog_id);
		if (a->prog_name[0])
			jw_string_field(jw, "program", a->prog_name);
		jw_string_field(jw, "build", b);
		jw_bool_field(jw, "defunct", a->defunct);
		if (!a->tcx && a->hook == CLS_HOOK_EGRESS)
			jw_bool_field(jw, "owns_qdisc", a->owns_qdisc);
		jw_end_object(jw);
	}
	jw_end_array(jw);
	jw_end_object(jw);
}

static void status_text(struct cli *c, const struct status *st)
{
	const struct cls_sync_status *sy = &st->state.sync;
	const struct cls_table_info *t = &st->table;
	char when[32] = "never";
	struct tm tm;
	time_t ts;
	__u64 id;
	size_t i;

	printf("pins     %s (layout %u)\n", c->root, st->state.layout);
	printf("build    %016llx\n", st->build);
	printf("stats    %s\n", st->stats_on ? "on" : "off");
	printf("classes  %zu (room for %u, at most %d)\n", st->classes,
	       c->maps.cap, CLS_MAX_CLASSES);
	printf("routes   %u v4 (%u synced), %u v6 (%u synced)\n",
	       st->routes[0][0] + st->routes[0][1], st->routes[0][1],
	       st->routes[1][0] + st->routes[1][1], st->routes[1][1]);
	printf("tables   %s: ipv4 ", cli_table_mode_name(t->mode));
	if (t->on)
		printf("%u of %u groups, %.1f MiB", t->used, t->groups,
		       t->bytes / 1048576.0);
	else
		printf("off");
	printf("; ipv6 ");
	if (t->v6.on)
		printf("%zu of %zu units, %.1f MiB\n", t->v6.used, t->v6.units,
		       t->v6.bytes / 1048576.0);
	else if (t->v6.foreign_format)
		printf("in format %u, which this build cannot read (the trie "
		       "answers)\n",
		       t->v6.foreign_format);
	else
		printf("off\n");
	if (sy->last_resync) {
		ts = sy->last_resync;
		localtime_r(&ts, &tm);
		strftime(when, sizeof(when), "%F %T", &tm);
	}
	if (cls_sync_running(sy))
		printf("sync     running (pid %u): %u routes, %u shadowed by "
		       "hand routes, last resync %s (%s), %u errors, "
		       "lag %.1f ms\n",
		       sy->pid, sy->routes, sy->shadowed, when,
		       resync_reason(sy->last_reason), sy->errors,
		       sy->lag_us / 1000.0);
	else
		printf("sync     not running\n");
	cli_shape_status_text(c);
	cli_steer_status_text(c);
	if (!st->n)
		printf("attached nowhere\n");
	for (i = 0; i < st->n; i++) {
		const struct cls_attachment *a = &st->a[i];
		const char *b = build_of(st, a, &id);

		printf("attached %s %s prog %u%s%s build %s%s%s\n", a->ifname,
		       hook_name(a), a->prog_id, a->prog_name[0] ? " " : "",
		       a->prog_name, b, a->owns_qdisc ? " (own clsact)" : "",
		       !a->defunct ? ""
		       : a->tcx || cls_hook_is_xdp(a->hook)
			       ? " DEFUNCT (device gone)"
			       : " (device not in this network namespace, or "
				 "gone)");
	}
}

static int status(struct cli *c, int argc, char **argv)
{
	const struct cls_class_entry *e;
	struct status st = {.build = cls_build_id()};
	struct json_writer *jw;
	int err;

	(void)argv;
	if (cli_no_args(c, argc))
		return -EINVAL;
	err = cli_maps_read(c);
	if (err)
		return err;
	err = cls_attachments(c->root, &st.a, &st.n);
	if (!err)
		err = cls_classes(&c->maps, &e, &st.classes);
	if (!err)
		err = cls_state_read(&c->maps, &st.state);
	if (!err)
		err = cls_route_counts(&c->maps, st.routes);
	if (!err)
		err = cls_stats_get_enabled(&c->maps, &st.stats_on);
	if (!err)
		err = cls_table_info(&c->maps, &st.table);
	if (err) {
		cli_errno(c, err, "reading state");
		goto out;
	}
	if (!c->json) {
		status_text(c, &st);
	} else if ((jw = cli_json(c))) {
		status_json(c, &st, jw);
		jw_destroy(&jw);
	} else {
		err = -ENOMEM;
	}
out:
	free(st.a);
	return err;
}

static const struct cli_cmd status_cmds[] = {
	CLI_CMD(NULL, status, NULL),
	{},
};

const struct cli_object cli_status_obj = {
	.name = "status",
	.cmds = status_cmds,
	.help = "Pins and their layout, this build, counting on/off, classes,\n"
		"routes by family and source, the lookup tables, the sync "
		"daemon,\n"
		"and every attachment with the build its program came from.\n",
};
