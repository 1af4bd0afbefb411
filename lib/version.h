/* SPDX-License-Identifier: GPL-2.0-only */
/* The release: what `classifier -V` prints and classifier_build_info says. */
#ifndef CLS_VERSION_H
#define CLS_VERSION_H

#define CLS_VERSION "0.2"

#endif
