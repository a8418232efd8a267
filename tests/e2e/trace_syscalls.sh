#!/usr/bin/env bash
# pprobe trace --syscalls (like perf trace): the seed case (who calls ptrace
# on this machine: -a -e ptrace against ptracer's exact N+3 calls, with
# request names), a command that forks, execs and starts threads (counts
# equal to strace -c -f's, its status and output unchanged), errno names,
# --failure, -p (attached before the process forks), all syscalls through
# raw_syscalls, perf trace's count where the kernel decides, bad input.
. "$(dirname "$0")/lib.sh"
need_root
W=$WORKLOADS
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$T" "$T.cache"' EXIT

# summary_count FILE SYSCALL: calls of SYSCALL summed over the threads of a
# --summary (perf trace -s layout: "   NAME  CALLS  ERRORS  ...").
summary_count() { awk -v s="$2" '$1 == s && $2 ~ /^[0-9]+$/ { n += $2 } END { print n + 0 }' "$1"; }
# summary_ok FILE SYSCALL: calls that did not fail.
summary_ok() { awk -v s="$2" '$1 == s && $2 ~ /^[0-9]+$/ { n += $2 - $3 } END { print n + 0 }' "$1"; }
# strace_ok FILE SYSCALL: calls that did not fail in strace -c's table
# ("... calls [errors] syscall"). A fork that a signal interrupts fails
# (ERESTARTNOINTR) and is made again: under strace's stops it happens.
strace_ok() { awk -v s="$2" '$NF == s && $(NF-1) ~ /^[0-9]+$/ { n = NF == 6 ? $(NF-2) - $(NF-1) : $(NF-1) } END { print n + 0 }' "$1"; }

# ---- the seed case: who calls ptrace on this machine ----
N=40
"$PPROBE" trace --syscalls -a -e ptrace --with-summary -- "$W/ptracer" $N >"$T/pt.txt" 2>"$T/pt.err"
check "-a -e ptrace -- ptracer: exit 0" [ $? -eq 0 ]
read -r pid child < <(sed -nE 's/^ptracer: pid ([0-9]+) child ([0-9]+) peeks.*/\1 \2/p' "$T/pt.err")
check "ptracer said its pid" [ -n "${pid:-}" ]
line="^ +[0-9]+\.[0-9]{3} \( *[0-9]+\.[0-9]{3} ms\): ptracer/$pid ptrace\(request: "
check "exactly N+3 = $((N + 3)) ptrace lines under ptracer/$pid" \
	[ "$(grep -cE "$line" "$T/pt.txt")" -eq $((N + 3)) ]
check "no ptrace line from anyone else (only ptracer calls it)" \
	[ "$(grep -c ' ptrace(' "$T/pt.txt")" -eq $((N + 3)) ]
check "$N PEEKDATA with the child's pid, the word's address and = 0" \
	[ "$(grep -cE "${line}PEEKDATA, pid: $child, addr: 0x[0-9a-f]+, data: 0x[0-9a-f]+\) += 0$" "$T/pt.txt")" -eq $N ]
check "SEIZE, INTERRUPT, then the peeks, then DETACH, in that order" \
	[ "$(grep -oE 'request: [A-Z]+' "$T/pt.txt" | uniq | tr '\n' ' ')" = "request: SEIZE request: INTERRUPT request: PEEKDATA request: DETACH " ]
check "the summary: ptracer ($pid), ptrace $((N + 3)) calls, 0 errors" \
	grep -qE "^   ptrace +$((N + 3)) +0 " "$T/pt.txt"
check "the summary names the thread" grep -qE "^ ptracer \($pid\), $((2 * (N + 3))) events" "$T/pt.txt"

# System-wide, pprobe's own calls (its writes of these lines, its polls)
# stay out: none of its threads' tids appears, while sleep's call does.
"$PPROBE" trace --syscalls -a -e write,read,poll,ppoll,clock_nanosleep -o "$T/self.txt" -- sleep 1 2>"$T/self.err" & pp=$!
sleep 0.5
tasks=$(ls /proc/$pp/task 2>/dev/null)
wait $pp
check "-a: sleep's clock_nanosleep is there" grep -qE ' sleep/[0-9]+ clock_nanosleep\(' "$T/self.txt"
own=0
for t in $tasks; do grep -qE "^.{24}[^ ]+/$t " "$T/self.txt" && own=$((own + 1)); done
check "-a: no line from pprobe's own threads ($(echo $tasks))" [ -n "$tasks" ] && [ $own -eq 0 ]

# perf trace's count of the same workload, where perf is there: its lines
# in a file of their own (-o), not in one stream with ptracer's output,
# where a line of each could mix (CI once counted one short that way)
if command -v perf >/dev/null && perf trace -e ptrace -- true >/dev/null 2>&1; then
	perf trace -o "$T/perf.txt" -e ptrace -- "$W/ptracer" $N >/dev/null 2>&1
	n=$(grep -c ' ptrace(' "$T/perf.txt")
	check "perf trace counts the same N+3 ptrace calls ($n)" [ "$n" -eq $((N + 3)) ]
	[ "$n" -eq $((N + 3)) ] || shown_on_failure "$T/perf.txt"
