#!/usr/bin/env bash
# record's pprof output read by Debian's go tool pprof (issue 14, part 1).
# One run writes folded and pprof (-o x.folded -o x.pb.gz) from the same
# samples of wl_cxx_deep, a C++ program that forks a child which execs it
# again, each starting threads, with inlined std::function frames:
#   -top     the self counts (and shares) of the top functions are the
#            folded file's, exactly
#   -traces  every stack, inline frames marked, is a folded stack with the
#            same count; labels comm, pid, tid on each
#   -raw     mappings carry the build ids readelf -n gives for the binary
#            and libc; the kernel's frames are in [kernel.kallsyms]; C++
#            functions have the mangled name as system name
. "$(dirname "$0")/lib.sh"
need_root
command -v go >/dev/null || skip "go tool pprof not installed (Debian package golang-go)"
export HOME=$T/home GOCACHE=$T/gocache GOFLAGS= GOTOOLCHAIN=local
mkdir -p "$HOME"
go tool pprof -h >/dev/null 2>&1 || skip "go tool pprof does not run here"
W=$WORKLOADS
pp() { go tool pprof -symbolize=none "$@" 2>"$T/pp.err"; }

"$PPROBE" record -g -o "$T/x.folded" -o "$T/x.pb.gz" -- "$W/wl_cxx_deep" 1 >/dev/null 2>"$T/err"
rc=$?
cat "$T/err"
check "record exits as the program did (0)" test "$rc" -eq 0
check "both outputs written" test -s "$T/x.folded" -a -s "$T/x.pb.gz"
check "the pprof file is gzip" test "$(head -c2 "$T/x.pb.gz" | od -An -tx1 | tr -d ' ')" = 1f8b
total=$(folded_sum "$T/x.folded")
check "the program was sampled (>= 300 samples, got $total)" test "$total" -ge 300

# Header: sample types and the period of cpu-clock at 999 Hz.
pp -raw "$T/x.pb.gz" > "$T/raw" || { cat "$T/pp.err"; fail "go tool pprof -raw failed"; }
check "-raw: period type cpu nanoseconds" grep -qx 'PeriodType: cpu nanoseconds' "$T/raw"
check "-raw: period 1001001 ns (999 Hz)" grep -qx 'Period: 1001001' "$T/raw"
check "-raw: sample types samples/count and cpu/nanoseconds (default)" \
	grep -qx 'samples/count cpu/nanoseconds\[dflt\]' "$T/raw"
check "-raw: a duration" grep -qE '^Duration: [0-9]' "$T/raw"
raw_sums() { awk '/^Samples:/ { on = 1; next } /^Locations/ { on = 0 }
		  on && /^ +[0-9]+ +[0-9]+:/ { n += $1; v += $2 } END { printf "%d %d\n", n, v }' "$1"; }
read -r nsamples ns < <(raw_sums "$T/raw")
check "-raw: $nsamples samples, as folded ($total), worth 1001001 ns each ($ns ns)" \
	test "$nsamples" -eq "$total" -a "$ns" -eq $((total * 1001001))

# -top by sample count: each function's self count is the sum of the folded
# lines whose leaf it is (suffixes _[k] _[i] _[j] are folded's alone).
pp -top -nodecount=8 -sample_index=samples "$T/x.pb.gz" > "$T/top" || { cat "$T/pp.err"; fail "-top failed"; }
cat "$T/top"
awk '/^ *flat  *flat%/ { on = 1; next }
     on && NF >= 6 { name = $0; sub(/^ *[^ ]+ +[^ ]+ +[^ ]+ +[^ ]+ +[^ ]+ +/, "", name); sub(/ \(inline\)$/, "", name)
                     print $1 "\t" $2 "\t" name }' "$T/top" > "$T/top.tsv"
awk '{ n = $NF; $NF = ""; sub(/ $/, ""); k = split($0, f, ";"); leaf = f[k]; sub(/_\[[kij]\]$/, "", leaf)
       self[leaf] += n; all += n }
     END { for (l in self) printf "%s\t%d\t%.4f\n", l, self[l], 100 * self[l] / all }' "$T/x.folded" > "$T/self.tsv"
