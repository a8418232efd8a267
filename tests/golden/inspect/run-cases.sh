#!/usr/bin/env bash
# Runs the inspector cases of tests/golden/inspect/cases into OUTDIR, one
# NAME.out each (stdout, then stderr, then the exit status), normalised:
# the source tree's path becomes @SRCDIR@.
# usage: run-cases.sh PPROBE WORKLOADS SRCDIR OUTDIR
set -uo pipefail
PPROBE=$1 WORKLOADS=$2 SRCDIR=$3 OUT=$4
export LC_ALL=C
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$OUT"
while read -r name wl args; do
	[[ -z "$name" || "$name" == \#* ]] && continue
	eval "set -- $args"
	{
		"$PPROBE" -x "$WORKLOADS/$wl" "$@" 2>"$OUT/.stderr"
		echo "[exit $?]"
		sed 's/^/stderr: /' "$OUT/.stderr"
	} | sed -e "s|$WORKLOADS|@WORKLOADS@|g" -e "s|$SRCDIR|@SRCDIR@|g" >"$OUT/$name.out"
done <"$here/cases"
rm -f "$OUT/.stderr"
