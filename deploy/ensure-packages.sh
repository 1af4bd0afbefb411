#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# ensure-packages.sh [--no-recommends] WHO PKG...: install the Debian
# packages not yet installed (as root), or name them and fail; idempotent.
set -e

apt_opts=
if [ "$1" = --no-recommends ]; then
	apt_opts=--no-install-recommends
	shift
fi
who=$1
shift
missing=
for p in "$@"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
		missing="$missing $p"
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" -ne 0 ]; then
	echo "$who: missing packages:$missing (run as root to install)" >&2
	exit 1
fi
echo "$who: installing$missing"
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $apt_opts $missing >/dev/null
