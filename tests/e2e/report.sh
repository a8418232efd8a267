#!/usr/bin/env bash
# pprobe report (perf report --stdio's view) and diff --no-comm / --table:
# exact tables on synthetic folded input with known numbers (recursion
# counted once in Children, kernel frames [k], objects of unknown frames,
# pid/tid roots and their filters, callers/callees trees), usage errors, and
# a real recording of a program that forks, execs and starts threads whose
# Self and Children shares must equal those awk computes from the folded
# file; diff --no-comm on the same program recorded under two names.
. "$(dirname "$0")/lib.sh"
W=$WORKLOADS

cat >"$T/syn.folded" <<'IN'
app;_start;main;work;hot 60
app;_start;main;work;cold 20
app;_start;main;rec;rec;rec 10
app;_start;main;write;sys_write_[k];vfs_write_[k] 6
app;[libc.so.6] 4
not a stack line
IN

"$PPROBE" report "$T/syn.folded" >"$T/out" 2>"$T/err"
check "report: exit 0" [ $? -eq 0 ]
check "report: children and self, by children" diff -u - "$T/out" <<OUT
# pprobe report of $T/syn.folded (folded)
# Total count: 100 in 5 stacks
#
# Children        Self  Command  Shared Object      Symbol
# ........    ........  .......  .................  ......
    96.00%       0.00%  app      [unknown]          [.] _start
    96.00%       0.00%  app      [unknown]          [.] main
    80.00%       0.00%  app      [unknown]          [.] work
    60.00%      60.00%  app      [unknown]          [.] hot
    20.00%      20.00%  app      [unknown]          [.] cold
    10.00%      10.00%  app      [unknown]          [.] rec
     6.00%       6.00%  app      [kernel.kallsyms]  [k] vfs_write
     6.00%       0.00%  app      [kernel.kallsyms]  [k] sys_write
     6.00%       0.00%  app      [unknown]          [.] write
     4.00%       4.00%  app      libc.so.6          [.] [libc.so.6]
OUT
check "report: the ignored line said" grep -qx "pprobe report: ignored 1 lines with invalid format (not 'stack COUNT')" "$T/err"

"$PPROBE" report --stdio --no-children --sort sym --percent-limit 5 -i - <"$T/syn.folded" >"$T/out" 2>/dev/null
check "report --no-children --sort sym --percent-limit 5 -i -" diff -u - "$T/out" <<OUT
# pprobe report of - (folded)
# Total count: 100 in 5 stacks
#
# Overhead  Symbol
# ........  ......
    60.00%  [.] hot
    20.00%  [.] cold
    10.00%  [.] rec
     6.00%  [k] vfs_write
OUT

"$PPROBE" report --callees main "$T/syn.folded" >"$T/out" 2>/dev/null
check "report --callees main: the tree below main" diff -u - <(tail -n +4 "$T/out") <<'OUT'
# Callees of main
#
 96.00%  main
   80.00%  work
     60.00%  hot
     20.00%  cold
   10.00%  rec
     10.00%  rec
       10.00%  rec
    6.00%  write
      6.00%  sys_write_[k]
        6.00%  vfs_write_[k]
OUT
"$PPROBE" report --callers rec --percent-limit 1 "$T/syn.folded" >"$T/out" 2>/dev/null
check "report --callers rec: from the innermost rec up" diff -u - <(tail -n +4 "$T/out") <<'OUT'
# Callers of rec
#
 10.00%  rec
   10.00%  rec
     10.00%  rec
       10.00%  main
         10.00%  _start
OUT

# Roots with pid and tid (record --tid; stackcollapse-perf.pl --tid / --pid)
cat >"$T/tid.folded" <<'IN'
app-100/100;main;a 30
app-100/101;main;b 20
app-200/200;main;a 40
sh-300;main;c 10
IN
"$PPROBE" report --no-children --sort pid,tid,sym "$T/tid.folded" >"$T/out"
check "report --sort pid,tid,sym" diff -u - <(tail -n +4 "$T/out") <<'OUT'
# Overhead  Pid  Tid  Symbol
# ........  ...  ...  ......
    40.00%  200  200  [.] a
    30.00%  100  100  [.] a
    20.00%  100  101  [.] b
    10.00%  300  -    [.] c
