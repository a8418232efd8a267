#!/usr/bin/env bash
# record -g on a C++ program with deep template frames (issue 12):
# wl_cxx_deep's stacks run through Level<120>::run ... Level<0>::run, one
# instantiation per frame with frames of 64 to 192 bytes of locals, every
# tenth through std::function and a lambda (inlined std:: frames), about
# 20 KB below main, -O2 without frame pointers; the program forks a child
# that execs it again and starts threads. Every stack must reach its
# thread's entry, and every one in the spin loop must hold the whole chain
# in order, each instantiation named once.
. "$(dirname "$0")/lib.sh"
need_root
unwind_check
W=$WORKLOADS
"$PPROBE" record -g -o "$T/cxx.folded" -- "$W/wl_cxx_deep" 1.5 >/dev/null 2>"$T/err"
rc=$?
cat "$T/err"
check "record exits as the program did (0)" test "$rc" -eq 0

folded_user "$T/cxx.folded" | grep '^wl_cxx_deep;' > "$T/u.folded"
total=$(folded_sum "$T/u.folded")
complete=$(folded_sum "$T/u.folded" '^wl_cxx_deep;(_start|clone3)( |;)')
main=$(folded_sum "$T/u.folded" '^wl_cxx_deep;_start;__libc_start_main_impl;__libc_start_call_main;main;run_chain( |;)')
thread=$(folded_sum "$T/u.folded" '^wl_cxx_deep;clone3;start_thread;[^;]*;run_chain( |;)')
echo "wl_cxx_deep: $total user stacks, $complete complete ($main from main, $thread from a thread)"
grep -vE '^wl_cxx_deep;(_start|clone3)( |;)' "$T/u.folded" | cut -c1-300 | sed 's/^/not complete: /' | head -5
check "the program was sampled (>= 500 stacks, got $total)" test "$total" -ge 500
check ">= 99.5% of its stacks reach _start or clone3 ($complete of $total)" test $((complete * 1000)) -ge $((total * 995))
check "main's run_chain and a thread's were both sampled ($main, $thread)" test "$main" -gt 100 -a "$thread" -gt 100

# The chain: in every complete stack through Level<0>::run, the Level<N>::run
# frames are N = 120, 119, ... 0, each once (the lambdas' frames, whose names
# also hold "Level<N>::run", are not counted: only frames named exactly so).
awk '{ n = $NF; $NF = ""; sub(/ $/, ""); k = split($0, f, ";"); want = 120; ok = 1; seen = 0
       for (i = 1; i <= k; i++) if (f[i] ~ /^Level<[0-9]+>::run\(unsigned long\)$/) {
               m = f[i]; sub(/^Level</, "", m); sub(/>.*/, "", m)
               if (m + 0 != want) ok = 0; want--; seen++ }
       if (f[k] !~ /^Level<0>::run/ && seen < 121) next
       all += n; if (ok && seen == 121) good += n; else if (bad++ < 3) print "broken chain: " substr($0, 1, 300) > "/dev/stderr" }
     END { print all + 0, good + 0 }' <(grep -E '^wl_cxx_deep;(_start|clone3)( |;)' "$T/u.folded") > "$T/chain"
read -r inleaf good < "$T/chain"
check "stacks in the spin loop were sampled (>= 300, got $inleaf)" test "$inleaf" -ge 300
check "each holds Level<120>::run ... Level<0>::run in order, each once ($good of $inleaf)" test "$good" -eq "$inleaf"
check "the std::function frames are named (the lambda's _M_invoke)" \
	grep -q 'std::_Function_handler<unsigned long (unsigned long), Level<10>::run(unsigned long)::{lambda(unsigned long)#1}>::_M_invoke' "$T/u.folded"
done_testing
