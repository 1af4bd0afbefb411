// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/rtnetlink.h>

#include "tests/sync/troute.h"

#define MAX_WORDS 64

static int number(char **argv, int argc, int *i, __u32 *v)
{
	if (++*i >= argc)
		return -EINVAL;
	return parse_u32(argv[*i], v);
}

int troute(const char *text, struct kroute *k)
{
	char buf[1024], *argv[MAX_WORDS];
	int argc, i, err = 0;
	__u32 v;

	snprintf(buf, sizeof(buf), "%s", text);
	argc = split_args(buf, argv, MAX_WORDS);
	memset(k, 0, sizeof(*k));
	if (argc < 1 || parse_prefix(argv[0], &k->dst, NULL))
		return -EINVAL;
	k->table = RT_TABLE_MAIN;
	k->type = RTN_UNICAST;
	k->protocol = RTPROT_BOOT;
	for (i = 1; i < argc && !err; i++) {
		const char *w = argv[i];

		if (!strcmp(w, "nh")) {
			struct kroute_nh *nh = &k->nh[k->nr_nh++];

			if (i + 3 >= argc)
				return -EINVAL;
			if (strcmp(argv[++i], "-") &&
			    parse_addr(argv[i], &nh->gw, NULL))
				return -EINVAL;
			err = number(argv, argc, &i, &nh->oif);
			if (!err)
				err = number(argv, argc, &i, &nh->realm);
			continue;
		}
		err = number(argv, argc, &i, &v);
		if (err)
			break;
		if (!strcmp(w, "table"))
			k->table = v;
		else if (!strcmp(w, "proto"))
			k->protocol = v;
		else if (!strcmp(w, "metric"))
			k->priority = v;
		else if (!strcmp(w, "type"))
			k->type = v;
		else if (!strcmp(w, "tos"))
			k->tos = v;
		else
			err = -EINVAL;
	}
	return err;
}
