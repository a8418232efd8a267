#!/bin/bash
# pprobe list: every tracepoint of tracefs, the symbolic events with their
# availability on this machine, PMU aliases, dynamic probes; list -v fields.
. "$(dirname "$0")/lib.sh"
need_root
TR=/sys/kernel/tracing
[ -r $TR/available_events ] || skip "tracefs not at $TR"

"$PPROBE" list > "$T/all" 2> "$T/err"
check "list exits 0" [ $? -eq 0 ]

# exactly the tracefs tracepoints, each once, sorted
grep -E '\[(Tracepoint event|Dynamic probe)' "$T/all" | awk '{print $1}' > "$T/tps"
sort -u $TR/available_events > "$T/want"
check "tracepoints are exactly tracefs available_events ($(wc -l < "$T/want"))" cmp -s "$T/tps" "$T/want"

check "cpu-clock is a software event" grep -qE '^  cpu-clock +\[Software event\]$' "$T/all"
check "cs alias shown" grep -qE '^  context-switches OR cs +\[Software event\]$' "$T/all"
check "32 cache events listed" [ "$(grep -c '\[Hardware cache event' "$T/all")" -eq 32 ]
check "10 hardware events listed" [ "$(grep -c '\[Hardware event' "$T/all")" -eq 10 ]
if ! ls /sys/bus/event_source/devices | grep -qE '^(cpu|cpu_core|cpu_atom|armv.*)$'; then
	check "cycles marked unavailable (no PMU)" \
		grep -qE '^  cpu-cycles OR cycles +\[Hardware event, not available: no hardware PMU\]$' "$T/all"
