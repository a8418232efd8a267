#!/usr/bin/env bash
# record -g on a stripped system executable: binutils' as (Debian ships it
# without .symtab, and no .dynsym symbol covers its e_entry) assembling a
# generated file of 60,000 small functions (~0.35 s). Its complete stacks end
# at the ELF entry point, which pprobe names _start (issue 12) where it said
# [x86_64-linux-gnu-as] before; and the unwinder's "complete" agrees with the
# folded output: every user stack either starts at an entry point (_start,
# _dl_start_user, clone3, start_thread) or ends in a frame saying why. The
# summary says how many of its code addresses have no name, and why.
. "$(dirname "$0")/lib.sh"
need_root
unwind_check
AS=/usr/bin/x86_64-linux-gnu-as
[ -x "$AS" ] || skip "$AS missing: apt-get install binutils-x86-64-linux-gnu"
readelf -SW "$AS" | grep -q ' SYMTAB ' && skip "$AS has a .symtab here: not the stripped case under test"
ENTRY=$(readelf -hW "$AS" | awk '/Entry point/ { print $4 }')
while read -r v sz; do
	[ $((0x$v)) -ne 0 ] && [ $((0x$v)) -le $((ENTRY)) ] && [ $((ENTRY)) -lt $((0x$v + (sz ? sz : 1))) ] &&
		skip "a .dynsym symbol of $AS covers e_entry $ENTRY: not the stripped case under test"
done < <(readelf -W --dyn-syms "$AS" | awk '$2 ~ /^[0-9a-f]+$/ && $3 ~ /^[0-9]+$/ { print $2, $3 }')

awk 'BEGIN { print ".text"; for (i = 0; i < 60000; i++)
	printf "f%d:\n\tmovq %%rdi, %%rax\n\taddq $%d, %%rax\n\tcall f%d\n\tjne .L%d\n.L%d:\n\tret\n", i, i, (i * 7) % 60000, i, i }' \
	> "$T/gen.s"
"$PPROBE" record -g -o "$T/as.folded" -- "$AS" -o "$T/gen.o" "$T/gen.s" >/dev/null 2>"$T/err"
rc=$?
cat "$T/err"
check "record exits as as did (0)" test "$rc" -eq 0
check "as wrote its object" test -s "$T/gen.o"

folded_user "$T/as.folded" > "$T/u.folded"
comm='^x86_64-linux-g[^;]*'	# comm: the exec'd file's name, 15 characters at most
total=$(folded_sum "$T/u.folded" "$comm;")
entry=$(folded_sum "$T/u.folded" "$comm;$ENTRY_ROOT( |;)")
main=$(folded_sum "$T/u.folded" "$comm;_start;__libc_start_main_impl;__libc_start_call_main;")
marked=$(folded_sum "$T/u.folded" "$comm;$MARKED_ROOT( |;)")
unnamed=$(folded_sum "$T/u.folded" "$comm;\[x86_64-linux-gnu-as\]( |;)")
echo "as: $total user stacks, $entry start at an entry point ($main through __libc_start_main), $marked end saying why, $unnamed start at [x86_64-linux-gnu-as]"
grep -E "$comm;" "$T/u.folded" | grep -vE "$comm;$ENTRY_ROOT( |;)" |
	cut -c1-200 | sed "s/^/not at an entry: /" | head -5
check "as was sampled (>= 50 user stacks, got $total)" test "$total" -ge 50
check "no stack starts at the unnamed entry [x86_64-linux-gnu-as] (got $unnamed)" test "$unnamed" -eq 0
check "every stack starts at an entry point or says why ($entry + $marked of $total)" \
	test $((entry + marked)) -eq "$total"
# 97-99.7% here; the rest end in [truncated] at their first step, issue 12's
# other part (a floor that still shows the walks reach _start)
check ">= 90% of as's stacks are complete through _start;__libc_start_main ($main of $total)" \
	test $((main * 100)) -ge $((total * 90))
# the summary counts as complete exactly the stacks that start at an entry point
read -r sum_n sum_pct < <(sed -n 's/.*unwinding: \([0-9]*\) user stacks, \([0-9.]*\)% complete.*/\1 \2/p' "$T/err")
check "summary's user stacks (${sum_n:-?}) are the folded output's ($total)" test "${sum_n:-0}" -eq "$total"
check "summary's ${sum_pct:-?}% complete is the folded output's $entry of $total (within its 0.1% rounding)" \
	awk -v p="${sum_pct:--1}" -v e="$entry" -v n="$total" 'BEGIN { d = p * n / 100 - e; exit !(n && d < 0.5 && d > -0.5) }'
# going blind is said: the summary names the object whose code has no names,
# and why (issue 25)
unnamed_line=$(grep -E '^pprobe record: x86_64-linux-gnu-as: [0-9]+ of [0-9]+ code addresses without a name: no \.symtab, no debug file' "$T/err")
echo "${unnamed_line:-no summary line for as}"
check "the summary says how many of as's code addresses have no name, and why" test -n "$unnamed_line"
# libc is not blind: no such line for it with that reason. An address of
# it that no symbol covers can be sampled (once in CI: "1 of 57 ... no
# symbol covers them", most likely a .plt stub, which pprobe does not name
# yet where perf says NAME@plt): said, not failed.
grep -E '^pprobe record: libc\.so\.6: [0-9]+ of [0-9]+ code addresses without a name' "$T/err" | sed 's/^/note: /'
check "the summary does not call libc blind (named by its symbols or debug file)" \
	not grep -qE '^pprobe record: libc\.so\.6: [0-9]+ of [0-9]+ code addresses without a name: no \.symtab' "$T/err"
done_testing