# pprof prints shares rounded (94.66%, 0.064%): equal within 0.01
awk -F'\t' 'NR == FNR { cnt[$1] = $2; pct[$1] = $3; next }
	     { n++; p = $2; sub(/%$/, "", p); d = p - pct[$3]; if (d < 0) d = -d	# no leaf in folded: 0
	       if (cnt[$3] + 0 != $1 || d > 0.01) { bad++; print "mismatch: " $3 ": pprof " $1 " (" $2 "), folded " cnt[$3] " (" pct[$3] "%)" > "/dev/stderr" } }
	     END { print n + 0, bad + 0 }' "$T/self.tsv" "$T/top.tsv" > "$T/topcmp"
read -r n bad < "$T/topcmp"
check "-top lists functions ($n)" test "$n" -ge 3
check "-top self counts and shares are the folded file's ($bad of $n differ)" test "$bad" -eq 0
check "-top: C++ names demangled (Level<0>::run(unsigned long) on top)" \
	grep -q $'\tLevel<0>::run(unsigned long)$' <(head -1 "$T/top.tsv")

# -traces by count: every stack with its count, outermost first, as folded
# writes it (comm root, inline frames _[i]); pprof's stacks are per pid and
# tid: summed per stack, they are folded's lines.
pp -traces -sample_index=samples "$T/x.pb.gz" > "$T/traces" || { cat "$T/pp.err"; fail "-traces failed"; }
awk 'function flush() { if (nf) { s = comm; for (i = nf; i >= 1; i--) s = s ";" fr[i]; sum[s] += v } nf = 0 }
     /^-----/ { flush(); next }
     /^ *comm: / { comm = $2; next }
     /^ *(pid|tid): / { next }
     /^ *[0-9]+ +[^ ]/ && !nf { v = $1; sub(/^ *[0-9]+ +/, ""); fr[++nf] = $0; next }
     nf { sub(/^ +/, ""); fr[++nf] = $0 }
     END { flush(); for (s in sum) print s " " sum[s] }' "$T/traces" |
	sed -E 's/ \(inline\)(;| )/_[i]\1/g' | sort > "$T/traces.folded"
sed -E 's/_\[k\](;| )/\1/g' "$T/x.folded" | sort > "$T/want.folded"
check "-traces: as many stacks as folded lines ($(wc -l < "$T/traces.folded") vs $(wc -l < "$T/want.folded"))" \
	test "$(wc -l < "$T/traces.folded")" -eq "$(wc -l < "$T/want.folded")"
check "-traces: every stack and count is folded's" cmp -s "$T/traces.folded" "$T/want.folded"
diff "$T/want.folded" "$T/traces.folded" | cut -c1-300 | head -6
check "-traces: inline frames marked (std::function's, as _[i] in folded)" grep -q '_\[i\]' "$T/traces.folded"
npid=$(grep -E '^ *pid: ' "$T/traces" | sort -u | wc -l)
ntid=$(grep -E '^ *tid: ' "$T/traces" | sort -u | wc -l)
nstacks=$(($(grep -c '^-----' "$T/traces") - 1))	# a rule before each and one at the end
check "-traces: every stack ($nstacks) labelled comm, pid, tid" test "$nstacks" -gt 0 -a \
	"$(grep -c '^ *comm: ' "$T/traces")" -eq "$nstacks" -a "$(grep -c '^ *pid: ' "$T/traces")" -eq "$nstacks" -a \
	"$(grep -c '^ *tid: ' "$T/traces")" -eq "$nstacks"
check "-traces: two processes (parent and exec'd child), >= 4 threads ($npid pids, $ntid tids)" \
	test "$npid" -ge 2 -a "$ntid" -ge 4

