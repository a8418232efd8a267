#!/usr/bin/env bash
# pprobe flamegraph / pprobe diff end to end: well-formed XML (xmllint) for
# hostile names, exact frames, CLI contract (stdin, files, errors, exit
# codes), and difffolded semantics on a known pair, plain and as SVG.
. "$(dirname "$0")/lib.sh"
command -v xmllint >/dev/null || skip "xmllint missing (apt-get install libxml2-utils)"

# frame TITLE-PREFIX FILE: the <rect ...> line of the frame whose tooltip starts so
frame() { grep -F "<title>$1" "$2" | head -1; }
attr() { sed -n "s/.* $1=\"\\([^\"]*\\)\".*/\\1/p"; }

# --- hostile names are escaped; the document stays well-formed
printf '%s\n' \
	'app;std::vector<std::pair<int, char*>>::push_back(x&&) 7' \
	'app;operator<=>;a"b'"'"'c 5' \
	'app;cdata]]>end;<script>alert(1)</script> 3' \
	$'app;ctrl\x01char;bad\xff\xfeutf8 2' \
	'app;kernel_[k];inl_[i];jit_[j] 4' >"$T/hostile.folded"
"$PPROBE" flamegraph --title 'a <b> & "c"' --subtitle "x<y" --countname '<n>' \
	--nametype 'F"n]]>' --notes 'two--dashes-' --fonttype 'Verdana;}' "$T/hostile.folded" >"$T/hostile.svg"
check "exit 0 on hostile input" [ $? -eq 0 ]
check "hostile SVG is well-formed XML" xmllint --noout "$T/hostile.svg"
check "template name escaped in the tooltip" \
	grep -qF '<title>std::vector&lt;std::pair&lt;int, char*&gt;&gt;::push_back(x&amp;&amp;) (7 &lt;n&gt;, 33.33%)</title>' "$T/hostile.svg"
check "quotes escaped" grep -qF 'a&quot;b&apos;c (5' "$T/hostile.svg"
check "no raw <script> from input" bash -c "! grep -q '<script>alert' '$T/hostile.svg'"
check "]]> kept out of the script" [ "$(grep -c ']]>' "$T/hostile.svg")" -eq 1 ]
check "invalid bytes replaced by U+FFFD" grep -qF $'ctrl\xef\xbf\xbdchar' "$T/hostile.svg"
check "annotations stripped from labels" grep -qF '<title>kernel (4 ' "$T/hostile.svg"
check "title escaped" grep -qF '>a &lt;b&gt; &amp; &quot;c&quot;</text>' "$T/hostile.svg"
check "notes have no --" grep -qF '<!-- NOTES: two- -dashes-  -->' "$T/hostile.svg"
check "--notes with < is refused (exit 2)" bash -c "'$PPROBE' flamegraph --notes '<x>' '$T/hostile.folded' >/dev/null 2>&1; [ \$? -eq 2 ]"

# --- exact geometry: 1180 samples on the default 1200 px canvas = 1 px each
printf '%s\n' 'app;main;alpha;leaf 300' 'app;main;alpha 100' 'app;main;beta 380' \
	'app;main;gamma 400' 'not a folded line' >"$T/small.folded"
"$PPROBE" flamegraph "$T/small.folded" >"$T/small.svg" 2>"$T/err"
check "invalid line reported" grep -q 'ignored 1 lines' "$T/err"
check "small SVG well-formed" xmllint --noout "$T/small.svg"
check "7 frame groups (all app main alpha leaf beta gamma)" [ "$(grep -c '^<g>$' "$T/small.svg")" -eq 7 ]
check "alpha 400 px at x=10" [ "$(frame 'alpha (' "$T/small.svg" | attr width)" = 400.0 ]
check "beta after alpha (sorted)" [ "$(frame 'beta (' "$T/small.svg" | attr x)" = 410.0 ]
check "leaf after alpha's own 100" [ "$(frame 'leaf (' "$T/small.svg" | attr x)" = 110.0 ]
check "leaf one level above alpha" [ "$(frame 'leaf (' "$T/small.svg" | attr y)" = 37 ]
check "percentages" grep -qF '<title>gamma (400 samples, 33.90%)</title>' "$T/small.svg"
check "image height from depth" grep -q '<svg version="1.1" width="1200" height="150"' "$T/small.svg"

