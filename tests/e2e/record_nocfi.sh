#!/usr/bin/env bash
# Code without CFI, where the walk must neither stop short nor claim more
# than it knows (issue 12):
# - a leaf without CFI that pushes nothing (GMP's assembly, glibc's clone3
#   past the end of its FDE): the word at sp is its return address, right
#   after a call; the walk steps to the caller there and goes on to _start.
# - the ELF entry point is the outermost frame only where the kernel starts
#   a thread: a program's or its loader's e_entry, not a shared library's.
#   libunwind_entrylib.so is linked with its e_entry at nocfi_call (no CFI,
#   a frame pointer), which unwind_wl calls with leaf_sort as its callback.
#   A walk that took the library's e_entry for an entry would end "complete"
#   at nocfi_call; it must go on, through the frame pointer, to main.
. "$(dirname "$0")/lib.sh"
need_root
unwind_check
W=$WORKLOADS
LIB=$W/libunwind_entrylib.so
entry=$(readelf -hW "$LIB" | awk '/Entry point/ { print $4 }')
fn=$(readelf -sW "$LIB" | awk '$8 == "nocfi_call" { print "0x" $2; exit }')
[ -n "$fn" ] && [ $((entry)) -eq $((fn)) ] || skip "the linker did not put $LIB's e_entry ($entry) at nocfi_call (${fn:-none})"
readelf -SW "$LIB" | grep -qE '\.eh_frame |\.debug_frame ' && readelf -wf "$LIB" 2>/dev/null | grep -q "pc=0*${fn#0x}" &&
	skip "$LIB has CFI for nocfi_call"

for u in libdw libunwind; do
	"$PPROBE" record -g --unwinder "$u" -o "$T/l.folded" -- "$W/unwind_wl" nocfileaf 10 1 >/dev/null 2>"$T/err"
	check "$u: nocfileaf: record exits as unwind_wl did (0)" test $? -eq 0
	folded_user "$T/l.folded" | grep '^unwind_wl;' > "$T/u.folded"
	leaf=$(folded_sum "$T/u.folded" ';nocfi_leaf_spin$|;nocfi_leaf_spin ')
	rec10=$(printf 'recurse;%.0s' 1 2 3 4 5 6 7 8 9 10)	# (mawk has no {10})
	full=$(folded_sum "$T/u.folded" "^unwind_wl;_start;__libc_start_main_impl;__libc_start_call_main;main;run;${rec10}leaf_nocfileaf;nocfi_leaf_spin ")
	echo "$u: $leaf stacks in nocfi_leaf_spin, $full from _start through leaf_nocfileaf"
	check "$u: the no-CFI leaf was sampled (>= 200 stacks, got $leaf)" test "$leaf" -ge 200
	check "$u: >= 99% of its stacks go on through its caller to _start ($full of $leaf)" test $((full * 100)) -ge $((leaf * 99))

	"$PPROBE" record -g --unwinder "$u" -o "$T/e.folded" -- "$W/unwind_wl" entrylib 10 1 >/dev/null 2>"$T/err"
	rc=$?
	cat "$T/err"
	check "$u: entrylib: record exits as unwind_wl did (0)" test "$rc" -eq 0
	folded_user "$T/e.folded" | grep '^unwind_wl;' > "$T/u.folded"
	through=$(folded_sum "$T/u.folded" ';nocfi_call;')
	full=$(folded_sum "$T/u.folded" '^unwind_wl;_start;__libc_start_main_impl;__libc_start_call_main;main;.*;leaf_entrylib;nocfi_call;leaf_sort;')
	cut=$(folded_sum "$T/u.folded" '^unwind_wl;nocfi_call;')
	echo "$u: stacks through nocfi_call: $through, from _start through main: $full, starting at nocfi_call: $cut"
	check "$u: nocfi_call was sampled on the stack (>= 200 stacks, got $through)" test "$through" -ge 200
	check "$u: no stack starts at the library's e_entry (got $cut)" test "$cut" -eq 0
	check "$u: >= 99% of them go on to main and _start ($full of $through)" test $((full * 100)) -ge $((through * 99))
done
done_testing
