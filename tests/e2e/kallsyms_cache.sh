#!/bin/bash
# The core kernel's symbols kept per boot (symbolize/kallsyms.c): the first
# run writes $PPROBE_RUN_DIR/kallsyms-core (0600 in a 0700 directory); a
# later run names every core text address exactly as a run without the
# cache does, without opening /proc/kallsyms; a damaged or another boot's
# file is not used and is written anew; an address past the core reads
# /proc/kallsyms; record -a -g names kernel frames the same way with it.
. "$SRCDIR/tests/e2e/lib.sh"
need_root
command -v strace >/dev/null || skip "strace missing: apt-get install strace"
[ "$(cat /proc/sys/kernel/kptr_restrict)" != 2 ] || skip "kptr_restrict is 2: the kernel hides its addresses, no cache"
DRV=$WORKLOADS/symbolize_driver
RUN=$T/run
C=$RUN/kallsyms-core

# every 20th core text symbol (below _einittext, the core's last), and
# each one's middle: names, offsets and end markers all compared
END=$(awk '$3 == "_einittext" { print $1; exit }' /proc/kallsyms)
[ -n "$END" ] || skip "no _einittext in /proc/kallsyms"
awk -v end="$END" '$2 ~ /^[tT]$/ && NF == 3 && $1 < end && NR % 20 == 0 { print $1; print substr($1, 1, 14) "40" }' \
	/proc/kallsyms > "$T/addrs"
N=$(wc -l < "$T/addrs")
[ "$N" -gt 1000 ] || fail "only $N core addresses"

opens() { grep -c "$1" "$2"; }
# traced OUT CMD...: CMD under strace, its opens in OUT (LeakSanitizer
# cannot run under ptrace: an ASan build's leak check is off there)
traced() {
	local out=$1; shift
	ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 strace -f -e trace=openat -o "$out" "$@"
}

PPROBE_RUN_DIR= traced "$T/st0" "$DRV" -v -k - < "$T/addrs" > "$T/none" || fail "driver without a cache"
[ ! -e "$C" ] || fail "PPROBE_RUN_DIR empty wrote a cache"
[ "$(opens /proc/kallsyms "$T/st0")" = 1 ] && pass "without a cache: /proc/kallsyms read" || fail "without a cache: $(opens /proc/kallsyms "$T/st0") opens"
NAMED=$(grep -vc '^0x\|^??' "$T/none")
[ "$NAMED" -gt $((N / 2)) ] || fail "only $NAMED of $N core addresses named without the cache"

PPROBE_RUN_DIR=$RUN "$DRV" -v -k - < "$T/addrs" > "$T/first" || fail "first run"
cmp -s "$T/none" "$T/first" && pass "first run (writes the cache): same names" || fail "first run's names differ"
[ -f "$C" ] && pass "cache written" || fail "no $C"
[ "$(stat -c %a "$RUN")" = 700 ] && [ "$(stat -c %a "$C")" = 600 ] && pass "directory 0700, file 0600" \
	|| fail "modes $(stat -c %a "$RUN") $(stat -c %a "$C")"

PPROBE_RUN_DIR=$RUN traced "$T/st1" "$DRV" -v -k - < "$T/addrs" > "$T/second" || fail "second run"
cmp -s "$T/none" "$T/second" && pass "from the cache: all $N addresses named as without it ($NAMED named)" \
	|| { fail "from the cache: names differ"; diff "$T/none" "$T/second" | head -5; }
[ "$(opens /proc/kallsyms "$T/st1")" = 0 ] && [ "$(opens kallsyms-core "$T/st1")" = 1 ] \
	&& pass "from the cache: /proc/kallsyms not opened" || fail "second run opened /proc/kallsyms $(opens /proc/kallsyms "$T/st1") times"

# another boot's file (the id in its header changed): read whole, rewritten
printf 'ffffffff-ffff-ffff-ffff-ffffffffffff' | dd of="$C" bs=1 seek=8 conv=notrunc status=none
PPROBE_RUN_DIR=$RUN traced "$T/st2" "$DRV" -v -k - < "$T/addrs" > "$T/third" || fail "third run"
cmp -s "$T/none" "$T/third" && [ "$(opens /proc/kallsyms "$T/st2")" = 1 ] && pass "another boot's cache: not used" \
	|| fail "another boot's cache: $(opens /proc/kallsyms "$T/st2") reads, names $(cmp -s "$T/none" "$T/third" && echo same || echo differ)"
PPROBE_RUN_DIR=$RUN traced "$T/st3" "$DRV" -v -k - < "$T/addrs" > /dev/null
[ "$(opens /proc/kallsyms "$T/st3")" = 0 ] && pass "and written anew for this boot" || fail "not rewritten"

# damaged: the last name's NUL gone
printf 'x' | dd of="$C" bs=1 seek=$(($(stat -c %s "$C") - 1)) conv=notrunc status=none
PPROBE_RUN_DIR=$RUN traced "$T/st4" "$DRV" -v -k - < "$T/addrs" > "$T/fourth"
cmp -s "$T/none" "$T/fourth" && [ "$(opens /proc/kallsyms "$T/st4")" = 1 ] && pass "a damaged cache: not used" || fail "damaged cache"

# someone else's directory: no cache at all, names the same
mkdir -p "$T/open" && chmod 777 "$T/open"
PPROBE_RUN_DIR=$T/open "$DRV" -v -k - < "$T/addrs" > "$T/fifth"
cmp -s "$T/none" "$T/fifth" && [ ! -e "$T/open/kallsyms-core" ] && pass "a directory others may write: not used" \
	|| fail "world-writable directory used"

# past the core (its last symbol's page and beyond): the whole file is read
printf 'ffffffffc0000010\n' > "$T/past"
PPROBE_RUN_DIR=$RUN traced "$T/st5" "$DRV" -v -k - < "$T/past" > /dev/null
[ "$(opens /proc/kallsyms "$T/st5")" = 1 ] && pass "an address past the core reads /proc/kallsyms" || fail "past the core: no read"

# record -a -g with the cache: every kernel frame named as perf names it
# (no raw addresses), and the cache not rewritten
before=$(stat -c %Y.%i "$C")
PPROBE_RUN_DIR=$RUN "$PPROBE" record -a -g -F 499 -d 1 -o "$T/a.folded" > "$T/rec.out" 2>&1 || fail "record -a: $(tail -2 "$T/rec.out")"
K=$(tr ';' '\n' < "$T/a.folded" | grep -c '_\[k\]$')
RAW=$(tr ';' '\n' < "$T/a.folded" | grep -c '^0x[0-9a-f]*_\[k\]$\|^\[unknown\]_\[k\]$')
[ "$K" -gt 0 ] && [ "$RAW" -eq 0 ] && pass "record -a -g: $K kernel frames, all named" || fail "record: $K kernel frames, $RAW unnamed"
[ "$(stat -c %Y.%i "$C")" = "$before" ] && pass "cache kept" || fail "record rewrote a good cache"

[ "$FAILS" -eq 0 ]
