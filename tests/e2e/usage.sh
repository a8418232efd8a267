#!/usr/bin/env bash
# Usage errors and --help of every command, from the option tables: a bad
# option, a missing or bad value is one line on stderr pointing at
# 'pprobe CMD --help', exit status 2, and nothing made (no file, no tracefs
# probe, no command run); --help and -h print the help on stdout, status 0,
# and every option of the table (pprobe CMD --list-opts) is in it.
. "$(dirname "$0")/lib.sh"
need_root
B=$WORKLOADS/probe_wl_O2
TR=/sys/kernel/tracing
[ -e $TR/uprobe_events ] || TR=/sys/kernel/debug/tracing

# What a pprobe run could leave behind: files in the current directory,
# tracefs mounted or not, and probe events of its own: its temporary group
# pprobe_<pid>, and the --add group of $B (other engineers' and tests'
# groups may come and go meanwhile).
state() {	# state PID
	ls -A .
	grep -c ' tracefs ' /proc/mounts
	cat $TR/uprobe_events $TR/kprobe_events 2>/dev/null | grep -E "pprobe_$1/|probe_probe_wl_O2/" || true
	ls $TR/events 2>/dev/null | grep -E "^(pprobe_$1|probe_probe_wl_O2)$" || true
}

# bad DESC REGEX pprobe-args...: exit 2, nothing on stdout, exactly one line
# on stderr matching REGEX and ending in (see 'pprobe CMD --help'), nothing
# left behind
bad() {
	local desc=$1 re=$2; shift 2
	local d; d=$(mktemp -d "$T/run.XXXXXX")
	local before; before=$(cd "$d" && state none)
	(cd "$d" && exec "$PPROBE" "$@" </dev/null >"$T/out" 2>"$T/err") & local pid=$!
	wait $pid; local rc=$?
	local after; after=$(cd "$d" && state $pid)
	local lines; lines=$(wc -l <"$T/err")
	if [ $rc -ne 2 ]; then fail "$desc: exit $rc, not 2 ($(head -c 300 "$T/err"))"
	elif [ "$lines" -ne 1 ]; then fail "$desc: $lines lines on stderr, not 1: $(head -c 500 "$T/err")"
	elif [ -s "$T/out" ]; then fail "$desc: wrote to stdout: $(head -c 300 "$T/out")"
	elif ! grep -Eq -- "$re" "$T/err"; then fail "$desc: '$(cat "$T/err")' does not match /$re/"
	elif ! grep -Eq -- "\(see 'pprobe [a-z]+ --help'\)$" "$T/err"; then fail "$desc: no pointer to --help: $(cat "$T/err")"
	elif [ "$before" != "$after" ]; then fail "$desc: left something behind: $(diff <(echo "$before") <(echo "$after") | tr '\n' ' ')"
	else pass "$desc"; fi
	rm -rf "$d"
}

cmds=$("$PPROBE" --help | awk '/^commands:/ { on = 1; next } on && /^  [a-z]/ { print $1 } on && /^$/ { on = 0 }')
check "pprobe --help lists the 11 commands" [ "$(echo $cmds)" = "record stat trace flamegraph diff report top annotate probe list ftrace" ]

