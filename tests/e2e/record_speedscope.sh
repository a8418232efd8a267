#!/usr/bin/env bash
# record's speedscope output (-o FILE.speedscope.json, --format speedscope)
# on programs that fork, exec and start threads: the file is speedscope's
# format (tests/e2e/speedscope_check.mjs: every frame index in range,
# samples and weights of one length, endValue their sum, the busiest thread
# active, ...), one profile per thread that ran, each thread's weights as
# the --per-thread folded output of the same workload counts them (exact:
# every call of a probed function is a sample), the summary's sample count
# in the weights, ns where the weights are time, one file per event.
. "$(dirname "$0")/lib.sh"
need_root
command -v node >/dev/null || skip "node not found (apt-get install nodejs): it reads the JSON"
CHECK="$(dirname "$0")/speedscope_check.mjs"
W=$WORKLOADS
B=$W/probe_fork

# -- exact: every work() call is a sample. 2 children (one exec'd), 3
# threads, 50 calls each: 5 threads that ran work(), 50 samples each.
have_uprobes=1
[ -e /sys/bus/event_source/devices/uprobe ] || have_uprobes=0
if [ $have_uprobes = 1 ]; then
	"$PPROBE" record -g -e "uprobe:$B:work" -o "$T/p.speedscope.json" -- "$B" 2 3 50 >/dev/null 2>"$T/err"
	check "probe: the command's own exit status, 7" [ $? -eq 7 ]
	check "probe: no fork, exec or thread failed" not grep -q '^probe_fork:' "$T/err"
	"$PPROBE" record -q -g --per-thread -e "uprobe:$B:work" -o "$T/p.folded" -- "$B" 2 3 50 >/dev/null 2>&1
	if node "$CHECK" "$T/p.speedscope.json" >"$T/p.prof" 2>"$T/p.why"; then
		pass "probe: a valid speedscope file"
	else
		fail "probe: not a valid speedscope file: $(head -3 "$T/p.why")"
	fi
	check "probe: 5 profiles, one per thread that called work()" [ "$(wc -l <"$T/p.prof")" -eq 5 ]
	# (the exec'd child execs /proc/self/exe: its comm is "exe")
	check "probe: each named 'COMM pid: P tid: T'" \
		[ "$(grep -cE '^(probe_fork|exe) pid: [0-9]+ tid: [0-9]+	' "$T/p.prof")" -eq 5 ]
	check "probe: 3 threads of one process, 2 processes of one thread" \
		[ "$(awk -F'\t' '{ split($1, a, " "); n[a[3]]++ } END { for (p in n) print n[p] }' "$T/p.prof" |
			sort | tr '\n' ' ')" = "1 1 3 " ]
	# each thread's weight, as the folded stacks of the same workload give them
	got=$(awk -F'\t' '{ print $2 }' "$T/p.prof" | sort -n | tr '\n' ' ')
	want=$(awk '{ split($1, f, ";"); n[f[1]] += $NF } END { for (t in n) print n[t] }' "$T/p.folded" |
		sort -n | tr '\n' ' ')
	check "probe: per-thread weights as in --per-thread folded ($want)" [ "$got" = "$want" ]
	check "probe: 50 calls in every thread" [ "$got" = "50 50 50 50 50 " ]
	check "probe: work is each thread's top frame" \
		[ "$(awk -F'\t' '$4 == "work" && $5 == "none"' "$T/p.prof" | wc -l)" -eq 5 ]
else
	echo "note: no uprobe PMU: the exact per-thread counts are not checked" >&2
fi

# -- cpu-clock: a fork, an exec, three spinning threads
"$PPROBE" record -g -o "$T/c.speedscope.json" -- "$W/wl_record" fork-exec "$W/wl_record" threads 3 0.4 \
	>/dev/null 2>"$T/err"
check "cpu-clock: exit status 0" [ $? -eq 0 ]
if node "$CHECK" "$T/c.speedscope.json" >"$T/c.prof" 2>"$T/c.why"; then
	pass "cpu-clock: a valid speedscope file"