fi

# ---- a command that forks, execs and starts threads ----
# probe_fork 4 3 10: 4 children (2 exec it again), 3 threads; exits 7. strace
# -c -f counts the same program's calls (a child's return from its fork is
# the parent's call, counted once); exit and exit_group never return
# (strace -c leaves them out): known from the program, 1 + 4 and 3.
"$PPROBE" trace --syscalls --summary -o "$T/f.txt" -e clone,clone3,execve,wait4,openat,exit,exit_group \
	-- "$W/probe_fork" 4 3 10 >"$T/f.out" 2>"$T/f.err"
check "-- probe_fork: its own exit status 7" [ $? -eq 7 ]
check "-- probe_fork: nothing of pprobe's on its stdout" [ ! -s "$T/f.out" ]
if command -v strace >/dev/null; then
	strace -f -c -o "$T/strace.txt" "$W/probe_fork" 4 3 10
	# (not wait4: under strace's ptrace stops the kernel restarts it)
	for s in clone clone3 execve openat; do
		check "$s: $(summary_ok "$T/f.txt" $s) calls that did not fail, strace -c -f: $(strace_ok "$T/strace.txt" $s)" \
			[ "$(summary_ok "$T/f.txt" $s)" -eq "$(strace_ok "$T/strace.txt" $s)" ]
	done
	check "strace saw the forks (the comparison compares something)" [ "$(strace_ok "$T/strace.txt" clone)" -eq 4 ]
fi
check "wait4: one per child" [ "$(summary_count "$T/f.txt" wait4)" -eq 4 ]
check "exit_group: the parent and 4 children" [ "$(summary_count "$T/f.txt" exit_group)" -eq 5 ]
check "exit: the 3 threads" [ "$(summary_count "$T/f.txt" exit)" -eq 3 ]
check "--summary alone: no call lines" not grep -q ' = ' "$T/f.txt"
check "one summary block per thread: 1 + 4 + 3 with calls" [ "$(grep -cE '^ [^ ].* \([0-9]+\), [0-9]+ events' "$T/f.txt")" -eq 8 ]

# Outputs never mix (issue 28): the summary alone on stdout, the
# command's stdout (ls's names, a word of sh's) on stderr. Every stdout line
# is blank, a title, a thread's line, the header or a row of the columns.
"$PPROBE" trace --syscalls --summary -- sh -c 'ls /; echo done' >"$T/sm.txt" 2>"$T/sm.err"
check "--summary on stdout: exit 0" [ $? -eq 0 ]
check "--summary on stdout: rows there" [ "$(awk '$2 ~ /^[0-9]+$/ && $3 ~ /^[0-9]+$/' "$T/sm.txt" | wc -l)" -ge 5 ]
check "--summary on stdout: nothing else there" [ "$(grep -cvE '^$|^ Summary of events:$|^ [^ ].* \([0-9]+\), [0-9]+ events|^   syscall +calls|^ +\(msec\)|^   -{15} |^   [a-z_0-9]+ +[0-9]+ +[0-9]+ +[0-9.]+ ' "$T/sm.txt")" -eq 0 ]
check "--summary on stdout: the command's stdout on stderr" sh -c "grep -qx usr '$T/sm.err' && grep -qx done '$T/sm.err'"
shown_on_failure "$T/sm.txt"

# The command's output and status unchanged, its writes traced.
"$PPROBE" trace --syscalls -e write -o "$T/w.txt" -- sh -c 'echo hello; exit 3' >"$T/w.out" 2>"$T/w.err"
check "sh -c 'echo hello; exit 3': status 3" [ $? -eq 3 ]
check "... its stdout is hello" [ "$(cat "$T/w.out")" = hello ]
check "... write(fd: 1, buf: 0x..., count: 6) = 6" grep -qE '^ +[0-9.]+ \( *[0-9.]+ ms\): sh/[0-9]+ write\(fd: 1, buf: 0x[0-9a-f]+, count: 6\) += 6$' "$T/w.txt"

# ---- errno names, --failure ----
"$PPROBE" trace --syscalls -e openat -- cat /nonexistent-pprobe-file >"$T/o.txt" 2>"$T/o.err"
check "cat of a missing file: its status 1" [ $? -eq 1 ]
check "openat(dfd: AT_FDCWD, ..., flags: O_RDONLY) = -1 ENOENT (No such file or directory)" \
	grep -qE ' cat/[0-9]+ openat\(dfd: AT_FDCWD, filename: 0x[0-9a-f]+, flags: O_RDONLY, mode: 0\) += -1 ENOENT \(No such file or directory\)$' "$T/o.txt"
