# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2034,SC2153,SC2154 # variables shared by the pieces
#
# tools/vm/apt.sh - a private apt state per Debian suite family, and downloads.
#
# apt_use FAMILY [ARCH] switches to the family's package lists under
# $CACHE/apt*/ (made and refreshed on first use; the host's apt state is
# never touched); apt_version, apt_suite_version, apt_candidate look
# versions up there, apt_fetch downloads one .deb into $CACHE/debs/ once.
#
# Sourced by tools/vmtest.sh (the front: settings, options, the commands'
# order); shares its variables and die/log.

APTDIR=$CACHE/apt
APT_FAMILY=""

# Find the Debian archive the host already uses, so that no mirror is
# hard-coded here.  deb822 .sources files first, then one-line lists.
host_mirror() {
	local pattern=$1 uri
	uri=$( (cat /etc/apt/sources.list.d/*.sources 2>/dev/null |
		awk '/^URIs:/ { for (i = 2; i <= NF; i++) print $i }'
		cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null |
		awk '$1 == "deb" { for (i = 2; i <= NF; i++) if ($i ~ /^[a-z+]+:\/\//) { print $i; break } }'
		) | grep -E "$pattern" | head -n 1)
	echo "${uri%/}"
}

# Write a private apt configuration in APTDIR for the suites of FAMILY and
# the architectures ARCHS.  The host's apt.conf.d is still read (proxies,
# validity settings), but sources, lists, cache and dpkg status are ours.
apt_setup() {
	local family=$1 archs=$2 mirror security keyring suites
	suites=$(family_suites "$family")
	mkdir -p "$APTDIR"/{state/lists/partial,cache/archives/partial,sources.list.d,preferences.d}
	touch "$APTDIR/status"
	mirror=${NANOGRAPH_MIRROR:-$(host_mirror '/debian/?$')}
	security=${NANOGRAPH_SECURITY_MIRROR:-$(host_mirror '/debian-security/?$')}
	[ -n "$mirror" ] || die "no Debian archive in the host's apt sources; set NANOGRAPH_MIRROR"
	keyring=/usr/share/keyrings/debian-archive-keyring.gpg
	[ -r "$keyring" ] || die "$keyring missing: apt-get install debian-archive-keyring"
	{
		local s opts="[arch=${archs// /,} signed-by=$keyring]"
		for s in $suites; do
			case "$s" in
			*-security) [ -z "$security" ] || echo "deb $opts $security $s main" ;;
			*) echo "deb $opts $mirror $s main" ;;
			esac
		done
	} >"$APTDIR/sources.list.new.$$"
	mv "$APTDIR/sources.list.new.$$" "$APTDIR/sources.list"
	cat >"$APTDIR/apt.conf" <<EOF
Dir::Etc::sourcelist "$APTDIR/sources.list";
Dir::Etc::sourceparts "$APTDIR/sources.list.d";
Dir::Etc::preferences "$APTDIR/preferences";
Dir::Etc::preferencesparts "$APTDIR/preferences.d";
Dir::State "$APTDIR/state";
Dir::Cache "$APTDIR/cache";
Dir::State::status "$APTDIR/status";
APT::Architecture "${archs%% *}";
APT::Architectures { $(for a in $archs; do printf '"%s"; ' "$a"; done)};
Acquire::Languages "none";
APT::Sandbox::User "root";
EOF
	export APT_CONFIG=$APTDIR/apt.conf
}

# Switch to the private apt state of FAMILY, made and refreshed on first
# use.  bookworm (the guest userland and the first two lines) has one state
# for all three architectures, as ever; trixie and sid have one per
# architecture ARCH: a mirror serving one architecture's index mid-sync
# makes apt drop the whole suite's lists, the other architectures' too.
apt_use() {
	local family=$1 arch=${2:-} key
	key=$family${arch:+-$arch}
	[ "$APT_FAMILY" = "$key" ] && return 0
	if [ "$family" = bookworm ]; then
		APTDIR=$CACHE/apt
		apt_setup bookworm "amd64 arm64 armhf"
	else
		APTDIR=$CACHE/apt-$key
		apt_setup "$family" "$arch"
	fi
	APT_FAMILY=$key
	apt_cache_opts
	apt_update
}

# apt with the binary caches kept: some hosts' apt.conf.d (Docker images)
# empty Dir::Cache::pkgcache, which makes every apt-cache call rebuild it
# from all lists; command-line options win over configuration files.
APT_CACHE_OPTS=()
apt_cache_opts() {
	APT_CACHE_OPTS=(-o "Dir::Cache::pkgcache=$APTDIR/cache/pkgcache.bin"
		-o "Dir::Cache::srcpkgcache=$APTDIR/cache/srcpkgcache.bin")
}
apt_get() { apt-get "${APT_CACHE_OPTS[@]}" "$@"; }
apt_cache() { apt-cache "${APT_CACHE_OPTS[@]}" "$@"; }

# Refresh the lists when they are missing, old, or -u was given.  A suite
# or architecture failing while a mirror syncs is tolerated: what it had
# before is used.
apt_update() {
	local stamp=$APTDIR/updated now age
	[ "$OFFLINE" = 1 ] && return 0
	now=$(date +%s)
	if [ -f "$stamp" ] && [ "$FORCE_UPDATE" = 0 ]; then
		age=$((now - $(stat -c %Y "$stamp")))
		[ "$age" -lt "$LISTS_MAX_AGE" ] && return 0
	fi
	log "refreshing package lists"
	if ! apt_get -q update >"$APTDIR/update.log" 2>&1; then
		log "apt-get update reported errors (see $APTDIR/update.log); continuing"
	fi
	touch "$stamp"
}

# Highest version of PKG (given as name:arch) whose version starts with
# PREFIX, or empty.
apt_version() {
	local pkg=$1 prefix=$2
	apt_cache show "$pkg" 2>/dev/null |
		awk '/^Version:/ { print $2 }' |
		grep -E "^${prefix//./\\.}" |
		sort -V | tail -n 1
}

# Highest version of PKG published in one of the suites DISTS, or empty.
apt_suite_version() {
	local pkg=$1 dists=$2
	apt_cache madison "$pkg" 2>/dev/null |
		awk -F'|' -v dists=" $dists " '{
			n = split($3, w, " ")
			for (i = 1; i <= n; i++)
				if (w[i] ~ /\/main$/) { sub(/\/main$/, "", w[i]); break }
			gsub(/ /, "", $2)
			if (index(dists, " " w[i] " ")) print $2
		}' | sort -V | tail -n 1
}

# Download PKG:ARCH=VERSION into the shared .deb cache unless present, and
# print the path of the .deb.
apt_fetch() {
	local pkg=$1 arch=$2 ver=$3 file
	mkdir -p "$CACHE/debs"
	# Debian file names encode the epoch's colon as %3a.
	file=$CACHE/debs/${pkg}_${ver/:/%3a}_$arch.deb
	# "pkg:ARCH" also names an Architecture: all package (libdrm-common),
	# whose file says _all.
	[ -s "$file" ] || [ ! -s "${file%_"$arch".deb}_all.deb" ] || file=${file%_"$arch".deb}_all.deb
	if [ ! -s "$file" ]; then
		[ "$OFFLINE" = 1 ] && die "offline and $pkg:$arch=$ver is not cached"
		(cd "$CACHE/debs" && apt_get -q download "$pkg:$arch=$ver" >/dev/null) ||
			die "could not download $pkg:$arch=$ver"
		[ -s "$file" ] || [ ! -s "${file%_"$arch".deb}_all.deb" ] || file=${file%_"$arch".deb}_all.deb
		[ -s "$file" ] || die "downloaded $pkg but $file is missing"
	fi
	echo "$file"
}

# Candidate version of a binary package for one architecture.
apt_candidate() {
	apt_cache policy "$1" 2>/dev/null | awk '/Candidate:/ { print $2; exit }'
}
