# Sourced by tests/e2e/*.sh. Environment from ctest: PPROBE, WORKLOADS, SRCDIR.
# A test exits 0 (pass), 77 (skip: it prints why) or anything else (fail).
set -uo pipefail
: "${PPROBE:?PPROBE not set (run through ctest)}"
: "${WORKLOADS:?WORKLOADS not set (run through ctest)}"
export LC_ALL=C
T=$(mktemp -d /tmp/pprobe-e2e.XXXXXX)
# Debug images kept (symbolize/debug_image.c) in the test's own cache, not
# the user's: beside $T, whose listing some tests check.
export PPROBE_CACHE_DIR=$T.cache
trap 'rm -rf "$T" "$T.cache"' EXIT
FAILS=0

fail() { echo "FAIL: $*" >&2; FAILS=$((FAILS + 1)); }
pass() { echo "ok: $*"; }
skip() { echo "SKIP: $*" >&2; exit 77; }
need_root() { [ "$(id -u)" -eq 0 ] || skip "needs root (perf_event_paranoid and tracefs)"; }
# need_uprobe_events: TR, the tracefs directory, with uprobe_events
# writable, or skip saying why. tracefs is not always mounted at boot;
# pprobe mounts it where it is not, as a user's first command would.
need_uprobe_events() {
	"$PPROBE" probe -l >/dev/null 2>&1
	TR=$(awk '$3 == "tracefs" { print $2; exit }' /proc/mounts)
	[ -n "$TR" ] || skip "tracefs is not mounted and pprobe probe -l did not mount it"
	[ -w "$TR/uprobe_events" ] || skip "no writable $TR/uprobe_events (kernel without CONFIG_UPROBE_EVENTS?)"
}
# check DESCRIPTION COMMAND...: run a test command, record pass/fail
# not COMMAND...: succeed when the command fails (for check)
not() { ! "$@"; }
# minbase_root SUITE: ROOT, a Debian SUITE root made by debootstrap
# --variant=minbase once and kept for reruns and CI ($PPROBE_TEST_CACHE,
# default /var/cache/pprobe-tests; made aside and renamed, so a root there
# is whole). Skips the test where it cannot be made (no network, no mirror).
minbase_root() {
	local cache=${PPROBE_TEST_CACHE:-/var/cache/pprobe-tests}
	ROOT=$cache/$1-minbase
	mkdir -p "$cache" || skip "cannot make $cache"
	exec 9>"$cache/$1-minbase.lock"
	flock 9
	if [ ! -d "$ROOT" ]; then
		rm -rf "$ROOT.tmp"
		if ! timeout 900 debootstrap --variant=minbase "$1" "$ROOT.tmp" >"$T/debootstrap.log" 2>&1; then
			rm -rf "$ROOT.tmp"
			skip "debootstrap --variant=minbase $1 failed (no network or mirror?): $(tail -1 "$T/debootstrap.log")"
		fi
		mv "$ROOT.tmp" "$ROOT"
	fi
	flock -u 9
}
check() { local d=$1; shift; if "$@"; then pass "$d"; else fail "$d"; fi; }
# wait_for COMMAND...: until it succeeds, 10 s at most (status 1 then)
wait_for() { for _ in $(seq 200); do "$@" && return 0; sleep 0.05; done; return 1; }
alive() { kill -0 "$1" 2>/dev/null; }
# reap PID: wait for it, killing it (-9) if it is still there after 10 s;
# its status
reap() { wait_for not alive "$1" || kill -KILL "$1"; wait "$1"; }
# folded_sum FILE [REGEX]: total count of folded lines (matching REGEX)
folded_sum() { awk -v re="${2:-}" 're == "" || $0 ~ re { n += $NF } END { print n + 0 }' "$1"; }
# folded_user FILE: the stacks without their kernel frames at the leaf end.
# Where a cpu-clock sample lands (in user code, or in an interrupt or
# softirq the kernel ran on its way back to it) is the kernel's choice and
# differs between versions and with load; the user part is pprobe's.
folded_user() { sed -E 's/(;[^; ]*_\[k\])+ ([0-9]+)$/ \2/' "$1"; }
# Where a user stack's outer end may be (regexes for the frame after comm):
# ENTRY_ROOT, an entry point (the program's or ld.so's start, a new thread's
# or a posix_spawn child's clone3); MARKED_ROOT, a frame saying why the
# stack ends there. The object in "[no-cfi OBJ]" and "[unwind-error OBJ]"
# may be bracketed itself ("[unwind-error [vdso]]").
ENTRY_ROOT='(_start|_dl_start_user|clone3|start_thread)'
MARKED_ROOT='\[(truncated|unmapped|no-stack|(no-cfi|unwind-error)( [^;]*)?)\]'
# unwind_check: each record -g of the test also walks every stack with libdw
# alone and compares (symbolize/unwind_fast.c); done_testing fails on a
# record whose walks differed in more than 1 of 1,000 (more than one,
# below 1,000 walks), or when none reported. One walk in a record has
# differed twice, in a CI run and in a local one, neither seen again here:
# python3.13 -X perf_jit's forked child (the fast path 128 frames complete,
# libdw alone 1 frame, no-cfi; 0 in 58 runs), and binutils' as sampled at
# an epilogue's pop, as+0x5e51a, a CFI row's first byte (the fast path 7
# frames, libdw 8, the return address differing; 0 in 36 runs of two
# builds, 6 of them unwound after as exited). A fast path that steps a
# function wrongly differs on every walk through it. What differed is
# printed, with the object and offset.
unwind_check() { export PPROBE_UNWIND_CHECK=$T/unwind.check; }
unwind_checked() {
	local bad
	[ -z "${PPROBE_UNWIND_CHECK:-}" ] && return
	bad=$(awk '{ d = w = -1; for (i = 1; i < NF; i++) if ($i == "of" && $(i + 2) == "walks") { d = $(i - 1); w = $(i + 1) }
		if (w < 1 || (d > 1 && d * 1000 > w)) n++ } END { print n + 0 }' "$PPROBE_UNWIND_CHECK" 2>/dev/null)
	check "fast-path walks equal libdw's, all but 1 in 1,000 or one walk ($(grep -c . "$PPROBE_UNWIND_CHECK" 2>/dev/null) records; over that: ${bad:-?})" \
		test -s "$PPROBE_UNWIND_CHECK" -a "${bad:-1}" -eq 0
	grep -v 'unwind check: 0 of' "$PPROBE_UNWIND_CHECK" 2>/dev/null | head -3 | sed 's/^/  /'
}
# shown_on_failure FILE...: printed by done_testing after the checks, only
# when one failed: a test that runs pprobe often keeps its FAIL lines near
# the top of what CI shows of it
SHOWN_ON_FAILURE=()
shown_on_failure() { SHOWN_ON_FAILURE+=("$@"); }
done_testing() {
	unwind_checked
	[ "$FAILS" -eq 0 ] && { echo "all checks passed"; exit 0; }
	local f
	for f in "${SHOWN_ON_FAILURE[@]}"; do
		echo "--- $f"
		cat "$f"
	done
	echo "$FAILS check(s) failed" >&2
	exit 1
}

