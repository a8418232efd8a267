#!/usr/bin/env bash
# pprobe annotate against perf annotate --stdio on the same workload, each
# tool recording its own run at 999 Hz of cpu-clock: annotate_wl's hot_loop
# (a thread of an exec'd child) spends its time in a chain of divisions
# inlined from mix(), so one instruction and one source line (mix's,
# ANNOTATE_HOT_LINE) hold most samples in both. The hottest instruction's
# address and the hottest line must agree; the shares sum to 100; mix's
# code is shown at mix's line and named; and what cannot be annotated (an
# unknown symbol, folded stacks, a binary missing or rebuilt, a truncated
# one) is one line on stderr and exit 1, never a crash.
. "$(dirname "$0")/lib.sh"
need_root
command -v perf >/dev/null || skip "perf is not installed (apt-get install linux-perf)"
W=$WORKLOADS
SRC=${SRCDIR:-$(dirname "$0")/../..}/tests/workloads/annotate_wl.c
HOT=$(grep -n 'ANNOTATE_HOT_LINE \*/' "$SRC" | cut -d: -f1)
LOOP=$(grep -n 'ANNOTATE_LOOP_LINE \*/' "$SRC" | cut -d: -f1)
[ -n "$HOT" ] && [ -n "$LOOP" ] || { fail "marked lines in $SRC"; done_testing; }

perf record -q -F 999 -e cpu-clock -o "$T/perf.data" -- "$W/annotate_wl" 1 >/dev/null 2>"$T/perf.err" ||
	skip "perf record cannot record here: $(head -1 "$T/perf.err")"
perf annotate --stdio -i "$T/perf.data" hot_loop 2>/dev/null >"$T/perf.out"
"$PPROBE" record -F 999 -e cpu-clock -o "$T/p.pb.gz" -- "$W/annotate_wl" 1 >/dev/null 2>"$T/rec.err"
check "pprobe record exit 0" [ $? -eq 0 ]
"$PPROBE" annotate --stdio -i "$T/p.pb.gz" hot_loop >"$T/pa.out" 2>"$T/pa.err"
check "pprobe annotate hot_loop: exit 0" [ $? -eq 0 ]
shown_on_failure "$T/perf.out" "$T/pa.out" "$T/pa.err"

# Instruction rows: "[>] PCT :   ADDR:   TEXT"; source rows: "         :   LINE    text"
# (perf: "         : LINE   text"). The hottest row's address, and the
# source line above it.
hottest() {
	awk '/^[> ] *[0-9]+\.[0-9]+ : +[0-9a-f]+:/ { p = $0; sub(/^>/, "", p); split(p, f, " ");
		if (f[1] + 0 > best) { best = f[1] + 0; bs = f[1]; a = f[3]; l = line } next }
	     /^ +: +[0-9]+ / { split($0, f, ":"); split(f[2], g, " "); line = g[1] }
	     /^ *$|Percent/ { if (seen++) exit }
	     END { sub(/:$/, "", a); print a, l, bs }' "$1"
}
read -r pa pl pp < <(hottest "$T/pa.out")
read -r fa fl fp < <(hottest "$T/perf.out")
echo "hottest: perf $fa line $fl ($fp%), pprobe $pa line $pl ($pp%)"
check "perf's hottest line is mix's (line $HOT: $fl)" [ "$fl" = "$HOT" ]
check "perf's hottest instruction holds over half ($fp%)" awk -v p="$fp" 'BEGIN { exit !(p > 50) }'
check "pprobe's hottest instruction is perf's ($pa, perf $fa)" [ -n "$pa" ] && [ "$pa" = "$fa" ]
check "pprobe's hottest instruction is at line $HOT ($pl)" [ "$pl" = "$HOT" ]
check "its share within 10 points of perf's ($pp, $fp)" \
	awk -v a="$pp" -v b="$fp" 'BEGIN { d = a - b; exit !(d < 10 && d > -10) }'
