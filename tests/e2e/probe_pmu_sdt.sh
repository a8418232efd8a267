#!/usr/bin/env bash
# USDT probes through the uprobe PMU (sdt:BIN:PROVIDER:NAME): exact hits, one
# event per site shown under one name, semaphores set through ref_ctr_offset
# only while probed, libstdc++'s own notes, -x BIN with sdt_PROVIDER:NAME.
. "$(dirname "$0")/lib.sh"
need_root
[ -e /sys/bus/event_source/devices/uprobe/format/ref_ctr_offset ] || skip "the uprobe PMU has no ref_ctr_offset (kernel < 4.20)"
W=$WORKLOADS
B=$W/probe_usdt
N=250
count() { awk -F, -v e="$2" '$3 == e { print $1 }' "$1"; }

# Unprobed, the semaphore stays 0: the gated probe's code never runs.
check "unprobed: gated=0" [ "$("$B" $N | cut -d' ' -f1)" = gated=0 ]

# Probed: the kernel raises the semaphores; every site fires.
"$PPROBE" stat -x, -o "$T/s.csv" -e "sdt:$B:pprobe_pmu:multi,sdt:$B:pprobe_pmu:gated" -- "$B" $N >"$T/out" 2>"$T/err"
check "stat exits 0" [ $? -eq 0 ]
cat "$T/err"
check "the program saw the semaphore set: gated=$N" [ "$(cut -d' ' -f1 "$T/out")" = gated=$N ]
check "gated: $N hits" [ "$(count "$T/s.csv" "sdt:$B:pprobe_pmu:gated")" = $N ]
check "multi: two sites, $((3 * N)) hits on one line" [ "$(count "$T/s.csv" "sdt:$B:pprobe_pmu:multi")" = $((3 * N)) ]
check "two lines" [ "$(wc -l <"$T/s.csv")" -eq 2 ]

# The gated site probed by address (no semaphore): never reached, since
# nothing raises the semaphore.
gpc=$(readelf -n "$B" | awk '/Name: gated/ { getline; sub(",", "", $2); print $2 }' | sed 's/^0x0*/0x/')
"$PPROBE" stat -x, -o "$T/a.csv" -e "uprobe:$B:$gpc" -- "$B" $N >"$T/out" 2>"$T/err"
check "uprobe at the gated site ($gpc) alone: 0 hits, gated=0" \
	[ "$(count "$T/a.csv" "uprobe:$B:$gpc") $(cut -d' ' -f1 "$T/out")" = "0 gated=0" ]
# A uprobe there together with the USDT probe is refused by the kernel (one
# address has one reference counter, and a plain uprobe has none). System
# wide (the PMU) stat says so and counts the rest.
"$PPROBE" stat -x, -o "$T/b.csv" -e "sdt:$B:pprobe_pmu:gated,uprobe:$B:$gpc" -a -d 0.1 >/dev/null 2>"$T/err"
check "-a: sdt + uprobe at one address: the USDT probe counted" [ -n "$(count "$T/b.csv" "sdt:$B:pprobe_pmu:gated")" ]
check "... the uprobe's refusal explained" grep -qF "pprobe stat: cannot open 'uprobe:$B:$gpc': the kernel refused the uprobe at offset $gpc of $(realpath "$B") (another probe there with a USDT semaphore?" "$T/err"
# On a command the probes are temporary tracefs probes, made before it
# starts: the refusal is said in one line and the command never runs.
"$PPROBE" stat -x, -o "$T/b.csv" -e "sdt:$B:pprobe_pmu:gated,uprobe:$B:$gpc" -- "$B" $N >"$T/out" 2>"$T/err"
check "command: sdt + uprobe at one address: exit 1" [ $? -eq 1 ]
check "... the command did not run" [ ! -s "$T/out" ]
check "... one line: the kernel refused the temporary probe" \
	[ "$(wc -l <"$T/err")" -eq 1 ] && grep -qF "pprobe: 'uprobe:$B:$gpc' (a temporary tracefs probe on a command or -p process): the kernel refused" "$T/err"

