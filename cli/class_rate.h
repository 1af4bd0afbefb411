/* SPDX-License-Identifier: GPL-2.0-only */
/* A class's police or pace setting: parsed, printed, as JSON. */
#ifndef CLS_CLI_CLASS_RATE_H
#define CLS_CLI_CLASS_RATE_H

#include "cli/cli.h"

/*
 * argv[0] and what follows it, if argv[0] is "police" or "pace": the
 * words it took (>= 2), 0 if it is another word, or a negative errno
 * (said on stderr).  e changes only where the setting is given.
 */
int class_rate_parse(struct cli *c, int argc, char **argv,
		     struct cls_class_entry *e);
/* " police 100mbit burst 125kb over dscp 10", "" if the class has none. */
void class_rate_text(const struct cls_class_entry *e, char *buf, size_t n);
/* "police": {...} | null, "pace": {...} | null */
void class_rate_json(struct json_writer *jw, const struct cls_class_entry *e);

#endif
