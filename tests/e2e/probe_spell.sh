#!/usr/bin/env bash
# pprobe probe with perf probe's spellings: -f/--force (a taken EVENT name gets
# _1, _2 as perf's), -q/--quiet (no 'Added'/'Removed' lines, errors still
# said), --funcs=FILTER / -FFILTER (perf's -F with its filter). Real uprobes on
# a real binary; nothing is left in uprobe_events.
. "$(dirname "$0")/lib.sh"
need_root
need_uprobe_events
WL=$WORKLOADS/wl_record
G=probe_wl_record
ours() { grep -E "^[pr][0-9]*:$G/spell" $TR/uprobe_events; }
cleanup() { ours | sed -E 's/^[pr][0-9]*:([^ ]+) .*/-:\1/' | while read -r l; do echo "$l" >> $TR/uprobe_events; done; }
trap 'cleanup; rm -rf "$T" "$T.cache"' EXIT
cleanup

"$PPROBE" probe -x "$WL" --add 'spell=hot_one' 2> "$T/a1"
rc=$?
check "--add spell=hot_one: made (status)" [ $rc -eq 0 ]
check "--add spell=hot_one: made" grep -q "^  $G:spell " "$T/a1"
"$PPROBE" probe -x "$WL" --add 'spell=hot_one' 2> "$T/a2"
rc=$?
check "the same name again without -f: refused (exit 1), -f suggested (status)" [ $rc -eq 1 ]
check "the same name again without -f: refused (exit 1), -f suggested" grep -q "event $G:spell already exists .*-f adds another" "$T/a2"
check "refused: still one probe" [ "$(ours | wc -l)" -eq 1 ]
"$PPROBE" probe -f -x "$WL" --add 'spell=hot_one' 2> "$T/a3"
rc=$?
check "-f: made spell_1, as perf probe -f (status)" [ $rc -eq 0 ]
check "-f: made spell_1, as perf probe -f" grep -q "^  $G:spell_1 " "$T/a3"
"$PPROBE" probe --force -q -x "$WL" --add 'spell=hot_three' 2> "$T/a4"
rc=$?
check "--force -q: made spell_2 (status)" [ $rc -eq 0 ]
check "--force -q: made spell_2" grep -q "^p:$G/spell_2 " $TR/uprobe_events
check "-q: nothing said" [ ! -s "$T/a4" ]
check "three probes, spell, spell_1, spell_2" \
	[ "$(ours | sed -E 's|^p:[^/]*/([^ ]*) .*|\1|' | sort | tr '\n' ' ')" = "spell spell_1 spell_2 " ]

# each counts its own hits: spell and spell_1 on hot_one, spell_2 on hot_three
"$PPROBE" stat -x, -e "$G:spell,$G:spell_1,$G:spell_2" -- "$WL" fixed 5 > /dev/null 2> "$T/st"
check "the forced duplicates count like the first (5 hot_one calls each)" \
	[ "$(awk -F, '$3 ~ /spell(_1)?$/ { print $1 }' "$T/st" | tr '\n' ' ')" = "5 5 " ]
check "spell_2 counts hot_three (5 calls)" [ "$(awk -F, '$3 ~ /spell_2$/ { print $1 }' "$T/st")" = 5 ]

"$PPROBE" probe -q -d "$G:spell*" 2> "$T/d"
rc=$?
check "-q -d: removed, silently (status)" [ $rc -eq 0 ]
check "-q -d: removed, silently" [ ! -s "$T/d" ]
check "nothing left in uprobe_events" [ "$(ours | wc -l)" -eq 0 ]
"$PPROBE" probe -q -d "$G:spell_nothere" 2> "$T/d2"
rc=$?
check "-q does not hide an error (status)" [ $rc -ne 0 ]
check "-q does not hide an error" [ -s "$T/d2" ]

"$PPROBE" probe -x "$WL" --funcs='hot_*' > "$T/f1"
check "--funcs=FILTER: the functions the glob matches" [ "$(tr '\n' ' ' < "$T/f1")" = "hot_one hot_three " ]
"$PPROBE" probe -x "$WL" -F'hot_*' > "$T/f2"
check "-FFILTER: the same" cmp -s "$T/f1" "$T/f2"
"$PPROBE" probe -x "$WL" -F --filter 'hot_*' > "$T/f3"
check "-F --filter FILTER: the same" cmp -s "$T/f1" "$T/f3"
if command -v perf > /dev/null && perf probe -x "$WL" --funcs='hot_*' > "$T/perf" 2>/dev/null; then
	check "perf probe --funcs=FILTER lists the same" cmp -s "$T/f1" "$T/perf"
fi
done_testing
