#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The .deb on a minimal Debian 12 (tests/pkg/, run by `make deb-check`
# after `make deb`): a debootstrap'd minbase root (cached in BUILD_DIR),
# where apt installs the package with the dependencies it declares and
# nothing else; then, in a private network namespace with a private bpffs
# at /sys/fs/bpf, the installed command runs, an upgrade keeps the pinned
# state and the attachment, and removal purges them.
# Prints "ok NAME" / "FAIL NAME: why", then the counts.
#
#   tests/pkg/deb_root.sh BUILD_DIR     (after deploy/deb.sh BUILD_DIR/deb)
set -u
# shellcheck source=tests/pkg/lib.sh
. "$(dirname "$0")/lib.sh"

top=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "$1" && pwd)
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
cache=$build/debroot-bookworm-minbase.tar
version=$(cd "$top" && dpkg-parsechangelog -S Version)
deb=$(ls "$build"/deb/classifier_"$version"_*.deb 2>/dev/null)
work=$(mktemp -d /tmp/cls-debroot.XXXXXX)
root=$work/root
trap 'rm -rf "$work"' EXIT


if [ ! -f "$deb" ]; then
	echo "deb_root: no $build/deb/classifier_${version}_*.deb (make deb)" >&2
	exit 2
fi

if [ ! -f "$cache" ]; then
	echo "# debootstrap bookworm minbase from $mirror into $cache"
	debootstrap --variant=minbase bookworm "$work/boot" "$mirror" \
		>"$work/debootstrap.log" 2>&1 || {
		tail -n 5 "$work/debootstrap.log" >&2
		exit 1
	}
	tar -C "$work/boot" -cf "$cache.tmp" . && mv "$cache.tmp" "$cache"
	rm -rf "${work:?}/boot"
fi
mkdir "$root"
tar -C "$root" -xf "$cache"
cp /etc/resolv.conf "$root/etc/resolv.conf"
cp "$deb" "$root/tmp/"
pkg=/tmp/${deb##*/}

# in_root [UNSHARE_OPTS] -- CMD...: CMD in the root, in a mount namespace
# of its own (so every mount goes away with it) with /proc, /sys and a
# private bpffs on /sys/fs/bpf
in_root()
{
	local opts=()
	while [ "$1" != -- ]; do
		opts+=("$1")
		shift
	done
	shift
	unshare --mount --fork "${opts[@]}" sh -c '
		r=$1; shift
		mount -t proc proc "$r/proc" &&
		mount --bind -o ro /sys "$r/sys" &&
		mount -t bpf bpf "$r/sys/fs/bpf" &&
		exec chroot "$r" "$@"' sh "$root" "$@"
}

# apt resolves the package's Depends from Debian (network, host netns)
apt_install()
{
	in_root -- sh -c 'apt-get update -qq &&
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
			--no-install-recommends "$1"' sh "$pkg" >"$work/apt.log" 2>&1 ||
		{ cat "$work/apt.log"; return 1; }
}

files_and_units()
{
	local f
	for f in /usr/sbin/classifier /lib/systemd/system/classifier.service \
		/lib/systemd/system/classifier-sync.service \
		/lib/systemd/system/classifier-exporter.service \
		/usr/share/man/man8/classifier.8.gz \
		/usr/share/bash-completion/completions/classifier \
		/usr/share/doc/classifier/examples/default.classifier \
		/usr/lib/sysusers.d/classifier.conf \
		/usr/lib/tmpfiles.d/classifier.conf; do
		[ -e "$root$f" ] || { echo "missing $f"; return 1; }
	done
	# the readers' group, made by postinst (systemd-sysusers)
	grep -q '^classifier:' "$root/etc/group" ||
		{ echo "no group classifier after install"; return 1; }
	grep -q '^ExecStart=/usr/sbin/classifier ' \
		"$root/lib/systemd/system/classifier.service" ||
		{ echo "classifier.service does not run /usr/sbin/classifier"; return 1; }
	# enabled by postinst: classifier and classifier-sync, not the exporter
	local wants=$root/etc/systemd/system/multi-user.target.wants
	[ -L "$wants/classifier.service" ] &&
		[ -L "$wants/classifier-sync.service" ] &&
		[ ! -e "$wants/classifier-exporter.service" ] ||
		{ ls -l "$wants" 2>&1; return 1; }
	# the package ships no configuration: the units wait for the admin's
	[ ! -e "$root/etc/default/classifier" ] ||
		{ echo "/etc/default/classifier shipped"; return 1; }
}

version_and_help()
{
	local v
	v=$(in_root -- classifier --version) || return 1
	case $v in
	"classifier $version"*) ;;
	*) echo "--version says '$v', the package is $version"; return 1 ;;
	esac
	in_root -- classifier help | grep -q '^Usage: classifier' ||
		{ echo "classifier help printed no usage"; return 1; }
}

# One namespace for the lifecycle: pins on the private bpffs at the
# default /sys/fs/bpf/classifier, attached to lo of a private netns (the
# host's jq reads the installed command's JSON, as tests/netns/lib.sh does).
lifecycle()
{
	unshare --mount --net --fork sh -ec '
		r=$1 pkg=$2
		mount -t proc proc "$r/proc"
		mount --bind -o ro /sys "$r/sys"
		mount -t bpf bpf "$r/sys/fs/bpf"
		cr() { chroot "$r" "$@"; }
		# the id of the program attached to lo, from the command
		prog_on_lo() {
			cr classifier -j status |
				jq -e ".attached[] | select(.dev == \"lo\") | .prog_id"
		}
		cr classifier class add 1:10 name web
		cr classifier route add 10.0.0.0/8 class web
		cr classifier attach dev lo
		prog=$(prog_on_lo) || { echo "not attached after attach"; exit 1; }
		# upgrade (the same version again: prerm upgrade, postinst
		# configure): state and attachment stay
		cr dpkg -i "$pkg" >/dev/null
		cr classifier lookup 10.1.2.3 | grep -q "class 1:10" ||
			{ echo "route gone after upgrade"; exit 1; }
		[ "$(prog_on_lo)" = "$prog" ] ||
			{ echo "the upgrade changed the attachment"; exit 1; }
		# removal purges
		cr dpkg -r classifier >/dev/null
		[ ! -e "$r/sys/fs/bpf/classifier" ] ||
			{ echo "pins left after removal"; exit 1; }
		# links are global: look for one running that program
		! bpftool -j link show |
			jq -e ".[] | select(.prog_id == $prog)" >/dev/null ||
			{ echo "still attached after removal"; exit 1; }
		[ ! -e "$r/usr/sbin/classifier" ] || { echo "binary left"; exit 1; }
		cr dpkg -P classifier >/dev/null
		! cr dpkg-query -W classifier 2>/dev/null ||
			{ echo "still known to dpkg after purge"; exit 1; }
	' sh "$root" "$pkg"
}

check apt_install apt_install
check files_and_units files_and_units
check version_and_help version_and_help
check lifecycle lifecycle
summary
