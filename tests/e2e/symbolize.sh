#!/bin/bash
# Symbolization against independent readers of the same files, on live
# processes: eu-addr2line -f -i (elfutils) and, where it disagrees, binutils'
# addr2line. Workload (PIE and non-PIE) byte by byte, libc (libc6-dbg) every
# 61st byte of every function, stripped binaries (.dynsym only, debuglink,
# build-id directory, MiniDebugInfo), C++ demangling, a deleted binary and a
# binary that exists only in another mount namespace.
. "$SRCDIR/tests/e2e/lib.sh"
need_root
command -v eu-addr2line >/dev/null || skip "eu-addr2line missing: apt-get install elfutils"
command -v addr2line >/dev/null || skip "addr2line missing: apt-get install binutils"
DRV=$WORKLOADS/symbolize_driver
LIB="perl $SRCDIR/tests/e2e/symbolize_lib.pl"
PIDS=()
trap 'for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done; rm -rf "$T" "$T.cache"' EXIT

# start_wl OUTVAR CMD...: start a workload, wait for its "ready PID" line
start_wl() {
	local var=$1 f=$T/ready.$RANDOM; shift
	"$@" > "$f" 2>&1 &
	local p=$!
	PIDS+=("$p")
	for _ in $(seq 200); do grep -q '^ready' "$f" 2>/dev/null && break; sleep 0.02; done
	# the workload may run under a wrapper (unshare): take the pid it printed
	printf -v "$var" '%s' "$(awk '/^ready/ { print $2 }' "$f")"
}

# compare_eu NAME PID MAPPATH ELF SYMFILE DWARFFILE STEP MIN_EU_PERMILLE [eu-addr2line options]
compare_eu() {
	local name=$1 pid=$2 mp=$3 elf=$4 sym=$5 dw=$6 step=$7 min=$8; shift 8
	$LIB addrs "$pid" "$mp" "$elf" "$sym" "$step" > "$T/$name.addrs" || { fail "$name: addresses"; return; }
	"$DRV" -l "$@" -p "$pid" - < "$T/$name.addrs" > "$T/$name.mine" || { fail "$name: driver"; return; }
	sed 's/^/0x/' "$T/$name.addrs" | eu-addr2line -a -f -i "$@" --pid="$pid" > "$T/$name.eu"
	$LIB compare "$T/$name.mine" "$T/$name.eu" "$sym" "$pid" "$mp" "$elf" "$dw" | tee "$T/$name.cmp" | tail -20
	read -r n eu bin bad badline < <(awk '/^addresses/ { print $2, $4, $6, $8, $10 }' "$T/$name.cmp")
	check "$name: $n addresses, no name disagrees with both eu-addr2line and addr2line (got $bad)" \
		test "${n:-0}" -gt 0 -a "${bad:-1}" -eq 0
	check "$name: no file:line disagrees with both (got $badline)" test "${badline:-1}" -eq 0
	check "$name: eu-addr2line agrees on >= $min permille ($eu of $n)" \
		test $((eu * 1000)) -ge $((n * min))
}

# expect_funcs NAME PID MAPPATH ELF SYMFILE [DRIVER-ENV]: every sized function's
# first byte is named after the function (physical frame, no inlines)
expect_funcs() {
	local name=$1 pid=$2 mp=$3 elf=$4 sym=$5
	$LIB funcs "$pid" "$mp" "$elf" "$sym" > "$T/$name.funcs"
	awk '{ print $1 }' "$T/$name.funcs" | "$DRV" -I -p "$pid" - > "$T/$name.out"
	paste -d' ' "$T/$name.funcs" <(grep -v '^0x' "$T/$name.out") > "$T/$name.pairs"
	local n bad
	n=$(wc -l < "$T/$name.pairs")
	bad=$(awk '$2 != $3' "$T/$name.pairs" | wc -l)
	awk '$2 != $3' "$T/$name.pairs" | head -5
	check "$name: all $n functions named by their first byte (wrong: $bad)" test "$n" -gt 3 -a "$bad" -eq 0
}

