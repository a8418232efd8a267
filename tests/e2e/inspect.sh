#!/usr/bin/env bash
# The -F/-L/-V inspector (issue 4): goldens on the inspect_wl workloads,
# libc with libc6-dbg against gdb, optimized-out honesty, error messages.
source "$(dirname "$0")/lib.sh"
SRCDIR=${SRCDIR:?}
G=$SRCDIR/tests/golden/inspect
O0=$WORKLOADS/inspect_wl_O0
O2=$WORKLOADS/inspect_wl_O2
LIBC=/lib/x86_64-linux-gnu/libc.so.6

# Goldens (and the GCC clones they show): only for the compiler they were
# made with. The CU's DW_AT_producer tells which compiler built the workload
# (.comment also names the GCC of crt files under CC=clang).
cu_producer=$(readelf --debug-dump=info "$O2" | grep -m1 DW_AT_producer | sed 's/.*): //')
producer=$(readelf -p .comment "$O2" | grep -o 'GCC:.*' | head -1)
if [[ "$cu_producer" == "GNU C"* ]] && [ "$producer" = "$(cat "$G/PRODUCER")" ]; then
	check "-O2 build has scale.constprop.0" bash -c "readelf -sW '$O2' | grep -q ' FUNC .* scale\.constprop\.0$'"
	check "-O2 build has point_x.isra.0" bash -c "readelf -sW '$O2' | grep -q ' FUNC .* point_x\.isra\.0$'"
	bash "$G/run-cases.sh" "$PPROBE" "$WORKLOADS" "$SRCDIR" "$T/out"
	for f in "$G"/*.out; do
		n=$(basename "$f")
		check "golden $n" diff -u "$f" "$T/out/$n"
	done
	check "no golden lacks its case" test "$(ls "$T"/out/*.out | wc -l)" -eq "$(ls "$G"/*.out | wc -l)"
else
	echo "SKIP goldens and clone checks: workloads built by '${cu_producer%% -*}', goldens by '$(cat "$G/PRODUCER")' (scripts/regen-inspect-golden.sh)"
fi

# Optimized out is told honestly: at lost_value's return line 'got' has no
# location; gdb's 'info scope' ranges for it must not cover the probe address.
out=$("$PPROBE" -x "$O2" -V lost_value:6)
check "lost_value:6 reports got as <optimized out>" grep -qP '^\t\tint\tgot\t<optimized out>$' <<<"$out"
off=$(grep -oP '@<lost_value\+\K[0-9]+' <<<"$out" | head -1)
base=$(nm "$O2" | awk '$3 == "lost_value" { print $1 }')
addr=$(( 0x$base + off ))
ranges=$(gdb -batch -ex 'info scope lost_value' "$O2" 2>/dev/null | sed -n '/Symbol got/,/length/p' | grep -oP 'Range \K0x[0-9a-f]+-0x[0-9a-f]+')
covered=0
for r in $ranges; do
	lo=$(( ${r%-*} )); hi=$(( ${r#*-} ))
	[ "$addr" -ge "$lo" ] && [ "$addr" -lt "$hi" ] && covered=1
done
check "gdb has ranges for got (${ranges//$'\n'/ })" test -n "$ranges"
check "gdb's ranges for got do not cover lost_value+$off" test "$covered" -eq 0
# ... while n is still in a register there
check "n in a register at lost_value:6" grep -qP '^\t\tint\tn\t%r[a-z0-9]+$' <<<"$out"

# Constants: the values gdb's 'info scope' gives (a double as a block, a
# 64-bit integer) -- only where the compiler emitted them as constants.
scope=$(gdb -batch -ex 'info scope const_shapes' "$O2" 2>/dev/null)
vars=$("$PPROBE" -x "$O2" -V const_shapes)
if grep -q 'Symbol pattern is a constant with value' <<<"$scope"; then
	want=$(grep -oP 'Symbol pattern is a constant with value \K[0-9-]+' <<<"$scope")
	check "pattern = $want as gdb says" grep -qP "^\t\tlong( int)?\tpattern\t= $want\$" <<<"$vars"
fi
if grep -qE 'Symbol factor is (constant bytes:  00 00 00 00 00 00 f8 3f|a constant with value 4609434218613702656)' <<<"$scope"; then
	check "factor = 1.5 (gdb: bytes 00 .. f8 3f)" grep -qP '^\t\tdouble\tfactor\t= 1.5$' <<<"$vars"
fi

# Instruction boundaries: FUNC+N is accepted exactly where objdump decodes
# an instruction of rect_area.
base=$(nm "$O2" | awk '$3 == "rect_area" { print $1 }')
size=$(( 16#$(nm -S "$O2" | awk '$4 == "rect_area" { print $2 }') ))
starts=" "
for a in $(objdump -d --no-show-raw-insn "$O2" | awk '/^[0-9a-f]+ <rect_area>:/ { on = 1; next }
		on && /^$/ { on = 0 } on && /^ *[0-9a-f]+:/ { sub(":", "", $1); print $1 }'); do
	starts+="$(( 16#$a - 16#$base )) "
done
bad=""
for ((off = 0; off < size; off++)); do
	"$PPROBE" -x "$O2" -V "rect_area+$off" >/dev/null 2>&1; rc=$?
	if [[ "$starts" == *" $off "* ]]; then [ $rc -eq 0 ] || bad+=" +$off(refused)"
	else [ $rc -eq 2 ] || bad+=" +$off(accepted)"; fi
done
check "rect_area+N accepted exactly at objdump's $(wc -w <<<"$starts") instruction starts (of $size bytes)${bad}" test -z "$bad" -a "$size" -gt 0 -a "$(wc -w <<<"$starts")" -gt 5

# SRC:LINE lands where gdb puts a breakpoint on that line.
for wl in "$O0" "$O2"; do
	want=$(gdb -batch -ex 'info line inspect_wl.c:69' "$wl" 2>/dev/null | grep -oP 'starts at address 0x[0-9a-f]+ <\K[^>]+' | head -1)
	got=$("$PPROBE" -x "$wl" -V inspect_wl.c:69 | grep -oP '^\t@<\K[^>]+' | head -1)
	if [ -n "$want" ]; then
		check "$(basename "$wl") inspect_wl.c:69 at $got, gdb: $want" test "$got" = "$want"
	else	# the compiler left no code for the line: both must say so
		check "$(basename "$wl") inspect_wl.c:69 has no code (gdb agrees)" bash -c \
			"! '$PPROBE' -x '$wl' -V inspect_wl.c:69 2>&1 | grep -q '^Available'"
	fi
done

# -O0 parameters at the entry: flagged as not stored yet, valid from where
# gdb's 'break FUNC' (which skips the prologue) stops.
for f in main sum_to point_x; do
	bp=$(gdb -batch -ex "break $f" "$O0" 2>/dev/null | grep -oP 'Breakpoint 1 at 0x\K[0-9a-f]+')
	fa=$(nm "$O0" | awk -v f="$f" '$3 == f { print $1 }')
	got=$("$PPROBE" -x "$O0" -V "$f" | grep -oP 'valid from @<[^+]+\+\K[0-9]+' | sort -u)
	check "-O0 $f: params valid from +$got, gdb breaks at +$(( 0x$bp - 0x$fa ))" test "$got" = "$(( 0x$bp - 0x$fa ))"
done

# Sources: --source DIR finds a relocated copy; without any source the
# probe-able line numbers are the same as with it.
mkdir -p "$T/relocated" && cp "$SRCDIR/tests/workloads/inspect_wl.c" "$T/relocated/"
with=$("$PPROBE" -x "$O2" -L sum_to --source "$T/relocated" 2>&1)
check "--source DIR finds the relocated source" grep -qP '^      7  \tfor \(int i = 0; i < n && i < limit; i\+\+\)$' <<<"$with"
without=$("$PPROBE" -x "$O2" -L sum_to --source "$T/nowhere" 2>/dev/null)
check "without the source: the same probe-able lines" test "$(grep -oP '^ *\K[0-9]+' <<<"$with" | paste -sd,)" = "$(grep -oP '^ *\K[0-9]+' <<<"$without" | paste -sd,)"
check "without the source: says where it was expected" bash -c "'$PPROBE' -x '$O2' -L sum_to --source '$T/nowhere' 2>&1 >/dev/null | grep -q 'inspect_wl.c not found under $T/nowhere'"

# libc with libc6-dbg: malloc's bytes is size_t; fopen/qsort/strtol params
# agree with gdb (names from 'info scope', types from 'whatis').
if [ -r "$LIBC" ] && dpkg-query -W -f='${Status}' libc6-dbg 2>/dev/null | grep -q 'ok installed'; then
	check "-V malloc lists size_t bytes" bash -c "'$PPROBE' -x '$LIBC' -V malloc | grep -qP '^\t\tsize_t\tbytes\t%rdi$'"
	for f in fopen qsort strtol; do
		ours=$("$PPROBE" -x "$LIBC" -V "$f" --no-inlines | awk -F'\t' 'NR > 2 && NF >= 4 { print $4 }' | head -20)
		gnames=$(gdb -batch -ex "info scope $f" "$LIBC" 2>/dev/null | grep -oP '^Symbol \K\S+')
		onames=$("$PPROBE" -x "$LIBC" -V "$f" --no-inlines | awk -F'\t' '/^\t\t/ { print $4 }')
		check "$f: parameter names match gdb info scope ($(echo $gnames))" \
			test "$(echo $gnames)" = "$(echo $onames | cut -d' ' -f1-$(wc -w <<<"$gnames"))"
		gtypes=$(gdb -batch -ex "whatis $f" "$LIBC" 2>/dev/null | sed -E 's/^type = [^(]*\((.*)\)$/\1/; s/ //g')
		otypes=$("$PPROBE" -x "$LIBC" -V "$f" --no-inlines | awk -F'\t' '/^\t\t/ { print $3 }' | head -"$(wc -w <<<"$gnames")" | tr -d ' ' | paste -sd,)
		check "$f: parameter types match gdb whatis ($gtypes)" test "$gtypes" = "$otypes"
		: "$ours"
	done
	check "-F libc lists malloc and hides _*" bash -c "'$PPROBE' -x '$LIBC' -F | grep -qx malloc && ! '$PPROBE' -x '$LIBC' -F | grep -q '^_'"
else
	echo "SKIP libc checks: libc6-dbg not installed (apt-get install libc6-dbg)"
fi

# No debug info: -F still works from ELF symbols; -V names the build-id.
cp "$O2" "$T/stripped" && objcopy --strip-debug "$T/stripped"
bid=$(readelf -n "$T/stripped" | awk '/Build ID/ { print $3 }')
check "-F without DWARF lists sum_to from .symtab" bash -c "'$PPROBE' -x '$T/stripped' -F | grep -qx sum_to"
err=$("$PPROBE" -x "$T/stripped" -V sum_to 2>&1); rc=$?
check "-V without DWARF exits 1" test "$rc" -eq 1
check "-V without DWARF names build-id $bid" grep -q "build-id $bid" <<<"$err"
check "-V without DWARF says it is from no package" grep -q "from no Debian package" <<<"$err"
if [ -x /usr/bin/ls ] && ! "$PPROBE" -x /usr/bin/ls -V main >/dev/null 2>&1; then
	err=$("$PPROBE" -x /usr/bin/ls -V main 2>&1)
	check "-V on a packaged binary names its dbgsym package" grep -q "install coreutils-dbgsym" <<<"$err"
fi

# Kernel without vmlinux: -F from kallsyms; -V says what is missing.
if [ -r /proc/kallsyms ] && grep -q ' [tT] vfs_read$' /proc/kallsyms; then
	check "kernel -F --filter vfs_read" test "$("$PPROBE" -F --filter vfs_read)" = vfs_read
	if [ ! -e "/usr/lib/debug/boot/vmlinux-$(uname -r)" ]; then
		err=$("$PPROBE" -V vfs_read 2>&1)
		check "kernel -V without vmlinux names the missing file" grep -q "vmlinux-$(uname -r) does not exist" <<<"$err"
	fi
fi

# Functions with nothing to list (issue 15; the fuzz targets' seed ELF,
# tests/fuzz/elf/tiny.c, built once by gcc and checked in, so the DWARF is
# the same on every machine): -V of a function without variables and -L of
# an -O2 helper inlined without a line row of its own once handed NULL to
# memcpy and qsort (UBSan stops the sanitized build).
TINY=$SRCDIR/tests/fuzz/elf
out=$("$PPROBE" -x "$TINY/tiny_O0" -V noargs 2>&1); rc=$?
check "-V noargs (no variables) exits 0" test $rc -eq 0
check "-V noargs says it has none" grep -q '(No matched variables)' <<<"$out"
out=$("$PPROBE" -x "$TINY/tiny_O2" -L widen 2>&1); rc=$?
check "-L widen (folded away at -O2) exits 0" test $rc -eq 0
check "-L widen lists its source" grep -q '^<widen@' <<<"$out"
check "-L widen has no probe-able line" not grep -qE '^ +[0-9]+  ' <<<"$out"

# Usage errors exit 2; the subcommand form is the same command.
"$PPROBE" -x "$O2" -F -V sum_to >/dev/null 2>&1; check "two modes: exit 2" test $? -eq 2
check "'pprobe probe -F' = 'pprobe -F'" test "$("$PPROBE" probe -x "$O2" -F)" = "$("$PPROBE" -x "$O2" -F)"
check "--help" bash -c "'$PPROBE' -x '$O2' --help | grep -q -- '--no-inlines'"

# A bare library name, as record, trace and stat take it (issue 28): the
# same answer as the path; a name found nowhere said as before.
if [ -e "$LIBC" ]; then
	"$PPROBE" -x "$LIBC" -V malloc >"$T/vp.txt" 2>&1
	"$PPROBE" -x libc.so.6 -V malloc >"$T/vn.txt" 2>&1
	check "-x libc.so.6 -V malloc: as -x $LIBC" sh -c "cmp -s '$T/vp.txt' '$T/vn.txt' && grep -q 'Available variables at malloc' '$T/vn.txt'"
	check "-x libc -F: as -x $LIBC" test "$("$PPROBE" -x libc -F | md5sum)" = "$("$PPROBE" -x "$LIBC" -F | md5sum)"
fi
"$PPROBE" -x libpprobe-nope.so -F >/dev/null 2>"$T/nope.err"
check "-x a library found nowhere: exit 1, said" sh -c "[ $? -eq 1 ] && grep -q 'cannot open libpprobe-nope.so' '$T/nope.err'"
done_testing