# --- bpftrace beside pprobe (trace_agg.sh, trace_latency.sh) ---
# bt_start OUT PROG: bpftrace running PROG, attached (BT its pid), or
# BT empty and BT_WHY saying why it cannot run here.
bt_start() {
	BT= BT_WHY=
	command -v bpftrace >/dev/null || { BT_WHY="bpftrace is not installed (scripts/packages.txt)"; return; }
	bpftrace -e "$2" >"$1" 2>"$1.err" &
	BT=$!
	for _ in $(seq 600); do
		grep -q '^Attaching' "$1" && { sleep 0.5; return; }
		alive $BT || break
		sleep 0.05
	done
	BT_WHY="bpftrace did not attach: $(grep -v RLIMIT_MEMLOCK "$1.err" | head -2 | tr '\n' ' ')"
	kill -INT $BT 2>/dev/null
	reap $BT >/dev/null 2>&1
	BT=
}
# bt_stop OUT: SIGINT (bpftrace prints its maps), then OUT.maps: the maps
# alone (its "Attaching" line and the blank lines before the maps left out)
bt_stop() {
	kill -INT $BT
	reap $BT
	sed '0,/^Attaching/d' "$1" | sed '/./,$!d' >"$1.maps"
}

# --- real programs (record_build.sh, record_real.sh) ---
# real_stacks ERR FOLDED MIN NMIN: record -g's summary (ERR) and output
# (FOLDED) of a real program: sampled (>= NMIN user stacks); samples with no mapping at
# the user pc ("[unknown]": taken inside execve while the old image is gone)
# <= 1%, and samples the kernel copied no stack bytes for ("[no-stack]")
# <= 2%, both counted apart; >= MIN% of the other user stacks complete; every
# user stack starts at an entry point or at a frame saying why; per object of
# 100 stacks or more (its no-stack ones apart), >= 99% complete at 1,000
# stacks and more, >= 97% below (one sample inside execve or in code without
# CFI is 0.7% of 140).
real_stacks() {
	local err=$1 folded=$2 min=$3 nmin=$4 n pct unk nost total entry marked obj objn objpct objnost m
	read -r n pct < <(sed -n 's/.*unwinding: \([0-9]*\) user stacks, \([0-9.]*\)% complete.*/\1 \2/p' "$err")
	check "sampled (>= $nmin user stacks, got ${n:-0})" test "${n:-0}" -ge "$nmin"
	unk=$(sed -n 's/^  \[unknown\] *\([0-9]*\) stacks.*/\1/p' "$err")
	unk=${unk:-0}
	check "samples with no mapping at the user pc: <= 1% ($unk of ${n:-0})" test $((unk * 100)) -le "${n:-0}"
	# Samples the kernel gave no stack bytes ([no-stack]: 0.2% of a gcc
	# build's here; perf record --call-graph dwarf of the same build had
	# 0.7% with an empty copy) are the kernel's, as unmapped ones are: the
	# rest is pprobe's.
	folded_user "$folded" > "$T/real.u.folded"
	nost=$(folded_sum "$T/real.u.folded" '^[^;]*;\[no-stack\]( |;|$)')
	check "samples with no stack bytes from the kernel: <= 2% ($nost of ${n:-0})" test $((nost * 50)) -le "${n:-0}"
	check ">= $min% of the other user stacks are complete (${pct:-?}% of all; $unk unmapped, $nost no-stack)" \
		awk -v p="${pct:-0}" -v n="${n:-0}" -v u="$((unk + nost))" -v m="$min" 'BEGIN { exit !(n > u && p * n / (n - u) >= m) }'
	total=$(folded_sum "$T/real.u.folded" '^[^;]*;')
	entry=$(folded_sum "$T/real.u.folded" "^[^;]*;$ENTRY_ROOT( |;)")
	marked=$(folded_sum "$T/real.u.folded" "^[^;]*;$MARKED_ROOT( |;)")
	check "every user stack starts at an entry point or says why ($entry + $marked of $total)" \
		test $((entry + marked)) -eq "$total"
	# the others, whole (with their kernel frames), to say where they end
	paste "$T/real.u.folded" "$folded" | grep '^[^;	]*;' |
		grep -Ev "^[^;]*;($ENTRY_ROOT|$MARKED_ROOT)( |;)" | cut -f2 | head -5 | sed 's/^/  neither: /'
	while read -r obj objn objpct objnost; do
		m=$([ "$objn" -ge 1000 ] && echo 99 || echo 97)
		check "$obj: >= $m% of its $objn stacks complete ($objpct%; $objnost no-stack)" \
			awk -v p="$objpct" -v n="$objn" -v x="$objnost" -v m="$m" 'BEGIN { exit !(n > x && p * n / (n - x) >= m) }'
	done < <(sed -n 's/^  \([^ ]*\) *\([0-9]*\) stacks *\([0-9.]*\)% complete\(.*\)/\1 \2 \3 \4/p' "$err" |
		awk '$2 >= 100 && $1 != "[unknown]" { x = 0; if (match($0, /[ (,]([0-9]+) no-stack/)) { s = substr($0, RSTART, RLENGTH); gsub(/[^0-9]/, "", s); x = s } print $1, $2, $3, x }')
}

