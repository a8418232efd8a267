#!/usr/bin/env bash
# The layering, checked: each #include in a room may name only that room and
# the rooms below it (docs/DESIGN.md, "Layout"):
#
#   src/cmds -> src/output -> src/engine -> src/probe -> symbolize
#   flamegraph stands alone (src/output and src/cmds use it)
#   src/util may be used by every room of src/ and uses nothing of pprobe
#
# The build links each room only to the rooms below it, but a header needs no
# link: this reads every #include "..." and #include <pprobe/...> of every
# source file in the rooms, resolves it the way the compiler would (the
# including file's folder, include/, the rooms' folders) and prints one line
# per include from a room above or beside, as FILE:LINE: what is wrong.
# tests/ may include anything and is not read.
#
# Usage: tests/tools/check-layers.sh [TOP]   (TOP: the source tree, default
# this script's ../..). Exit 0: clean; 1: bad includes, listed on stderr.
set -euo pipefail
top=$(cd "${1:-$(dirname "$0")/../..}" && pwd)
cd "$top"

rooms=(src/cmds src/output src/engine src/probe src/util symbolize flamegraph)
declare -A may=(
	[src/cmds]="src/output src/engine src/probe src/util symbolize flamegraph"
	[src/output]="src/engine src/probe src/util symbolize flamegraph"
	[src/engine]="src/probe src/util symbolize"
	[src/probe]="src/util symbolize"
	[src/util]=""
	[symbolize]=""
	[flamegraph]=""
)
# The public headers in include/pprobe/ and the room that implements each.
declare -A owner=(
	[flamegraph.h]=flamegraph
	[maps.h]=symbolize
	[objcache.h]=symbolize
	[symbolize.h]=symbolize
	[unwind.h]=symbolize
	[sym_table.h]=symbolize
	[debuginfo.h]=symbolize
	[safe_open.h]=symbolize
	[lazylib.h]=symbolize
	[probe_finder.h]=src/probe
	[usdt.h]=src/probe
)

bad=0
complain() {
	echo "$*" >&2
	bad=$((bad + 1))
}

for h in include/pprobe/*.h; do
	b=${h##*/}
	[[ -n ${owner[$b]:-} ]] ||
		complain "$h: public header with no room: add it to the owner table in tests/tools/check-layers.sh"
done

# room_of PATH: the room a repository path belongs to, or "" outside them.
room_of() {
	local p=$1 r
	if [[ $p == include/pprobe/* ]]; then
		echo "${owner[${p#include/pprobe/}]:-include/pprobe}"
		return
	fi
	for r in "${rooms[@]}"; do
		if [[ $p == "$r"/* ]]; then
			echo "$r"
			return
		fi
	done
	echo ""
}

# resolve FILE NAME QUOTED: the repository path(s) #include NAME in FILE can
# mean, one per line; nothing for a header outside the tree (<stdio.h>).
resolve() {
	local file=$1 name=$2 quoted=$3 r p
	if [[ $quoted == 1 && -f $(dirname "$file")/$name ]]; then
		realpath -m --relative-to=. "$(dirname "$file")/$name"
		return
	fi
	if [[ -f include/$name ]]; then
		realpath -m --relative-to=. "include/$name"
		return
	fi
	[[ $quoted == 1 ]] || return 0
	for r in "${rooms[@]}"; do
		[[ -f $r/$name ]] && echo "$r/$name"
	done
	return 0
}

checked=0
while IFS= read -r file; do
	room=$(room_of "$file")
	while IFS= read -r hit; do
		line=${hit%%:*}
		text=${hit#*:}
		if [[ $text =~ ^[[:space:]]*#[[:space:]]*include[[:space:]]*\"([^\"]+)\" ]]; then
			name=${BASH_REMATCH[1]} quoted=1 shown="\"${BASH_REMATCH[1]}\""
		elif [[ $text =~ ^[[:space:]]*#[[:space:]]*include[[:space:]]*\<(pprobe/[^\>]+)\> ]]; then
			name=${BASH_REMATCH[1]} quoted=0 shown="<${BASH_REMATCH[1]}>"
		else
			continue
		fi
		checked=$((checked + 1))
		targets=$(resolve "$file" "$name" "$quoted")
		[[ -n $targets ]] || continue
		ok=0 what=""
		while IFS= read -r t; do
			tr=$(room_of "$t")
			if [[ $tr == "$room" || " ${may[$room]} " == *" $tr "* ]]; then
				ok=1
			fi
			what+="${what:+ or }$t (${tr:-outside the rooms})"
		done <<<"$targets"
		if [[ $ok == 0 ]]; then
			allowed="only itself"
			[[ -z ${may[$room]} ]] || allowed="itself and ${may[$room]}"
			complain "$file:$line: #include $shown is $what; $room may use $allowed"
		fi
	done < <(grep -n '^[[:space:]]*#[[:space:]]*include' "$file" || true)
done < <(for r in "${rooms[@]}"; do
		find "$r" -type f \( -name '*.c' -o -name '*.h' -o -name '*.cc' -o -name '*.inc' \)
	done | LC_ALL=C sort)

if ((bad)); then
	echo "check-layers: $bad bad include(s) of $checked; see docs/DESIGN.md, \"Layout\"" >&2
	exit 1
fi
echo "check-layers: $checked includes of pprobe headers, none from a room above or beside"
