// SPDX-License-Identifier: GPL-2.0-only
/*
 * `route load` through the real library, on a bpffs of its own in a
 * mount namespace of its own (root): each line gets the class its own
 * token names.
 */
#include <errno.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <unistd.h>

#include <cmocka.h>

#include "cli/cli.h"

static char dir[] = "/tmp/cls-route-load-test.XXXXXX";
static char file[PATH_MAX];

static void run(const char *a, const char *b, const char *c)
{
	char *argv[3] = {(char *)a, (char *)b, (char *)c};
	struct cli cli = {.bpffs = dir, .wait_ms = -1};
	int err;

	cls_root_path(cli.root, sizeof(cli.root), dir);
	err = cli_run(&cli, c ? 3 : 2, argv);
	if (!err)
		err = cli_maps_release(&cli);
	else
		cli_maps_release(&cli);
	if (err)
		fail_msg("%s %s %s: %s", a, b, c ? c : "", strerror(-err));
}

/* The classid of the route at exactly p, by the library. */
static __u32 class_of(const char *prefix)
{
	const struct cls_class_entry *classes;
	struct cls_open_opts o = {.bpffs = dir};
	struct cls_prefix p;
	struct cls_route r;
	struct cls_maps m;
	__u32 classid = 0;
	bool found;
	size_t n, i;

	assert_int_equal(parse_prefix(prefix, &p, NULL), 0);
	assert_int_equal(cls_open(&m, &o), 0);
	assert_int_equal(cls_route_lookup(&m, &p, &r, &found), 0);
	assert_true(found && r.prefix.len == p.len);
	assert_int_equal(cls_classes(&m, &classes, &n), 0);
	for (i = 0; i < n; i++)
		if (classes[i].idx == r.class_idx)
			classid = classes[i].cls.classid;
	cls_close(&m);
	return classid;
}

/*
 * Class tokens longer than what the loader remembers of the last one: a
 * classid may carry any number of leading zeros.  Each line names
 * another class than the line before, by a token that the one before
 * starts with.
 */
static void test_long_class_tokens(void **state)
{
	static const struct {
		const char *prefix;
		int zeros;
		const char *minor;
		__u32 classid;
	} lines[] = {
		{"10.1.0.0/16", 60, "20", 0x10020}, /* 64 characters */
		{"10.2.0.0/16", 60, "2", 0x10002},  /* its first 63 */
		{"10.3.0.0/16", 300, "20", 0x10020},
		{"10.4.0.0/16", 300, "2", 0x10002},
		{"10.5.0.0/16", 300, "", 0x10000},
	};
	size_t i;
	FILE *f;

	(void)state;
	run("class", "add", "1:20");
	run("class", "add", "1:2");
	run("class", "add", "1:");
	f = fopen(file, "w");
	assert_non_null(f);
	for (i = 0; i < sizeof(lines) / sizeof(lines[0]); i++)
		fprintf(f, "%s 1:%0*d%s\n", lines[i].prefix, lines[i].zeros, 0,
			lines[i].minor);
	fclose(f);
	run("route", "load", file);
	for (i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) {
		__u32 got = class_of(lines[i].prefix);

		if (got != lines[i].classid)
			fail_msg("%s: class %#x, the line says %#x",
				 lines[i].prefix, got, lines[i].classid);
	}
}

static int setup(void **state)
{
	(void)state;
	if (!mkdtemp(dir))
		return -1;
	snprintf(file, sizeof(file), "%s.routes", dir);
	/* The mount stays in this process's namespace and ends with it. */
	if (unshare(CLONE_NEWNS) ||
	    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) ||
	    mount("bpf", dir, "bpf", 0, NULL)) {
		fprintf(stderr,
			"test_route_load: a private bpffs: %s (needs "
			"root)\n",
			strerror(errno));
		return -1;
	}
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	unlink(file);
	umount(dir);
	return rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_long_class_tokens),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
