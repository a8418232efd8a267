#!/usr/bin/env bash
# What aggregating costs (issue 29): pprobe trace's aggregations beside
# bpftrace's in-kernel maps, on the same workload, in the same run.
#
#   scripts/bench/aggregate.sh [BUILD_DIR]     (default: build; root; ~1.5 min)
#   AGG_SECS=2                   each workload run's length, seconds
#   AGG_RATES="10000 100000 0"   tracepoint rates, events/s (0: as fast as it can)
#   AGG_UPROBE_RATES="10000 0"   uprobe rates ("" skips the uprobe table)
#   AGG_ONLY=tracepoint|uprobe   one table
#
# The workload, tests/workloads/aggrate_wl RATE SECS GO, makes RATE
# read(2)s of /dev/zero a second (1, 8, 64, 512, 4096 bytes in turn), each
# through a noinline wl_event(), and counts them itself. It starts first and
# waits on a FIFO while one tool attaches to its pid; released, it runs SECS
# seconds and prints the calls it made and its own CPU (getrusage) over them.
# One tool at a time, each on its own run of the workload, alone first:
#
#   tracepoint (syscalls:sys_enter_read), per rate:
#     pprobe trace -p PID -e syscalls:sys_enter_read --hist count
#     bpftrace -e 'tracepoint:syscalls:sys_enter_read /pid == PID/ { @ = hist(args->count); }'
#     pprobe trace -p PID -e syscalls:sys_enter_read --by comm --count
#     bpftrace -e 'tracepoint:syscalls:sys_enter_read /pid == PID/ { @[comm] = count(); }'
#   uprobe (wl_event), per rate:
#     pprobe trace -p PID -e uprobe:WL:wl_event --count
#     bpftrace -e 'uprobe:WL:wl_event /pid == PID/ { @ = count(); }'
#     pprobe trace -p PID --latency -e uprobe:WL:wl_event -e uretprobe:WL:wl_event
#     bpftrace: @s[tid] = nsecs at the uprobe, @ = hist((nsecs - @s[tid]) / 1000) at the uretprobe
#
# Columns: made: the workload's calls (its counter) and their rate; counted:
# the total of the tool's map (all: as many as made); lost: what pprobe says
# it lost (bpftrace's maps live in the kernel: nothing to lose); tool CPU:
# the tool process's, all its threads, from the release to its exit, and in
# brackets its whole life (start-up and attaching too, bash's times in a
# subshell around it); "run" is up to the workload's end (schedstat of its
# threads at the release and at the end, ns), "end" the rest: the events
# still queued, the map printed, the probes detached (a fixed cost, most of
# bpftrace's); tool ns/ev: the run's CPU / counted; wl ns/ev: the
# workload's CPU (user + system) per call; added ns/ev: wl ns/ev less the
# untraced run's at the same rate: what the probe costs in the workload's
# own context, where bpftrace's program and its map update run (and where
# pprobe's event is written into the ring); total ns/ev: tool + added;
# drain: seconds from the workload's end to the tool's exit. At "max" the
# workload runs as fast as it can: its rate against the untraced one is the
# slowdown. At a set rate the workload's CPU per call is mostly its 1 ms
# sleeps' wake-ups: added ns/ev there is noisy by hundreds of ns.
#
# Every process started here is killed on exit, the temp dir removed, and
# tracefs checked: pprobe removes its temporary uprobes (group pprobe_PID)
# itself; one left by a pprobe this script started is said, and removed
# (only those: another's tests may have theirs there). tracefs is mounted
# if it was not, and unmounted again.
set -u
BUILD=$(cd "${1:-build}" 2>/dev/null && pwd) || { echo "no build dir ${1:-build}" >&2; exit 1; }
PPROBE=$BUILD/pprobe
WL=$BUILD/tests/workloads/aggrate_wl
SRC=$(cd "$(dirname "$0")/../.." && pwd)
SECS=${AGG_SECS:-2}
RATES=${AGG_RATES-10000 100000 0}
URATES=${AGG_UPROBE_RATES-10000 0}
ONLY=${AGG_ONLY:-}
case "$ONLY" in
'' | tracepoint | uprobe) ;;
*) echo "AGG_ONLY: tracepoint or uprobe" >&2; exit 2 ;;
esac
[ "$(id -u)" -eq 0 ] || { echo "needs root (tracepoints, uprobes, bpftrace)" >&2; exit 77; }
[ -x "$PPROBE" ] || { echo "build pprobe first (scripts/build.sh)" >&2; exit 1; }
[ -x "$WL" ] || { echo "$WL missing: build first (scripts/build.sh)" >&2; exit 1; }
BPFTRACE=$(command -v bpftrace) || BPFTRACE=

