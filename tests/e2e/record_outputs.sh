#!/usr/bin/env bash
# -o PATH where PATH is not a plain file. Outputs are written to a
# temporary beside PATH and renamed over it at the end, so that a killed
# run leaves the old file whole; a device, FIFO or socket must instead be
# written as it is: renamed over, `-o /dev/null` replaced root's /dev/null
# with a regular file. A symbolic link is followed (the file it names is
# written, the link stays), a directory is refused in one line. A kill -9
# leaves the old file whole and no temporary. The device
# here is a private node ($T/null, mknod c 1 3), not the machine's.
. "$(dirname "$0")/lib.sh"
need_root
W=$WORKLOADS/wl_record
mknod "$T/null" c 1 3 2>/dev/null || skip "mknod refused here (no CAP_MKNOD)"
for cmd in "record" "record -g" "stat" "trace -e sched:sched_process_exec"; do
	# shellcheck disable=SC2086
	"$PPROBE" $cmd -o "$T/null" -- "$W" hot 0.1 >/dev/null 2>"$T/err"
	rc=$?
	check "$cmd -o a device: exit 0 (got $rc)" test "$rc" -eq 0
	check "$cmd -o a device: still a character device" test -c "$T/null"
	check "$cmd -o a device: no temporary left beside it" not eval 'ls "$T"/null.tmp.* >/dev/null 2>&1'
done

mkfifo "$T/fifo"
timeout 30 cat "$T/fifo" > "$T/fifo.out" &
reader=$!
timeout 30 "$PPROBE" record -o "$T/fifo" -- "$W" hot 0.3 >/dev/null 2>"$T/err"
rc=$?
wait "$reader"
check "record -o a FIFO: exit 0 (got $rc)" test "$rc" -eq 0
check "record -o a FIFO: still a FIFO" test -p "$T/fifo"
check "record -o a FIFO: its reader got the folded stacks" grep -qE '^wl_record;.* [0-9]+$' "$T/fifo.out"

ln -s real.folded "$T/dangling"
"$PPROBE" record -o "$T/dangling" -- "$W" hot 0.1 >/dev/null 2>&1
check "record -o a link to no file: the link stays" test -L "$T/dangling"
check "record -o a link to no file: the file it names is written" grep -qE '^wl_record;' "$T/real.folded"
echo old > "$T/other.folded"
ln -s other.folded "$T/link"
"$PPROBE" record -o "$T/link" -- "$W" hot 0.1 >/dev/null 2>&1
check "record -o a link to a file: the link stays" test -L "$T/link"
check "record -o a link to a file: the file it names is replaced" grep -qE '^wl_record;' "$T/other.folded"

# kill -9 in the middle of a run: the old file stays whole, and nothing is
# left beside it. The temporary is an O_TMPFILE, nameless until the end
# (trace writes it from the start: a named one was left 10 times in 10).
for cmd in "record --format folded" "record -g --format folded" "stat" "trace -e sched:sched_switch" "trace --syscalls"; do
	echo old > "$T/k.out"
	# shellcheck disable=SC2086
	"$PPROBE" $cmd -o "$T/k.out" -- "$W" hot 5 >/dev/null 2>&1 &
	pid=$!
	sleep 1.5
	during=$(ls -A "$T" | grep -c '^k\.out\.tmp' || true)
	kill -9 "$pid"
	wait "$pid" 2>/dev/null
	pkill -9 -f "wl_record hot 5" 2>/dev/null
	check "$cmd -o, kill -9: no temporary beside the output, during the run ($during) or after" \
		test "$during" -eq 0 -a -z "$(ls -A "$T" | grep '^k\.out\.tmp')"
	check "$cmd -o, kill -9: the old file is whole" test "$(cat "$T/k.out")" = old
done
"$PPROBE" trace -e sched:sched_process_exec -o "$T/k.out" -- "$W" hot 0.1 >/dev/null 2>&1
check "trace -o: the file written at the end (exec of the command)" grep -q "sched_process_exec" "$T/k.out"
check "trace -o: no temporary left" test -z "$(ls -A "$T" | grep '^k\.out\.tmp')"
check "trace -o: the file has the mode a umask of $(umask) gives" \
	test "$(stat -c %a "$T/k.out")" = "$(printf '%o' $((0666 & ~0$(umask))))"