# self_vs_perf FOLDED PERFDATA N: the N user functions perf report finds
# taking the most self time (named ones, not bare addresses) take the same
# share in pprobe's FOLDED, within 0.5 point plus a quarter of perf's (two
# runs never take the same time in the same places; at ~8,000 samples a 2%
# share varies by ~0.15). Self time per function as perf report --sort sym
# shows it: each stack's leaf function, inline frames folded into the
# function they are in, C++ names without their parameters (perf 6.1 prints
# them without). Kernel functions are left out: where a VM's timer interrupt
# lands (pvm_irq_enable: 12.5% under perf, 17.7% beside a sanitized pprobe)
# is the hypervisor's doing, not the profile's.
self_vs_perf() {
	local folded=$1 data=$2 top=$3 lib id dbg ppct sym mine
	perf report -i "$data" --no-children --sort sym --stdio -q 2>/dev/null |
		sed -n 's/^ *\([0-9.]*\)% *\[[.]\] \(.*[^ ]\) *$/\1\t\2/p' > "$T/perf.self.raw"
	# bare NAME: NAME without a trailing parameter list "(...)" or "(...) const"
	local BARE='function bare(s,   i, d) { sub(/ const$/, "", s); if (s !~ /\)$/) return s
		for (i = length(s); i > 0; i--) { c = substr(s, i, 1); if (c == ")") d++; else if (c == "(" && !--d) return substr(s, 1, i - 1) }
		return s }'
	# Aliases: libc's symbol tables name one function several ways (perf says
	# malloc where pprobe says __GI___libc_malloc); both sides are compared
	# under the first name (sorted) of the address in libc's and its debug
	# file's .symtab and .dynsym.
	for lib in /lib/x86_64-linux-gnu/libc.so.6 /lib64/ld-linux-x86-64.so.2; do
		id=$(readelf -nW "$lib" 2>/dev/null | sed -n 's/.*Build ID: *\([0-9a-f]*\).*/\1/p')
		dbg=/usr/lib/debug/.build-id/${id:0:2}/${id:2}.debug
		{ readelf -Ws "$lib"; [ -n "$id" ] && [ -f "$dbg" ] && readelf -Ws "$dbg"; } 2>/dev/null |
			awk -v lib="$lib" '$4 == "FUNC" && $2 !~ /^0+$/ { sub(/@.*/, "", $8); print lib ":" $2, $8 }'
	done | sort -u | awk '{ if (!($1 in first)) first[$1] = $2; print $2, first[$1] }' > "$T/alias"
	local ALIAS='FILENAME == ARGV[1] { if (!($1 in canon)) canon[$1] = $2; next }
		function name(s) { s = bare(s); return s in canon ? canon[s] : s }'
	awk "$BARE$ALIAS"'{ n = $NF; $NF = ""; sub(/ $/, ""); k = split($0, f, ";"); i = k
		while (i > 1 && f[i] ~ /_\[i\]$/) i--
		t += n; leaf = f[i]; if (leaf !~ /_\[k\]$/) self[name(leaf)] += n }
		END { for (s in self) printf "%.2f\t%s\n", 100 * self[s] / t, s }' "$T/alias" "$folded" > "$T/pp.self"
	awk "$BARE$ALIAS"'{ split($0, x, "\t"); s[name(x[2])] += x[1] }
		END { for (k in s) printf "%.2f\t%s\n", s[k], k }' "$T/alias" FS='\t' "$T/perf.self.raw" > "$T/perf.self"
	sort -t$'\t' -k1,1gr "$T/perf.self" | awk -F'\t' '$2 !~ /^0x/' | head -"$top" > "$T/top"
	check "perf report names the top functions (got $(wc -l < "$T/top"))" test "$(wc -l < "$T/top")" -ge $((top * 5 / 8))
	while IFS=$'\t' read -r ppct sym; do
		mine=$(awk -F'\t' -v s="$sym" '$2 == s { print $1 }' "$T/pp.self")
		check "'$sym': perf ${ppct}%, pprobe ${mine:-0}%" \
			awk -v a="$ppct" -v b="${mine:-0}" 'BEGIN { d = a - b; m = 0.5 + a / 4; exit !(d <= m && d >= -m) }'
	done < "$T/top"
}
