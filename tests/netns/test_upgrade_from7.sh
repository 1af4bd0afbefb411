#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# An upgrade from layout 7's classifier under traffic with all its 4096
# class indexes in use, through every crash point, and after each of its
# own changes killed half way (tests/netns/upgrade_landed.sh).
FROM=7
FILL_CLASSES=4096
# shellcheck source=tests/netns/upgrade_landed.sh
. "$(dirname "$0")/upgrade_landed.sh"
