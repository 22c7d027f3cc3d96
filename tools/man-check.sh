#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# make check's man page test: the pages of Documentation/man must not
# drift from what they document.  KTAP-ish lines on stdout ("ok - man
# ..."/"not ok - man ..."), as tools/check.sh tallies them:
#   - each page renders without a warning: groff -man -ww -z (and with
#     -Tutf8, as man renders it), and mandoc -T lint when mandoc is
#     installed;
#   - "make install DESTDIR=<scratch>" installs the collector and every
#     page, man reads each one back (man -l, and by name with -M), and
#     "make uninstall" removes them all;
#   - every command "nanograph help" lists has its page (version and help
#     are described in nanograph.1), nanograph.1 lists every command, and
#     no page is left of a command that is gone;
#   - every option "nanograph help CMD" lists is a .TP tag of the OPTIONS
#     section of nanograph-CMD.1, and every such tag's options are in the
#     help;
#   - nanograph.5's CONTROL FILES are the files of the table of
#     Documentation/control-files.md;
#   - the commands of nanograph.1's and nanograph.5's EXAMPLES are the
#     README's, line for line, and every README line that runs
#     "nanograph" is in some page's EXAMPLES.
#
# Conventions the checks rely on: an option or a file is a .TP tag, the
# line after ".TP", written as text with font escapes
# ("\fB\-s\fR, \fB\-\-sort\fR \fIKEY\fR") or as ".B name"; an example is
# a line between .EX and .EE.
# No "producer | grep -q" under pipefail: grep -q leaves at its first
# match, and a producer still writing dies of SIGPIPE and fails the
# pipeline (a make check once reported a command missing that way):
# here-strings instead.
set -uo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
MAN=$ROOT/Documentation/man
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
rc=0

ok() { echo "ok - man $1"; }
nok() {
	echo "not ok - man $1"
	shift
	[ $# = 0 ] || printf '%s\n' "$@" | sed 's/^/# /'
	rc=1
}

# Roff text to plain text: a leading font macro (.B, .I: its words;
# .BR, .IR, ...: its arguments joined), font and character escapes.
deroff() {
	awk '/^\.(BR|RB|IR|RI|BI|IB) / {
		s = substr($0, 5); o = ""; q = 0
		for (i = 1; i <= length(s); i++) {
			ch = substr(s, i, 1)
			if (ch == "\"") q = !q
			else if (q || ch != " ") o = o ch
		}
		$0 = o
	}
	{ print }' |
	sed -e 's/^\.[BI] //' -e 's/^"\(.*\)"$/\1/' \
		-e 's/\\f[BIRP]//g' -e 's/\\f([A-Z][A-Z]//g' -e 's/\\f\[[^]]*\]//g' \
		-e 's/\\-/-/g' -e 's/\\(aq/'"'"'/g' -e 's/\\(dq/"/g' \
		-e 's/\\(ti/~/g' -e 's/\\(ha/^/g' -e 's/\\[&|%]//g' \
		-e 's/\\[ ~]/ /g' -e 's/\\e/\\/g'
}

# The lines of section @2 (".SH @2" up to the next .SH) of page @1.
section() {
	awk -v want=".SH $2" '
		/^\.SH / { on = ($0 == want); next }
		on' "$1"
}

# The .TP tags of section @2 of page @1, as plain text, one a line.
tags() {
	section "$1" "$2" | awk 'tp { print; tp = 0; next } /^\.T[PQ]/ { tp = 1 }' | deroff
}

# The options (-x, --long) in text on stdin, one a line, sorted.
options() {
	grep -oE '(^|[][ ,|])--?[A-Za-z][A-Za-z0-9-]*' | sed 's/^[][ ,|]//' | sort -u
}

# The example lines (.EX to .EE) of section EXAMPLES of page @1.
examples() {
	section "$1" EXAMPLES | awk '/^\.EE/ { ex = 0 } ex { print } /^\.EX/ { ex = 1 }' | deroff
}