# -raw: build ids as readelf -n reads them; C++ system names mangled.
build_id() { readelf -n "$1" | awk '/Build ID:/ { print $3; exit }'; }
bin_id=$(build_id "$W/wl_cxx_deep")
check "-raw: wl_cxx_deep's mapping with its build id $bin_id (the main binary, first)" \
	grep -qE "^1: 0x[0-9a-f]+/0x[0-9a-f]+/0x[0-9a-f]+ $W/wl_cxx_deep $bin_id " "$T/raw"
libc=$(grep -oE ' /[^ ]*/libc\.so\.6 ' "$T/raw" | head -1 | tr -d ' ')
if [ -n "$libc" ]; then
	check "-raw: libc's mapping with its build id" grep -qE " $libc $(build_id "$libc") " "$T/raw"
fi
if grep -q '_\[k\]' "$T/x.folded"; then
	check "-raw: kernel frames in one [kernel.kallsyms] mapping" \
		test "$(grep -cE '^[0-9]+: 0xffff[0-9a-f]+/0xffff[0-9a-f]+/0x0 \[kernel.kallsyms\]' "$T/raw")" -eq 1
fi
check "-raw: mangled system names (Level<0>::run(unsigned long) is _ZN5LevelILi0EE3runEm)" \
	grep -q 'Level<0>::run(unsigned long) [^ ]*record_cxx.cc:[0-9]* s=[0-9]*(_ZN5LevelILi0EE3runEm)' "$T/raw"
# Functions carry their start line (DW_AT_decl_line) as grep -n finds it in
# the source: run_chain and Level<0>::run physical, the lambda inlined into
# Level<N>::run (GCC gives its operator() no line: its closure type's).
src=${SRCDIR:?}/tests/workloads/record_cxx.cc
l_chain=$(grep -n '^__attribute__((noinline)) static void run_chain()$' "$src" | cut -d: -f1)
l_run0=$(awk '/^template <> struct Level<0>/ { on = 1 } on && /static unsigned long run\(unsigned long x\)$/ { print NR; exit }' "$src")
l_lambda=$(grep -n 'std::function<unsigned long(unsigned long)> f = \[\](unsigned long y) {$' "$src" | cut -d: -f1)
check "the source lines to expect ($l_chain, $l_run0, $l_lambda)" test -n "$l_chain" -a -n "$l_run0" -a -n "$l_lambda"
check "-raw: run_chain starts at line $l_chain" grep -qE " run_chain [^ ]*record_cxx\.cc:[0-9]+ s=$l_chain\(_ZL9run_chainv\)" "$T/raw"
check "-raw: Level<0>::run starts at line $l_run0" \
	grep -qE " Level<0>::run\(unsigned long\) [^ ]*record_cxx\.cc:[0-9]+ s=$l_run0\(_ZN5LevelILi0EE3runEm\)" "$T/raw"
# a location's first line is its innermost function; lines under it are its callers inlined with it
check "-raw: the inlined lambda starts at line $l_lambda" \
	awk -v re="::\\{lambda\\(unsigned long\\)#1\\}::operator\\(\\)\\(unsigned long\\) const [^ ]*record_cxx\\.cc:[0-9]+ s=$l_lambda\\(" '
	     /^Locations/ { on = 1; next } /^Mappings/ { on = 0 }
	     on && /^ +[0-9]+: / { if (cand && inl) found = 1; cand = $0 ~ re; inl = 0; next }
	     on && cand && /^ +[^ 0-9]/ { inl = 1 }
	     END { if (cand && inl) found = 1; exit !found }' "$T/raw"
