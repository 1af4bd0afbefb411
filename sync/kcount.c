// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <linux/rtnetlink.h>

#include "sync/kcount.h"

#define FIB_TRIESTAT "/proc/self/net/fib_triestat"

/* A table's header line: "Id 100:", "Main:", "Local:" (fib_table_print). */
static bool table_header(const char *line, __u32 *table)
{
	int id;
	char c;

	if (!strcmp(line, "Main:\n"))
		*table = RT_TABLE_MAIN;
	else if (!strcmp(line, "Local:\n"))
		*table = RT_TABLE_LOCAL;
	else if (sscanf(line, "Id %d%c", &id, &c) == 2 && c == ':')
		*table = (__u32)id; /* printed with %d */
	else
		return false;
	return true;
}

static int push(struct kcount *kc, __u32 table)
{
	struct kcount_table *t = realloc(kc->t, (kc->n + 1) * sizeof(*t));

	if (!t)
		return -ENOMEM;
	kc->t = t;
	t[kc->n].table = table;
	t[kc->n].routes = 0;
	kc->n++;
	return 0;
}

/* The text of a table's statistics, to tell a shared trie. */
struct block {
	char *text;
	size_t len;
};

static int block_add(struct block *b, const char *line)
{
	size_t n = strlen(line);
	char *t = realloc(b->text, b->len + n + 1);

	if (!t)
		return -ENOMEM;
	memcpy(t + b->len, line, n + 1);
	b->text = t;
	b->len += n;
	return 0;
}

int kcount_parse(FILE *f, struct kcount *kc)
{
	struct block main_b = {0}, local_b = {0}, *cur = NULL;
	char *line = NULL;
	size_t cap = 0;
	unsigned long long v;
	__u32 table;
	bool in_table = false;
	int err = 0;

	memset(kc, 0, sizeof(*kc));
	while (!err && getline(&line, &cap, f) >= 0) {
		if (table_header(line, &table)) {
			err = push(kc, table);
			in_table = true;
			cur = table == RT_TABLE_MAIN	? &main_b
			      : table == RT_TABLE_LOCAL ? &local_b
							: NULL;
			continue;
		}
		if (!in_table)
			continue;
		if (cur)
			err = block_add(cur, line);
		if (sscanf(line, " Prefixes: %llu", &v) == 1)
			kc->t[kc->n - 1].routes = v;
	}
	if (!err && ferror(f))
		err = -EIO;
	kc->merged = main_b.text && local_b.text &&
		     !strcmp(main_b.text, local_b.text);
	free(main_b.text);
	free(local_b.text);
	free(line);
	if (err)
		kcount_free(kc);
	return err;
}

int kcount_ipv4(struct kcount *kc)
{
	FILE *f = fopen(FIB_TRIESTAT, "re");
	int err;

	if (!f)
		return -errno;
	err = kcount_parse(f, kc);
	fclose(f);
	return err;
}

void kcount_free(struct kcount *kc)
{
	free(kc->t);
	memset(kc, 0, sizeof(*kc));
}

bool kcount_get(const struct kcount *kc, __u32 table, __u64 *routes)
{
	size_t i;

	if (kc->merged && (table == RT_TABLE_MAIN || table == RT_TABLE_LOCAL))
		return false;
	for (i = 0; i < kc->n; i++) {
		if (kc->t[i].table == table) {
			*routes = kc->t[i].routes;
			return true;
		}
	}
	return false;
}