# name_at PID ADDR [driver options]: physical function name at a runtime address
name_at() { local pid=$1 a=$2; shift 2; "$DRV" -I "$@" -p "$pid" "$a" | sed -n 2p; }
# rt_of NAME PID MAPPATH ELF SYMFILE FUNC: runtime address of FUNC's first byte
rt_of() { $LIB funcs "$2" "$3" "$4" "$5" | awk -v f="$6" '$2 == f { print $1; exit }'; }

W=$WORKLOADS
LIBC=$(readlink -f /lib/x86_64-linux-gnu/libc.so.6)

# --- PIE, non-PIE, byte by byte ---
start_wl P1 "$W/sym_pie"
CLANG=0
readelf -p .comment "$W/sym_pie" 2>/dev/null | grep -q clang && CLANG=1
MIN=$((CLANG ? 0 : 1000))	# see the note below on clang
compare_eu pie "$P1" "$W/sym_pie" "$W/sym_pie" "$W/sym_pie" "$W/sym_pie" 1 $MIN
check "pie: inline chain sym_inner <- sym_middle <- sym_outer present" \
	grep -qzP 'sym_inner\n[^\n]*\nsym_middle\n[^\n]*\nsym_outer\n' "$T/pie.mine"
start_wl P2 "$W/sym_nopie"
compare_eu nopie "$P2" "$W/sym_nopie" "$W/sym_nopie" "$W/sym_nopie" "$W/sym_nopie" 1 $MIN

# --- lld: the text segment's vaddr is not its file offset ---
if [ -x "$W/sym_lld" ]; then
	start_wl P11 "$W/sym_lld"
	check "lld: text segment offset != vaddr (the case under test)" \
		test -n "$(readelf -lW "$W/sym_lld" | awk '$1 == "LOAD" && / R E / { a = $2; b = $3; sub(/^0x0*/, "", a); sub(/^0x0*/, "", b); if (a != b) print }')"
	compare_eu lld "$P11" "$W/sym_lld" "$W/sym_lld" "$W/sym_lld" "$W/sym_lld" 1 $MIN
else
	fail "sym_lld not built: apt-get install lld"
fi

# --- libc with libc6-dbg: build-id debug file ---
LIBC_MAP=$(awk -v l="$LIBC" '$6 == l { print $6; exit }' /proc/"$P1"/maps)
[ -n "$LIBC_MAP" ] || LIBC_MAP=$(awk '/libc.so.6/ { print $6; exit }' /proc/"$P1"/maps)
ID=$(readelf -n "$LIBC" | awk '/Build ID/ { print $3 }')
LIBC_DBG=/usr/lib/debug/.build-id/${ID:0:2}/${ID:2}.debug
if [ -r "$LIBC_DBG" ]; then
	compare_eu libc "$P1" "$LIBC_MAP" "$LIBC" "$LIBC_DBG" "$LIBC_DBG" 61 999
else
	fail "libc debug file $LIBC_DBG missing: apt-get install libc6-dbg"
fi

# --- PLT stubs: named "func@plt" as objdump names them; a stub of an
# IRELATIVE slot (libc's calls to its own IFUNCs: objdump's *ABS*+0x...@plt)
# by the IFUNC it calls (strnlen@plt) ---
for x in "pie $P1 $W/sym_pie $W/sym_pie" "libc $P1 $LIBC_MAP $LIBC"; do
	set -- $x
	$LIB plt "$2" "$3" "$4" > "$T/plt.$1" 2>"$T/plt.$1.irel"
	awk '{ print $1 }' "$T/plt.$1" | "$DRV" -I -p "$2" - | grep -v '^0x' > "$T/plt.$1.names"
	check "plt $1: $(wc -l < "$T/plt.$1") PLT entries named as objdump does ($(grep -c . "$T/plt.$1.irel") IRELATIVE)" \
		cmp <(awk '{ print $2 }' "$T/plt.$1") "$T/plt.$1.names"
