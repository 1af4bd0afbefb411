// SPDX-License-Identifier: GPL-2.0-only
/*
 * The command and the library on a bpffs of their own, in a mount
 * namespace of their own (root): `route load` gives each line the class
 * its own token names; a read-only handle holds read-only fds and reads
 * the counters all the same; a pin directory that grants its group read
 * access passes it on to what is made in it.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include <cmocka.h>

#include "cli/cli.h"

static char dir[] = "/tmp/cls-pinned-test.XXXXXX";
static char file[PATH_MAX];

/* One command line, words split at spaces; it must succeed. */
static void run(const char *line)
{
	struct cli cli = {.bpffs = dir, .wait_ms = -1};
	char buf[256], *argv[8], *save = NULL, *w;
	int argc = 0, err;

	snprintf(buf, sizeof(buf), "%s", line);
	for (w = strtok_r(buf, " ", &save); w && argc < 8;
	     w = strtok_r(NULL, " ", &save))
		argv[argc++] = w;
	cls_root_path(cli.root, sizeof(cli.root), dir);
	err = cli_run(&cli, argc, argv);
	if (!err)
		err = cli_maps_release(&cli);
	else
		cli_maps_release(&cli);
	if (err)
		fail_msg("%s: %s", line, strerror(-err));
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
	char line[PATH_MAX + 16];
	FILE *f;

	(void)state;
	run("class add 1:20");
	run("class add 1:2");
	run("class add 1:");
	f = fopen(file, "w");
	assert_non_null(f);
	for (i = 0; i < sizeof(lines) / sizeof(lines[0]); i++)
		fprintf(f, "%s 1:%0*d%s\n", lines[i].prefix, lines[i].zeros, 0,
			lines[i].minor);
	fclose(f);
	snprintf(line, sizeof(line), "route load %s", file);
	run(line);
	for (i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) {
		__u32 got = class_of(lines[i].prefix);

		if (got != lines[i].classid)
			fail_msg("%s: class %#x, the line says %#x",
				 lines[i].prefix, got, lines[i].classid);
	}
}

/* Counters written through a writable mapping read back the same. */
static void test_read_only_handle(void **state)
{
	struct cls_open_opts w = {.bpffs = dir, .write = true, .wait_ms = -1};
	struct cls_open_opts r = {.bpffs = dir, .read_only = true};
	struct cls_maps m;
	struct cls_counter sum;
	__u32 zero = 0, slot = CLS_STATS_EGRESS_BASE + 7;
	struct cls_config cfg;
	unsigned int cpu;
	int id, fl;

	(void)state;
	run("class add 1:7");
	assert_int_equal(cls_open(&m, &w), 0);
	assert_int_equal(cls_stats_map(&m), 0);
	for (cpu = 0; cpu < m.nr_cpus; cpu++) {
		m.stats_mem[(size_t)cpu * CLS_STATS_STRIDE(m.cap) + slot]
			.packets = cpu + 1;
		m.stats_mem[(size_t)cpu * CLS_STATS_STRIDE(m.cap) + slot]
			.bytes = 1000 * (cpu + 1);
	}
	cls_close(&m);

	assert_int_equal(cls_open(&m, &r), 0);
	for (id = 0; id < CLS_NR_MAPS; id++) {
		fl = fcntl(m.fd[id], F_GETFL);
		if (fl < 0 || (fl & O_ACCMODE) != O_RDONLY)
			fail_msg("map %s: fd flags %#x, not read-only",
				 cls_map_specs[id].name, fl);
	}
	assert_int_equal(bpf_map_lookup_elem(m.fd[CLS_M_CONFIG], &zero, &cfg),
			 0);
	assert_int_equal(
		bpf_map_update_elem(m.fd[CLS_M_CONFIG], &zero, &cfg, BPF_ANY),
		-1);
	assert_int_equal(errno, EPERM);
	assert_int_equal(cls_stats_map(&m), 0);
	sum = cls_stats_sum(&m, slot);
	assert_int_equal(sum.packets, m.nr_cpus * (m.nr_cpus + 1) / 2);
	assert_int_equal(sum.bytes, 1000 * sum.packets);
	cls_close(&m);
}

/* The tables' gauges and an IPv4 lookup read the same either way. */
static void test_read_only_tables(void **state)
{
	struct cls_open_opts w = {.bpffs = dir, .write = true, .wait_ms = -1};
	struct cls_open_opts r = {.bpffs = dir, .read_only = true};
	struct cls_table_info rw, ro;
	struct cls_maps m;
	__u32 cls_rw, cls_ro, cls6;
	bool ask_rw, ask_ro, ask6;
	__u8 a6[16] = {0x20, 0x01, 0x0d, 0xb8};

	(void)state;
	run("table on");
	run("route add 10.1.2.128/25 class 1:7");
	assert_int_equal(cls_open(&m, &w), 0);
	assert_int_equal(cls_table_info(&m, &rw), 0);
	assert_int_equal(cls_table_lookup(&m, 0x0a010281, &cls_rw, &ask_rw), 0);
	cls_close(&m);
	assert_true(rw.on && rw.v6.on && rw.used == 1 && !ask_rw);
	assert_int_equal(cls_open(&m, &r), 0);
	assert_int_equal(cls_table_info(&m, &ro), 0);
	assert_int_equal(cls_table_lookup(&m, 0x0a010281, &cls_ro, &ask_ro), 0);
	/* The IPv6 table is not walked through a read-only handle. */
	assert_int_equal(cls_table6_lookup(&m, a6, &cls6, &ask6), -EPERM);
	cls_close(&m);
	assert_memory_equal(&rw, &ro, sizeof(rw));
	assert_int_equal(cls_ro, cls_rw);
	assert_int_equal(ask_ro, ask_rw);
	run("table auto");
}

static void expect_shared(const char *path, mode_t mode, gid_t gid)
{
	struct stat st;

	assert_int_equal(stat(path, &st), 0);
	if ((st.st_mode & 0777) != mode || st.st_gid != gid)
		fail_msg("%s: mode %04o gid %u, want %04o gid %u", path,
			 st.st_mode & 07777, st.st_gid, mode, gid);
}

/* The pin directory's group, and read access for it, on what is made. */
static void test_group_readers(void **state)
{
	const gid_t gid = 4242;
	char root[PATH_MAX], path[PATH_MAX * 2];
	int id;

	(void)state;
	run("purge");
	cls_root_path(root, sizeof(root), dir);
	assert_int_equal(mkdir(root, 0700), 0);
	assert_int_equal(chown(root, 0, gid), 0);
	assert_int_equal(chmod(root, 02750), 0);
	run("class add 1:9");
	snprintf(path, sizeof(path), "%s/maps", root);
	expect_shared(path, 0750, gid);
	for (id = 0; id < CLS_NR_MAPS; id++) {
		snprintf(path, sizeof(path), "%s/maps/%s", root,
			 cls_map_specs[id].name);
		expect_shared(path, 0640, gid);
	}
	run("purge");
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
		cmocka_unit_test(test_read_only_handle),
		cmocka_unit_test(test_read_only_tables),
		cmocka_unit_test(test_group_readers),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
