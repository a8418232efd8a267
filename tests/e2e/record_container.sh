#!/usr/bin/env bash
# record of a container: processes in their own mount and pid namespaces
# (unshare + chroot into a Debian bullseye root made by debootstrap) running
# /usr/bin/perl and /bin/bash, paths the host has too, with other contents
# (bookworm's). Each file must be the one the process mapped (its build id,
# else device and inode), opened through /proc/PID/root or map_files, by the
# symbolizer and the unwinder alike: the container's frames are named by
# bullseye's symbols (perl's Perl_runops_standard, bash's execute_command,
# libc 2.31's __libc_start_main, which bookworm's libc splits in two), never
# by the host's file at that path. perf record + perf script on the same
# command are printed for information only.
. "$(dirname "$0")/lib.sh"
need_root
for c in debootstrap unshare chroot nm; do
	command -v $c >/dev/null || skip "$c not found (Debian packages debootstrap, util-linux, coreutils, binutils)"
done
[ -x /usr/bin/perl ] && [ -x /bin/bash ] || skip "no host /usr/bin/perl or /bin/bash to differ from"

# the container's root, made once and kept for reruns and CI
minbase_root bullseye
build_id() { readelf -n "$1" 2>/dev/null | sed -n 's/.*Build ID: //p'; }
for f in /usr/bin/perl /usr/bin/bash; do
	[ "$(build_id "$f")" != "$(build_id "$ROOT$f")" ] || skip "$f is the same file on the host and in bullseye"
done
# the container's names, and where the host's perl puts Perl_runops_standard
nm -D --defined-only "$ROOT/usr/bin/perl" | awk '{ print $3 }' >"$T/perl.syms"
nm -D --defined-only "$ROOT/usr/bin/bash" | awk '{ print $3 }' >"$T/bash.syms"
# the container's libc and friends perl maps (libm, libdl, libcrypt; libpthread keeps a .symtab;
# libnss_files, where bash's start looks its user up)
for f in libc-2.31.so libpthread-2.31.so ld-2.31.so libm-2.31.so libdl-2.31.so libcrypt.so.1.1.0 libnss_files-2.31.so; do
	{ nm -D --defined-only "$ROOT/usr/lib/x86_64-linux-gnu/$f"; nm --defined-only "$ROOT/usr/lib/x86_64-linux-gnu/$f"; } 2>/dev/null
done | awk 'NF == 3 { sub(/@.*/, "", $3); print $3 }' >"$T/libc.syms"
check "bullseye's perl and bash export the functions asserted" \
	sh -c "grep -qx Perl_runops_standard '$T/perl.syms' && grep -qx execute_command '$T/bash.syms'"

# The command: bash (a loop of its own) starts perl, which forks; the child
# execs perl again. Both spin for about a second.
SPIN='my $x = 0; for (1..30000000) { $x += $_ * 2 } print "$x\n";'
cat >"$ROOT/tmp/pprobe-container.pl" <<EOF
my \$pid = fork() // die "fork: \$!";
if (!\$pid) { exec("/usr/bin/perl", "-e", '$SPIN') or die "exec: \$!"; }
$SPIN
waitpid(\$pid, 0);
EOF
BASH_LOOP='i=0; while [ $i -lt 150000 ]; do i=$((i + 1)); done; echo $i'
CMD=(unshare --mount --pid --fork chroot "$ROOT" /bin/bash -c "/usr/bin/perl /tmp/pprobe-container.pl & $BASH_LOOP; wait")

"$PPROBE" record -g -o "$T/c.folded" -- "${CMD[@]}" >"$T/out" 2>"$T/err"
st=$?
cat "$T/err"
check "record of the container's command: exit status 0 ($st)" [ $st -eq 0 ]
check "the command ran (bash's and perl's output)" \
	sh -c "grep -qx 150000 '$T/out' && [ \$(grep -c 900000030000000 '$T/out') -eq 2 ]"
check "no container file said unreachable" not grep -q "its frames are left unnamed" "$T/err"

perl_all=$(folded_sum "$T/c.folded" '^perl;')
perl_run=$(folded_sum "$T/c.folded" '^perl;_start;__libc_start_main;main;perl_run;Perl_runops_standard[; ]')
bash_all=$(folded_sum "$T/c.folded" '^bash;')
bash_exec=$(folded_sum "$T/c.folded" '^bash;_start;__libc_start_main;main;[^ ]*;parse_and_execute;execute_command_internal[; ]')
echo "perl: $perl_run of $perl_all samples through _start;__libc_start_main;main;perl_run;Perl_runops_standard"
echo "bash: $bash_exec of $bash_all samples through _start;__libc_start_main;main;...;parse_and_execute;execute_command_internal"
check "perl samples: over 1000 ($perl_all)" [ "$perl_all" -ge 1000 ]
check "perl: >= 95% of its stacks named by bullseye's perl and libc 2.31 ($perl_run of $perl_all)" \
	[ $((perl_run * 100)) -ge $((perl_all * 95)) ]