op=$(grep -oE 'std::function<unsigned long \(unsigned long\)>::operator\(\)\(unsigned long\) const /[^ ]*std_function\.h:[0-9]+ s=[0-9]+' "$T/raw" | head -1)
if [ -n "$op" ]; then	# libstdc++'s std::function::operator(), inlined: its header's line
	hdr=${op##* /}; hdr=/${hdr%%:*}; s=${op##*s=}
	check "-raw: inlined std::function::operator() starts at its line in $hdr ($s)" \
		test "$(grep -nE '^ +operator\(\)\(_ArgTypes\.\.\. __args\) const$' "$hdr" | cut -d: -f1)" = "$s"
fi
check "-raw: source lines of the binary's functions" grep -qE 'M=1 [^ ].* [^ ]*record_cxx\.cc:[1-9]' "$T/raw"
check "-raw: inline lines (a location of several functions)" \
	awk '/^Locations/ { on = 1; next } /^Mappings/ { on = 0 } on && /^ +[0-9]+: / { prev = 1; next }
	     on && prev && /^ +[^ 0-9]/ { found = 1 } END { exit !found }' "$T/raw"
check "-raw: [FN][FL][LN][IN] on the binary's mapping" grep -qE "^1: .* $bin_id \[FN\]\[FL\]\[LN\]\[IN\]" "$T/raw"
# the flags are the file's: the same on each process's mapping of it (a frame
# both processes ran is located in whichever mapping hit it first)
n_bin=$(grep -cE "^[0-9]+: .* $W/wl_cxx_deep $bin_id " "$T/raw")
n_flag=$(grep -cE "^[0-9]+: .* $W/wl_cxx_deep $bin_id \[FN\]\[FL\]\[LN\]\[IN\]" "$T/raw")
check "-raw: [FN][FL][LN][IN] on each of the binary's $n_bin mappings ($n_flag)" test "$n_bin" -ge 1 -a "$n_flag" -eq "$n_bin"

# --off-cpu: wall-clock nanoseconds, the folded file's sum.
"$PPROBE" record -q --off-cpu -g -o "$T/o.folded" -o "$T/o.pb.gz" -- "$W/offcpu_wl" 4 >/dev/null 2>&1
check "--off-cpu: record exits with the program's status (3)" test $? -eq 3
pp -raw "$T/o.pb.gz" > "$T/oraw"
check "--off-cpu: sample types samples/count wall/nanoseconds" grep -qx 'samples/count wall/nanoseconds\[dflt\]' "$T/oraw"
read -r _ ons < <(raw_sums "$T/oraw")
osum=$(folded_sum "$T/o.folded")
check "--off-cpu: wall ns in pprof ($ons) = the folded sum ($osum), >= 0.1 s" test "$ons" -eq "$osum" -a "$osum" -ge 100000000
check "--off-cpu: the off-CPU leaf frames are functions" grep -q '\[off-cpu: blocked\]' "$T/oraw"

# Several events: each -o gets the event before its extension.
"$PPROBE" record -q -e cpu-clock -e task-clock -o "$T/e.folded" -o "$T/e.pb.gz" -- "$W/wl_record" hot 0.3 \
	>/dev/null 2>"$T/err2"
check "several events: record exits 0" test $? -eq 0
for f in e.cpu-clock.folded e.task-clock.folded e.cpu-clock.pb.gz e.task-clock.pb.gz; do
	check "several events: $f written" test -s "$T/$f"
done
check "several events: e.task-clock.pb.gz reads in go tool pprof" pp -top "$T/e.task-clock.pb.gz" >/dev/null

# A tracepoint counts events: EVENT/count, every event (period 1).
"$PPROBE" record -q -e syscalls:sys_enter_prctl -o "$T/p.pb.gz" -- "$W/wl_record" prctl 25 >/dev/null 2>&1
pp -raw "$T/p.pb.gz" > "$T/praw"
check "tracepoint: sample types samples/count syscalls:sys_enter_prctl/count" \
	grep -qx 'samples/count syscalls:sys_enter_prctl/count\[dflt\]' "$T/praw"
check "tracepoint: 25 events" test "$(pp -top -sample_index=samples "$T/p.pb.gz" | awk '/Total samples =/ { print $NF }')" = 25
done_testing