OUT
"$PPROBE" report --pid 100 --sort comm,sym "$T/tid.folded" >"$T/out"
check "report --pid 100: shares of that process's 50" diff -u - <(tail -n +2 "$T/out") <<'OUT'
# Total count: 50 in 2 stacks
# Only pid 100
#
# Children        Self  Command  Symbol
# ........    ........  .......  ......
   100.00%       0.00%  app      [.] main
    60.00%      60.00%  app      [.] a
    40.00%      40.00%  app      [.] b
OUT
"$PPROBE" report --tid 101,200 --no-children --sort sym "$T/tid.folded" >"$T/out"
check "report --tid 101,200" diff -u - <(tail -n +5 "$T/out") <<'OUT'
# Overhead  Symbol
# ........  ......
    66.67%  [.] a
    33.33%  [.] b
OUT

# Usage errors: one line, exit 2, nothing on stdout.
err2() {	# err2 DESC REGEX ARGS...
	local d=$1 re=$2; shift 2
	"$PPROBE" report "$@" >"$T/o" 2>"$T/e"; local rc=$?
	check "$d: exit 2, one line, nothing on stdout ($(head -c 200 "$T/e"))" \
		[ $rc -eq 2 -a "$(wc -l <"$T/e")" -eq 1 -a ! -s "$T/o" ]
	check "$d: says why" grep -Eq -- "$re" "$T/e"
}
sed '$d' "$T/syn.folded" >"$T/clean.folded"
err2 "--pid on input without pids" "^pprobe report: --pid: .* has no pids" --pid 1 "$T/clean.folded"
err2 "--tid on input without tids" "^pprobe report: --tid: .* has no tids" --tid 1 "$T/clean.folded"
err2 "--callers of an unknown function" "no function 'nope' in the samples" --callers nope "$T/clean.folded"
err2 "--sort with an unknown key" "--sort: unknown or repeated key 'cpu'" --sort comm,cpu "$T/clean.folded"
err2 "--percent-limit 101" "--percent-limit wants a percentage" --percent-limit 101 "$T/clean.folded"
err2 "-i and FILE" "either as -i FILE or as FILE" -i "$T/clean.folded" "$T/clean.folded"
(cd "$T" && "$PPROBE" report >"$T/o" 2>"$T/e"); rc=$?
check "report without pprobe.folded: exit 1, names the file" \
	[ $rc -eq 1 -a "$(cat "$T/e")" = "pprobe report: cannot open pprobe.folded: No such file or directory" ]

# diff --table: perf diff's view, shares of each side's own total
sed 's/^app;/app.orig;/; s/hot 60/hot 30/' "$T/clean.folded" >"$T/before.folded"
"$PPROBE" diff --table "$T/before.folded" "$T/clean.folded" >"$T/out"
check "diff --table" diff -u - <(tail -n +3 "$T/out") <<'OUT'
# Baseline         New       Delta  Shared Object      Symbol
# ........    ........    ........  .................  ......
    42.86%      60.00%     +17.14%  [unknown]          [.] hot
    28.57%      20.00%      -8.57%  [unknown]          [.] cold
    14.29%      10.00%      -4.29%  [unknown]          [.] rec
     8.57%       6.00%      -2.57%  [kernel.kallsyms]  [k] vfs_write
     5.71%       4.00%      -1.71%  libc.so.6          [.] [libc.so.6]
OUT
"$PPROBE" diff --no-comm "$T/before.folded" "$T/clean.folded" >"$T/out"
check "diff --no-comm: joined without the program name" diff -u - "$T/out" <<'OUT'
[libc.so.6] 4 4
_start;main;rec;rec;rec 10 10
_start;main;work;cold 20 20
_start;main;work;hot 30 60
_start;main;write;sys_write_[k];vfs_write_[k] 6 6
OUT
check "diff without --no-comm: every stack N 0 / 0 N" \
	[ "$("$PPROBE" diff "$T/before.folded" "$T/clean.folded" | awk '$(NF-1) == 0 || $NF == 0' | wc -l)" -eq 10 ]