check "O_RDONLY|O_CLOEXEC for the libraries, = an fd" grep -qE 'flags: O_RDONLY\|O_CLOEXEC, mode: 0\) += [0-9]+$' "$T/o.txt"
"$PPROBE" trace --syscalls --failure -e openat -- cat /nonexistent-pprobe-file >"$T/of.txt" 2>/dev/null
failed=$(grep -c ' = -1 ' "$T/o.txt")
check "--failure: only the $failed failed calls" \
	[ "$(wc -l <"$T/of.txt")" -eq "$failed" ] && [ "$(grep -c ' = -1 E' "$T/of.txt")" -eq "$failed" ] && [ "$failed" -ge 1 ]

# ---- -p: attached before the process forks; the wait it was in is [continued] ----
"$W/probe_fork" -w 2 1 5 >"$T/ready" 2>"$T/wl.err" & wl=$!
for i in $(seq 50); do grep -q ready "$T/ready" && break; sleep 0.1; done
"$PPROBE" trace --syscalls -e clone,clone3,rt_sigtimedwait,exit_group -p $wl -o "$T/p.txt" 2>"$T/p.err" & pp=$!
for i in $(seq 50); do [ "$(ls -l /proc/$pp/fd 2>/dev/null | grep -c perf_event)" -ge 8 ] && break; sleep 0.1; done
sleep 0.5
kill -USR1 $wl
wait $wl
check "-p: the process forked, exec'd, started threads and exited 7" [ $? -eq 7 ]
wait $pp
check "-p: pprobe exits 0 when it is gone" [ $? -eq 0 ]
check "-p: its sigwait, begun before tracing: ... [continued]: rt_sigtimedwait()) = 10 (SIGUSR1)" \
	grep -qE "^ +\? \( +\): probe_fork/$wl  \.\.\. \[continued\]: rt_sigtimedwait\(\)\) += 10$" "$T/p.txt"
check "-p: 2 forks (clone) and 1 thread (clone3) of process $wl" \
	[ "$(grep -cE "probe_fork/$wl clone\(" "$T/p.txt")" -eq 2 ] && [ "$(grep -cE "probe_fork/$wl clone3\(" "$T/p.txt")" -eq 1 ]
check "-p: exit_group(error_code: 0) = ? of both children and (7) the parent" \
	[ "$(grep -cE '\(         \): [^ ]+/[0-9]+ exit_group\(error_code: 0\) += \?$' "$T/p.txt")" -eq 2 ] &&
	grep -qE "probe_fork/$wl exit_group\(error_code: 7\) += \?$" "$T/p.txt"

# ---- all syscalls (raw_syscalls), names from the architecture's table ----
"$PPROBE" trace --syscalls -- "$W/ptracer" 3 >"$T/all.txt" 2>/dev/null
check "all syscalls: the 6 ptrace calls among them" [ "$(grep -c ' ptrace(request: ' "$T/all.txt")" -eq 6 ]
check "all syscalls: the exec is [continued] (begun before tracing), = 0" grep -qE '\.\.\. \[continued\]: execve\(\)\) += 0$' "$T/all.txt"
check "all syscalls: exit_group(error_code: 0) = ?" grep -qE ' exit_group\(error_code: 0\) += \?$' "$T/all.txt"
check "all syscalls: wait4 and kill by name" grep -q ' wait4(' "$T/all.txt" && grep -qE ' kill\(pid: [0-9]+, sig: SIGKILL\)' "$T/all.txt"

# ---- the output's reader leaves: pprobe stops, as perf trace does ----
(for i in $(seq 100); do /bin/true; sleep 0.05; done) & busy=$!
timeout 20 "$PPROBE" trace --syscalls -a 2>"$T/pipe.err" | head -1 >/dev/null
check "-a | head -1: dies of SIGPIPE (141) when head leaves, as a filter (not killed by timeout)" [ "${PIPESTATUS[0]}" -eq 141 ]
check "-a | head -1: nothing said about it" [ ! -s "$T/pipe.err" ]
kill $busy 2>/dev/null; wait $busy 2>/dev/null

# ---- bad input: one line, exit 2, nothing run ----
"$PPROBE" trace --syscalls -e ptrac -- true >"$T/b.out" 2>"$T/b.err"
check "unknown syscall: exit 2" [ $? -eq 2 ]
check "unknown syscall: one line with a did-you-mean" \
	[ "$(cat "$T/b.err")" = "pprobe trace: no syscall matches 'ptrac' (did you mean 'ptrace'?)" ]
"$PPROBE" trace --syscalls -e 'xyz*' -- true 2>"$T/b.err"
check "a glob that matches nothing: exit 2, said" [ $? -eq 2 ] && grep -qx "pprobe trace: no syscall matches 'xyz\*'" "$T/b.err"
"$PPROBE" trace --summary -e ptrace -- true 2>"$T/b.err"
check "--summary without --syscalls: exit 2" [ $? -eq 2 ] && grep -q -- '--summary goes with --syscalls' "$T/b.err"
"$PPROBE" trace --syscalls -g -- true 2>"$T/b.err"
check "-g with --syscalls: exit 2" [ $? -eq 2 ] && grep -q -- '-g does not go with --syscalls' "$T/b.err"
done_testing