TMP=$(mktemp -d /tmp/pprobe-aggregate.XXXXXX)
TR=$(awk '$3 == "tracefs" { print $2; exit }' /proc/mounts)
MOUNTED=
if [ -z "$TR" ]; then
	mount -t tracefs nodev /sys/kernel/tracing && TR=/sys/kernel/tracing MOUNTED=1
fi
WLPID='' TIMEPID='' TOOLPID=''
PPIDS='' # the pprobe processes started here: their probes' group is pprobe_PID
cleanup() {
	local p
	# the tool stopped as a user would (pprobe removes its probes), then killed
	if [ -n "$TOOLPID" ] && kill -INT "$TOOLPID" 2>/dev/null; then
		for _ in $(seq 50); do kill -0 "$TOOLPID" 2>/dev/null || break; sleep 0.1; done
	fi
	for p in $TOOLPID $TIMEPID $WLPID; do kill -KILL "$p" 2>/dev/null; done
	for p in $TIMEPID $WLPID; do wait "$p" 2>/dev/null; done
	# a probe of a pprobe killed above (pprobe removes its own); only
	# this script's: others' tests may have theirs there now
	for p in $(left_probes); do
		echo "aggregate.sh: $p was left in $TR/uprobe_events: removed" >&2
		echo "-:$p" >>"$TR/uprobe_events"
	done
	[ -z "$MOUNTED" ] || umount "$TR"
	rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP

# left_probes: GROUP/EVENT of each probe in tracefs of a pprobe started here
left_probes() {
	local p
	[ -n "$TR" ] && [ -r "$TR/uprobe_events" ] || return 0
	for p in $PPIDS; do
		sed -n "s/^[pr]:\(pprobe_$p\/[^ ]*\) .*/\1/p" "$TR/uprobe_events"
	done
}
# on_cpu PID: the seconds its live threads have run (schedstat: ns), empty once it is gone
on_cpu() {
	[ -d "/proc/$1/task" ] || return 0
	cat "/proc/$1"/task/*/schedstat 2>/dev/null | awk '{ n += $1 } END { if (NR) printf "%.4f", n / 1e9 }'
}
perf_fds() { find "/proc/$1/fd" -lname 'anon_inode:*perf_event*' 2>/dev/null | wc -l; }
# map_total FILE: the sum of a map's values: counts (@...: N, bpftrace's
# @s[tid] left out) and histograms' buckets ([a, b) N |@@@|)
map_total() {
	awk '/^@s\[/ { next } /^@[^ ]*: [0-9]+$/ { n += $NF } /^\[/ { sub(/\|.*/, ""); n += $NF } END { print n + 0 }' "$1"
}
pp_lost() { sed -n 's/^pprobe trace: \([0-9]*\) events lost.*/\1/p' "$1" | tail -1; }

