/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Every layout that landed, as what changed from the one before it
 * (maps/history.c), and the chain that moves pins of any of them to this
 * build's (maps/migrate.c).  A layout's maps are the next one's with its
 * changes undone; this build's are the registry's (CLS_MAPS).
 */
#ifndef CLS_MAPS_HISTORY_H
#define CLS_MAPS_HISTORY_H

#include "maps/internal.h"

/* Maps a layout has, at most (a map renamed or gone counts twice). */
#define CLS_HISTORY_MAX_MAPS (2 * CLS_NR_MAPS)

/* The maps of the layout a step of the chain makes, as far as made. */
struct cls_step_maps {
	size_t n;
	const char *name[CLS_HISTORY_MAX_MAPS];
	int fd[CLS_HISTORY_MAX_MAPS]; /* -1: not made yet */
};

/* One element of a map in the layout before, as the new layout holds it. */
typedef void (*cls_value_fn)(const void *key, const void *old, void *new);
/* The whole new map (fd), from the maps of its layout made before it. */
typedef int (*cls_build_fn)(const struct cls_step_maps *made, int fd);

/*
 * One map that changed.  By default a map is carried as it is; a line
 * here says otherwise.  Its contents move by .value, element by element
 * (the slots' maps of a slotted map, each); or by .build; or, with
 * neither, a map derived from others (CACHE in CLS_MAPS) starts empty
 * and the upkeep rebuilds it, and any other map keeps its values, the
 * new bytes of a longer value zero: a setting that is off.
 */
struct cls_map_change {
	const char *name; /* its pin in this layout */
	const char *was;  /* its pin in the one before, if renamed */
	bool added;	  /* new in this layout: made empty (or by .build) */
	const struct cls_map_spec *before; /* its shape in the one before */
	cls_value_fn value;
	cls_build_fn build;
};

struct cls_layout {
	unsigned int version;
	/* What changed since the layout before; ends with an empty line. */
	const struct cls_map_change *changes;
};

/* Oldest first; the last is CLS_LAYOUT_VERSION. */
extern const struct cls_layout cls_layouts[];
extern const unsigned int cls_nr_layouts;

struct cls_layout_map {
	const char *name;
	const struct cls_map_spec *spec; /* its shape in that layout */
};

/* The line of a layout, NULL if none landed with that number. */
const struct cls_layout *cls_history_of(unsigned int version);
/*
 * The maps of a layout: this build's with the changes of every later
 * layout undone, newest first.  -ENOENT: no such layout; -EINVAL: the
 * history names a map that is not there.
 */
int cls_layout_maps(unsigned int version, struct cls_layout_map *out,
		    size_t *n);

#endif
