#!/usr/bin/env bash
# pprobe agrees with Go's own profiler (issue 25): tests/workloads/go_wl
# run as "gwl pprof FILE" writes a runtime/pprof CPU profile of itself
# while pprobe record -g samples the same run. Two goroutines run main.leaf
# (under main.mid) and main.lite, the same loop, 2:1 in work, so their
# shares of CPU are ~2/3 and ~1/3 however loaded the machine is. The self
# (leaf) shares of the top 3 functions of go tool pprof -top must match
# pprobe's within 5 points, and the heaviest call path through main.leaf,
# leaf to root, must be the same in both (pprof -traces; pprof leaves out
# runtime.goexit, pprobe's root, and the wrapper the compiler makes for a
# go statement with arguments, a main.profiled.funcN closure that Go's
# traceback elides and pprobe names). GODEBUG=asyncpreemptoff=1: on a loaded
# machine Go's preemption signal and SIGPROF arrive together and pprof
# puts the sample in runtime.asyncPreempt (a third of them with load 5),
# not in the function it interrupted, where the CPU went.
. "$(dirname "$0")/lib.sh"
need_root
command -v go >/dev/null || skip "no go toolchain (Debian's golang-go)"
export GOCACHE=$T/gocache GOFLAGS=-mod=mod GOTOOLCHAIN=local GO111MODULE=on
cp -r "$SRCDIR/tests/workloads/go_wl" "$T/src"
(cd "$T/src" && go build -o "$T/gwl" .) 2>"$T/go.err" || skip "go build failed: $(head -3 "$T/go.err")"

GODEBUG=asyncpreemptoff=1 "$PPROBE" record -g -o "$T/p.folded" -- "$T/gwl" pprof "$T/prof" >/dev/null 2>"$T/err"
rc=$?
cat "$T/err"
check "record exits as the program did (0, got $rc)" test "$rc" -eq 0
go tool pprof -top -nodecount=10 "$T/prof" >"$T/top" 2>"$T/pprof.err" || { cat "$T/pprof.err"; fail "go tool pprof -top"; done_testing; }
go tool pprof -traces "$T/prof" >"$T/traces" 2>>"$T/pprof.err" || { cat "$T/pprof.err"; fail "go tool pprof -traces"; done_testing; }
sed -n '/flat%/,$p' "$T/top"

# pprobe: each user stack's leaf frame, its share of the stacks of the
# profiled goroutines (under main.profiled.funcN), what pprof's profile
# covers: pprobe also samples the program's start, the runtime's threads
# and the profile's writer (~2%), which would skew its shares against
# pprof's by as much
folded_user "$T/p.folded" | grep -E '^gwl;.*;main\.profiled\.func[0-9]+;' |
	awk '{ n = $NF; k = $0; sub(/ [0-9]+$/, "", k); sub(/.*;/, "", k); sub(/\.abi0$/, "", k); c[k] += n; t += n }
	     END { for (k in c) printf "%s %.1f\n", k, 100 * c[k] / t }' > "$T/pprobe.shares"
# pprof: the top 3 by flat, their flat%
awk 'go && NF >= 6 { sub(/%$/, "", $2); print $6, $2; if (++n == 3) exit } /flat%/ { go = 1 }' "$T/top" > "$T/pprof.top"
check "pprof's profile has the top functions (3, got $(wc -l < "$T/pprof.top"))" test "$(wc -l < "$T/pprof.top")" -eq 3
while read -r fn share; do
	mine=$(awk -v f="$fn" '$1 == f { print $2 }' "$T/pprobe.shares")
	mine=${mine:-0}
	echo "$fn: pprof $share%, pprobe $mine%"
	check "$fn: pprobe's self share within 5 points of pprof's ($mine% vs $share%)" \
		awk -v a="$mine" -v b="$share" 'BEGIN { d = a - b; exit !(d <= 5 && d >= -5) }'
done < "$T/pprof.top"
leafp=$(awk '$1 == "main.leaf" { print $2 }' "$T/pprof.top")
check "pprof puts main.leaf's self share near 2/3 (60..75%, got ${leafp:-none}): the workload's 2:1" \
	awk -v a="${leafp:-0}" 'BEGIN { exit !(a >= 60 && a <= 75) }'

# the heaviest path through main.leaf, leaf to root: pprof's traces (one per
# set of pcs: summed by their functions) and pprobe's stacks (reversed,
# runtime.goexit and the ABI suffix dropped)
awk 'function flush() { if (path != "") w[path] += v; path = "" }
     /^-----------\+/ { flush(); next }
     NF == 2 && $1 ~ /^[0-9.]+(ns|us|ms|s|m|h)$/ { flush(); v = $1 + 0; u = $1; sub(/^[0-9.]+/, "", u)
	     v *= (u == "s" ? 1000 : u == "us" ? 0.001 : u == "ns" ? 0.000001 : 1); path = $2; next }
     NF == 1 && path != "" { path = path ";" $1 }
     END { flush(); for (p in w) if (p ~ /^main\.leaf;/) print w[p], p }' "$T/traces" |
	sort -rn | head -1 | cut -d' ' -f2 > "$T/pprof.path"
folded_user "$T/p.folded" | grep '^gwl;' | grep -E ';main\.leaf [0-9]+$' |
	awk '{ n = $NF; s = $0; sub(/ [0-9]+$/, "", s); k = split(s, f, ";"); p = ""
	       for (i = k; i >= 2; i--) { g = f[i]; sub(/\.abi0$/, "", g); if (g == "runtime.goexit" && i == 2) continue; p = p (p == "" ? "" : ";") g }
	       w[p] += n } END { for (p in w) print w[p], p }' | sort -rn | head -1 | cut -d' ' -f2 > "$T/pprobe.path"
echo "heaviest path through main.leaf, leaf to root: pprof $(cat "$T/pprof.path"); pprobe $(cat "$T/pprobe.path")"
check "pprof's heaviest path through main.leaf goes through main.mid" grep -q '^main\.leaf;main\.mid;' "$T/pprof.path"
same_path() {
	local a b
	a=$(cat "$T/pprof.path") b=$(cat "$T/pprobe.path")
	[ -n "$a" ] && { [ "$b" = "$a" ] || [[ "$b" =~ ^"$a";main\.profiled\.func[0-9]+$ ]]; }
}
check "the same path, leaf to root, in pprobe's stacks and pprof's (but for the go statement's wrapper)" same_path
done_testing
