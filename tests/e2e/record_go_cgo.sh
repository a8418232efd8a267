#!/usr/bin/env bash
# cgo (issue 25): Go code that calls C. tests/workloads/go_cgo_wl:
# goroutines spin in C (cspin, compiled by cgo's gcc) under main.cwork, and
# one calls C (ccallback) that calls back into Go (main.goback, //export)
# which spins in main.gospin. The C code runs on the thread's system (g0)
# stack after runtime.asmcgocall switched to it; its CFI leads back to
# asmcgocall, where the walk goes on to asmcgocall's caller,
# runtime.cgocall, on the goroutine's stack (found through the g and depth
# asmcgocall saved), as Go's own traceback joins them. That stack is read
# from the live process: --hold-exits keeps it there until the samples are
# unwound (record unwinds behind the program), and while the goroutine
# is still there: -F 250, so that a sanitized pprobe's unwinding (0.5 ms a
# stack) keeps up with the 1.2 s run on a loaded machine (at 1000 Hz it
# lagged seconds behind, past the goroutines' end). Measured: 100% of the
# C leaf's stacks reach runtime.goexit, 96-97% with a sanitized pprobe
# (the last samples unwound after their goroutine ended): 90% asked.
# Built with Go's defaults and stripped (-s -w: names and frame sizes from
# .gopclntab). Go called back
# from C runs on the goroutine's stack, where runtime.cgocallback's frame
# returns to runtime.systemstack_switch's entry, a pc the runtime saved:
# named by that function (not by pc - 1, in runtime.mcall, a root) and
# stepped at it, on to runtime.cgocall, as Go's traceback does.
. "$(dirname "$0")/lib.sh"
need_root
unwind_check
command -v go >/dev/null || skip "no go toolchain (Debian's golang-go)"
command -v gcc >/dev/null || skip "no gcc: cgo needs a C compiler"
export GOCACHE=$T/gocache GOFLAGS=-mod=mod GOTOOLCHAIN=local GO111MODULE=on CGO_ENABLED=1
cp -r "$SRCDIR/tests/workloads/go_cgo_wl" "$T/src"
(cd "$T/src" && go build -o "$T/cgo_bin" . && go build -ldflags='-s -w' -o "$T/cgo_s" .) 2>"$T/go.err" ||
	skip "go build failed: $(head -3 "$T/go.err")"

ROOT='(runtime\.(goexit|mstart|rt0_go|systemstack|mcall|morestack|asmcgocall)(\.abi0)?|_rt0_amd64[a-z_]*|'"$MARKED_ROOT|$ENTRY_ROOT"')'
for bin in cgo_bin cgo_s; do
	"$PPROBE" record -F 250 -g --hold-exits -o "$T/$bin.folded" -- "$T/$bin" >/dev/null 2>"$T/err"
	rc=$?
	cat "$T/err"
	check "$bin: record exits as the program did (0, got $rc)" test "$rc" -eq 0
	folded_user "$T/$bin.folded" | grep "^$bin;" > "$T/u.folded"
	cleaf=$(folded_sum "$T/u.folded" ';_cgo_[0-9a-f]+_Cfunc_cspin;cspin( |$)')
	under=$(folded_sum "$T/u.folded" ';main\.cwork;main\._Cfunc_cspin(\.abi0)?;runtime\.cgocall;runtime\.asmcgocall(\.abi0)?;_cgo_[0-9a-f]+_Cfunc_cspin;cspin( |$)')
	full=$(folded_sum "$T/u.folded" "^$bin;runtime\\.goexit(\\.abi0)?;main\\.main\\.func[0-9]+;(main\\.main\\.func[0-9]+;)?main\\.cwork;main\\._Cfunc_cspin(\\.abi0)?;runtime\\.cgocall;runtime\\.asmcgocall(\\.abi0)?;_cgo_[0-9a-f]+_Cfunc_cspin;cspin( |\$)")
	back=$(folded_sum "$T/u.folded" ';_cgoexp_[0-9a-f]+_goback;main\.gospin( |$)')
	backfull=$(folded_sum "$T/u.folded" "^$bin;runtime\\.goexit(\\.abi0)?;.*;main\\.viaC;main\\._Cfunc_ccallback(\\.abi0)?;runtime\\.cgocall;runtime\\.systemstack_switch(\\.abi0)?;runtime\\.cgocallback(\\.abi0)?;.*;_cgoexp_[0-9a-f]+_goback;main\\.gospin( |\$)")
	all=$(folded_sum "$T/u.folded")
	ended=$(folded_sum "$T/u.folded" "^$bin;$ROOT[; ]")
	echo "$bin: C leaf cspin: $cleaf stacks, $under under main.cwork;...;runtime.cgocall, $full of them from runtime.goexit;" \
		"Go called back from C: $back in main.gospin, $backfull from runtime.goexit through main.viaC; $ended of $all stacks end at a root or say why"
	grep -E ';cspin( |$)' "$T/u.folded" | grep -vE "^$bin;runtime\\.goexit" | sort -k2 -nr -t' ' | head -3 | cut -c1-300 | sed 's/^/  cspin not from goexit: /'
	grep -E ';main\.gospin( |$)' "$T/u.folded" | grep -vE "^$bin;runtime\\.goexit" | head -3 | cut -c1-300 | sed 's/^/  gospin not from goexit: /'
	check "$bin: the C leaf sampled (>= 100, got $cleaf)" test "$cleaf" -ge 100
	check "$bin: >= 90% of the C leaf's stacks go on to main.cwork and runtime.goexit ($full of $cleaf)" \
		test $((full * 100)) -ge $((cleaf * 90))
	check "$bin: Go called back from C sampled (>= 50 in main.gospin, got $back)" test "$back" -ge 50
	check "$bin: every stack ends at a Go root, an entry point, or says why ($ended of $all)" test "$ended" -eq "$all"
	check "$bin: >= 95% of main.gospin's stacks go on through the C call to runtime.goexit ($backfull of $back)" \
		test $((backfull * 100)) -ge $((back * 95))
done
done_testing