# --- stdin, several files, '-' all read the same stream
cat "$T/small.folded" | "$PPROBE" flamegraph >"$T/stdin.svg" 2>/dev/null
check "stdin gives the same SVG as a file" cmp -s "$T/stdin.svg" "$T/small.svg"
head -2 "$T/small.folded" >"$T/part1"; tail -n +3 "$T/small.folded" >"$T/part2"
"$PPROBE" flamegraph "$T/part1" - <"$T/part2" >"$T/parts.svg" 2>/dev/null
check "FILE and - concatenate" cmp -s "$T/parts.svg" "$T/small.svg"

# --- many distinct stacks: only frames at least --minwidth wide are built.
# awk is the oracle: every prefix's total, and which are wide enough
# (0.1 px of the 1180 px the frames get).
awk 'BEGIN { srand(15); for (i = 0; i < 30000; i++) { d = 3 + int(rand() * 25); s = "app"; h = 1
	for (j = 0; j < d; j++) { h = (h * 31 + int(rand() ^ 3 * 12) + j) % 400; s = s ";f" h }
	print s, 1 + int(rand() * 9) } }' >"$T/many.folded"
"$PPROBE" flamegraph "$T/many.folded" >"$T/many.svg" 2>"$T/err"
check "many stacks: exit 0" [ $? -eq 0 ]
check "many stacks: nothing said" [ ! -s "$T/err" ]
awk 'function commas(n,  s) { s = sprintf("%d", n); while (s ~ /[0-9][0-9][0-9][0-9]/) sub(/[0-9][0-9][0-9]($|,)/, ",&", s); return s }
	{ c = $NF; n = split($1, f, ";"); p = ""
	  for (i = 1; i <= n; i++) { p = p (i > 1 ? ";" : "") f[i]; tot[p] += c; if (i == 3) d3[p] = 1 } all += c }
	END { wide = 1; for (p in tot) if (tot[p] * 1180 >= 0.1 * all) wide++
		best = ""; for (p in d3) if (best == "" || tot[p] > tot[best]) best = p
		k = split(best, x, ";"); print wide, commas(all), length(tot) + 1, x[k], commas(tot[best]) }' \
	"$T/many.folded" >"$T/oracle"
read -r wide all every name total <"$T/oracle"
check "many stacks: the $wide frames awk finds wide enough are drawn" [ "$(grep -c '^<g>$' "$T/many.svg")" -eq "$wide" ]
check "many stacks: the root has all $all samples" grep -qF "<title>all ($all samples, 100%)" "$T/many.svg"
check "many stacks: the widest depth-3 frame ($name) has awk's $total" grep -qF "<title>$name ($total samples" "$T/many.svg"
cat "$T/many.folded" | "$PPROBE" flamegraph >"$T/many-pipe.svg"
check "many stacks: a pipe gives the same SVG" cmp -s "$T/many-pipe.svg" "$T/many.svg"
LC_ALL=C sort "$T/many.folded" | "$PPROBE" flamegraph >"$T/many-sorted.svg"
check "many stacks: sorted input gives the same SVG" cmp -s "$T/many-sorted.svg" "$T/many.svg"
"$PPROBE" flamegraph --minwidth 0 "$T/many.folded" >"$T/many-all.svg"
check "many stacks: --minwidth 0 draws all $every distinct prefixes and the root" \
	[ "$(grep -c '^<g>$' "$T/many-all.svg")" -eq "$every" ]

# --- CLI contract
"$PPROBE" flamegraph --help >"$T/help"; check "--help exits 0" [ $? -eq 0 ]
check "--help lists --minwidth" grep -q -- '--minwidth' "$T/help"
"$PPROBE" flamegraph --bogus </dev/null >/dev/null 2>&1; check "unknown option exits 2" [ $? -eq 2 ]
"$PPROBE" flamegraph --colors=nope </dev/null >/dev/null 2>"$T/err"
check "unknown palette exits 2" [ $? -eq 2 ]
check "unknown palette is named" grep -q "unknown palette 'nope'" "$T/err"
"$PPROBE" flamegraph --minwidth=abc </dev/null >/dev/null 2>&1; check "bad --minwidth exits 2" [ $? -eq 2 ]
printf 'garbage\n' | "$PPROBE" flamegraph >"$T/empty.svg" 2>"$T/err"
check "no counts exits 1" [ $? -eq 1 ]
check "no counts says why" grep -q 'no stack counts found' "$T/err"
check "error SVG still well-formed" xmllint --noout "$T/empty.svg"
"$PPROBE" flamegraph /nonexistent/x.folded >/dev/null 2>"$T/err"
check "missing file exits 1 and is named" bash -c "[ $? -eq 1 ] && grep -q '/nonexistent/x.folded' '$T/err'"

