#!/usr/bin/env bash
# A binary whose only CFI is a compressed .debug_frame (gcc -g -gz
# -fno-asynchronous-unwind-tables; GNU's older .zdebug_frame, made by
# objcopy --compress-debug-sections=zlib-gnu; and zstd). libdw inflates compressed
# sections in place, which over the unwinder's read-only mapping was a
# SIGSEGV at the first sample (every Go binary compresses its DWARF the
# same way). The workload forks, execs itself and starts a thread; each
# stack through leaf must go on through mid to an entry point, with both
# forms, and neither unwinder may crash.
. "$(dirname "$0")/lib.sh"
need_root
unwind_check
CC=${CC:-cc}
src=$SRCDIR/tests/workloads/compressed_wl.c
"$CC" -O2 -g -gz -fno-asynchronous-unwind-tables -pthread -o "$T/z_gz" "$src" 2>"$T/cc.err" ||
	skip "$CC cannot build with -gz: $(head -1 "$T/cc.err")"
readelf -SW "$T/z_gz" | grep -E ' \.debug_frame ' | grep -q ' C ' || skip "$CC -gz left .debug_frame uncompressed"
readelf -SW "$T/z_gz" | grep -q ' \.eh_frame ' && readelf -wF "$T/z_gz" 2>/dev/null | grep -q 'leaf' &&
	skip "$CC -fno-asynchronous-unwind-tables still wrote .eh_frame rows"
objcopy --decompress-debug-sections "$T/z_gz" "$T/z_plain" &&
	objcopy --compress-debug-sections=zlib-gnu "$T/z_plain" "$T/z_zdebug" ||
	skip "objcopy cannot write .zdebug sections"
readelf -SW "$T/z_zdebug" | grep -q ' \.zdebug_frame ' || skip "objcopy wrote no .zdebug_frame"
# zstd (ELFCOMPRESS_ZSTD), which libelf 0.188 cannot inflate: ufile_map.c
# inflates it with libzstd (binutils 2.40's objcopy writes it)
bins="z_gz z_zdebug"
if objcopy --compress-debug-sections=zstd "$T/z_plain" "$T/z_zstd" 2>"$T/oc.err" &&
	readelf -SW "$T/z_zstd" | grep -E ' \.debug_frame ' | grep -q ' C '; then
	bins+=" z_zstd"
else
	echo "note: no zstd form: objcopy cannot compress with zstd: $(head -1 "$T/oc.err")"
fi

for bin in $bins; do
	for u in libdw libunwind; do
		"$PPROBE" record -g --unwinder "$u" -o "$T/$bin.$u.folded" -- "$T/$bin" >/dev/null 2>"$T/err"
		rc=$?
		check "$bin, $u: record exits as the workload did (0, got $rc)" test "$rc" -eq 0
		[ "$u" = libdw ] || continue
		cat "$T/err"
		folded_user "$T/$bin.$u.folded" | grep -E "^$bin;" > "$T/u.folded"
		through=$(folded_sum "$T/u.folded" ';mid;leaf$|;mid;leaf ')
		full=$(folded_sum "$T/u.folded" "^$bin;$ENTRY_ROOT;.*(main|thread_fn);mid;leaf( |$)")
		echo "$bin: $through stacks through mid;leaf, $full of them from an entry point"
		check "$bin: leaf sampled under mid (>= 300 stacks, got $through)" test "$through" -ge 300
		check "$bin: >= 99% of them complete ($full of $through)" test $((full * 100)) -ge $((through * 99))
		check "$bin: the thread's stacks go on through thread_fn to its entry too" \
			grep -qE "^$bin;$ENTRY_ROOT;.*thread_fn;mid;leaf" "$T/u.folded"
	done
done
done_testing