"$PPROBE" diff --table --svg "$T/before.folded" "$T/clean.folded" >"$T/o" 2>"$T/e"
check "diff --table --svg: exit 2" [ $? -eq 2 -a ! -s "$T/o" ]

# Binary input is pprof's to decode, never misread as folded lines: a
# broken gzip is one line naming the file, exit 1, in each reader.
printf '\x1f\x8b\x08\x00broken' >"$T/broken.pb.gz"
for c in report flamegraph "diff $T/clean.folded"; do
	"$PPROBE" $c "$T/broken.pb.gz" >"$T/o" 2>"$T/e"; rc=$?
	check "$c of a broken .pb.gz: exit 1, nothing on stdout" [ $rc -eq 1 -a ! -s "$T/o" ]
	check "$c of a broken .pb.gz: one line naming it ($(head -c 200 "$T/e"))" \
		[ "$(wc -l <"$T/e")" -eq 1 -a "$(grep -cF "$T/broken.pb.gz: " "$T/e")" -eq 1 ]
done

# A real recording: sh forks and execs two programs, one of them forks and
# execs a third that starts two threads.
need_root
"$PPROBE" record -g -o "$T/real.folded" -o "$T/real.pb.gz" -- sh -c \
	"$W/wl_record hot 0.4 & $W/wl_record fork-exec $W/wl_record threads 2 0.3; wait" 2>"$T/rec.err" >/dev/null
check "record of sh, fork-exec and threads: exit 0" [ $? -eq 0 ]
has_both() { grep -q "$1" "$3" && grep -q "$2" "$3"; }
check "... the threads and the hot functions are in it" has_both thread_spin hot_three "$T/real.folded"
# awk's Self and Children by symbol ([k] for kernel frames, suffixes off),
# Children once per stack.
awk '{
	w = $NF; sub(/ [0-9.]+$/, ""); n = split($0, f, ";"); total += w
	delete seen
	for (i = 2; i <= n; i++) {
		s = f[i]; k = "[.] "
		if (s ~ /_\[k\]$/) k = "[k] "
		sub(/_\[[kij]\]$/, "", s); s = k s
		if (!(s in seen)) { seen[s] = 1; ch[s] += w }
		if (i == n) self[s] += w
	}
	if (n == 1) { self["[.] [unknown]"] += w; ch["[.] [unknown]"] += w }
}
END {
	for (s in ch) printf "%.2f%% %.2f%% %s\n", 100 * ch[s] / total, 100 * self[s] / total, s
}' "$T/real.folded" | sort -k3 >"$T/awk"
"$PPROBE" report --sort sym "$T/real.folded" 2>/dev/null | grep -v '^#' |
	awk '{ c = $1; s = $2; $1 = ""; $2 = ""; sub(/^  /, ""); print c, s, $0 }' | sort -k3 >"$T/rep"
same_nonempty() { [ -s "$1" ] && diff -u "$1" "$2"; }
check "real recording: $(wc -l <"$T/rep") symbols, Children and Self as awk computes them" \
	same_nonempty "$T/awk" "$T/rep"
"$PPROBE" report --no-children --sort sym "$T/real.folded" 2>/dev/null | grep -v '^#' |
	awk '{ print $1, $2, $3 }' >"$T/rep"
awk '$2 != "0.00%" { print $2, $3, $4 }' "$T/awk" | sort -k1,1nr -k2 >"$T/awkself"
check "real recording --no-children: the same Self shares" diff -u <(sort -k2 "$T/awkself") <(sort -k2 "$T/rep")
top=$(head -1 "$T/rep" | awk '{ print $3 }')
check "real recording: the top self symbol is a spinning one ($top)" \
	[ "$top" = spin_units -o "$top" = hot_three ]

