#!/usr/bin/env bash
# Installed as a tool (issue 28): cmake --install puts pprobe, a man page
# per command and bash completion in place, DESTDIR and --prefix
# respected; each page renders without a groff warning and lists exactly
# the options of the command's table (--list-opts, what --help prints);
# 'pprobe help CMD' shows that page, or the --help text where man cannot be
# run; completion completes commands, options and event names.
. "$(dirname "$0")/lib.sh"
BUILD=$(dirname "$PPROBE")
[ -f "$BUILD/cmake_install.cmake" ] || skip "$BUILD is not a cmake build tree"
command -v cmake >/dev/null || skip "no cmake"

DESTDIR="$T/root" cmake --install "$BUILD" --prefix /usr >"$T/install.log" 2>&1
check "cmake --install with DESTDIR and --prefix /usr: exit 0" test $? -eq 0
R=$T/root/usr
cmds=$("$PPROBE" --help | awk '/^commands:/ { on = 1; next } on && /^  [a-z]/ { print $1 } on && /^$/ { on = 0 }')
check "the binary in bin/, and it runs" test "$("$R/bin/pprobe" --version)" = "$("$PPROBE" --version)"
check "pprobe.1 in share/man/man1" test -s "$R/share/man/man1/pprobe.1"
missing=
for c in $cmds; do [ -s "$R/share/man/man1/pprobe-$c.1" ] || missing="$missing $c"; done
check "a man page for each of the $(echo $cmds | wc -w) commands${missing:+ (missing:$missing)}" test -z "$missing"
check "bash completion in share/bash-completion/completions" test -s "$R/share/bash-completion/completions/pprobe"
check "the guide and README in share/doc/pprobe" test -s "$R/share/doc/pprobe/guide.md" -a -s "$R/share/doc/pprobe/README.md"
check "nothing outside the prefix" test "$(ls -A "$T/root")" = usr
DESTDIR="$T/root2" cmake --install "$BUILD" --prefix /opt/pp >/dev/null 2>&1
check "--prefix /opt/pp: bin/pprobe and share/man there" test -x "$T/root2/opt/pp/bin/pprobe" -a -s "$T/root2/opt/pp/share/man/man1/pprobe-record.1"

# Each page: groff's warnings (-ww) none; its OPTIONS are --list-opts.
if command -v groff >/dev/null; then
	for p in "$R"/share/man/man1/*.1; do
		groff -man -ww -z -Tutf8 "$p" 2>"$T/groff.err"
		check "$(basename "$p"): renders without a warning" test ! -s "$T/groff.err"
		shown_on_failure "$T/groff.err"
	done
else
	echo "SKIP part: no groff here"
fi
for c in $cmds; do
	# the line after each .TP: "\fB\-o\fR, \fB\-\-output\fR \fIFILE\fR" -> "-o --output FILE"
	awk '/^\.TP$/ { getline; print }' "$R/share/man/man1/pprobe-$c.1" |
		sed -e 's/\\f[BIRP]//g' -e 's/\\-/-/g' -e 's/, / /' >"$T/man.opts"
	"$PPROBE" "$c" --list-opts >"$T/list.opts"
	check "pprobe-$c(1): its options are the table's (--list-opts)" cmp -s "$T/man.opts" "$T/list.opts"
	shown_on_failure "$T/man.opts" "$T/list.opts"
done

# Each page carries its part of docs/guide.md (GUIDE), Markdown made roff:
# no mark left over (`code`, **bold**, [link](url)).
if command -v man >/dev/null; then
	for c in $cmds; do
		MANWIDTH=100 man -l "$R/share/man/man1/pprobe-$c.1" 2>/dev/null | sed -n '/^GUIDE$/,$p' >"$T/guide.$c"
	done
	check "pprobe-record(1): the guide's record part (Output formats, Pyroscope, containers)" \
		sh -c "grep -q 'Output formats' '$T/guide.record' && grep -q 'Continuous profiling into Pyroscope' '$T/guide.record'"
	check "pprobe-probe(1): the guide's probe parts (inspector, --add)" \
		sh -c "grep -q 'probe inspector' '$T/guide.probe' && grep -q 'resolves  *every  *instance' '$T/guide.probe'"
	missing=
	while IFS= read -r h; do
		grep -qF -- "$(printf '%s' "$h" | sed -e 's/`//g' | cut -c1-30)" "$T"/guide.* || missing="$missing '$h'"
	done < <(sed -n 's/^## //p' "$SRCDIR/docs/guide.md")
	check "every part of docs/guide.md is in a page${missing:+ (missing:$missing)}" test -z "$missing"
	check "no Markdown left in any GUIDE" not grep -lE '\*\*|\]\(|`' $(for c in $cmds; do echo "$T/guide.$c"; done)
fi

# pprobe help CMD: the page; without man, the --help text.
if command -v man >/dev/null; then
	"$PPROBE" help record >"$T/help.txt" 2>&1
	check "help record: exit 0, the page pprobe-record(1)" grep -q 'PPROBE-RECORD(1)' "$T/help.txt"
	check "help record: its OPTIONS and EXAMPLES" sh -c "grep -q -- '--call-graph' '$T/help.txt' && grep -q '^EXAMPLES' '$T/help.txt'"
	"$PPROBE" help >"$T/help.txt" 2>&1
	check "help: pprobe(1), every command named" test "$(grep -c 'pprobe-[a-z]*(1)' "$T/help.txt")" -ge "$(echo $cmds | wc -w)"
else
	echo "SKIP part: no man here"
fi
for c in $cmds; do
	PATH=/nonexistent "$PPROBE" help "$c" >"$T/h1" 2>&1
	"$PPROBE" "$c" --help >"$T/h2"
	check "help $c without man: the --help text" cmp -s "$T/h1" "$T/h2"
done
"$PPROBE" help nosuch >/dev/null 2>"$T/err"
rc=$?
check "help nosuch: exit 2, one line" test "$rc" -eq 2 -a "$(wc -l <"$T/err")" -eq 1

# Completion, as bash calls it: the installed script, COMP_WORDS/COMP_CWORD.
complete_words() {
	bash -c '. "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _pprobe; printf "%s\n" "${COMPREPLY[@]}"' \
		_ "$R/share/bash-completion/completions/pprobe" "$PPROBE" "$@"
}
check "completion: rec -> record" test "$(complete_words rec)" = record
check "completion: record --call -> --call-graph" test "$(complete_words record --call)" = --call-graph
check "completion: stat -e cpu-cl -> cpu-clock" test "$(complete_words stat -e cpu-cl)" = cpu-clock
check "completion: help tr -> trace" test "$(complete_words help tr)" = trace
check "completion: trace -e sched:sched_switc -> sched:sched_switch" \
	test "$(complete_words trace -e sched:sched_switc)" = sched:sched_switch
done_testing
