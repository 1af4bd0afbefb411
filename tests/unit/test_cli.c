// SPDX-License-Identifier: GPL-2.0-only
/*
 * The CLI's answers to bad input: a negative errno, exactly one line on
 * stderr naming the problem, and nothing created.  Every case here fails
 * before a map is touched, so no BPF or root is needed.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"

struct cli_case {
	const char *args; /* OBJECT VERB ... */
	const char *want; /* substring of the one error line */
};

static const struct cli_case cases[] = {
	{ "route add 10.0.0.0/33 class 1:10", "prefix length must be 0-32" },
	{ "route add 10.1.0.0/8 class web", "did you mean 10.0.0.0/8?" },
	{ "route add 2001:db8::/129 class web", "prefix length" },
	{ "route add 10.0.0.0/8", "expected PREFIX class CLASS" },
	{ "route add 10.0.0.0/8 class 1:10 extra", "expected PREFIX class CLASS" },
	{ "route del", "expected PREFIX" },
	{ "route del 300.0.0.0/8", "300.0.0.0/8" },
	{ "route list v5", "expected [ v4 | v6 ]" },
	{ "route load", "expected FILE" },
	{ "route frob", "unknown command \"frob\"" },
	{ "class add", "expected CLASSID" },
	{ "class load", "expected FILE" },
	{ "class load /nonexistent/classes", "/nonexistent/classes" },
	{ "class load /dev/null", "not a regular file" },
	{ "class add 1:10 mark", "\"mark\" needs a value" },
	{ "class add 1:10 mark 12x", "invalid mark \"12x\"" },
	{ "class add 1:10 dscp 64", "invalid dscp \"64\"" },
	{ "class add 1:10 dscp AF44", "invalid dscp \"AF44\"" },
	{ "class add 1:10 queue", "\"queue\" needs a value" },
	{ "class add 1:10 queue 4096", "invalid queue \"4096\"" },
	{ "class add 1:10 queue -1", "invalid queue \"-1\"" },
	{ "class add 1:10 colour red", "unknown argument \"colour\"" },
	{ "class add root", "cannot name a class" },
	{ "class add none", "cannot name a class" },
	{ "class add 1:10000", "invalid classid" },
	{ "class add 1:10 name 1:20", "invalid name \"1:20\"" },
	{ "class add 1:10 police", "\"police\" needs a rate (or none)" },
	{ "class add 1:10 police 7bit", "invalid rate \"7bit\": rate below 8bit" },
	{ "class add 1:10 police 10mbits", "unknown unit \"mbits\"" },
	{ "class add 1:10 police 10mbit burst", "\"burst\" needs a value" },
	{ "class add 1:10 police 10mbit burst 5g", "invalid burst \"5g\"" },
	{ "class add 1:10 police 10mbit over", "\"over\" needs a value" },
	{ "class add 1:10 police 10mbit over dscp", "\"over dscp\" needs a value" },
	{ "class add 1:10 police 10mbit over dscp 64", "invalid over dscp \"64\"" },
	{ "class add 1:10 police 10mbit over pass", "over takes drop, dscp DSCP or mark MARK" },
	{ "class add 1:10 police 10mbit horizon 5ms", "\"horizon\" is not a setting of police" },
	{ "class add 1:10 pace 10mbit over drop", "\"over\" is not a setting of pace" },
	{ "class add 1:10 pace 10mbit horizon 0", "horizon must be 1ns to 4s" },
	{ "class add 1:10 pace 10mbit ce 5s", "ce must be 1ns to 4s" },
	{ "class add 1:10 rate", "\"rate\" needs a value" },
	{ "class add 1:10 rate 10mbits", "unknown unit \"mbits\"" },
	{ "class add 1:10 rate 10mbit ceil 5mbit", "ceil must be at least the rate" },
	{ "class add 1:10 rate 10mbit ceil", "\"ceil\" needs a value" },
	{ "class add 1:10 rate 10mbit cburst 5g", "invalid cburst \"5g\"" },
	{ "class add 1:10 ceil 10mbit", "\"ceil\" follows \"rate RATE\"" },
	{ "class add 1:10 rate 1mbit prio 8", "prio must be 0-7" },
	{ "class add 1:10 rate 1mbit leaf sfqq", "leaf must be default or one of" },
	{ "class add 1:10 rate 1mbit parent", "\"parent\" needs a value" },
	{ "shape dev", "expected IFACE" },
	{ "shape dev lo queues 0", "queues must be 1-1024 or all" },
	{ "shape dev lo rate 1mbit default 2mbit", "the default class's rate is above the root's" },
	{ "shape dev lo colour red", "unknown argument \"colour\"" },
	{ "shape dev cls-no-such-dev0", "no such device" },
	{ "shape del lo", "expected dev IFACE" },
	{ "class add 1:10 police 10mbit pace 1mbit", "policed or paced, not both" },
	{ "class del", "expected CLASSID or NAME" },
	{ "class list extra", "takes no arguments" },
	{ "attach", "expected dev IFACE" },
	{ "attach dev", "\"dev\" needs a value" },
	{ "attach dev veth0 mode foo", "invalid mode \"foo\"" },
	{ "attach dev veth0 xdp-mode turbo", "invalid xdp-mode \"turbo\"" },
	{ "attach dev a/b", "invalid device name" },
	{ "attach dev clsnodev0", "no such device" },
	{ "detach dev", "\"dev\" needs a value" },
	{ "stats frob", "unknown command \"frob\"" },
	{ "stats show extra", "unknown argument \"extra\"" },
	{ "stats on now", "takes no arguments" },
	{ "stats prometheus a b", "expected [ FILE ]" },
	{ "stats watch 0.05", "interval \"0.05\": expected seconds" },
	{ "stats watch 1e9", "interval \"1e9\"" },
	{ "stats watch 1s", "interval \"1s\"" },
	{ "stats watch count", "count: expected a number" },
	{ "stats watch 1 count 0", "count: expected a number" },
	{ "stats watch 1 count 2 json", "unknown argument \"json\"" },
	{ "exporter listen", "\"listen\" needs a value" },
	{ "exporter --listen", "\"--listen\" needs a value" },
	{ "exporter listen localhost:9435", "numeric address" },
	{ "exporter --listen=127.0.0.1:0", "port must be 1-65535" },
	{ "exporter listen ::1:9435", "in brackets" },
	{ "exporter port 9435", "unknown argument \"port\"" },
	{ "exporter timeout 0", "timeout \"0\": expected seconds" },
	{ "exporter listen 127.0.0.1:9435 timeout", "\"timeout\" needs a value" },
	{ "lookup", "expected ADDR" },
	{ "lookup 10.0.0.300", "10.0.0.300" },
	{ "lookup 10.0.0.0/8", "10.0.0.0/8" },
	{ "status now", "takes no arguments" },
	{ "sync", "command line: no rules" },
	{ "sync config", "config needs a FILE" },
	{ "sync tabel 100 class web", "command line: unknown word \"tabel\"" },
	{ "sync table 100 realm 5", "rule has no action" },
	{ "sync table 100 class 1:2:3", "not a classid (1:10) or a class name" },
	{ "sync resync 1s table 100 class web", "resync \"1s\": an interval" },
	{ "sync table 100 class web", "nothing set up under" },
};

