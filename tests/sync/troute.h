/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A decoded kernel route from words, for unit tests:
 *   DST [table N] [proto N] [metric N] [type N] [tos N] [nh GW|- IFINDEX
 * REALM]... Table defaults to main, protocol to boot, type to unicast.
 */
#ifndef CLS_TESTS_TROUTE_H
#define CLS_TESTS_TROUTE_H

#include "sync/kroute.h"

int troute(const char *text, struct kroute *k);

#endif
