#!/usr/bin/env bash
# record --srcline: user frames read func:file:LINE, the sampled line at the
# leaf and the call site in every caller, for the workload (lines found in
# its source here) and for libc (libc6-dbg). Without --srcline, plain names.
. "$(dirname "$0")/lib.sh"
need_root
W=$WORKLOADS
SRC=$SRCDIR/tests/workloads/unwind_wl.c
D=20

line_of() { grep -nF -- "$1" "$SRC" | head -1 | cut -d: -f1; }
l_rec=$(line_of 'int r = recurse(n - 1, frame);')
l_leaf=$(line_of '		leaf();')
l_qsort=$(line_of 'qsort(v, 64, sizeof(v[0]), cmp_spin);')
l_run=$(line_of 'return recurse(depth, NULL) == -1000;')
l_main=$(line_of 'int rc = run(argv[1]);')
l_cmp0=$(line_of 'NOINL int cmp_spin(const void *a, const void *b)')
l_cmp1=$(line_of 'return (x > y) - (x < y);')
echo "source lines: recurse calls at $l_rec and $l_leaf, qsort at $l_qsort, run at $l_run, main at $l_main, cmp_spin $l_cmp0-$l_cmp1"

"$PPROBE" record -g --srcline -o "$T/s.folded" -- "$W/unwind_wl" sort $D 1 2>"$T/err"
check "record --srcline ran" [ -s "$T/s.folded" ]
# Complete stacks at the leaf: every frame of the workload has its line, and
# the lines are the call sites (completeness is record_depth's business).
awk -v d=$D -v rec="recurse:unwind_wl.c:$l_rec" -v leaf="recurse:unwind_wl.c:$l_leaf" \
    -v q="leaf_sort:unwind_wl.c:$l_qsort" -v run="run:unwind_wl.c:$l_run" \
    -v main="main:unwind_wl.c:$l_main" -v c0=$l_cmp0 -v c1=$l_cmp1 '
	/^unwind_wl;_start;.*;cmp_spin/ {
		n = split($1, f, ";"); r = 0; l = 0; ok = 1
		while (n > 1 && f[n] ~ /_\[k\]$/) n--	# an interrupt in the leaf
		for (i = 2; i <= n; i++) { r += f[i] == rec; l += f[i] == leaf }
		ok = r == d - 1 && l == 1 && index($1, ";" q ";") && index($1, ";" run ";") && index($1, ";" main ";")
		if (f[n] !~ /^cmp_spin:unwind_wl\.c:[0-9]+$/) ok = 0
		split(f[n], c, ":"); if (c[3] < c0 || c[3] > c1) ok = 0
		if (ok) good += $NF; else { bad += $NF; print "  off: " substr($0, 1, 300) > "/dev/stderr" }
	}
	END { print good + 0, bad + 0 }' "$T/s.folded" >"$T/shape" 2>"$T/off"
head -3 "$T/off"
read -r good bad <"$T/shape"
check "leaf stacks carry the call-site lines ($good right, $bad off)" \
	awk -v g="$good" -v b="$bad" 'BEGIN { exit !(g > 100 && b <= g / 100) }'
check "libc frames have their lines from libc6-dbg (qsort in msort.c)" grep -q ';qsort_r:msort\.c:[0-9]*;' "$T/s.folded"
check "frames without line info keep their plain names (_start)" grep -q '^unwind_wl;_start;' "$T/s.folded"

"$PPROBE" record -g -o "$T/p.folded" -- "$W/unwind_wl" sort $D 1 2>/dev/null
check "without --srcline: no file:line in names" not grep -q 'unwind_wl\.c:' "$T/p.folded"

# libc6-dbg's compressed DWARF inflated once and kept (debug_image.c): a
# second run reads the kept image, a run without the cache inflates again;
# the same frames, lines and inlined callers all three times.
img() { find "$T/cold/debug" -name '*.img' 2>/dev/null | sort; }
export PPROBE_CACHE_DIR=$T/cold	# empty: the runs above kept theirs elsewhere
for k in cold warm none; do
	[ $k = none ] && export PPROBE_CACHE_DIR=
	"$PPROBE" record -e syscalls:sys_enter_prctl -g --srcline -o "$T/c_$k.folded" -- "$W/wl_record" prctl 50 2>/dev/null
	img >"$T/img_$k"
done
check "cache: libc's image kept at the first run ($(wc -l <"$T/img_cold"))" test -s "$T/img_cold"
check "cache: the second run made no new one" cmp -s "$T/img_cold" "$T/img_warm"
check "cache: the kept images are ours alone" test -z "$(find "$T/cold" -perm /077 | head -1)"
check "cache: libc's lines there (prctl in a .c or .S)" grep -q ';prctl:[a-z_]*\.[cS]:[0-9]*' "$T/c_cold.folded"
check "cache: 50 stacks" [ "$(folded_sum "$T/c_cold.folded")" -eq 50 ]
check "cache: the same stacks cold, warm and without it" \
	sh -c "cmp -s '$T/c_cold.folded' '$T/c_warm.folded' && cmp -s '$T/c_cold.folded' '$T/c_none.folded'"
done_testing
