# Sourced by tests/e2e/*.sh. Environment from ctest: PPROBE, WORKLOADS, SRCDIR.
# A test exits 0 (pass), 77 (skip: it prints why) or anything else (fail).
set -uo pipefail
: "${PPROBE:?PPROBE not set (run through ctest)}"
: "${WORKLOADS:?WORKLOADS not set (run through ctest)}"
export LC_ALL=C
T=$(mktemp -d /tmp/pprobe-e2e.XXXXXX)
trap 'rm -rf "$T"' EXIT
FAILS=0

fail() { echo "FAIL: $*" >&2; FAILS=$((FAILS + 1)); }
pass() { echo "ok: $*"; }
skip() { echo "SKIP: $*" >&2; exit 77; }
need_root() { [ "$(id -u)" -eq 0 ] || skip "needs root (perf_event_paranoid and tracefs)"; }
# need_uprobe_events: TR, the tracefs directory, with uprobe_events
# writable, or skip saying why. tracefs is not always mounted at boot;
# pprobe mounts it where it is not, as a user's first command would.
need_uprobe_events() {
	"$PPROBE" probe -l >/dev/null 2>&1
	TR=$(awk '$3 == "tracefs" { print $2; exit }' /proc/mounts)
	[ -n "$TR" ] || skip "tracefs is not mounted and pprobe probe -l did not mount it"
	[ -w "$TR/uprobe_events" ] || skip "no writable $TR/uprobe_events (kernel without CONFIG_UPROBE_EVENTS?)"
}
# check DESCRIPTION COMMAND...: run a test command, record pass/fail
# not COMMAND...: succeed when the command fails (for check)
not() { ! "$@"; }
check() { local d=$1; shift; if "$@"; then pass "$d"; else fail "$d"; fi; }
# wait_for COMMAND...: until it succeeds, 10 s at most (status 1 then)
wait_for() { for _ in $(seq 200); do "$@" && return 0; sleep 0.05; done; return 1; }
alive() { kill -0 "$1" 2>/dev/null; }
# reap PID: wait for it, killing it (-9) if it is still there after 10 s;
# its status
reap() { wait_for not alive "$1" || kill -KILL "$1"; wait "$1"; }
# folded_sum FILE [REGEX]: total count of folded lines (matching REGEX)
folded_sum() { awk -v re="${2:-}" 're == "" || $0 ~ re { n += $NF } END { print n + 0 }' "$1"; }
# folded_user FILE: the stacks without their kernel frames at the leaf end.
# Where a cpu-clock sample lands (in user code, or in an interrupt or
# softirq the kernel ran on its way back to it) is the kernel's choice and
# differs between versions and with load; the user part is pprobe's.
folded_user() { sed -E 's/(;[^; ]*_\[k\])+ ([0-9]+)$/ \2/' "$1"; }
# Where a user stack's outer end may be (regexes for the frame after comm):
# ENTRY_ROOT, an entry point (the program's or ld.so's start, a new thread's
# or a posix_spawn child's clone3); MARKED_ROOT, a frame saying why the
# stack ends there. The object in "[no-cfi OBJ]" and "[unwind-error OBJ]"
# may be bracketed itself ("[unwind-error [vdso]]").
ENTRY_ROOT='(_start|_dl_start_user|clone3|start_thread)'
MARKED_ROOT='\[(truncated|unmapped|(no-cfi|unwind-error)( [^;]*)?)\]'
done_testing() { [ "$FAILS" -eq 0 ] && { echo "all checks passed"; exit 0; }; echo "$FAILS check(s) failed" >&2; exit 1; }
