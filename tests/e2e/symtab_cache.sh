#!/bin/bash
# Finished symbol tables kept on disk (symbolize/symtab_cache.c): a big
# object's table is written to $PPROBE_CACHE_DIR/symtab at its first load
# and read from there by the next run, which names every address of a
# sweep exactly as a run without the cache does: node (154,000 .dynsym
# functions, names read from the binary) and libc with libc6-dbg (names
# read from the debug file). A damaged file is not used, and is made again.
. "$SRCDIR/tests/e2e/lib.sh"
need_root
DRV=$WORKLOADS/symbolize_driver
command -v node > /dev/null || skip "node missing (apt-get install nodejs)"
# node, started: its builtins are remapped during its start, so the sweep
# waits for its line
node -e 'console.log("ready"); setTimeout(() => {}, 120000)' > "$T/node.out" &
NP=$!
sleep 120 &
SP=$!
trap 'kill $NP $SP 2>/dev/null; rm -rf "$T" "$T.cache"' EXIT
for _ in $(seq 200); do grep -q ready "$T/node.out" && break; sleep 0.05; done
sleep 0.5

# sweep OUT PID SUBSTR STEP: every STEP bytes of the mappings of PID whose path has SUBSTR
sweep() { "$DRV" -v -s "$2" "$3" "$4" > "$T/$1" 2>&1; }

# libc in sleep (only libc's table is big enough to keep), then node (the
# largest table of its run); each with a cache of its own
for obj in "libc.so $SP 61" "node $NP 499"; do
	set -- $obj
	sub=$1 pid=$2 step=$3
	export PPROBE_CACHE_DIR=$T.cache/$sub
	mkdir -p "$T.cache" && chmod 700 "$T.cache"
	C=$PPROBE_CACHE_DIR/symtab
	PPROBE_CACHE_DIR= sweep "ref.$sub" "$pid" "$sub" "$step" || fail "$sub: driver without a cache"
	[ ! -d "$C" ] || fail "$sub: PPROBE_CACHE_DIR empty kept a table"
	sweep "first.$sub" "$pid" "$sub" "$step" || fail "$sub: first run"
	f=$(ls -S "$C"/*.sym 2>/dev/null | head -1)
	[ -n "$f" ] && pass "$sub: table written ($(ls "$C" | wc -l) in all; $(wc -l < "$T/ref.$sub") lines swept)" \
		|| { fail "$sub: no table in $C"; continue; }
	[ "$(stat -c %a "$f")" = 600 ] || fail "$sub: mode $(stat -c %a "$f")"
	cmp -s "$T/ref.$sub" "$T/first.$sub" && pass "$sub: first run names as without the cache" || fail "$sub: first run differs"
	touch -d '2000-01-01' "$f"
	sweep "second.$sub" "$pid" "$sub" "$step" || fail "$sub: second run"
	[ "$(stat -c %Y "$f")" -gt 946771200 ] && pass "$sub: second run read the table (marked used)" || fail "$sub: table not read"
	cmp -s "$T/ref.$sub" "$T/second.$sub" && pass "$sub: from the cache: every address named the same" \
		|| { fail "$sub: from the cache: names differ"; diff "$T/ref.$sub" "$T/second.$sub" | head -5; }
	[ "$(grep -vc '^0x\|^??' "$T/ref.$sub")" -gt 1000 ] || fail "$sub: few names in the sweep"
	# damaged (one byte short): refused and removed, made again, names the same
	size=$(stat -c %s "$f")
	truncate -s -1 "$f"
	sweep "third.$sub" "$pid" "$sub" "$step"
	cmp -s "$T/ref.$sub" "$T/third.$sub" && [ "$(stat -c %s "$f")" = "$size" ] \
		&& pass "$sub: a damaged table: not used, made again" || fail "$sub: damaged table"
done

# the libc table names come from libc6-dbg's debug file where it is there
dbg=$(readelf -n /lib/x86_64-linux-gnu/libc.so.6 2>/dev/null | awk '/Build ID/ { print $3 }')
[ -n "$dbg" ] && [ -f "/usr/lib/debug/.build-id/${dbg:0:2}/${dbg:2}.debug" ] || echo "note: no libc6-dbg: libc's names from its .dynsym"

# record -g of node with the cache kept: node's own frames named
"$PPROBE" record -g -F 999 -o "$T/n.folded" -- node -e 'let s = 0; for (let i = 0; i < 3e7; i++) s += Math.sqrt(i); console.log(s)' \
	> /dev/null 2> "$T/rec.err" || fail "record node: $(tail -2 "$T/rec.err")"
"$PPROBE" record -g -F 999 -o "$T/n2.folded" -- node -e 'let s = 0; for (let i = 0; i < 3e7; i++) s += Math.sqrt(i); console.log(s)' \
	> /dev/null 2> "$T/rec2.err" || fail "record node again: $(tail -2 "$T/rec2.err")"
for o in n n2; do
	named=$(tr ';' '\n' < "$T/$o.folded" | grep -c '^v8::\|^node::\|^Builtins_\|^uv_')
	[ "$named" -gt 0 ] && pass "record $o: node's functions named ($named frames)" || fail "record $o: no node function named"
done

[ "$FAILS" -eq 0 ]
