#!/bin/bash
# Symbolization cost side by side, same addresses, same run: pprobe's
# symbolizer (build/tests/workloads/symbolize_driver), eu-addr2line --pid and
# binutils' addr2line, all with function names, inline frames and file:line,
# on every 16th byte of every libc function (libc6-dbg's DWARF) in a live
# process. Prints CPU seconds (user+sys, from /usr/bin/time) and µs/address.
#   scripts/bench/symbolize.sh [BUILD_DIR]    (default: build)
set -u
BUILD=${1:-build}
WL=$BUILD/tests/workloads
SRC=$(cd "$(dirname "$0")/../.." && pwd)
TMP=$(mktemp -d)
trap 'kill "$pid" 2>/dev/null; rm -rf "$TMP"' EXIT
[ -x /usr/bin/time ] || { echo "/usr/bin/time missing (apt-get install time)"; exit 77; }

"$WL/sym_pie" > "$TMP/ready" &
pid=$!
sleep 0.3
LIBC=$(awk '/libc.so.6/ { print $6; exit }' /proc/$pid/maps)
ID=$(readelf -n "$LIBC" | awk '/Build ID/ { print $3 }')
DBG=/usr/lib/debug/.build-id/${ID:0:2}/${ID:2}.debug
[ -r "$DBG" ] || { echo "libc6-dbg missing"; exit 77; }
perl "$SRC/tests/e2e/symbolize_lib.pl" addrs "$pid" "$LIBC" "$LIBC" "$DBG" 16 | sort -u > "$TMP/addrs"
N=$(wc -l < "$TMP/addrs")
BASE=$(awk -v l="$LIBC" '$6 == l && $3 == "00000000" { split($1, a, "-"); print a[1]; exit }' /proc/$pid/maps)
while read -r a; do printf '%x\n' $((0x$a - 0x$BASE)); done < "$TMP/addrs" > "$TMP/vaddrs"

run() { # NAME CMD...: time a command reading addresses from stdin
	local name=$1 in=$2; shift 2
	/usr/bin/time -f '%U %S' -o "$TMP/t" "$@" < "$in" > "$TMP/out.$name" 2>/dev/null
	awk -v n="$N" -v name="$name" '{ c = $1 + $2; printf "%-26s %8.2f %10.1f\n", name, c, c * 1e6 / n }' "$TMP/t"
}
echo "libc: $N addresses (every 16th byte of every function), names + inlines + file:line"
printf '%-26s %8s %10s\n' tool cpu_s us/addr
run "pprobe symbolizer" "$TMP/addrs" "$WL/symbolize_driver" -l -p "$pid" -
sed 's/^/0x/' "$TMP/addrs" > "$TMP/addrs0x"
run "eu-addr2line --pid -f -i" "$TMP/addrs0x" eu-addr2line -a -f -i --pid="$pid"
run "addr2line -f -i" "$TMP/vaddrs" addr2line -a -f -i -e "$DBG"
