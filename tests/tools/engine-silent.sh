#!/usr/bin/env bash
# The engine prints nothing (CONTRIBUTING.md, Errors): src/engine returns
# errors in a caller's buffer and hands notes, the status line and the loss
# prose to its caller (collect.h); only src/cmds writes to stderr. This
# lists every line of src/engine that writes to stderr or stdout itself
# (fprintf/vfprintf/fputs/fputc/putc to stderr or stdout, perror, printf,
# puts, dprintf or write to fd 1 or 2) and exits 1 when there is one.
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
echo "engine-silent: nothing in $dir prints"