static char tmpdir[] = "/tmp/cls-cli-test.XXXXXX";

/* Run one command line with stderr captured; return its exit code. */
static int run_captured(const char *line, char *err, size_t n, struct cli *c)
{
	char buf[256], *argv[16], *tok, *save = NULL;
	int argc = 0, saved, fd, ret;
	FILE *f;

	snprintf(buf, sizeof(buf), "%s", line);
	for (tok = strtok_r(buf, " ", &save); tok && argc < 16;
	     tok = strtok_r(NULL, " ", &save))
		argv[argc++] = tok;
	f = tmpfile();
	assert_non_null(f);
	fflush(stderr);
	saved = dup(STDERR_FILENO);
	dup2(fileno(f), STDERR_FILENO);
	ret = cli_run(c, argc, argv);
	fflush(stderr);
	dup2(saved, STDERR_FILENO);
	close(saved);
	rewind(f);
	fd = fread(err, 1, n - 1, f);
	err[fd > 0 ? fd : 0] = '\0';
	fclose(f);
	return ret;
}

static void init_cli(struct cli *c)
{
	memset(c, 0, sizeof(*c));
	c->wait_ms = -1;
	/* Not a bpffs: any command that got as far as the maps would fail. */
	c->bpffs = tmpdir;
	cls_root_path(c->root, sizeof(c->root), tmpdir);
}

static void assert_one_line_error(const char *line, const char *want,
				  int ret, const char *err)
{
	const char *nl = strchr(err, '\n');

	if (ret >= 0 || !strstr(err, want) || !nl || nl[1] ||
	    strncmp(err, "classifier: ", 12))
		fail_msg("'%s': ret %d, stderr \"%s\", want one line with \"%s\"",
			 line, ret, err, want);
}

static void test_bad_input_is_one_line(void **state)
{
	char err[1024];
	struct cli c;
	size_t i;
	int ret;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		init_cli(&c);
		ret = run_captured(cases[i].args, err, sizeof(err), &c);
		assert_one_line_error(cases[i].args, cases[i].want, ret, err);
	}
}

static void test_reads_need_setup(void **state)
{
	static const char *const reads[] = {
		"route list", "class list",	  "stats",
		"status",     "lookup 10.0.0.1", "stats prometheus",
		"stats watch",
	};
	char err[1024];
	struct cli c;
	size_t i;
	int ret;

	(void)state;
	for (i = 0; i < sizeof(reads) / sizeof(reads[0]); i++) {
		init_cli(&c);
		ret = run_captured(reads[i], err, sizeof(err), &c);
		assert_one_line_error(reads[i], "nothing set up under", ret,
				      err);
	}
}

static void test_change_refuses_non_bpffs(void **state)
{
	char err[1024], path[PATH_MAX];
	struct cli c;
	int ret;

	(void)state;
	init_cli(&c);
	ret = run_captured("route add 10.0.0.0/8 class 1:10", err,
			   sizeof(err), &c);
	assert_one_line_error("route add", "is not a bpffs", ret, err);
	snprintf(path, sizeof(path), "%s/classifier", tmpdir);
	assert_int_not_equal(access(path, F_OK), 0);
}

static void test_help_succeeds_quietly(void **state)
{
	static const char *const helps[] = {
		"route help",	  "class help",	   "stats help",
		"attach help",	  "route add help", "exporter help",
		"stats watch help", "sync help",
	};
	char err[1024];
	struct cli c;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(helps) / sizeof(helps[0]); i++) {
		init_cli(&c);
		assert_int_equal(run_captured(helps[i], err, sizeof(err), &c),
				 0);
		assert_string_equal(err, "");
	}
}

static int setup(void **state)
{
	(void)state;
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	return rmdir(tmpdir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bad_input_is_one_line),
		cmocka_unit_test(test_reads_need_setup),
		cmocka_unit_test(test_change_refuses_non_bpffs),
		cmocka_unit_test(test_help_succeeds_quietly),
	};

	/* stdout from help text is not under test. */
	if (!freopen("/dev/null", "w", stdout))
		return 1;
	return cmocka_run_group_tests(tests, setup, teardown);
}