fi
for d in /sys/bus/event_source/devices/*/events; do
	pmu=$(basename "$(dirname "$d")")
	for e in "$d"/*; do
		[ -f "$e" ] || continue
		case $e in *.scale|*.unit|*.per-pkg|*.snapshot) continue;; esac
		check "PMU alias $pmu/$(basename "$e")/ listed" grep -qF "  $pmu/$(basename "$e")/ " "$T/all"
	done
done

# a glob gives exactly its tracepoints
"$PPROBE" list 'sched:*' > "$T/sched"
n=$(grep -c '^sched:' $TR/available_events)
check "sched:* lists the $n sched tracepoints" [ "$(grep -c '^  sched:.*\[Tracepoint event\]$' "$T/sched")" -eq "$n" ]
check "sched:* lists nothing else" [ "$(wc -l < "$T/sched")" -eq "$n" ]
# a plain word matches names containing it
"$PPROBE" list sched_switch > "$T/word"
check "word match" grep -qE '^  sched:sched_switch +\[Tracepoint event\]$' "$T/word"
# classes
"$PPROBE" list sw > "$T/sw"
check "sw class: 12 software events only" [ "$(wc -l < "$T/sw")" -eq 12 ] 
"$PPROBE" list nosuch_event_xyz > /dev/null 2> "$T/err"
check "no match exits 1" [ $? -eq 1 ]
check "no match says so" grep -q 'no event matches nosuch_event_xyz' "$T/err"

# -v: a tracepoint's fields with offsets and sizes from its format file
"$PPROBE" list -v sched:sched_switch > "$T/v"
check "-v header" grep -qE '^sched:sched_switch: tracepoint event, type 2 config 0x[0-9a-f]+, sampled at every event' "$T/v"
check "-v prev_comm" grep -qE '^  prev_comm +char\[16\] +8 +16  string$' "$T/v"
check "-v next_pid" grep -qE '^  next_pid +pid_t +56 +4  signed 4-byte integer$' "$T/v"
id=$(cat $TR/events/sched/sched_switch/id)
check "-v id is the tracefs id" grep -q "config $(printf '0x%x' "$id")," "$T/v"
"$PPROBE" list -v 'syscalls:sys_enter_open*' > "$T/vg"
check "-v glob covers every match" [ "$(grep -c '^syscalls:sys_enter_open.*: tracepoint event' "$T/vg")" -eq "$(ls -d $TR/events/syscalls/sys_enter_open* | wc -l)" ]
check "-v syscall int args read as int" grep -qE '^  dfd +int +16 +8  signed 4-byte integer$' "$T/vg"
"$PPROBE" list -v cycles > "$T/vc" 2>&1
check "-v cycles explains availability" grep -qE 'not available: .*(no hardware PMU|cpu-clock)|^cycles: hardware event' "$T/vc"
"$PPROBE" list -v cylces > /dev/null 2> "$T/verr"
check "-v unknown exits 2" [ $? -eq 2 ]
check "-v unknown suggests cycles" grep -q "did you mean: cycles" "$T/verr"

# an existing dynamic probe (a uprobe on /bin/true's entry point) is listed as one
if [ -w $TR/uprobe_events ] && command -v readelf > /dev/null; then
	bin=$(readlink -f /bin/true)
	entry=$(readelf -hW "$bin" | awk '/Entry point/ {print $4}')
	off=
	while read -r type o v _ fs _; do
		[ "$type" = LOAD ] || continue
		if [ $((entry)) -ge $((v)) ] && [ $((entry)) -lt $((v + fs)) ]; then
			off=$(printf '0x%x' $((entry - v + o)))
			break
		fi
	done < <(readelf -lW "$bin")
	echo "p:pprobe_e2e/true_entry $bin:$off" >> $TR/uprobe_events
	trap 'echo "-:pprobe_e2e/true_entry" >> '$TR'/uprobe_events 2>/dev/null; rm -rf "$T" "$T.cache"' EXIT
	"$PPROBE" list 'pprobe_e2e:*' > "$T/probe"
	check "uprobe listed as a dynamic probe" \
		grep -qE "^  pprobe_e2e:true_entry +\[Dynamic probe: probe $bin:0x0*${off#0x}\]$" "$T/probe"
	"$PPROBE" list probe > "$T/probes"
	check "probe class lists it" grep -q "pprobe_e2e:true_entry" "$T/probes"
	"$PPROBE" list -v pprobe_e2e:true_entry > "$T/pv"
	check "-v on the probe: a probe event" grep -q "^pprobe_e2e:true_entry: probe event" "$T/pv"
	echo "-:pprobe_e2e/true_entry" >> $TR/uprobe_events
	check "probe removed" sh -c "! grep -q pprobe_e2e $TR/uprobe_events"
else
	echo "no writable uprobe_events or readelf: dynamic probe listing not tested"
fi
# -x BINARY: its USDT probes, exactly what readelf -n shows
wl=$WORKLOADS/events_usdt
if [ -x "$wl" ] && command -v readelf > /dev/null; then
	: > "$T/want_sdt"
	while read -r key val rest; do
		case $key in
		Provider:) prov=$val;;
		Name:) name=$val;;
		Location:) loc=${val%,}; sem=$(echo "$rest" | sed 's/.*Semaphore: //');;
		Arguments:) printf 'sdt_%s:%s 0x%x 0x%x %s\n' "$prov" "$name" $((loc)) $((sem)) "$val${rest:+ $rest}" >> "$T/want_sdt";;
		esac
	done < <(readelf -n "$wl" | sed -n '/stapsdt/,$p')
	"$PPROBE" list -x "$wl" sdt > "$T/sdt"
	sed -E 's/^  (sdt_[^ ]+) +\[SDT event: [^ ]+ at (0x[0-9a-f]+)(, semaphore (0x[0-9a-f]+))?(, args: (.*))?\]$/\1 \2 \4 \6/' "$T/sdt" |
		awk '{ if ($3 !~ /^0x/) { $3 = "0x0 " $3 }; print }' | sed 's/ *$//' > "$T/got_sdt"
	sed -i 's/ *$//' "$T/want_sdt"
	check "list -x: the 4 USDT probes of events_usdt as readelf shows them" \
		sh -c "[ \$(wc -l < $T/want_sdt) -eq 4 ] && diff $T/want_sdt $T/got_sdt"
	"$PPROBE" list -x /etc/hostname > /dev/null 2> "$T/xerr"
	check "list -x non-ELF exits 1" [ $? -eq 1 ]
	check "list -x non-ELF says so" grep -q "not an ELF file" "$T/xerr"
else
	echo "no events_usdt workload or readelf: list -x not tested"
fi
done_testing