# trace: each site at its own address (PIE: the runtime one, the notes'
# offsets apart).
"$PPROBE" trace -e "sdt:$B:pprobe_pmu:multi" -- "$B" 2 >"$T/t.txt" 2>&1
cat "$T/t.txt"
check "trace: 6 lines" [ "$(grep -c "sdt:$B:pprobe_pmu:multi: (0x" "$T/t.txt")" -eq 6 ]
sites=$(readelf -n "$B" | awk '/Name: multi/ { getline; sub(",", "", $2); print $2 }' | sort)
s1=$(echo "$sites" | head -1); s2=$(echo "$sites" | tail -1)
a1=$(grep -o '(0x[0-9a-f]*)' "$T/t.txt" | sort | uniq -c | awk '$1 == 2 { print $2 }' | tr -d '()')
a2=$(grep -o '(0x[0-9a-f]*)' "$T/t.txt" | sort | uniq -c | awk '$1 == 4 { print $2 }' | tr -d '()')
check "trace: 2 hits at one site, 4 at the other, as far apart as the notes say" \
	[ -n "$a1" -a -n "$a2" -a $((${a2:-0} - ${a1:-0})) -eq $((s2 - s1)) ]

# --exec BIN (stat's -x is the CSV separator): sdt_PROVIDER:NAME, the name pprobe list -x shows
"$PPROBE" stat -x, -o "$T/x.csv" --exec "$B" -e sdt_pprobe_pmu:gated -- "$B" 9 >/dev/null 2>&1
check "--exec BIN -e sdt_pprobe_pmu:gated: 9" [ "$(count "$T/x.csv" sdt_pprobe_pmu:gated)" = 9 ]

# libstdc++'s notes (no semaphores), the library found by name.
"$PPROBE" stat -x, -o "$T/c.csv" -e sdt:libstdc++.so.6:libstdcxx:throw,sdt:libstdc++.so.6:libstdcxx:catch \
	-- "$W/probe_throw" 77 >"$T/out" 2>"$T/err"
check "C++: 77 caught" [ "$(cat "$T/out")" = 77 ]
check "libstdcxx:throw 77" [ "$(count "$T/c.csv" sdt:libstdc++.so.6:libstdcxx:throw)" = 77 ]
check "libstdcxx:catch 77" [ "$(count "$T/c.csv" sdt:libstdc++.so.6:libstdcxx:catch)" = 77 ]

# record -g: who throws
"$PPROBE" record -q -g -e sdt:libstdc++.so.6:libstdcxx:throw -o "$T/r.folded" -- "$W/probe_throw" 40 >/dev/null 2>&1
check "record -g: 40 throws from main;thrower;__cxa_throw" \
	[ "$(folded_sum "$T/r.folded" ";main;thrower(\\(long\\))?;__cxa_throw [0-9]+$")" -eq 40 ]

# errors
"$PPROBE" stat -e "sdt:$B:pprobe_pmu:nosuch" -- true 2>"$T/err"
check "unknown probe: exit 2" [ $? -eq 2 ]
check "unknown probe: what the binary has" grep -qE "^pprobe stat: 'sdt:$B:pprobe_pmu:nosuch': $(realpath "$B") has no USDT probe pprobe_pmu:nosuch; it has: (pprobe_pmu:multi, pprobe_pmu:gated|pprobe_pmu:gated, pprobe_pmu:multi)$" "$T/err"
"$PPROBE" stat -e "sdt:$W/probe_wl_O2:a:b" -- true 2>"$T/err"
check "a binary without notes: said" grep -qF "has no USDT probes (no .note.stapsdt section)" "$T/err"
check "nothing of ours left in uprobe_events" not grep -qsF -e "$(realpath "$W")" /sys/kernel/tracing/uprobe_events

done_testing
