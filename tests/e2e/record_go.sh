#!/usr/bin/env bash
# Go programs (issue 25): any Go binary built with Go's defaults compresses
# its DWARF, which crashed pprobe at the first sample, alone (-- prog) and
# system-wide (-a) while one ran. A goroutine's stack starts at
# runtime.goexit, where Go's own traceback ends; the walk must end there
# too and call the stack complete. tests/workloads/go_wl: goroutines on
# several threads spin in main.leaf under main.mid; the program execs
# itself through os/exec. Built: with Go's defaults, with uncompressed
# DWARF, and stripped (-s -w: no .symtab, no DWARF, only .gopclntab, where
# names and frame sizes come from Go's own tables).
# Each default and stripped build with both unwinders (libunwind reads no
# .debug_frame: every Go frame is stepped by .gopclntab's frame sizes).
# Every stack ends at a Go root, at the ELF entry (_rt0_amd64_linux), or in
# a frame saying why.
. "$(dirname "$0")/lib.sh"
need_root
unwind_check
command -v go >/dev/null || skip "no go toolchain (Debian's golang-go)"
export GOCACHE=$T/gocache GOFLAGS=-mod=mod GOTOOLCHAIN=local GO111MODULE=on
cp -r "$SRCDIR/tests/workloads/go_wl" "$T/src"
(cd "$T/src" && go build -o "$T/gwl" . && go build -ldflags=-compressdwarf=false -o "$T/gwl_nz" . &&
	go build -ldflags='-s -w' -o "$T/gwl_s" .) 2>"$T/go.err" || skip "go build failed: $(head -3 "$T/go.err")"
readelf -SW "$T/gwl" | grep -qE ' \.(z)?debug_frame .* C |\.zdebug_frame ' ||
	echo "note: this Go did not compress its .debug_frame"

for run in gwl gwl_nz gwl_s gwl:libunwind gwl_s:libunwind; do
	bin=${run%%:*} u=libdw
	[ "$run" = "$bin" ] || u=${run#*:}
	"$PPROBE" record -g --unwinder "$u" -o "$T/$bin.folded" -- "$T/$bin" >/dev/null 2>"$T/err"
	rc=$?
	cat "$T/err"
	tag=$bin/$u	# in the checks' names
	check "$tag: record exits as the program did (0, got $rc)" test "$rc" -eq 0
	folded_user "$T/$bin.folded" | grep "^$bin;" > "$T/u.folded"
	through=$(folded_sum "$T/u.folded" ';main\.mid;main\.leaf( |$)')
	full=$(folded_sum "$T/u.folded" "^$bin;runtime\\.goexit;main\\.spin\\.func[0-9]+;(main\\.spin\\.func[0-9]+;)?main\\.mid;main\\.leaf( |\$)")
	all=$(folded_sum "$T/u.folded")
	ended=$(folded_sum "$T/u.folded" "^$bin;(runtime\\.(goexit|mstart|rt0_go|systemstack|mcall|morestack|asmcgocall)|_rt0_amd64[a-z_]*|$MARKED_ROOT|$ENTRY_ROOT)[; ]")
	echo "$tag: $through stacks through main.mid;main.leaf, $full from runtime.goexit; $ended of $all stacks end at a root or say why"
	grep -vE "^$bin;(runtime\\.(goexit|mstart|rt0_go|systemstack|mcall|morestack|asmcgocall)|_rt0_amd64[a-z_]*|$MARKED_ROOT|$ENTRY_ROOT)[; ]" \
		"$T/u.folded" | head -3 | cut -c1-300 | sed 's/^/  ends elsewhere: /'
	check "$tag: main.leaf sampled under main.mid (>= 1000, got $through)" test "$through" -ge 1000
	check "$tag: >= 99% of them go on to runtime.goexit ($full of $through)" test $((full * 100)) -ge $((through * 99))
	check "$tag: every stack ends at a Go root, an entry point, or says why ($ended of $all)" test "$ended" -eq "$all"
	[ "$u" = libdw ] || continue
	"$PPROBE" record --call-graph fp -o "$T/$bin.fp.folded" -- "$T/$bin" >/dev/null 2>&1
	fpfull=$(folded_user "$T/$bin.fp.folded" | folded_sum /dev/stdin "^$bin;runtime\\.goexit;.*main\\.leaf( |\$)")
	echo "$bin: for comparison, --call-graph fp: $fpfull stacks from runtime.goexit to main.leaf"
done

# Unwound on two worker threads (record --workers): each stack the same as
# the main thread unwinds it again (PPROBE_WORKERS_CHECK; the live stack off,
# which is read at a moment of its own), and Go's stacks as complete.
PPROBE_LIVE_STACK=0 PPROBE_WORKERS_CHECK=1 "$PPROBE" record -g --workers 2 -o "$T/w.folded" -- "$T/gwl" \
	>/dev/null 2>"$T/err"
check "--workers 2: exit 0" test $? -eq 0
grep -E 'unwinding:|workers check' "$T/err"
walks=$(sed -nE 's/.*workers check: ([0-9]+) of ([0-9]+) stacks.*/\1 \2/p' "$T/err")
check "--workers 2: >= 500 stacks checked (${walks#* }), none differ (${walks% *})" \
	test "${walks#* }" -ge 500 -a "${walks% *}" -eq 0
w_through=$(folded_user "$T/w.folded" | folded_sum /dev/stdin '^gwl;.*;main\.mid;main\.leaf( |$)')
w_full=$(folded_user "$T/w.folded" | folded_sum /dev/stdin '^gwl;runtime\.goexit;.*;main\.mid;main\.leaf( |$)')
check "--workers 2: >= 99% of main.leaf's stacks from runtime.goexit ($w_full of $w_through)" \
	test "$w_through" -ge 1000 -a $((w_full * 100)) -ge $((w_through * 99))

# system-wide while a Go program runs
"$T/gwl" >/dev/null &
g=$!
"$PPROBE" record -a -g -o "$T/a.folded" -- sleep 1 >/dev/null 2>"$T/err"
rc=$?
reap "$g"
check "record -a -g while a Go program runs: exit 0 (got $rc)" test "$rc" -eq 0
check "record -a -g: the Go program's goroutines named" grep -qE '^gwl;runtime\.goexit;.*main\.leaf' "$T/a.folded"
done_testing