# The same recording as pprof: the header says the value reported (cpu ns,
# each sample worth 1001001 ns at 999 Hz), the samples (the folded sum) and
# the stacks (pprof Samples: a stack per pid and tid, as go tool pprof -raw
# lists them)
head -2 <("$PPROBE" report "$T/real.pb.gz" 2>&1) >"$T/hdr"
cat "$T/hdr"
n=$(folded_sum "$T/real.folded")
read -r ns samples stacks < <(sed -nE 's/^# Total: ([0-9]+) cpu\/nanoseconds, ([0-9]+) samples, in ([0-9]+) stacks$/\1 \2 \3/p' "$T/hdr")
check "pprof header: '# Total: NS cpu/nanoseconds, N samples, in K stacks'" [ -n "$stacks" ]
check "pprof header: $samples samples, the folded sum ($n)" [ "${samples:-0}" -eq "$n" -a "$n" -gt 0 ]
check "pprof header: $ns ns, $n samples of 1001001 ns" [ "${ns:-0}" -eq $((n * 1001001)) ]
check "pprof header: $stacks stacks, at least the folded lines ($(wc -l <"$T/real.folded")), at most the samples" \
	[ "${stacks:-0}" -ge "$(wc -l <"$T/real.folded")" -a "${stacks:-0}" -le "$n" ]
if command -v go >/dev/null; then
	export HOME=$T/home GOCACHE=$T/gocache GOFLAGS= GOTOOLCHAIN=local
	raw=$(go tool pprof -symbolize=none -raw "$T/real.pb.gz" 2>/dev/null |
		awk '/^Samples:/ { on = 1; next } /^Locations/ { on = 0 } on && /^ +[0-9]+ +[0-9]+:/ { n++ } END { print n + 0 }')
	check "pprof header: $stacks stacks, as go tool pprof -raw lists samples ($raw)" [ "${stacks:-0}" -eq "$raw" ]
fi

# diff --no-comm: the same program recorded under two names
cp "$W/wl_record" "$T/wl_copy"
"$PPROBE" record -g -o "$T/a.folded" -- "$W/wl_record" hot 0.3 2>/dev/null >/dev/null
"$PPROBE" record -g -o "$T/b.folded" -- "$T/wl_copy" hot 0.3 2>/dev/null >/dev/null
folded_user "$T/a.folded" >"$T/a.user"
folded_user "$T/b.folded" >"$T/b.user"
"$PPROBE" diff "$T/a.user" "$T/b.user" >"$T/d" 2>/dev/null
check "two names without --no-comm: the hot stacks are N 0 / 0 N" \
	[ "$(grep -E 'hot_(one|three) ' "$T/d" | awk '$(NF-1) == 0 || $NF == 0' | wc -l)" -ge 4 ]
"$PPROBE" diff --no-comm "$T/a.user" "$T/b.user" >"$T/d" 2>/dev/null
# the heaviest stack of each hot function, joined: both sides counted
both_sides() {
	awk -v f="$1" '$(NF-2) ~ ";" f "$" && $NF + $(NF-1) > max { max = $NF + $(NF-1); ok = $NF > 0 && $(NF-1) > 0 }
		END { exit !ok }' "$2"
}
check "--no-comm: hot_three's stack counted on both sides" both_sides hot_three "$T/d"
check "--no-comm: hot_one's stack counted on both sides" both_sides hot_one "$T/d"
check "--no-comm: no line starts with a program name" not grep -qE '^(wl_record|wl_copy);' "$T/d"
# stacks only one side has (an exec's page fault, an exit) are rare
read -r one total < <(awk '{ t += $NF + $(NF-1) } $(NF-1) == 0 || $NF == 0 { o += $NF + $(NF-1) } END { print o + 0, t }' "$T/d")
check "--no-comm: stacks on one side only are under 5% of the weight ($one of $total)" \
	[ "$total" -gt 0 -a $((one * 20)) -lt "$total" ]

# One grammar for every reader of folded text: a NUL byte makes a line
# invalid, counted and said, never a stack cut at it (report made
# 'app;ma' of 'app;ma\0in;foo 5').
printf 'app;ma\0in;foo 5\napp;main;bar 3\n' >"$T/nul.folded"
for c in "report -i" flamegraph diff; do
	# shellcheck disable=SC2086
	if [ "$c" = diff ]; then set -- "$T/nul.folded" "$T/nul.folded"; else set -- "$T/nul.folded"; fi
	"$PPROBE" $c "$@" >"$T/nul.out" 2>"$T/nul.err"
	check "NUL: $c: the line is ignored, said" grep -q 'ignored [12] lines with invalid format' "$T/nul.err"
	check "NUL: $c: no frame of it" not grep -qwE 'ma|foo' "$T/nul.out"
	check "NUL: $c: the other line is read" grep -q 'bar' "$T/nul.out"
