#!/usr/bin/env bash
# The engine prints nothing (CONTRIBUTING.md, Errors): src/engine returns
# errors in a caller's buffer and hands notes, the status line and the loss
# prose to its caller (collect.h); only src/cmds writes to stderr. This
# lists every line of src/engine that writes to stderr or stdout itself
# (fprintf/vfprintf/fputs/fputc/putc to stderr or stdout, perror, printf,
# puts, dprintf or write to fd 1 or 2) and exits 1 when there is one.
# Nor does the engine pick an exit status (CONTRIBUTING.md, Errors): it
# returns 0 or -errno and src/cmds maps that to a status; so a line of
# src/engine calling exit(), _exit(), _Exit() or quick_exit(), or naming an
# exit-status constant (COLLECT_EXIT_*, CMD_EXIT_*), fails too. The one
# exception is a forked child's own _exit (the command between fork and exec
# in workload.c, ftrace.c's guard, probe_tracefs.c's sweeper: processes of
# their own, whose status is not pprobe's): allowed where the line says
# so in a comment ending "not pprobe's */".
#
# Usage: tests/tools/engine-silent.sh [DIR]   (default: src/engine)
# ctest: unit/engine_silent.
set -euo pipefail
cd "$(dirname "$0")/../.."
dir=${1:-src/engine}
re='\b(v?fprintf|fputs|fputc|putc|fwrite|vfprintf)[[:space:]]*\(.*\b(stderr|stdout)\b'
re+='|\b(perror|printf|vprintf|puts|putchar)[[:space:]]*\('
re+='|\bv?dprintf[[:space:]]*\([[:space:]]*(1|2|STDOUT_FILENO|STDERR_FILENO)[[:space:]]*,'
re+='|\bwrite[[:space:]]*\([[:space:]]*(1|2|STDOUT_FILENO|STDERR_FILENO)[[:space:]]*,'
hits=$(grep -rnE --include='*.c' --include='*.h' "$re" "$dir" || true)
if [[ -n $hits ]]; then
	echo "engine-silent: $dir prints; return the words to the caller instead (seterr, on_note):"
	echo "$hits"
	exit 1
fi

# Calls in comment lines (" * ... exit() ...") are words, not calls.
exits=$(grep -rnE --include='*.c' --include='*.h' '\b(_?exit|_Exit|quick_exit)\(' "$dir" |
	grep -vE '^[^:]+:[0-9]+:[[:space:]]*(/?\*|//)' |
	grep -vE "^[^:]+:[0-9]+:.*\b_exit\(.*/\*.*not pprobe's \*/" || true)
consts=$(grep -rnE --include='*.c' --include='*.h' '\b(COLLECT|CMD)_EXIT_' "$dir" || true)
if [[ -n $exits || -n $consts ]]; then
	echo "engine-silent: $dir picks an exit status; return 0 or -errno and let src/cmds pick it" \
		"(collect_say__status):"
	[[ -z $exits ]] || echo "$exits"
	[[ -z $consts ]] || echo "$consts"
	exit 1
fi
echo "engine-silent: nothing in $dir prints or picks an exit status"
