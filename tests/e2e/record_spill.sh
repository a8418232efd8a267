#!/usr/bin/env bash
# --max-tables: past it the stack tables go to temporary files and are
# merged into the output at the end (issue 27: memory bounded over hours).
# A tiny bound spills at every pass of the main loop: every sample is
# still counted once, the lines are sorted and unique as without a spill,
# the SVG is drawn from the same lines, nothing is left in TMPDIR, and a
# TMPDIR that cannot be written is said while the output stays whole.
# pprof needs the whole table: no spill. Bad sizes are refused in one line.
. "$(dirname "$0")/lib.sh"
need_root
W=$WORKLOADS
mkdir -p "$T/tmp"
spills_of() { sed -n 's/.*spilled \([0-9]*\) times.*/\1/p' "$1"; }
samples_of() { sed -n 's/.* \([0-9]*\) samples, [0-9]* lost records.*/\1/p' "$1"; }

# Exact: 3,000 prctls in three runs with pauses between (a fast machine
# drains one run in a single pass of the main loop: one spill), spilled
# after each, all kept under do_prctls.
TMPDIR=$T/tmp "$PPROBE" record -e syscalls:sys_enter_prctl -g --max-tables 1K -o "$T/p.folded" -o "$T/p.svg" \
	-- bash -c "for i in 1 2 3; do '$W/wl_record' prctl 1000; sleep 0.3; done" 2>"$T/err"
check "prctl: exit status 0" [ $? -eq 0 ]
check "prctl: spilled more than once ($(spills_of "$T/err"))" test "$(spills_of "$T/err")" -gt 1
check "prctl: 3000 samples in total" [ "$(folded_sum "$T/p.folded")" -eq 3000 ]
check "prctl: all 3000 under main;do_prctls" [ "$(folded_sum "$T/p.folded" ';main;do_prctls(;|$| )')" -eq 3000 ]
check "prctl: lines sorted" env LC_ALL=C sort -c "$T/p.folded"
check "prctl: each stack once" test -z "$(sed 's/ [0-9]*$//' "$T/p.folded" | LC_ALL=C uniq -d | head -1)"
check "prctl: the svg drawn" grep -q 'do_prctls' "$T/p.svg"
check "prctl: the svg's total is 3000" grep -q '3,000 samples\|3000 samples' "$T/p.svg"
shown_on_failure "$T/err"

# Sampled, a command that forks, execs and starts threads: every sample
# in the output once, the threads' stacks there.
TMPDIR=$T/tmp "$PPROBE" record -g -F 999 --max-tables 1K -o "$T/t.folded" -- \
	bash -c "'$W/wl_record' fork-exec '$W/wl_record' threads 3 0.5; '$W/wl_record' hot 0.3" 2>"$T/err2"
check "threads: exit status 0" [ $? -eq 0 ]
check "threads: spilled more than once ($(spills_of "$T/err2"))" test "$(spills_of "$T/err2")" -gt 1
n=$(samples_of "$T/err2")
check "threads: every sample once in the output (${n:-?})" [ "$(folded_sum "$T/t.folded")" -eq "${n:--1}" ]
check "threads: lines sorted" env LC_ALL=C sort -c "$T/t.folded"
check "threads: each stack once" test -z "$(sed 's/ [0-9]*$//' "$T/t.folded" | LC_ALL=C uniq -d | head -1)"
check "threads: the threads' stacks" grep -q '^wl_record;.*thread' "$T/t.folded"
check "nothing left in TMPDIR" test -z "$(ls -A "$T/tmp")"
shown_on_failure "$T/err2"

# A binary run once and deleted while the tables are spilled and its file
# closed by the sweeps: its frames were named before it went.
cp "$W/wl_record" "$T/wl_once"
TMPDIR=$T/tmp "$PPROBE" record -g -F 999 --max-tables 1K -o "$T/d.folded" -- \
	bash -c "'$T/wl_once' hot 0.3; rm '$T/wl_once'; '$W/wl_record' hot 0.3" 2>"$T/err6"
check "deleted binary: exit status 0" [ $? -eq 0 ]
check "deleted binary: spilled" test "$(spills_of "$T/err6")" -gt 1
check "deleted binary: its stacks named (main)" grep -q '^wl_once;.*main' "$T/d.folded"
shown_on_failure "$T/err6"

# Nowhere to spill: said once, the tables stay in memory, the output whole.
TMPDIR=/proc/self "$PPROBE" record -e syscalls:sys_enter_prctl -g --max-tables 1K -o "$T/n.folded" \
	-- "$W/wl_record" prctl 500 2>"$T/err3"
check "no TMPDIR: exit status 0" [ $? -eq 0 ]
check "no TMPDIR: said" grep -q 'could not spill the stack tables' "$T/err3"
check "no TMPDIR: 500 samples" [ "$(folded_sum "$T/n.folded")" -eq 500 ]

# pprof is written from the whole table: no spill.
TMPDIR=$T/tmp "$PPROBE" record -e syscalls:sys_enter_prctl -g --max-tables 1K -o "$T/p.pb.gz" \
	-- "$W/wl_record" prctl 200 2>"$T/err4"
check "pprof: exit status 0" [ $? -eq 0 ]
check "pprof: no spill" not grep -q 'spilled' "$T/err4"

"$PPROBE" record --max-tables lots -o "$T/x.folded" -- true 2>"$T/err5"
check "a bad size: usage error" [ $? -eq 2 ]
check "a bad size: one line" [ "$(wc -l <"$T/err5")" -eq 1 ]
check "a bad size: said" grep -q -- "--max-tables wants a size" "$T/err5"
check "a bad size: no output" test ! -e "$T/x.folded"
done_testing