# A full file system: each command says the reason (trace and stat said
# "writing X failed" alone), exits 1 and leaves no file behind.
mkdir "$T/small"
if mount -t tmpfs -o size=64k tmpfs "$T/small" 2>/dev/null; then
	trap 'umount "$T/small" 2>/dev/null; rm -rf "$T" "$T.cache"' EXIT	# never left mounted
	dd if=/dev/zero of="$T/small/fill" bs=4k count=16 2>/dev/null
	for cmd in "record" "stat" "trace -e sched:sched_switch" "trace --syscalls"; do
		# shellcheck disable=SC2086
		"$PPROBE" $cmd -o "$T/small/out" -- "$W" hot 0.3 >/dev/null 2>"$T/err"
		rc=$?
		check "$cmd -o a full file system: exit 1 (got $rc)" test "$rc" -eq 1
		check "$cmd -o a full file system: the reason said" grep -q "No space left on device" "$T/err"
		check "$cmd -o a full file system: nothing left but the filler" test "$(ls -A "$T/small")" = fill
	done
	umount "$T/small"
else
	echo "SKIP part: no tmpfs mount here"
fi

mkdir "$T/dir"
"$PPROBE" record -o "$T/dir" -- "$W" hot 0.1 >/dev/null 2>"$T/err"
rc=$?
check "record -o a directory: exit 1 (got $rc)" test "$rc" -eq 1
check "record -o a directory: one line saying why" test "$(wc -l < "$T/err")" -eq 1 -a -n "$(grep 'Is a directory' "$T/err")"
check "record -o a directory: nothing left in it" test -z "$(ls -A "$T/dir")"

# No silent guesses (issue 28): an extension record does not write is
# refused in one line that lists the ones it does, before the command runs;
# .pprof is pprof; no extension is folded; --format names the format.
for name in out.json x.html prof.txt; do
	"$PPROBE" record -o "$T/$name" -- sh -c "touch '$T/ran'" >/dev/null 2>"$T/err"
	rc=$?
	check "record -o $name: usage error (got $rc)" test "$rc" -eq 2
	check "record -o $name: one line" test "$(wc -l <"$T/err")" -eq 1
	check "record -o $name: the extension and the ones written said" \
		grep -q "record does not write \.${name#*.} files; it writes \.folded, \.svg, \.pb\.gz (\.pb, \.pprof) and \.speedscope\.json" "$T/err"
	check "record -o $name: no file, the command not run" test ! -e "$T/$name" -a ! -e "$T/ran"
done
shown_on_failure "$T/err"
"$PPROBE" record -e syscalls:sys_enter_prctl -o "$T/p.pprof" -- "$WORKLOADS/wl_record" prctl 20 >/dev/null 2>&1
check "record -o x.pprof: gzipped pprof" test "$(head -c2 "$T/p.pprof" | od -An -tx1 | tr -d ' ')" = 1f8b
"$PPROBE" report -i "$T/p.pprof" >"$T/p.report" 2>&1
check "record -o x.pprof: report reads its 20 samples" grep -q "^# Total: 20 .*20 samples" "$T/p.report"
"$PPROBE" record -e syscalls:sys_enter_prctl --format folded -o "$T/f.json" -- "$WORKLOADS/wl_record" prctl 20 >/dev/null 2>&1
check "--format folded -o f.json: written, folded" [ "$(folded_sum "$T/f.json")" -eq 20 ]
mkdir -p "$T/v1.2"
"$PPROBE" record -e syscalls:sys_enter_prctl -o "$T/plain" -o "$T/v1.2/.hidden" -- "$WORKLOADS/wl_record" prctl 20 >/dev/null 2>"$T/err"
check "no extension (a dot only in a folder's name, a dot file): folded" \
	[ "$(folded_sum "$T/plain")" -eq 20 -a "$(folded_sum "$T/v1.2/.hidden")" -eq 20 ]
done_testing
