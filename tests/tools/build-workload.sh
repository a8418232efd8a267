#!/usr/bin/env bash
# A real program as a profiling workload (issue 12): writes DIR/Makefile,
# which compiles ~60 of pprobe's own sources (those that need no generated
# header) with the system gcc at -O2, one
# cc1 and one as per file (the gcc driver forks and execs them; each lives a
# fraction of a second). The headers come from the -dev packages building
# pprobe needs. Used by tests/e2e/record_build.sh and scripts/bench/unwind.sh.
#   tests/tools/build-workload.sh SRCDIR DIR      then: make -C DIR -s -j2
set -eu
src=$(cd "$1" && pwd)
out=$2
mkdir -p "$out"
{
	echo "CFLAGS = -O2 -g -w $(pkg-config --cflags libdw libtraceevent libtracefs 2>/dev/null)" \
		"-I$src/include -I$src/symbolize -I$src/src/util -I$src/src/engine -I$src/src/probe -I$src/src/output"
	objs=""
	dirs="$src/include $src/symbolize $src/src/util $src/src/engine $src/src/probe $src/src/output"
	for f in "$src"/symbolize/*.c "$src"/src/*/*.c; do
		# a source that includes a header the build generates (not in the
		# tree: syscall_names.h) is left out: the workload is the sources
		missing=
		for h in $(sed -n 's/^#include "\([^"]*\)".*/\1/p' "$f"); do
			found=
			for d in "$(dirname "$f")" $dirs; do [ -e "$d/$h" ] && found=1 && break; done
			[ -n "$found" ] || missing=1
		done
		[ -z "$missing" ] || continue
		o=$(basename "$f" .c).o
		objs="$objs $o"
		printf '%s: %s\n\t$(CC) $(CFLAGS) -c -o $@ $<\n' "$o" "$f"
	done
	echo "all:$objs"
	echo ".DEFAULT_GOAL := all"
} > "$out/Makefile"
