#!/usr/bin/env bash
# Functions longer than LIMIT lines (default 150), longest first:
#
#   LINES  FILE:LINE  FUNCTION
#
# A function is counted from the line that names it to its closing brace,
# both included. It relies on the tree's style (.clang-format): a function's
# opening and closing braces alone at column 0, its name on the last
# column-0 line before the '{'. CONTRIBUTING.md: a function over 150 lines
# says why in a comment.
#
# Usage: tests/tools/long-functions.sh [-n LIMIT] [PATH...]
#        (default PATH: src symbolize flamegraph tests/unit tests/tools)
# Exit 0; the list on stdout (empty when none).
set -euo pipefail
limit=150
if [[ ${1:-} == -n ]]; then
	limit=$2
	shift 2
fi
cd "$(dirname "$0")/../.."
(($#)) || set -- src symbolize flamegraph tests/unit tests/tools

find "$@" -type f \( -name '*.c' -o -name '*.h' -o -name '*.cc' -o -name '*.cpp' -o -name '*.inc' \) |
	LC_ALL=C sort |
	while IFS= read -r f; do
		awk -v limit="$limit" -v file="$f" '
		/^[A-Za-z_]/ && !infn { head = $0; headline = FNR; next }
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
			if (len > limit)
				printf "%5d  %s:%d  %s\n", len, file, headline, name
			infn = 0
			headline = 0
		}' "$f"
	done | sort -rn
