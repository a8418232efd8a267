#!/usr/bin/env bash
# record -g on a Go program stripped of .symtab and DWARF (-ldflags='-s -w',
# as Debian ships its Go tools): only the runtime's own function table,
# .gopclntab, names its code. The program, built here (skipped without a go
# toolchain), spends ~0.6 s in main.spin called from main.main. Its samples
# must be named from the table: main.spin under main.main, and no more than
# a sliver left in the unnamed [gospin] frame every sample fell in before.
. "$(dirname "$0")/lib.sh"
need_root
command -v go >/dev/null 2>&1 || skip "no go toolchain in PATH: the test builds a stripped Go program"
cat > "$T/main.go" <<'GO'
package main

import (
	"fmt"
	"time"
)

//go:noinline
func spin(d time.Duration) int {
	s := 0
	for t0 := time.Now(); time.Since(t0) < d; {
		for i := 0; i < 10000; i++ {
			s += i * i % 7
		}
	}
	return s
}

func main() {
	fmt.Println(spin(600 * time.Millisecond))
}
GO
printf 'module gospin\n\ngo 1.16\n' > "$T/go.mod"
[ -n "${HOME:-}${GOCACHE:-}${XDG_CACHE_HOME:-}" ] || export GOCACHE=$T/gocache
(cd "$T" && CGO_ENABLED=0 GOTOOLCHAIN=local GOFLAGS=-mod=mod go build -ldflags='-s -w' -o gospin .) ||
	{ fail "go build of the stripped program"; done_testing; }
readelf -SW "$T/gospin" | grep -q ' SYMTAB ' && { fail "gospin kept a .symtab: not the stripped case under test"; done_testing; }

"$PPROBE" record -g -o "$T/go.folded" -- "$T/gospin" >/dev/null 2>"$T/err"
rc=$?
cat "$T/err"
check "record exits as the program did (0)" test "$rc" -eq 0

folded_user "$T/go.folded" | grep '^gospin;' > "$T/u.folded"
total=$(folded_sum "$T/u.folded")
spin=$(folded_sum "$T/u.folded" ';main\.spin(;| )')
under_main=$(folded_sum "$T/u.folded" ';main\.main;main\.spin(;| )')
unnamed=$(folded_sum "$T/u.folded" '\[gospin\]( |;)')
echo "gospin: $total user stacks, $spin in main.spin ($under_main under main.main), $unnamed with an unnamed [gospin] frame"
grep -F '[gospin]' "$T/u.folded" | cut -c1-200 | sed 's/^/unnamed: /' | head -5
check "the program was sampled (>= 200 user stacks, got $total)" test "$total" -ge 200
check ">= 80% of its stacks are in main.spin ($spin of $total)" test $((spin * 100)) -ge $((total * 80))
check ">= 80% of main.spin's stacks have main.main as its caller ($under_main of $spin)" \
	test $((under_main * 100)) -ge $((spin * 80))
check "<= 2% of stacks hold an unnamed [gospin] frame ($unnamed of $total)" test $((unnamed * 100)) -le $((total * 2))
done_testing