# run NAME RATE [TOOL ARG...]: the workload at RATE, released once the tool
# (if any; @PID@ in its arguments is the workload's pid) has attached;
# appends "name|rate|made|wall|ucpu|scpu|counted|lost|run|end|life|drain"
# to $TMP/rows, or says why there is no row.
run() {
	local name=$1 rate=$2
	shift 2
	rm -f "$TMP/go" "$TMP/out" "$TMP/err" "$TMP/times" "$TMP/wl"
	mkfifo "$TMP/go"
	"$WL" "$rate" "$SECS" "$TMP/go" >"$TMP/wl" 2>&1 &
	WLPID=$!
	local i c0=0 n=-1 same=0 t_end t_exit
	for _ in $(seq 100); do
		[ "$(cat "/proc/$WLPID/comm" 2>/dev/null)" = aggrate_wl ] && break
		sleep 0.02
	done
	if [ $# -gt 0 ]; then
		local args=() a
		for a in "$@"; do args+=("${a//@PID@/$WLPID}"); done
		# its whole CPU: bash's times in a subshell whose only child it is
		( "${args[@]}" >"$TMP/out" 2>"$TMP/err"; st=$?; times >"$TMP/times"; exit $st ) &
		TIMEPID=$!
		for _ in $(seq 100); do
			TOOLPID=$(pgrep -P "$TIMEPID" | head -1)
			[ -n "$TOOLPID" ] && break
			sleep 0.02
		done
		[ "$1" != "$PPROBE" ] || PPIDS="$PPIDS $TOOLPID"
		# attached: its perf events open, their number steady for 0.5 s
		for _ in $(seq 600); do
			kill -0 "$TIMEPID" 2>/dev/null || break
			c0=$(perf_fds "$TOOLPID")
			if [ "$c0" -gt 0 ] && [ "$c0" -eq "$n" ]; then
				same=$((same + 1))
				[ $same -ge 5 ] && break
			else
				same=0
			fi
			n=$c0
			sleep 0.1
		done
		if [ "$same" -lt 5 ]; then
			echo "$name at $rate/s: the tool did not attach: $(head -c 300 "$TMP/err")" >&2
			kill -KILL "$TOOLPID" "$WLPID" 2>/dev/null
			wait "$TIMEPID" "$WLPID" 2>/dev/null
			TOOLPID='' TIMEPID='' WLPID=''
			return
		fi
		c0=$(on_cpu "$TOOLPID")
	fi
	# shellcheck disable=SC2016 # $1 is the inner shell's
	timeout 10 bash -c 'echo go >"$1"' _ "$TMP/go"
	wait "$WLPID"
	local wst=$?
	WLPID=''
	t_end=$(date +%s.%N)
	local c1=
	if [ $# -gt 0 ]; then
		c1=$(on_cpu "$TOOLPID")
		# pprobe -p ends with the workload (given 60 s to drain); bpftrace
		# on SIGINT, again each second (one was seen missed), killed at 30 s
		if [ "$1" = "$PPROBE" ]; then
			for _ in $(seq 600); do kill -0 "$TOOLPID" 2>/dev/null || break; sleep 0.1; done
		fi
		for i in $(seq 300); do
			kill -0 "$TOOLPID" 2>/dev/null || break
			[ $((i % 10)) -ne 1 ] || kill -INT "$TOOLPID" 2>/dev/null
			sleep 0.1
		done
		kill -KILL "$TOOLPID" 2>/dev/null && echo "$name at $rate/s: the tool did not stop on SIGINT: killed" >&2
		wait "$TIMEPID"
		t_exit=$(date +%s.%N)
		TOOLPID='' TIMEPID=''
	fi
	[ $wst -eq 0 ] || { echo "$name at $rate/s: the workload failed: $(cat "$TMP/wl")" >&2; return; }
	local made wall us ss counted=- lost=- run=- end=- total=- drain=-
	read -r _ made _ wall _ us _ ss <"$TMP/wl"
	if [ $# -gt 0 ]; then
		counted=$(map_total "$TMP/out")
		case "$1" in "$PPROBE") lost=$(pp_lost "$TMP/err"); lost=${lost:-0} ;; *) lost=0 ;; esac
		# the whole (times: user + system, ms) less the start-up (at the
		# release), split at the workload's end when the tool was still there
		total=$(awk 'NR == 2 { gsub(/[ms]/, " "); print 60 * $1 + $2 + 60 * $3 + $4 }' "$TMP/times" 2>/dev/null)
		total=${total:-0}
		run=$(awk -v a="${c1:-}" -v b="$c0" -v t="$total" 'BEGIN { printf "%.3f", (a == "" ? t : a) - b }')
		end=$(awk -v r="$run" -v b="$c0" -v t="$total" 'BEGIN { printf "%.3f", t - b - r }')
		drain=$(awk -v a="$t_end" -v b="$t_exit" 'BEGIN { printf "%.1f", b - a }')
		cp "$TMP/out" "$TMP/out.$name.$rate"
		cp "$TMP/err" "$TMP/err.$name.$rate"
	fi
	echo "$name|$rate|$made|$wall|$us|$ss|$counted|$lost|$run|$end|$total|$drain" >>"$TMP/rows"
}

# table: the rows of $TMP/rows, each against the untraced run at its rate
table() {
	echo "| rate | tool | made | made/s | counted | lost | tool CPU s: run + end (life) | tool ns/ev (run) | wl ns/ev | added ns/ev | total ns/ev | drain s |"
	echo "|---|---|---|---|---|---|---|---|---|---|---|---|"
	awk -F'|' '
	function f(x) { return x == "-" ? "-" : x }
	{
		rate = $2; made = $3; wall = $4; wl = 1e9 * ($5 + $6) / (made ? made : 1)
		if ($1 == "untraced") { base[rate] = wl; bmade[rate] = made / wall }
		r = rate == 0 ? "max" : sprintf("%dk/s", rate / 1000)
		ps = sprintf("%.0fk", made / wall / 1000)
		if (rate == 0 && $1 != "untraced" && bmade[rate]) ps = ps sprintf(" (%.2fx slower)", bmade[rate] / (made / wall))
		if ($1 == "untraced") {
			printf "| %s | untraced | %d | %s | - | - | - | - | %.0f | - | - | - |\n", r, made, ps, wl
			next
		}
		cnt = $7 == made ? $7 " (all)" : sprintf("%s (%+d)", $7, $7 - made)
		tool = $7 ? 1e9 * $9 / $7 : 0
		added = wl - base[rate]
		printf "| %s | %s | %d | %s | %s | %s | %.3f + %.3f (%.2f) | %.0f | %.0f | %.0f | %.0f | %s |\n",
			r, $1, made, ps, cnt, $8, $9, $10, $11, tool, wl, added, tool + added, $12
	}' "$TMP/rows"
}

echo "pprobe aggregation cost (issue 29): $(date -u '+%Y-%m-%d %H:%M UTC'), $(uname -n), $(nproc) CPUs," \
	"kernel $(uname -r), ${BPFTRACE:+$(bpftrace --version)}${BPFTRACE:-no bpftrace}"
echo "pprobe: $PPROBE ($(git -C "$SRC" rev-parse --short HEAD 2>/dev/null || echo '?')); load average at start:" \
	"$(cut -d' ' -f1-3 /proc/loadavg); $SECS s a run; one tool a run"

EV=syscalls:sys_enter_read
if [ -z "$ONLY" ] || [ "$ONLY" = tracepoint ]; then
	: >"$TMP/rows"
	for r in $RATES; do
		run untraced "$r"
		run "pprobe --hist count" "$r" "$PPROBE" trace -p @PID@ -e $EV --hist count
		[ -z "$BPFTRACE" ] || run "bpftrace hist()" "$r" "$BPFTRACE" -e \
			"tracepoint:$EV /pid == @PID@/ { @ = hist(args->count); }"
		run "pprobe --by comm --count" "$r" "$PPROBE" trace -p @PID@ -e $EV --by comm --count
		[ -z "$BPFTRACE" ] || run "bpftrace @[comm] = count()" "$r" "$BPFTRACE" -e \
			"tracepoint:$EV /pid == @PID@/ { @[comm] = count(); }"
	done
	echo
	echo "== tracepoint $EV, the workload's read(2)s, rates: ${RATES// /, } (0: max) =="
	echo
	table
fi

if { [ -z "$ONLY" ] || [ "$ONLY" = uprobe ]; } && [ -n "$URATES" ]; then
	: >"$TMP/rows"
	U=$WL:wl_event
	for r in $URATES; do
		run untraced "$r"
		run "pprobe uprobe --count" "$r" "$PPROBE" trace -p @PID@ -e "uprobe:$U" --count
		[ -z "$BPFTRACE" ] || run "bpftrace uprobe count()" "$r" "$BPFTRACE" -e \
			"uprobe:$U /pid == @PID@/ { @ = count(); }"
		run "pprobe --latency" "$r" "$PPROBE" trace -p @PID@ --latency -e "uprobe:$U" -e "uretprobe:$U"
		[ -z "$BPFTRACE" ] || run "bpftrace latency hist()" "$r" "$BPFTRACE" -e \
			"uprobe:$U /pid == @PID@/ { @s[tid] = nsecs; }
			 uretprobe:$U /@s[tid]/ { @ = hist((nsecs - @s[tid]) / 1000); delete(@s[tid]); }"
	done
	echo
	echo "== uprobe on wl_event (each read(2) of the workload), rates: ${URATES// /, } (0: max) =="
	echo "   latency: a uprobe and its uretprobe, the durations' log2 histogram (us); counted: pairs"
	echo
	table
fi
echo
left=$(left_probes)
if [ -n "$left" ]; then
	echo "tracefs: probes of this run's pprobe left in $TR/uprobe_events (removed on exit): $left"
else
	echo "tracefs: no probe of this run's pprobe left in ${TR:-tracefs}/uprobe_events"
fi
