#!/usr/bin/env bash
# Sampling CPU time: a known hot function gets its known share; threads;
# kernel frames on a syscall-heavy workload.
. "$(dirname "$0")/lib.sh"
need_root
W=$WORKLOADS

# hot_three() does 3 units of work for each unit of hot_one(): 75% / 25%.
"$PPROBE" record -g -F 999 -o "$T/hot.folded" -- "$W/wl_record" hot 2 >"$T/hot.out" 2>/dev/null
cpu=$(awk '/^cpu / { print $2 }' "$T/hot.out")
three=$(folded_sum "$T/hot.folded" ';hot_three( |$)')
one=$(folded_sum "$T/hot.folded" ';hot_one( |$)')
total=$(folded_sum "$T/hot.folded")
echo "hot_three=$three hot_one=$one total=$total workload cpu=${cpu}s"
# cpu-clock at 999 Hz samples the workload's CPU time, whatever else runs.
check "samples = 999/s of the workload's CPU time, +-10%" awk -v n="$total" -v c="$cpu" 'BEGIN { e = c * 999; exit !(n >= 0.9 * e && n <= 1.1 * e) }'
check "hot_three share is 75% +- 5%" awk -v a="$three" -v b="$one" 'BEGIN { r = a / (a + b); exit !(r > 0.70 && r < 0.80) }'
full=$(folded_sum "$T/hot.folded" '^wl_record;_start;__libc_start_main_impl;__libc_start_call_main;main;run_hot;hot_(three|one)( |$)')
check ">= 99% of hot samples have the whole stack _start;...;main;run_hot ($full of $((three + one)))" \
	awk -v a="$full" -v t="$((three + one))" 'BEGIN { exit !(a / t >= 0.99) }'
check "hot functions are >= 95% of samples" awk -v a="$((three + one))" -v t="$total" 'BEGIN { exit !(a / t >= 0.95) }'

# Frame pointers: the workload keeps them, so fp stacks are exact too.
"$PPROBE" record --call-graph fp -o "$T/fp.folded" -- "$W/wl_record" hot 1 2>/dev/null
fp=$(folded_sum "$T/fp.folded" '^wl_record;__libc_start_call_main;main;run_hot;hot_(three|one)( |$)')
total=$(folded_sum "$T/fp.folded")
check "fp: >= 95% of samples on main;run_hot;hot_*" awk -v a="$fp" -v t="$total" 'BEGIN { exit !(t >= 50 && a / t >= 0.95) }'

# Four threads: their samples are attributed to thread_spin via clone's frames.
"$PPROBE" record -g -o "$T/thr.folded" -- "$W/wl_record" threads 4 1 2>/dev/null
spin=$(folded_sum "$T/thr.folded" ';thread_spin;')
total=$(folded_sum "$T/thr.folded")
echo "threads: thread_spin=$spin total=$total"
check "threads: >= 90% of samples in thread_spin" awk -v a="$spin" -v t="$total" 'BEGIN { exit !(t >= 50 && a / t >= 0.90) }'
check "threads: stacks go through start_thread" [ "$(folded_sum "$T/thr.folded" 'start_thread;.*thread_main;thread_spin;')" -eq "$spin" ]

# Kernel frames: write(2) in a loop spends most of its time in the kernel.
"$PPROBE" record -g -o "$T/k.folded" -- "$W/wl_record" syscalls 400000 2>/dev/null
kern=$(folded_sum "$T/k.folded" '_\[k\]')
kw=$(folded_sum "$T/k.folded" ';main;do_writes;[^;]*write;entry_SYSCALL_64[^;]*_\[k\]')
total=$(folded_sum "$T/k.folded")
echo "kernel: with _[k]=$kern under main;do_writes;write;entry_SYSCALL_64=$kw total=$total"
check "kernel frames present in >= 50% of samples" awk -v a="$kern" -v t="$total" 'BEGIN { exit !(t > 50 && a / t >= 0.5) }'
check ">= 95% of kernel samples under main;do_writes;write;entry_SYSCALL_64" awk -v a="$kw" -v t="$kern" 'BEGIN { exit !(a / t >= 0.95) }'
check "the kernel write path is named (ksys_write_[k];vfs_write_[k])" grep -q 'ksys_write_\[k\];vfs_write_\[k\]' "$T/k.folded"
check "no unnamed kernel frames" [ "$(folded_sum "$T/k.folded" '\[kernel.kallsyms\]_\[k\]')" -eq 0 ]
done_testing