done
# A line without end (/dev/zero: 4 GB read before "out of memory", naming
# neither file nor cause): the 16 MiB cap on a line, said with the file and
# the line's number, in bounded memory (an address space of 512 MiB: not
# under a sanitizer, whose shadow needs terabytes of it).
python3 -c 'import sys; sys.stdout.write("a;b 1\n" * 3 + "x" * (17 << 20) + " 1\n")' >"$T/long.folded"
for f in /dev/zero "$T/long.folded"; do
	n=1; [ "$f" = /dev/zero ] || n=4
	for c in "report -i" flamegraph; do
		if [ -n "${PPROBE_SANITIZED:-}" ] || ! command -v prlimit >/dev/null; then
			# shellcheck disable=SC2086
			"$PPROBE" $c "$f" >/dev/null 2>"$T/long.err"
		else
			# shellcheck disable=SC2086
			prlimit --as=$((512 << 20)) "$PPROBE" $c "$f" >/dev/null 2>"$T/long.err"
		fi
		st=$?
		check "$c $f: exit 1 ($st)" [ $st -eq 1 ]
		check "$c $f: one line: the file, the line, the cap" \
			[ "$(wc -l <"$T/long.err")" -eq 1 -a "$(grep -c "$f: line $n is longer than 16 MiB (the cap on a folded line)" "$T/long.err")" -eq 1 ]
	done
done

# A pprof file whose decoding costs what its bytes do not: 65 KB of gzip,
# 64 MiB of protobuf, 32M empty strings (2.44 GB and 14.5 s to decode).
# Its cost is bounded before protobuf-c unpacks it: refused in one line.
python3 -c 'import gzip, sys; sys.stdout.buffer.write(gzip.compress(b"\x32\x00" * (32 << 20), 9))' >"$T/s.pb.gz"
if [ -n "${PPROBE_SANITIZED:-}" ] || ! command -v prlimit >/dev/null; then
	timeout 120 "$PPROBE" report -i "$T/s.pb.gz" >/dev/null 2>"$T/s.err"
else
	timeout 120 prlimit --as=$((768 << 20)) "$PPROBE" report -i "$T/s.pb.gz" >/dev/null 2>"$T/s.err"
fi
st=$?
check "pprof of 32M empty strings: exit 1 ($st)" [ $st -eq 1 ]
check "pprof of 32M empty strings: one line, the cap on decoding" \
	[ "$(wc -l <"$T/s.err")" -eq 1 -a "$(grep -c 'decoding takes more than 1024 MiB (the cap' "$T/s.err")" -eq 1 ]

# The names users know (issue 28): a malloc uprobe's stacks end in malloc,
# not glibc's hidden __GI___libc_malloc, so --callers malloc answers about
# every one of them. A command that forks and execs (sh, ls).
if [ "$(id -u)" = 0 ]; then
	"$PPROBE" record -e uprobe:libc.so.6:malloc -g -o "$T/m.folded" -- sh -c 'ls / >/dev/null; ls /usr >/dev/null' 2>"$T/m.err"
	n=$(folded_sum "$T/m.folded")
	check "malloc uprobe: samples ($n)" [ "${n:-0}" -gt 10 ]
	folded_user "$T/m.folded" >"$T/mu.folded"
	check "malloc uprobe: every leaf is malloc" [ "$(folded_sum "$T/mu.folded" ';malloc [0-9]+$')" -eq "$n" ]
	check "no __GI_ names" not grep -q '__GI_' "$T/m.folded"
	"$PPROBE" report --callers malloc -i "$T/m.folded" >"$T/m.rep" 2>&1
	check "report --callers malloc: all of them" grep -qE '^100\.00% +malloc$' "$T/m.rep"
	shown_on_failure "$T/m.rep"
fi
done_testing
