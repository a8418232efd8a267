#!/usr/bin/env bash
# A real program as a profiling workload (issue 12): writes DIR/Makefile,
# which compiles ~55 of pprobe's own sources with the system gcc at -O2, one
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
	for f in "$src"/symbolize/*.c "$src"/src/*/*.c; do
		o=$(basename "$f" .c).o
		objs="$objs $o"
		printf '%s: %s\n\t$(CC) $(CFLAGS) -c -o $@ $<\n' "$o" "$f"
	done
	echo "all:$objs"
	echo ".DEFAULT_GOAL := all"
} > "$out/Makefile"
