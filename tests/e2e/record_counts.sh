#!/usr/bin/env bash
# Exact tracepoint counts: N prctl calls give N samples, all under do_prctls,
# nothing lost, with stacks; --weight period; several events, one file each.
. "$(dirname "$0")/lib.sh"
need_root
W=$WORKLOADS

"$PPROBE" record -e syscalls:sys_enter_prctl -g -o "$T/p.folded" -- "$W/wl_record" prctl 1000 2>"$T/err"
check "exit status 0" [ $? -eq 0 ]
check "1000 samples in total" [ "$(folded_sum "$T/p.folded")" -eq 1000 ]
check "all 1000 under main;do_prctls" [ "$(folded_sum "$T/p.folded" ';main;do_prctls(;|$| )')" -eq 1000 ]
check "nothing lost" grep -q ' 0 lost records, 0 lost samples' "$T/err"
check "every DWARF stack complete" grep -q '1000 user stacks, 100.0% complete' "$T/err"

# A burst of 10,000 calls with frame-pointer stacks: still nothing lost.
# (With DWARF stacks each sample carries an 8 KB stack copy: 1,000 of them
# fit the default ring even if pprobe got no CPU during the burst, which the
# first case checks; for bigger DWARF bursts see scripts/bench/record.sh.)
"$PPROBE" record -e syscalls:sys_enter_prctl --call-graph fp -o "$T/b.folded" -- "$W/wl_record" prctl 10000 2>"$T/err"
check "10000-call burst: 10000 samples" [ "$(folded_sum "$T/b.folded")" -eq 10000 ]
check "10000-call burst: nothing lost" grep -q ' 0 lost records, 0 lost samples' "$T/err"

# -c 3 with --weight period: every 3rd event, each weighing 3.
"$PPROBE" record -e syscalls:sys_enter_prctl -c 3 --weight period -o "$T/w.folded" -- "$W/wl_record" prctl 900 2>/dev/null
check "-c 3 --weight period sums to 900" [ "$(folded_sum "$T/w.folded")" -eq 900 ]

# Two events: two files named after the events.
"$PPROBE" record -e syscalls:sys_enter_prctl,syscalls:sys_enter_write -o "$T/two.folded" -- "$W/wl_record" prctl 77 2>/dev/null
check "prctl file" [ "$(folded_sum "$T/two.syscalls-sys_enter_prctl.folded")" -eq 77 ]
check "write file exists" [ -f "$T/two.syscalls-sys_enter_write.folded" ]
check "no combined file" [ ! -e "$T/two.folded" ]

# -o - writes to stdout.
n=$("$PPROBE" record -q -e syscalls:sys_enter_prctl -o - -- "$W/wl_record" prctl 5 | awk '{s+=$NF} END {print s}')
check "-o - to stdout: 5" [ "$n" = 5 ]
# An .svg output is an interactive flame graph of the same stacks.
"$PPROBE" record -q -e syscalls:sys_enter_prctl -g -o "$T/p.svg" -- "$W/wl_record" prctl 42
check "svg: well-formed XML" xmllint --noout "$T/p.svg"
check "svg: titled after the event" grep -q 'pprobe record: syscalls:sys_enter_prctl' "$T/p.svg"
check "svg: do_prctls frame with all 42 samples" grep -q '<title>do_prctls (42 samples, 100.00%)</title>' "$T/p.svg"
"$PPROBE" record -q --format folded -e syscalls:sys_enter_prctl -o "$T/p2.svg" -- "$W/wl_record" prctl 2
check "--format folded wins over the .svg name" [ "$(folded_sum "$T/p2.svg")" -eq 2 ]
done_testing