check "the '>' mark is on the hottest instruction" grep -Eq "^> *$pp : +$pa:" "$T/pa.out"
sum=$(awk '/^[> ] *[0-9]+\.[0-9]+ : +[0-9a-f]+:/ { p = $0; sub(/^>/, "", p); s += p + 0 } /Source lines/ { exit }
	END { print s }' "$T/pa.out")
check "the instructions' shares sum to 100 ($sum)" awk -v s="$sum" 'BEGIN { exit !(s > 99.5 && s < 100.5) }'
# the summary of source lines: mix's line first, marked, named as inlined
top=$(awk '/Source lines of/ { on = 1; next } on && /^>/ { print; exit }' "$T/pa.out")
check "hottest source line: annotate_wl.c:$HOT, inlined from mix ($top)" \
	grep -Eq "annotate_wl\.c:$HOT +\(inlined from mix\)$" <<<"$top"
check "mix's code is shown under mix's source line, named" \
	grep -Eq "^ +: +$HOT +return x / d.*\(inlined from mix\)$" "$T/pa.out"
check "hot_loop's own line ($LOOP) is not called inlined" \
	sh -c "grep -E '^ +: +$LOOP ' '$T/pa.out' | grep -qv inlined"
check "header names the object and the samples" \
	grep -Eq "^ Percent \|	Source code & Disassembly of annotate_wl for cpu \([0-9]+ samples" "$T/pa.out"
check "AT&T syntax" grep -Eq "^[> ] *[0-9.]+ : +$pa: +[a-z]+q? +%" "$T/pa.out"

# Without SYMBOL: the hottest function, hot_loop.
"$PPROBE" annotate -i "$T/p.pb.gz" >"$T/def.out" 2>&1
check "no SYMBOL: exit 0, hot_loop" sh -c "grep -q '<hot_loop>:' '$T/def.out'"
# -l: file:line beside the source text
"$PPROBE" annotate -l -i "$T/p.pb.gz" hot_loop >"$T/l.out" 2>&1
check "-l: file:line on the source rows" grep -Eq "^ +: +annotate_wl\.c:$HOT +$HOT +return" "$T/l.out"

# What cannot be annotated: one line, exit 1, nothing on stdout.
refused() {	# DESC WANT(regex) CMD...
	local d=$1 want=$2
	shift 2
	"$@" >"$T/r.out" 2>"$T/r.err"
	local rc=$?
	check "$d: exit 1 ($rc)" [ "$rc" -eq 1 ]
	check "$d: one line saying why" sh -c "[ \$(wc -l <'$T/r.err') -eq 1 ] && grep -Eq '^pprobe annotate: .*$want' '$T/r.err'"
	check "$d: nothing on stdout" test ! -s "$T/r.out"
	shown_on_failure "$T/r.err"
}
refused "unknown symbol" "no function .no_such_fn. with self samples" "$PPROBE" annotate -i "$T/p.pb.gz" no_such_fn
"$PPROBE" record -F 999 -o "$T/p.folded" -- "$W/annotate_wl" 0.2 >/dev/null 2>&1
refused "folded input" "has no sampled addresses.*pb\.gz" "$PPROBE" annotate -i "$T/p.folded" hot_loop
refused "no profile" "$T/none.pb.gz" "$PPROBE" annotate -i "$T/none.pb.gz"
"$PPROBE" annotate -n 2 hot_loop -i "$T/p.pb.gz" >/dev/null 2>&1
check "-n with SYMBOL: usage error (2)" [ $? -eq 2 ]

# A copy of the workload recorded, then replaced: by another binary (a
# build id that differs), by a truncated file, then removed.
cp "$W/annotate_wl" "$T/wl"
"$PPROBE" record -F 999 -o "$T/c.pb.gz" -- "$T/wl" 0.3 >/dev/null 2>&1
"$PPROBE" annotate -i "$T/c.pb.gz" hot_loop >/dev/null 2>&1
check "the copy annotates" [ $? -eq 0 ]
cp "$W/man_app" "$T/wl"
refused "binary rebuilt" "changed since the profile was recorded" "$PPROBE" annotate -i "$T/c.pb.gz" hot_loop
head -c 3000 "$W/annotate_wl" >"$T/wl"
refused "binary truncated" "hot_loop" "$PPROBE" annotate -i "$T/c.pb.gz" hot_loop
rm -f "$T/wl"
refused "binary missing" "cannot open $T/wl.*No such file" "$PPROBE" annotate -i "$T/c.pb.gz" hot_loop
done_testing