done
check "plt libc: its IRELATIVE stubs named by their IFUNC ($(grep -vc 'ABS' "$T/plt.libc.irel") of $(grep -c . "$T/plt.libc.irel"))" \
	test "$(grep -vc 'ABS' "$T/plt.libc.irel")" -ge 1

# Workloads built by clang (the CC=clang build): elfutils 0.188 reads none of
# clang 14's DWARF 5 units without .debug_aranges, so eu-addr2line is no
# oracle there (binutils' addr2line still is, and agreed above), and clang
# inlines sym_static, which the checks below name. They need gcc's build.
if readelf -p .comment "$W/sym_pie" 2>/dev/null | grep -q clang; then
	echo "note: workloads built with clang: stripped/debuglink/build-id/C++/namespace checks need the gcc build"
	done_testing
fi

# --- stripped: .dynsym only (sym_pie is linked -rdynamic) ---
start_wl P3 "$W/sym_stripped"
S=$(rt_of x "$P3" "$W/sym_stripped" "$W/sym_stripped" "$W/sym_pie" sym_static)
O=$(rt_of x "$P3" "$W/sym_stripped" "$W/sym_stripped" "$W/sym_pie" sym_outer)
check "stripped: sym_outer from .dynsym" test "$(name_at "$P3" "$O")" = sym_outer
check "stripped: static function is honestly unknown" test "$(name_at "$P3" "$S")" = "??"
check "stripped: unknown frame keeps its dso" \
	grep -q $'^??\tsym_stripped+0x0' <("$DRV" -I -v -p "$P3" "$S")

# --- separate debug info: .gnu_debuglink, build-id directory, MiniDebugInfo ---
start_wl P4 "$W/sym_debuglink"
compare_eu debuglink "$P4" "$W/sym_debuglink" "$W/sym_debuglink" "$W/sym_pie" "$W/.debug/sym_debuglink.debug" 1 1000
# the other two debuglink places, and a debug file of another build refused
S_OFF=$(awk '$3 == "sym_static" { print $1 }' <(nm "$W/sym_pie"))
dl_case() {	# dl_case NAME BINDIR DEBUGFILE-PATH EXPECTED [env...]
	local name=$1 dir=$2 dbg=$3 want=$4 pid b a; shift 4
	mkdir -p "$dir" "$(dirname "$dbg")"
	cp "$W/sym_debuglink" "$dir/sym_debuglink"
	cp "$W/.debug/sym_debuglink.debug" "$dbg"
	start_wl pid "$dir/sym_debuglink"
	b=$(awk -v p="$dir/sym_debuglink" '$6 == p && $3 == "00000000" { split($1, a, "-"); print a[1]; exit }' /proc/"$pid"/maps)
	a=$(printf '%x' $((0x$b + 0x$S_OFF)))
	check "debuglink $name: static function is '$want'" test "$(env "$@" "$DRV" -I -p "$pid" "$a" | sed -n 2p)" = "$want"
}
dl_case "same directory" "$T/dl1" "$T/dl1/sym_debuglink.debug" sym_static
dl_case "/usr/lib/debug/DIR" "$T/dl2" "$T/dbgroot$T/dl2/sym_debuglink.debug" sym_static PPROBE_DEBUG_DIR="$T/dbgroot"
mkdir -p "$T/dl3/.debug"
objcopy --only-keep-debug "$W/sym_nopie" "$T/dl3/.debug/other.debug"
dl_case "none found: honestly unknown" "$T/dl3" "$T/dl3/x/unused" "??"
cp "$T/dl3/.debug/other.debug" "$T/dl3/.debug/sym_debuglink.debug"
start_wl P "$T/dl3/sym_debuglink"
B=$(awk -v p="$T/dl3/sym_debuglink" '$6 == p && $3 == "00000000" { split($1, a, "-"); print a[1]; exit }' /proc/"$P"/maps)
check "debuglink: a debug file with another build-id is refused" \
	test "$("$DRV" -I -p "$P" "$(printf '%x' $((0x$B + 0x$S_OFF)))" | sed -n 2p)" = "??"