pages=$(for f in "$MAN"/*.[1-9]; do [ ! -f "$f" ] || basename "$f"; done)
[ -n "$pages" ] || { nok "pages: none in Documentation/man"; exit 1; }

# 1. Every page renders without a warning.
mandoc=$(command -v mandoc || true)
for p in $pages; do
	out=$( { groff -man -ww -z "$MAN/$p"; groff -man -Tutf8 -ww -z "$MAN/$p"; } 2>&1)
	how="groff -ww"
	if [ -n "$mandoc" ]; then
		out+=$("$mandoc" -T lint -W warning "$MAN/$p" 2>&1)
		how+=", mandoc -T lint"
	fi
	if [ -z "$out" ]; then
		ok "$p renders without warnings ($how)"
	else
		nok "$p renders with warnings ($how)" "$out"
	fi
done

# 2. make install and uninstall, into a scratch DESTDIR.
dest=$tmp/dest
prefix=/usr/local
bin=""
if ! log=$(make -j1 -s --no-print-directory -C "$ROOT" install DESTDIR="$dest" 2>&1); then
	nok "make install DESTDIR=... failed" "$(echo "$log" | tail -n 20)"
else
	missing=()
	[ -x "$dest$prefix/bin/nanograph" ] && bin=$dest$prefix/bin/nanograph ||
		missing+=("$prefix/bin/nanograph")
	for p in $pages; do
		f=$dest$prefix/share/man/man${p##*.}/$p
		if [ ! -f "$f" ]; then
			missing+=("$f")
		elif grep -q '@VERSION@' "$f"; then
			missing+=("$f: @VERSION@ not filled in")
		elif ! grep -q '^NAME' <<<"$(MANPAGER=cat MANWIDTH=80 man -l "$f" 2>&1)"; then
			missing+=("$f: man -l does not render it")
		else
			name=${p%.*}
			w=$(env MANPAGER=cat man -M "$dest$prefix/share/man" -w "${p##*.}" "$name" 2>&1)
			[ "$w" = "$f" ] || missing+=("man -M ... -w ${p##*.} $name: '$w', not $f")
		fi
	done
	if [ ${#missing[@]} = 0 ]; then
		ok "make install puts the collector and $(echo "$pages" | wc -w) pages under DESTDIR$prefix, man finds and reads them"
	else
		nok "make install: not installed or unreadable" "${missing[@]}"
	fi
	make -j1 -s --no-print-directory -C "$ROOT" uninstall DESTDIR="$dest" >/dev/null 2>&1
	left=$(find "$dest" -type f)
	if [ -z "$left" ]; then
		ok "make uninstall removes them all"
	else
		nok "make uninstall leaves files" "$left"
	fi
	# The installed binary is removed now: keep a copy for the help.
	cp "$ROOT/userspace/nanograph" "$tmp/nanograph" 2>/dev/null && bin=$tmp/nanograph
fi
[ -n "$bin" ] || [ ! -x "$ROOT/userspace/nanograph" ] || bin=$ROOT/userspace/nanograph
if [ -z "$bin" ]; then
	nok "no collector to take the help from (make -C userspace failed?)"
	exit 1
fi

# 3. One page per command, every command in nanograph.1.
cmds=$("$bin" help | awk '/^commands:/ { on = 1; next } on && /^  [a-z]/ { print $1 }')
[ -n "$cmds" ] || { nok "'nanograph help' lists no commands"; exit 1; }
listed=$(tags "$MAN/nanograph.1" COMMANDS)
for c in $cmds; do
	case $c in
	version | help)
		if grep -qE "^$c( |$)" <<<"$listed"; then
			ok "nanograph.1 describes '$c'"
		else
			nok "nanograph.1 has no .TP '$c' in COMMANDS"
		fi
		;;
	*)
		if [ ! -f "$MAN/nanograph-$c.1" ]; then
			nok "nanograph-$c.1 is missing: 'nanograph help' lists $c"
		elif ! grep -q "^nanograph-$c(1)" <<<"$listed"; then
			nok "nanograph.1 does not list nanograph-$c(1) in COMMANDS"
		else
			ok "nanograph-$c.1 exists and nanograph.1 lists it"
		fi
		;;
	esac
done
for p in $pages; do
	case $p in nanograph-*.1) ;; *) continue ;; esac
	c=${p#nanograph-}
	c=${c%.1}
	grep -qx "$c" <<<"$cmds" || nok "$p: 'nanograph help' has no command $c"
done

# 4. The options of each command's help and of its page's OPTIONS.
for c in $cmds; do
	p=nanograph-$c.1
	[ -f "$MAN/$p" ] || continue
	"$bin" help "$c" | grep -E '^ {2,7}-' | sed -e 's/^ *//' -e 's/  .*//' |
		options >"$tmp/help"
	tags "$MAN/$p" OPTIONS | options >"$tmp/page"
	only_help=$(comm -23 "$tmp/help" "$tmp/page" | tr '\n' ' ')
	only_page=$(comm -13 "$tmp/help" "$tmp/page" | tr '\n' ' ')
	n=$(wc -l <"$tmp/help")
	if [ -z "$only_help$only_page" ]; then
		ok "$p OPTIONS are those of 'nanograph help $c' ($n)"
	else
		nok "$p OPTIONS differ from 'nanograph help $c'" \
			${only_help:+"in the help, not the page: $only_help"} \
			${only_page:+"in the page, not the help: $only_page"}
	fi
done
# nanograph.1's own options work.
bad=""
for o in $(tags "$MAN/nanograph.1" OPTIONS | options); do
	"$bin" "$o" >/dev/null 2>&1 || bad+="$o "
done
if [ -z "$bad" ]; then
	ok "nanograph.1 OPTIONS are taken by the collector"
else
	nok "nanograph.1 OPTIONS the collector refuses: $bad"
fi

# 5. nanograph.5 and the control files' table.
if [ -f "$MAN/nanograph.5" ]; then
	awk '/^\| file \| mode \|/ { on = 1; next } on && !/^\|/ { exit }
	     on && /^\| `/ { split($0, f, "`"); print f[2] }' \
		"$ROOT/Documentation/control-files.md" | sort >"$tmp/doc"
	tags "$MAN/nanograph.5" "CONTROL FILES" | sort >"$tmp/page"
	only_doc=$(comm -23 "$tmp/doc" "$tmp/page" | tr '\n' ' ')
	only_page=$(comm -13 "$tmp/doc" "$tmp/page" | tr '\n' ' ')
	if [ ! -s "$tmp/doc" ]; then
		nok "no control files in Documentation/control-files.md's table"
	elif [ -z "$only_doc$only_page" ]; then
		ok "nanograph.5 CONTROL FILES are control-files.md's ($(wc -l <"$tmp/doc"))"
	else
		nok "nanograph.5 CONTROL FILES differ from Documentation/control-files.md" \
			${only_doc:+"in control-files.md, not the page: $only_doc"} \
			${only_page:+"in the page, not control-files.md: $only_page"}
	fi
fi

# 6. The README's examples are the pages'.
for p in nanograph.1 nanograph.5; do
	[ -f "$MAN/$p" ] || continue
	miss=()
	while IFS= read -r l; do
		[ -n "$l" ] && ! grep -qxF -- "$l" "$ROOT/README.md" && miss+=("$l")
	done < <(examples "$MAN/$p")
	if [ ${#miss[@]} = 0 ]; then
		ok "$p EXAMPLES are in README.md"
	else
		nok "$p EXAMPLES not in README.md" "${miss[@]}"
	fi
done
for p in $pages; do examples "$MAN/$p"; done >"$tmp/examples"
miss=()
while IFS= read -r l; do
	grep -qxF -- "$l" "$tmp/examples" || miss+=("$l")
done < <(awk '/^```/ { sh = !sh; next } sh' "$ROOT/README.md" | grep -E '^(sudo )?nanograph ')
if [ ${#miss[@]} = 0 ]; then
	ok "README.md's nanograph commands are in the pages' EXAMPLES"
else
	nok "README.md's nanograph commands not in any page's EXAMPLES" "${miss[@]}"
fi
exit $rc