# --- diff: difffolded.pl semantics on a known pair
printf '%s\n' 'app;main;a 10' 'app;main;b 20' 'app;main;c;0x7f001234 5' 'app;main;c;0x7f005678 5' >"$T/before"
printf '%s\n' 'app;main;a 30' 'app;main;b 10' 'app;main;d 20' 'app;main;c;0x7f00abcd 10' >"$T/after"
"$PPROBE" diff "$T/before" "$T/after" >"$T/d"
check "diff exits 0" [ $? -eq 0 ]
check "diff two-column output" diff -u - "$T/d" <<'EOF'
app;main;a 10 30
app;main;b 20 10
app;main;c;0x7f001234 5 0
app;main;c;0x7f005678 5 0
app;main;c;0x7f00abcd 0 10
app;main;d 0 20
EOF
"$PPROBE" diff -s "$T/before" "$T/after" >"$T/d"
check "diff -s strips hex" diff -u - "$T/d" <<'EOF'
app;main;a 10 30
app;main;b 20 10
app;main;c;0x... 10 10
app;main;d 0 20
EOF
"$PPROBE" diff -n -s "$T/before" "$T/after" >"$T/d"
check "diff -n scales BEFORE by 70/40 with int()" diff -u - "$T/d" <<'EOF'
app;main;a 17 30
app;main;b 35 10
app;main;c;0x... 17 10
app;main;d 0 20
EOF
"$PPROBE" diff "$T/before" >/dev/null 2>&1; check "diff with one file exits 2" [ $? -eq 2 ]
"$PPROBE" diff --title x "$T/before" "$T/after" >/dev/null 2>&1
check "flame graph options without --svg exit 2" [ $? -eq 2 ]

"$PPROBE" diff --svg "$T/before" "$T/after" >"$T/d.svg"
check "diff --svg well-formed" xmllint --noout "$T/d.svg"
check "grown frame red, with +delta" bash -c "grep -F '<title>a (30 samples, 42.86%; +28.57%)' '$T/d.svg' | grep -q 'fill=\"rgb(255,0,0)\"'"
check "shrunk frame blue, with -delta" bash -c "grep -F '<title>b (10 samples, 14.29%; -14.29%)' '$T/d.svg' | grep -q 'fill=\"rgb(105,105,255)\"'"
check "unchanged frame white" bash -c "grep -F '<title>main (70 samples' '$T/d.svg' | grep -q 'fill=\"rgb(255,255,255)\"'"
"$PPROBE" diff --svg --negate "$T/before" "$T/after" >"$T/dn.svg"
check "--negate swaps hues and signs" bash -c "grep -F '<title>a (30 samples, 42.86%; -28.57%)' '$T/dn.svg' | grep -q 'fill=\"rgb(0,0,255)\"'"
"$PPROBE" diff "$T/before" "$T/after" | "$PPROBE" flamegraph >"$T/d2.svg" 2>/dev/null
check "diff | flamegraph equals diff --svg" cmp -s "$T/d.svg" "$T/d2.svg"
# Two profiles without a valid line (issue 15: qsort of a NULL table, which
# UBSan stops): nothing to compare, said as for one empty profile.
: >"$T/empty1"; : >"$T/empty2"; printf 'junk\nno count\n' >"$T/junk"
out=$("$PPROBE" diff "$T/empty1" "$T/empty2" 2>&1); rc=$?
check "diff of two empty files exits 0, prints nothing" test $rc -eq 0 -a -z "$out"
"$PPROBE" diff "$T/junk" "$T/empty2" >"$T/dj" 2>"$T/dj.err"; rc=$?
check "diff of invalid lines exits 0, prints no stack" test $rc -eq 0 -a ! -s "$T/dj"
check "diff of invalid lines says they were ignored" grep -q 'ignored 2 lines' "$T/dj.err"
"$PPROBE" diff --svg "$T/empty1" "$T/empty2" >"$T/de.svg" 2>"$T/de.err"; rc=$?
check "diff --svg of two empty files: exit 1 (no stack counts), as flamegraph of nothing" test $rc -eq 1
check "diff --svg of two empty files says so" grep -q 'no stack counts found' "$T/de.err"
check "diff --svg of two empty files: well-formed SVG" xmllint --noout "$T/de.svg"

done_testing
