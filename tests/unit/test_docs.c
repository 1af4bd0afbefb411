// SPDX-License-Identifier: GPL-2.0-only
/*
 * docs/architecture.md against the code, for the facts that drift: the
 * files of maps/ and xdp_tc/, the pin table (every map of the registry,
 * its type as the registry renders it), the IPv6 table formats the
 * programs read (classifier_abi.h), the layouts that landed
 * (maps/history.c), and the how-tos' steps (each names one file that
 * exists; at most 4).  Run from the source tree (make unit does).
 */
#include <dirent.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cmocka.h>
#include <linux/bpf.h>

#include "maps/internal.h"

#define DOC "docs/architecture.md"

static char *doc;

static int read_doc(void **state)
{
	FILE *f = fopen(DOC, "r");
	long n;

	(void)state;
	if (!f)
		return -1;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	doc = calloc(1, n + 1);
	if (!doc || fread(doc, 1, n, f) != (size_t)n) {
		fclose(f);
		return -1;
	}
	fclose(f);
	return 0;
}

static int free_doc(void **state)
{
	(void)state;
	free(doc);
	return 0;
}

/* The text from the line that starts with `from` to the next `to`. */
static char *section(const char *from, const char *to)
{
	const char *a = strstr(doc, from), *b;
	char *s;

	if (!a)
		fail_msg("%s has no \"%s\"", DOC, from);
	b = strstr(a + strlen(from), to);
	if (!b)
		b = a + strlen(a);
	s = strndup(a, b - a);
	assert_non_null(s);
	return s;
}

static bool has_word(const char *text, const char *word)
{
	size_t n = strlen(word);
	const char *p;

	for (p = strstr(text, word); p; p = strstr(p + 1, word))
		if ((p == text || strchr(" ,(\n", p[-1])) &&
		    strchr(" ,).:\n", p[n]))
			return true;
	return false;
}

/* Every file of dir ending in one of the suffixes is named in text. */
static void files_named(const char *dir, const char *const *suffixes,
			const char *text)
{
	struct dirent *de;
	DIR *d = opendir(dir);
	size_t i, len;

	assert_non_null(d);
	while ((de = readdir(d))) {
		len = strlen(de->d_name);
		for (i = 0; suffixes[i]; i++) {
			size_t sl = strlen(suffixes[i]);

			if (len > sl &&
			    !strcmp(de->d_name + len - sl, suffixes[i]) &&
			    !has_word(text, de->d_name))
				fail_msg("%s: %s/%s is not listed", DOC, dir,
					 de->d_name);
		}
	}
	closedir(d);
}

static void maps_files_listed(void **state)
{
	static const char *const c[] = {".c", NULL};
	char *list = section("### maps/, file by file\n```", "\n```");
	char name[64], *line;

	(void)state;
	files_named("maps", c, list);
	/* and nothing listed is gone */
	for (line = strchr(list, '\n'); line; line = strchr(line + 1, '\n'))
		if (sscanf(line + 1, "%63[a-z0-9_].c ", name) == 1 &&
		    line[1 + strlen(name)] == '.') {
			char path[128];
			struct stat st;

			snprintf(path, sizeof(path), "maps/%s.c", name);
			if (stat(path, &st))
				fail_msg("%s lists %s, which is gone", DOC,
					 path);
		}
	free(list);
}

static void xdp_tc_files_listed(void **state)
{
	static const char *const sfx[] = {".h", ".bpf.c", NULL};
	char *line = section("xdp_tc/   the BPF programs", "tests/ ");

	(void)state;
	files_named("xdp_tc", sfx, line);
	free(line);
}

static const char *type_name(__u32 type)
{
	switch (type) {
	case BPF_MAP_TYPE_ARRAY:
		return "ARRAY";
	case BPF_MAP_TYPE_LPM_TRIE:
		return "LPM_TRIE";
	case BPF_MAP_TYPE_ARRAY_OF_MAPS:
		return "ARRAY_OF_MAPS";
	case BPF_MAP_TYPE_CPUMAP:
		return "CPUMAP";
	}
	return "?";
}