else
	fail "cpu-clock: not a valid speedscope file: $(head -3 "$T/c.why")"
fi
samples=$(sed -nE 's/^pprobe record: cpu-clock: ([0-9]+) samples .* ([0-9]+) threads -> .*/\1/p' "$T/err")
total=$(awk -F'\t' '{ n += $2 } END { print n + 0 }' "$T/c.prof")
check "cpu-clock: the weights hold every sample of the summary ($samples)" [ -n "$samples" -a "$total" = "$samples" ]
check "cpu-clock: the summary counts the threads" \
	grep -qE "cpu-clock: .* $(wc -l <"$T/c.prof") threads -> $T/c.speedscope.json" "$T/err"
# the three spinning threads are of the exec'd process: one pid, three tids
spinning=$(awk -F'\t' '$4 == "spin_units" && $2 >= 50 { split($1, a, " "); print a[3] }' "$T/c.prof" | sort | uniq -c |
	awk '{ print $1 }' | sort -n | tail -1)
check "cpu-clock: three threads of one process spin in spin_units" [ "${spinning:-0}" -eq 3 ]
check "cpu-clock: unit none for sample counts" not grep -qv '	none$' "$T/c.prof"
frames=$(node -e 'const j = JSON.parse(require("fs").readFileSync(process.argv[1]));
	for (const f of j.shared.frames) console.log(f.name + "\t" + (f.file || ""))' "$T/c.speedscope.json")
check "cpu-clock: user frames carry their source file" \
	grep -qE '^spin_units	.*/tests/workloads/record_wl\.c$' <<<"$frames"
check "cpu-clock: the stack is complete, outermost first" node -e '
	const j = JSON.parse(require("fs").readFileSync(process.argv[1]));
	const p = j.profiles[j.activeProfileIndex];
	const s = p.samples.map((s) => s.map((i) => j.shared.frames[i].name).join(";"));
	process.exit(s.some((x) => /^clone3;start_thread;thread_main;thread_spin;spin_units$/.test(x)) ? 0 : 1)' \
	"$T/c.speedscope.json"
check "cpu-clock: exporter and name" node -e '
	const j = JSON.parse(require("fs").readFileSync(process.argv[1]));
	process.exit(/^pprobe@[0-9]/.test(j.exporter) && j.name === "pprobe record: cpu-clock" ? 0 : 1)' \
	"$T/c.speedscope.json"

# -- --weight period on cpu-clock: time, in ns
"$PPROBE" record -q -g --weight period -F 499 --format speedscope -o "$T/ns.json" -- "$W/wl_record" hot 0.3 \
	>"$T/ns.out"
node "$CHECK" "$T/ns.json" >"$T/ns.prof" 2>"$T/ns.why" || fail "period: not valid: $(head -3 "$T/ns.why")"
check "period: unit nanoseconds" [ "$(awk -F'\t' '{ print $5 }' "$T/ns.prof" | sort -u)" = nanoseconds ]
ns=$(awk -F'\t' '{ n += $2 } END { print n + 0 }' "$T/ns.prof")
# the workload's own CPU time (it prints it), within 20% and 10 ms: samples every 2 ms of it
cpu=$(awk '$1 == "cpu" { printf "%d", $2 * 1e9 }' "$T/ns.out")
check "period: the weights are the workload's CPU time, $cpu ns ($ns ns)" \
	awk -v n="$ns" -v c="${cpu:-0}" 'BEGIN { d = n - c; if (d < 0) d = -d; exit !(c > 0 && d <= 0.2 * c + 1e7) }'
check "period: hot_three is the top frame" [ "$(awk -F'\t' '{ print $4 }' "$T/ns.prof" | head -1)" = hot_three ]

# -- --off-cpu: wall-clock time in ns, and the timeline in time order: each
# round of offcpu_wl's main thread burns 10 ms of CPU, then naps 10 ms; its
# exec'd child does 4 such rounds. In time order every nap (a blocked
# interval of 5 ms or more in nap()) comes after burn() samples, never
# next to another nap: grouped by stack they would all be together.
"$PPROBE" record -q --off-cpu -g -o "$T/o.speedscope.json" -- "$W/offcpu_wl" 8 >/dev/null 2>&1
check "off-cpu: the command's own exit status, 3" [ $? -eq 3 ]
node "$CHECK" "$T/o.speedscope.json" >"$T/o.prof" 2>"$T/o.why" || fail "off-cpu: not valid: $(head -3 "$T/o.why")"
check "off-cpu: unit nanoseconds" [ "$(awk -F'\t' '{ print $5 }' "$T/o.prof" | sort -u)" = nanoseconds ]
naps=$(node -e '
	const j = JSON.parse(require("fs").readFileSync(process.argv[1]));
	for (const p of j.profiles) {
		const m = /^offcpu_wl pid: (\d+) tid: (\d+)$/.exec(p.name);
		if (!m || m[1] !== m[2]) continue;
		let naps = 0, burnt = true, ok = true;
		p.samples.forEach((s, i) => {
			const n = s.map((k) => j.shared.frames[k].name);
			if (n.includes("nap") && n.includes("[off-cpu: blocked]") && p.weights[i] >= 5e6) {
				ok = ok && burnt;
				naps++;
				burnt = false;
			} else if (n.includes("burn") && !n.some((x) => x.startsWith("[off-cpu"))) {
				burnt = true;
			}
		});
		console.log(naps + (ok ? " alternating" : " adjacent"));
	}' "$T/o.speedscope.json" | sort -n | tr '\n' ',')
check "off-cpu: time order: 8 naps of the main thread and 4 of the child, each after burning ($naps)" \
	[ "$naps" = "4 alternating,8 alternating," ]

# -- --format speedscope to stdout; the command's stdout goes to stderr
"$PPROBE" record -q -e syscalls:sys_enter_prctl --format speedscope -o - -- "$W/wl_record" prctl 77 \
	>"$T/out.json" 2>/dev/null
node "$CHECK" "$T/out.json" >"$T/out.prof" 2>"$T/out.why" || fail "stdout: not valid: $(head -3 "$T/out.why")"
check "stdout: 77 prctl calls in one thread" [ "$(awk -F'\t' '{ print $1 "/" $2 }' "$T/out.prof")" = \
	"$(sed -n 's/^\(wl_record pid: \([0-9]*\) tid: \2\)\t.*/\1/p' "$T/out.prof")/77" ]

# -- several events: one file each, FILE's stem + .EVENT.speedscope.json
"$PPROBE" record -q -e syscalls:sys_enter_prctl,syscalls:sys_enter_write -o "$T/two.speedscope.json" -- \
	"$W/wl_record" prctl 21 >/dev/null 2>&1
f1=$T/two.syscalls-sys_enter_prctl.speedscope.json
f2=$T/two.syscalls-sys_enter_write.speedscope.json
check "two events: two files" [ -s "$f1" -a -s "$f2" -a ! -e "$T/two.speedscope.json" ]
check "two events: 21 prctls in the prctl file" \
	[ "$(node "$CHECK" "$f1" 2>/dev/null | awk -F'\t' '{ n += $2 } END { print n }')" = 21 ]

# -- --format folded keeps a .speedscope.json name folded; a bad format is a usage error
"$PPROBE" record -q --format folded -e syscalls:sys_enter_prctl -o "$T/f.speedscope.json" -- \
	"$W/wl_record" prctl 3 >/dev/null 2>&1
check "--format folded wins over the name" grep -qE '^wl_record;.* 3$' "$T/f.speedscope.json"
"$PPROBE" record --format speedscop -o "$T/bad.json" -- /bin/true >/dev/null 2>"$T/bad.err"
check "--format speedscop: exit 2, one line, no file" \
	[ $? -eq 2 -a "$(wc -l <"$T/bad.err")" -eq 1 -a ! -e "$T/bad.json" ]
grep -qE "one of .*speedscope.*, not 'speedscop'" "$T/bad.err" || fail "the error names the formats: $(cat "$T/bad.err")"

done_testing