check "bash samples: over 300 ($bash_all)" [ "$bash_all" -ge 300 ]
check "bash: >= 90% of its stacks named by bullseye's bash and libc 2.31 ($bash_exec of $bash_all)" \
	[ $((bash_exec * 100)) -ge $((bash_all * 90)) ]
# every user frame named in perl's or bash's stacks is a symbol of the
# container's files (its perl, bash, libc, libm, libdl, libcrypt, libpthread, libnss_files, ld.so; NAME@plt
# their PLT stubs), the kernel's vdso, or _start and _init (pprobe names a
# program's entry; glibc's section)
folded_user "$T/c.folded" | grep -E '^(perl|bash);' | sed -E 's/ [0-9]+$//' | tr ';' '\n' |
	grep -vE '^(perl|bash|_start|_init|__vdso_.*)$|^\[|_\[[ki]\]$' | sed 's/@plt$//' | sort -u >"$T/names"
sort -u "$T/perl.syms" "$T/bash.syms" "$T/libc.syms" >"$T/all.syms"
comm -23 "$T/names" "$T/all.syms" >"$T/foreign"
check "every name is bullseye's ($(wc -l <"$T/names") names; foreign: $(tr '\n' ' ' <"$T/foreign"))" \
	[ ! -s "$T/foreign" ]
# perl exports its functions: none unnamed (bash's static ones are)
unnamed=$(folded_sum "$T/c.folded" '^perl;.*\[perl\]')
check "perl: under 2% of its stacks with an unnamed perl frame ($unnamed)" [ $((unnamed * 50)) -le "$perl_all" ]
complete=$(sed -nE 's/^  perl +[0-9]+ stacks +([0-9.]+)% complete.*/\1/p' "$T/err")
check "the summary's completeness for perl is what the names show (${complete:-none}%)" \
	awk -v c="${complete:-0}" 'BEGIN { exit !(c >= 95) }'

# -p: a container's process attached to while it runs. Its mappings come
# from /proc/PID/maps (the host's path to the root, device and inode).
unshare --mount --pid --fork chroot "$ROOT" /usr/bin/perl -e \
	'my $x = 0; for (1..200000000) { $x += $_ * 2 } print "$x\n";' >/dev/null & upid=$!
wait_for pgrep -x perl >/dev/null
ppid=$(pgrep -n -x perl)
check "the container's perl runs ($ppid)" [ -n "$ppid" ]
"$PPROBE" record -g -p "$ppid" -d 1.5 -o "$T/p.folded" 2>"$T/p.err"
cat "$T/p.err"
# -a: the whole machine, the container's perl among the host's processes
# (its mappings from /proc/PID/maps at the start, like -p's).
"$PPROBE" record -g -a -d 1.5 --per-thread -o "$T/a.folded" 2>"$T/a.err"
a_st=$?
cat "$T/a.err"
kill "$ppid" 2>/dev/null
reap $upid >/dev/null
p_all=$(folded_sum "$T/p.folded" '^perl;')
p_run=$(folded_sum "$T/p.folded" '^perl;_start;__libc_start_main;main;perl_run;Perl_runops_standard[; ]')
check "-p: >= 95% of perl's stacks named by bullseye's perl ($p_run of $p_all)" \
	[ "$p_all" -ge 500 -a $((p_run * 100)) -ge $((p_all * 95)) ]
# Complete from bullseye's _start through libc 2.31's __libc_start_main
# (bookworm's has __libc_start_call_main between): its names and its CFI
# came from the container's files, one open for both.
check "-a: exit 0 ($a_st)" [ "$a_st" -eq 0 ]
a_all=$(folded_sum "$T/a.folded" "^perl/$ppid;")
a_run=$(folded_sum "$T/a.folded" "^perl/$ppid;_start;__libc_start_main;main;perl_run;Perl_runops_standard[; ]")
check "-a: >= 95% of the container's perl's stacks complete and named by bullseye's files ($a_run of $a_all)" \
	[ "$a_all" -ge 300 -a $((a_run * 100)) -ge $((a_all * 95)) ]
check "-a: no container file said unreachable" not grep -q "its frames are left unnamed" "$T/a.err"

# perf on the same command, for information: what it names
if command -v perf >/dev/null && perf record --call-graph dwarf -o "$T/perf.data" -- "${CMD[@]}" >/dev/null 2>"$T/perf.err"; then
	perf script -i "$T/perf.data" -F comm,ip,sym 2>/dev/null >"$T/perf.txt"
	echo "info: perf: $(grep -c 'Perl_runops_standard' "$T/perf.txt") perl frames named Perl_runops_standard," \
		"$(grep -c 'execute_command' "$T/perf.txt") bash frames execute_command," \
		"$(grep -c '__libc_start_call_main' "$T/perf.txt") named by the host's libc (__libc_start_call_main)"
else
	echo "info: perf record did not run: $(tail -1 "$T/perf.err" 2>/dev/null)"
fi
rm -f "$ROOT/tmp/pprobe-container.pl"
done_testing
