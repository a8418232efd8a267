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

# Section headers that libelf reads otherwise than a plain reading of the
# ELF header does (extended section numbering: e_shnum 0, the count in
# section 0; an e_shentsize libelf ignores): the kernel runs such a binary,
# and libelf would inflate its .debug_frame in place over read-only pages,
# a SIGSEGV in elf_compress (found by fuzz/unwind). pprobe uses neither
# file's CFI, says which object had none, and names the frames it sampled.
python3 - "$T/z_gz" "$T/z_extnum" "$T/z_shentsize" <<'PY'
import os, struct, sys
src, extnum, shentsize = sys.argv[1:]
d = open(src, 'rb').read()
shoff, = struct.unpack_from('<Q', d, 0x28)
shnum, = struct.unpack_from('<H', d, 0x3c)
a = bytearray(d)
struct.pack_into('<H', a, 0x3c, 0)
struct.pack_into('<Q', a, shoff + 0x20, shnum)     # section 0's sh_size
b = bytearray(d)
struct.pack_into('<H', b, 0x3a, 0x41)              # e_shentsize
for p, v in ((extnum, a), (shentsize, b)):
    open(p, 'wb').write(v)
    os.chmod(p, 0o755)
PY
check "crafted section headers written" test -x "$T/z_shentsize"
for bin in z_extnum z_shentsize; do
	"$PPROBE" record -g -o "$T/$bin.folded" -- "$T/$bin" >/dev/null 2>"$T/$bin.err"
	rc=$?
	cat "$T/$bin.err"
	check "$bin: record exits as the workload did (0, got $rc)" test "$rc" -eq 0
	check "$bin: leaf sampled and named (>= 300 stacks)" test "$(folded_sum "$T/$bin.folded" ';leaf( |$)')" -ge 300
	check "$bin: the object without usable CFI said" grep -qE "^ +$bin .*no-cfi" "$T/$bin.err"
done
done_testing