/* "ARRAY[4096], 64 B" / "ARRAY_OF_MAPS[2] of ARRAY[by need], 8 B, ..." */
static void render(const struct cls_map_spec *s, char *buf, size_t n)
{
	size_t len;

	if (s->inner) {
		len = snprintf(buf, n, "%s[%u] of ", type_name(s->type),
			       s->max_entries);
		render(s->inner, buf + len, n - len);
		return;
	}
	len = snprintf(buf, n, "%s[", type_name(s->type));
	if (s->size == CLS_SIZE_BY_NEED)
		len += snprintf(buf + len, n - len, "by need");
	else
		len += snprintf(buf + len, n - len, "%u%s", s->max_entries,
				s->size == CLS_SIZE_PER_CPU ? " per CPU" : "");
	len += snprintf(buf + len, n - len, "], %u B", s->value_size);
	if (s->flags & BPF_F_MMAPABLE)
		len += snprintf(buf + len, n - len, ", mmapable");
	if (s->flags & BPF_F_NO_PREALLOC)
		len += snprintf(buf + len, n - len, ", no prealloc");
	if (s->flags & BPF_F_INNER_MAP)
		snprintf(buf + len, n - len, ", any size");
}

static void pin_table_is_the_registry(void **state)
{
	char *table = section("| pin | type | what |", "\n\n");
	char row[256], want[160];
	int id, rows = 0;
	const char *p;

	(void)state;
	for (p = strstr(table, "\n| maps/"); p; p = strstr(p + 1, "\n| maps/"))
		rows++;
	for (id = 0; id < CLS_NR_MAPS; id++) {
		const struct cls_map_spec *s = &cls_map_specs[id];

		render(s, want, sizeof(want));
		snprintf(row, sizeof(row), "\n| maps/%s | %s |", s->name, want);
		print_message("  %s\n", row + 1);
		if (!strstr(table, row))
			fail_msg("%s: no pin table row \"%s\"", DOC, row + 1);
	}
	if (rows != CLS_NR_MAPS)
		fail_msg("%s: %d pin table rows, the registry has %d maps", DOC,
			 rows, CLS_NR_MAPS);
	free(table);
}

static void table6_formats_as_built(void **state)
{
	char want[128];

	(void)state;
	snprintf(want, sizeof(want),
		 "the formats they know (%u to %u:", MBT6_FORMAT_OLDEST,
		 MBT6_FORMAT_WIDE);
	if (!strstr(doc, want))
		fail_msg("%s does not say \"%s\"", DOC, want);
	snprintf(want, sizeof(want), "this build writes %u, and %u from",
		 MBT6_FORMAT, MBT6_FORMAT_WIDE);
	if (!strstr(doc, want))
		fail_msg("%s does not say \"%s\"", DOC, want);
}

static void landed_layouts_listed(void **state)
{
	char *up = section("## Upgrades", "\n## ");
	char want[32];
	unsigned int v, listed = 0;
	const char *p;

	(void)state;
	for (v = CLS_LAYOUT_OLDEST; v <= CLS_LAYOUT_VERSION; v++) {
		snprintf(want, sizeof(want), "\n  - **%u** (", v);
		if (!strstr(up, want))
			fail_msg("%s, Upgrades: layout %u is not listed", DOC,
				 v);
	}
	for (p = strstr(up, "\n  - **"); p; p = strstr(p + 1, "\n  - **"))
		if (sscanf(p, "\n  - **%u**", &v) == 1)
			listed++;
	assert_int_equal(listed, CLS_LAYOUT_VERSION - CLS_LAYOUT_OLDEST + 1);
	free(up);
}

/* Steps "  N. path: ..." of one how-to: each an existing file, <= 4. */
static void steps_of(const char *title)
{
	char *how = section(title, "\n- **");
	char path[128], *p;
	struct stat st;
	int n = 0, k;

	for (p = strstr(how, "\n  "); p; p = strstr(p + 1, "\n  ")) {
		if (sscanf(p, "\n  %d. %127[A-Za-z0-9_./-]", &k, path) != 2)
			continue;
		path[strcspn(path, ",:")] = '\0';
		if (path[strlen(path) - 1] == '.')
			path[strlen(path) - 1] = '\0';
		print_message("  %s: %d. %s\n", title, k, path);
		if (stat(path, &st))
			fail_msg("%s, \"%s\": step %d names %s, which is not "
				 "a file",
				 DOC, title, k, path);
		n++;
	}
	if (!n || n > 4)
		fail_msg("%s, \"%s\": %d steps, want 1 to 4", DOC, title, n);
	free(how);
}

static void how_tos_name_few_files(void **state)
{
	(void)state;
	steps_of("- **A class field**");
	steps_of("- **A map**");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(maps_files_listed),
		cmocka_unit_test(xdp_tc_files_listed),
		cmocka_unit_test(pin_table_is_the_registry),
		cmocka_unit_test(table6_formats_as_built),
		cmocka_unit_test(landed_layouts_listed),
		cmocka_unit_test(how_tos_name_few_files),
	};

	return cmocka_run_group_tests(tests, read_doc, free_doc);
}
