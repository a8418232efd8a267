# Sourced by guest scripts (tests/vm/*.sh) inside the VM of scripts/vmtest.sh:
#   . /vmtest/lib.sh
# The guest has busybox, not bash: everything here and in guest scripts is
# POSIX sh as busybox ash runs it (no arrays, no [[ ]], no pipefail, no $'..').
# Environment from the guest's /init: PPROBE (the pprobe binary), WORKLOADS
# (the built tests/workloads), VMTEST_FACTS (a file of guest facts), TMPDIR.
# A guest script exits 0 (pass), 77 (skip: it prints why) or anything else
# (fail); scripts/vmtest.sh passes that status back to the host.
TRACEFS=/sys/kernel/tracing
FAILS=0

fail() { echo "FAIL: $*" >&2; FAILS=$((FAILS + 1)); }
pass() { echo "ok: $*"; }
skip() { echo "SKIP: $*" >&2; exit 77; }
# check DESCRIPTION COMMAND...: run a test command, record pass/fail
check() { _d=$1; shift; if "$@"; then pass "$_d"; else fail "$_d"; fi; }
# check_eq DESCRIPTION EXPECTED ACTUAL
check_eq() {
	if [ "$2" = "$3" ]; then pass "$1 ($3)"; else fail "$1: expected '$2', got '$3'"; fi
}
done_testing() {
	[ "$FAILS" -eq 0 ] && { echo "all checks passed"; exit 0; }
	echo "$FAILS check(s) failed" >&2
	exit 1
}
# facts: print what the guest kernel offers (PMUs, tracefs files, sysctls)
facts() { cat "$VMTEST_FACTS"; }
