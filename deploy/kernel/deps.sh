#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Debian packages check.sh needs (make kernel-check); idempotent.
set -e

pkgs="build-essential bc bison flex libssl-dev libelf-dev git perl
	gcc-aarch64-linux-gnu linux-source-6.1"

exec "$(dirname "$0")/../ensure-packages.sh" "kernel deps" $pkgs
