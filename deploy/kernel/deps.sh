#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Debian packages check.sh needs (make kernel-check); idempotent.
set -e

pkgs="build-essential bc bison flex libssl-dev libelf-dev git perl
	gcc-aarch64-linux-gnu linux-source-6.1"

missing=
for p in $pkgs; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
		missing="$missing $p"
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" -ne 0 ]; then
	echo "kernel deps: missing packages:$missing (run as root to install)" >&2
	exit 1
fi
echo "kernel deps: installing$missing"
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $missing >/dev/null
