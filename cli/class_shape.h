/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A class's HTB shaping on the command line: rate RATE [ ceil RATE ]
 * [ burst SIZE ] [ cburst SIZE ], parent CLASS, prio N, leaf KIND and
 * "rate none"; as `class list` prints it and as JSON.
 */
#ifndef CLS_CLI_CLASS_SHAPE_H
#define CLS_CLI_CLASS_SHAPE_H

#include "cli/cli.h"

/* What only the catalogue can settle, kept from parsing to placing. */
struct class_shape_args {
	const char *parent; /* a class token, "none", or NULL: not given */
	bool given;	    /* a shaping word was given */
};

/*
 * argv[0] and what follows it, if argv[0] is a shaping word: the words
 * it took (>= 2), 0 if it is another word, or a negative errno (said on
 * stderr).  e changes only where the setting is given.
 */
int class_shape_parse(struct cli *c, int argc, char **argv,
		      struct cls_class_entry *e, struct class_shape_args *a);
/*
 * With the catalogue (the maps open for a change): the parent resolved,
 * the queue chosen (the parent's, the one it had, or the one
 * cls_shape_queue_pick() gives), the classid's major made queue + 1, and
 * what HTB refuses refused.  old: the class before (NULL: a new one).
 */
int class_shape_place(struct cli *c, struct cls_class_entry *e,
		      const struct cls_class_entry *old,
		      const struct class_shape_args *a);
/* Refuse deleting a class that shaping classes have as their parent. */
int class_shape_del_check(struct cli *c, const struct cls_class_entry *e);
/* " rate 100mbit ceil 120mbit ...", "" if the class is not shaped. */
void class_shape_text(const struct cls_class_entry *e, char *buf, size_t n);
/* "shape": {...} | null */
void class_shape_json(struct json_writer *jw, const struct cls_class_entry *e);

#endif
