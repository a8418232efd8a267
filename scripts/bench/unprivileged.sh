#!/usr/bin/env bash
# pprobe record -g and perf record --call-graph dwarf as an ordinary user
# (runuser -u nobody), at the kernel.perf_event_paranoid found, on real
# programs: a Go program (goroutines, nested calls), Debian's python3, node
# --perf-basic-prof, a clang++ -O2 compile, three gcc -O2 compiles at once.
# Prints, per workload: the workload's CPU alone, pprobe's samples, losses,
# complete user stacks and its own CPU (its summary), perf's samples and its
# own CPU as (perf record's total - the workload alone): on a busy machine
# that difference is noise, pprobe's own figure is not.
#   scripts/bench/unprivileged.sh [BUILD]      (root: it runs the rest as nobody)
set -uo pipefail
cd "$(dirname "$0")/../.."
SRC=$PWD
P=$PWD/${1:-build}/pprobe
[ "$(id -u)" -eq 0 ] || { echo "unprivileged.sh: run as root (it runs the workloads as nobody)" >&2; exit 2; }
for c in go node clang++ gcc perf runuser; do
	command -v $c >/dev/null || { echo "unprivileged.sh: $c not found" >&2; exit 2; }
done
D=$(mktemp -d /tmp/pprobe-unpriv.XXXXXX)
trap 'rm -rf "$D"' EXIT
mkdir "$D/go"
cat >"$D/go/main.go" <<'EOF'
package main

import (
	"fmt"
	"sync"
)

//go:noinline
func leaf(n int) int { s := 0; for i := 0; i < n; i++ { s += i * i % 7 }; return s }

//go:noinline
func mid(d, n int) int { if d == 0 { return leaf(n) }; return mid(d-1, n) + 1 }

func main() {
	var wg sync.WaitGroup
	var mu sync.Mutex
	total := 0
	for g := 0; g < 2; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := 0
			for k := 0; k < 60000; k++ { s += mid(20, 20000) }
			mu.Lock(); total += s; mu.Unlock()
		}()
	}
	wg.Wait()
	fmt.Println(total)
}
EOF
(cd "$D/go" && GOCACHE=$D/gocache go mod init burn >/dev/null 2>&1 && GOCACHE=$D/gocache go build -o burn .) || exit 1
printf 'def fib(n): return n if n < 2 else fib(n-1) + fib(n-2)\nfor _ in range(3): fib(27)\n' >"$D/py.py"
cat >"$D/t.cpp" <<'EOF'
#include <algorithm>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <vector>
std::string f(int n) { std::ostringstream o; std::map<std::string, std::vector<int>> m;
	for (int i = 0; i < n; i++) m[std::to_string(i)].push_back(i);
	for (auto &kv : m) o << kv.first; std::regex r("a+b"); return o.str(); }
EOF
cp "$SRC/symbolize/unwind.c" "$D/"
chmod -R a+rwX "$D"
chmod o+x "$(dirname "$D")"

declare -A W=(
	[go]="$D/go/burn"
	[python]="/usr/bin/python3 $D/py.py"
	[node]="node --perf-basic-prof -e 'let s = 0; for (let i = 0; i < 3e8; i++) s += i % 7; console.log(s)'"
	[clang]="clang++ -O2 -c $D/t.cpp -o $D/t.o"
	[gcc-x3]="sh -c 'for i in 1 2 3; do gcc -O2 -c $D/unwind.c -I$SRC/symbolize -I$SRC/include -o $D/u\$i.o & done; wait'"
)
echo "kernel.perf_event_paranoid $(cat /proc/sys/kernel/perf_event_paranoid), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg); as nobody, 999 Hz"
printf '%-8s %8s | %8s %5s %9s %10s %9s | %8s %10s\n' workload alone samples lost complete "pprobe CPU" "us/sample" samples "perf CPU"
for k in go python node clang gcc-x3; do
	w=${W[$k]}
	/usr/bin/time -o "$D/t" -f "%U %S" runuser -u nobody -- sh -c "$w" >/dev/null 2>&1
	alone=$(awk '{ print $1 + $2 }' "$D/t")
	(cd "$D" && runuser -u nobody -- env PPROBE_CACHE_DIR= "$P" record -g -o "$D/$k.folded" -- sh -c "$w" >/dev/null 2>"$D/$k.err")
	cpu=$(sed -nE 's/.*profiler CPU ([0-9.]+) s.*/\1/p' "$D/$k.err")
	read -r n lost < <(sed -nE 's/^pprobe record: [0-9.]+ s, ([0-9]+) samples, ([0-9]+) lost records.*/\1 \2/p' "$D/$k.err")
	comp=$(sed -nE 's/.*unwinding: [0-9]+ user stacks, ([0-9.]+)% complete.*/\1%/p' "$D/$k.err")
	(cd "$D" && /usr/bin/time -o "$D/t" -f "%U %S" runuser -u nobody -- perf record -q --call-graph dwarf -F 999 \
		-o "$D/$k.data" -- sh -c "$w" >/dev/null 2>&1)
	perf=$(awk -v a="$alone" '{ printf "%.2f", $1 + $2 - a }' "$D/t")
	pn=$(runuser -u nobody -- perf report -i "$D/$k.data" --stdio --header-only 2>/dev/null |
		sed -nE 's/^# (sample|nr_samples).*: *([0-9]+).*/\2/p' | head -1)
	[ -n "$pn" ] || pn=$(runuser -u nobody -- perf script -i "$D/$k.data" -F period 2>/dev/null | wc -l)
	printf '%-8s %7ss | %8s %5s %9s %9ss %9s | %8s %9ss\n' "$k" "$alone" "${n:-?}" "${lost:-?}" "${comp:-?}" "${cpu:-?}" \
		"$(awk -v c="${cpu:-0}" -v n="${n:-0}" 'BEGIN { if (n) printf "%.0f", c * 1e6 / n; else print "?" }')" "$pn" "$perf"
done