for c in $cmds; do
	"$PPROBE" $c --help >"$T/help" 2>"$T/herr"; rc=$?
	check "$c --help: exit 0, help on stdout, nothing on stderr" \
		[ $rc -eq 0 -a ! -s "$T/herr" -a "$(head -c 14 "$T/help")" = "usage: pprobe " ]
	"$PPROBE" $c -h >"$T/h" 2>&1
	check "$c -h = $c --help" cmp -s "$T/h" "$T/help"
	"$PPROBE" $c --list-opts >"$T/opts"
	check "$c: --list-opts lists -h/--help last" [ "$(tail -1 "$T/opts")" = "-h --help" ]
	# every spelling of every option of the table is a word of --help
	tr ' ,[]=' '\n' <"$T/help" | sort -u >"$T/words"
	missing=""
	while read -r -a f; do
		for w in "${f[@]}"; do
			[[ $w == -* ]] || continue
			grep -qxF -- "$w" "$T/words" || missing+=" $w"
		done
	done <"$T/opts"
	check "$c: every option of the table is in --help${missing:+ (missing:$missing)}" [ -z "$missing" ]

	bad "$c --no-such-option" "^pprobe $c: unknown option '--no-such-option' \(see 'pprobe $c --help'\)$" \
		$c --no-such-option
	bad "$c -%" "^pprobe $c: unknown option '-%'" $c -%
	# each option that takes a value, given none
	while read -r -a f; do
		arg=${f[-1]}
		[[ $arg == -* || $arg == \[* ]] && continue
		opt=${f[-2]}
		bad "$c $opt (no value)" "^pprobe $c: option '$opt' needs a value: " $c "$opt"
	done <"$T/opts"
done

# record's --pid/--tid alone name the root frame (the table's [PID...]:
# tests/e2e/record_targets.sh); -p and -t still need their value
bad "record -p (no value)" "^pprobe record: option '-p' needs a value: " record -p
bad "record -t (no value)" "^pprobe record: option '-t' needs a value: " record -t

# did you mean, ambiguity, a value where none goes
bad "record --outpt" "unknown option '--outpt'; did you mean '--output'\?" record --outpt x.folded -- true
bad "record --f (ambiguous)" "ambiguous option '--f': --filter, --freq, --format" record --f 9 -- true
bad "record --quiet=1" "option '--quiet' takes no value" record --quiet=1 -- true

# bad values
bad "record -F abc" "bad frequency 'abc'" record -F abc -- true
bad "record -c 0" "bad period '0'" record -c 0 -- true
bad "record -d x" "bad duration 'x'" record -d x -- true
bad "record -m 3" "power of two" record -m 3 -- true
bad "record --max-queue 12X" "--max-queue wants a size" record --max-queue 12X -- true
bad "record --call-graph x" "unknown --call-graph mode 'x'" record --call-graph x -- true
bad "record --call-graph dwarf,4" "dwarf stack size '4'" record --call-graph dwarf,4 -- true
bad "record --unwinder x" "unknown unwinder 'x'" record --unwinder x -- true
bad "record --weight x" "--weight is 'samples' or 'period'" record --weight x -- true
bad "record --format x" "--format is one of folded, svg, pprof, speedscope, not 'x'" record --format x -- true
bad "record --format with two -o" "--format applies to one -o" record --format pprof -o a.pb.gz -o b.folded -- true
bad "record -o - twice" "one -o may be '-'" record -o - -o - -- true
bad "record -F and -c" "-F and -c exclude each other" record -F 99 -c 5 -- true
bad "record -p and -t" "give either -p or -t" record -p 1 -t 1
bad "stat -I 5" "-I wants milliseconds >= 10" stat -I 5 -- true
bad "stat -r 0" "-r wants a positive count" stat -r 0 -- true
bad "stat -r 2 without a command" "-r repeats a command" stat -r 2 -a
bad "trace without -e" "no event given" trace -- true
bad "trace --filter before -e" "--filter option should follow a -e tracepoint option: it applies to the -e before it" trace --filter 'x == 1' -e sched:sched_switch -- true
bad "record --filter before -e" "--filter option should follow a -e tracepoint option: it applies to the -e before it" record --filter 'x == 1' -e sched:sched_switch -- true
bad "list -v without an event" "-v needs an event" list -v
bad "flamegraph --width x" "--width: 'x' is not a positive integer" flamegraph --width x
bad "flamegraph --minwidth x" "--minwidth: 'x' is not a number" flamegraph --minwidth x
bad "flamegraph --colors nope" "unknown palette 'nope'" flamegraph --colors nope
bad "flamegraph --cp" "--cp .* is not supported" flamegraph --cp
bad "diff one file" "needs two folded files" diff a.folded
bad "diff --title without --svg" "flame graph options need --svg" diff --title x a.folded b.folded
bad "diff --table -n" "--table compares each side's own shares" diff --table -n a.folded b.folded
bad "report --sort x" "--sort: unknown or repeated key 'x'" report --sort x a.folded
bad "report --callers and --callees" "give either --callers or --callees" report --callers a --callees b x
bad "report two files" "unexpected argument 'b.folded'" report a.folded b.folded
bad "report --pid x" "--pid wants numbers separated by commas" report --pid x a.folded
bad "probe: two modes" "give exactly one of -F" probe -x "$B" -F -V probe_target
bad "probe: unexpected argument" "unexpected argument 'extra'" probe -x "$B" -F -- extra
bad "probe: --asm without -L" "--asm goes with -L" probe -x "$B" -F --asm

# perf probe's top-level form speaks as 'pprobe'
bad "pprobe --no-such-option" "^pprobe: unknown option '--no-such-option' \(see 'pprobe probe --help'\)$" --no-such-option
bad "pprobe -x BIN -F -L x" "^pprobe: give exactly one of" -x "$B" -F -L x
"$PPROBE" no-such-command >/dev/null 2>"$T/err"
check "unknown command: exit 2, one line" [ $? -eq 2 -a "$(wc -l <"$T/err")" -eq 1 ]
"$PPROBE" recrod >/dev/null 2>"$T/err"
check "unknown command: the close one suggested" grep -q "did you mean 'record'?" "$T/err"

# Everything is parsed before anything is built: a bad option after -e,
# -o and --add leaves no output, no probe, and the command does not run.
bad "record: bad option after -e and -o" "unknown option '--bogus'" \
	record -e cpu-clock -o out.folded --bogus -- touch ran
bad "stat: bad option after -e and -o" "unknown option '--bogus'" \
	stat -e cs -o out.csv --bogus -- touch ran
bad "trace: bad option after a probe with arguments" "unknown option '--bogus'" \
	trace -e "uprobe:$B:probe_target n=%di" -o out.txt --bogus -- touch ran
bad "probe: bad option after --add" "unknown option '--bogus'" -x "$B" --add probe_target --bogus
bad "stat: -x is the separator, and a bad value after it" "-r wants a positive count" \
	stat -x "$B" -e "probe:probe_target" -r x -- true

# stat's -x is the CSV separator, whatever it names; the binary is --exec
"$PPROBE" stat -x "$B" -e cs -- true 2>"$T/sep" >/dev/null
check "stat -x BIN: a CSV separator (no guessing)" grep -qF "$B" "$T/sep"
"$PPROBE" stat -x "$B" -e "probe:probe_target" -- true 2>"$T/xerr" >/dev/null
check "stat -x BIN -e probe:FUNC: says --exec is the binary" grep -q "give a probe's binary as --exec BIN" "$T/xerr"

done_testing