start_wl P5 "$W/sym_buildid"
S=$(rt_of x "$P5" "$W/sym_buildid" "$W/sym_buildid" "$W/sym_nopie" sym_static)
check "build-id dir: static function without the directory is unknown" test "$(name_at "$P5" "$S")" = "??"
export PPROBE_DEBUG_DIR=$W/sym-debug-root
check "build-id dir: static function from the debug file" test "$(name_at "$P5" "$S")" = sym_static
$LIB addrs "$P5" "$W/sym_buildid" "$W/sym_buildid" "$W/sym_nopie" 1 > "$T/bid.addrs"
"$DRV" -l -p "$P5" - < "$T/bid.addrs" > "$T/bid.mine"
sed 's/^/0x/' "$T/bid.addrs" | eu-addr2line -a -f -i -e "$W/sym_nopie" > "$T/bid.eu"	# non-PIE: runtime = vaddr
check "build-id dir: inline frames equal eu-addr2line's on the unstripped twin" \
	grep -q ' mismatch 0 line-mismatch 0$' <($LIB compare "$T/bid.mine" "$T/bid.eu" "$W/sym_nopie" | tee /dev/stderr)
unset PPROBE_DEBUG_DIR
# debuginfod: a local server indexing the unstripped twin; only used when
# DEBUGINFOD_URLS is set
if command -v debuginfod >/dev/null; then
	mkdir -p "$T/dsrv"
	cp "$W/sym_nopie" "$T/dsrv/"
	PORT=$((20000 + RANDOM % 20000))
	debuginfod -p "$PORT" -F "$T/dsrv" -d "$T/dsrv.sqlite" -t 1 > "$T/dsrv.log" 2>&1 &
	DSRV=$!
	PIDS+=("$DSRV")
	check "debuginfod: not asked without DEBUGINFOD_URLS" \
		test "$(DEBUGINFOD_URLS= name_at "$P5" "$S")" = "??"
	got=
	for i in $(seq 40); do	# until the server has indexed (fresh cache: no negative entries)
		got=$(DEBUGINFOD_URLS=http://127.0.0.1:$PORT DEBUGINFOD_CACHE_PATH=$T/dcache.$i name_at "$P5" "$S")
		[ "$got" = sym_static ] && break
		sleep 0.5
	done
	check "debuginfod: static function from the server's debuginfo (got $got)" test "$got" = sym_static
	kill -KILL "$DSRV" 2>/dev/null	# it is slow to honour SIGTERM
else
	fail "debuginfod server missing: apt-get install debuginfod"
fi
start_wl P6 "$W/sym_minidebug"
expect_funcs minidebug "$P6" "$W/sym_minidebug" "$W/sym_minidebug" "$W/sym_pie"

# --- C++ ---
start_wl P7 "$W/sym_cxx"
SPIN=$(rt_of x "$P7" "$W/sym_cxx" "$W/sym_cxx" "$W/sym_cxx" _ZN9pprobe_wl4spinEld)
ADD=$(rt_of x "$P7" "$W/sym_cxx" "$W/sym_cxx" "$W/sym_cxx" _ZN9pprobe_wl3AccIlE3addEli)
check "c++: demangled spin" test "$(name_at "$P7" "$SPIN")" = "pprobe_wl::spin(long, double)"
check "c++: demangled template method" test "$(name_at "$P7" "$ADD")" = "pprobe_wl::Acc<long>::add(long, int)"
check "c++: -N keeps the mangled name" test "$(name_at "$P7" "$SPIN" -N)" = _ZN9pprobe_wl4spinEld
compare_eu cxx "$P7" "$W/sym_cxx" "$W/sym_cxx" "$W/sym_cxx" "$W/sym_cxx" 1 1000 -C

# --- a deleted binary: through /proc/PID/map_files ---
cp "$W/sym_pie" "$T/deleted_pie"
start_wl P8 "$T/deleted_pie"
$LIB funcs "$P8" "$T/deleted_pie" "$T/deleted_pie" "$W/sym_pie" > "$T/del.funcs"
rm -f "$T/deleted_pie"
check "deleted: map says (deleted)" grep -q 'deleted_pie (deleted)' /proc/"$P8"/maps
awk '{ print $1 }' "$T/del.funcs" | "$DRV" -I -p "$P8" - | grep -v '^0x' > "$T/del.names"
check "deleted: every function named ($(wc -l < "$T/del.funcs"))" \
	cmp <(awk '{ print $2 }' "$T/del.funcs") "$T/del.names"
# after the process is gone, map_files is gone too: only a prepared object helps
awk '{ print $1 }' "$T/del.funcs" | "$DRV" -X -I -p "$P8" - | grep -v '^0x' > "$T/del.names2"
check "deleted: prepared while alive, named after exit" \
	cmp <(awk '{ print $2 }' "$T/del.funcs") "$T/del.names2"
cp "$W/sym_pie" "$T/deleted_pie2"
start_wl P8 "$T/deleted_pie2"
$LIB funcs "$P8" "$T/deleted_pie2" "$T/deleted_pie2" "$W/sym_pie" > "$T/del.funcs"
rm -f "$T/deleted_pie2"
check "deleted: not prepared, after exit: honestly unknown" \
	test "$(awk '{ print $1 }' "$T/del.funcs" | "$DRV" -Y -I -p "$P8" - | grep -vc '^0x\|^??$')" -eq 0

# --- another mount namespace: the binary exists only there ---
if command -v unshare >/dev/null && unshare -m true 2>/dev/null; then
	mkdir -p "$T/ns"
	start_wl P9 unshare -m --propagation private sh -c \
		"mount -t tmpfs none '$T/ns' && cp '$W/sym_pie' '$T/ns/' && exec '$T/ns/sym_pie'"
	check "mntns: binary not visible here" test ! -e "$T/ns/sym_pie"
	F=$(awk '$3 == "sym_static" { print $1 }' <(nm "$W/sym_pie"))
	B=$(awk -v p="$T/ns/sym_pie" '$6 == p && $3 == "00000000" { split($1, a, "-"); print a[1]; exit }' /proc/"$P9"/maps)
	A=$(printf '%x' $((0x$B + 0x$F)))
	check "mntns: static function named through /proc/PID/root" test "$(name_at "$P9" "$A")" = sym_static
	check "mntns: prepared while alive, named after exit" test "$(name_at "$P9" "$A" -X)" = sym_static
	# a debuglink file that exists only in that namespace: inline frames after exit
	INL=$(awk '/^0x/ { a = $1; getline; if ($1 == "sym_inner") { print a; exit } }' "$T/pie.mine")
	B1=$(awk -v p="$W/sym_pie" '$6 == p && $3 == "00000000" { split($1, a, "-"); print a[1]; exit }' /proc/"$P1"/maps)
	OFF=$((INL - 0x$B1))
	mkdir -p "$T/ns2"
	start_wl P10 unshare -m --propagation private sh -c \
		"mount -t tmpfs none '$T/ns2' && mkdir '$T/ns2/.debug' && cp '$W/sym_debuglink' '$T/ns2/' &&
		 cp '$W/.debug/sym_debuglink.debug' '$T/ns2/.debug/' && exec '$T/ns2/sym_debuglink'"
	B=$(awk -v p="$T/ns2/sym_debuglink" '$6 == p && $3 == "00000000" { split($1, a, "-"); print a[1]; exit }' /proc/"$P10"/maps)
	A=$(printf '%x' $((0x$B + OFF)))
	check "mntns: debuglink file inside the namespace gives inline frames after exit" \
		test "$("$DRV" -X -p "$P10" "$A" | sed -n 2,4p | tr '\n' ' ')" = "sym_inner sym_middle sym_outer "
else
	echo "note: unshare -m unavailable; mount-namespace check not run"
fi

done_testing
