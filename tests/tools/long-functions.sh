#!/usr/bin/env bash
# Functions longer than LIMIT lines (default 150), longest first:
#
#   LINES  FILE:LINE  FUNCTION
#
# A function is counted from the line that names it to its closing brace,
# both included. It relies on the tree's style (.clang-format): a function's
# opening and closing braces alone at column 0, its name on the last
# column-0 line before the '{'. CONTRIBUTING.md: a function over 150 lines
# says why in a comment, on one of the five lines above the line that names
# it, starting "Over 150 lines:".
#
# Usage: tests/tools/long-functions.sh [--check] [-n LIMIT] [PATH...]
#        (default PATH: src symbolize flamegraph tests/unit tests/tools)
# Exit 0; the list on stdout (empty when none). With --check (ctest
# unit/long_functions): only the functions over LIMIT without a reason and
# the files over 1,500 lines, and exit 1 when there is one.
set -euo pipefail
limit=150
check=0
if [[ ${1:-} == --check ]]; then
	check=1
	shift
fi
if [[ ${1:-} == -n ]]; then
	limit=$2
	shift 2
fi
cd "$(dirname "$0")/../.."
(($#)) || set -- src symbolize flamegraph tests/unit tests/tools
out=$(mktemp)
trap 'rm -f "$out"' EXIT

find "$@" -type f \( -name '*.c' -o -name '*.h' -o -name '*.cc' -o -name '*.cpp' -o -name '*.inc' \) |
	LC_ALL=C sort |
	while IFS= read -r f; do
		awk -v limit="$limit" -v file="$f" -v check="$check" '
		{ recent[FNR % 6] = $0 }
		/^[A-Za-z_]/ && !infn {
			head = $0; headline = FNR; why = 0
			for (k = 1; k <= 5; k++)
				if (recent[(FNR - k) % 6] ~ /Over 150 lines:/)
					why = 1
			next
		}
		/^\{/ && !infn && headline {
			name = head
			sub(/\(.*/, "", name)
			n = split(name, w, /[ \t*]+/)
			name = w[n]
			infn = 1
			next
		}
		/^\}/ && infn {
			len = FNR - headline + 1
			if (len > limit && !(check && why))
				printf "%5d  %s:%d  %s\n", len, file, headline, name
			infn = 0
			headline = 0
		}' "$f"
	done | sort -rn >"$out"
if ((check)); then
	find "$@" -type f \( -name '*.c' -o -name '*.h' -o -name '*.cc' -o -name '*.cpp' \) -exec wc -l {} + |
		awk '$2 != "total" && $1 > 1500 { printf "%5d  %s  (file over 1,500 lines)\n", $1, $2 }' >>"$out"
fi
cat "$out"
if ((check)) && [[ -s $out ]]; then
	echo "long-functions: over 150 lines without an 'Over 150 lines:' comment above, or a file over 1,500 lines; split it, or say why (CONTRIBUTING.md)" >&2
	exit 1
fi
exit 0
