#!/usr/bin/env bash
# Install the Debian packages of the lists given (default: pprobe's own,
# scripts/packages-pprobe.txt, and the tests', scripts/packages.txt) that
# are missing.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
[ $# -gt 0 ] || set -- "$here/packages-pprobe.txt" "$here/packages.txt"
mapfile -t want < <(cat "$@" | grep -v '^\s*#' | awk 'NF{print $1}')
missing=()
for p in "${want[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" -ne 0 ]; then
	echo "install-deps: missing packages: ${missing[*]} (run as root, or: sudo apt-get install ${missing[*]})" >&2
	exit 1
fi
echo "install-deps: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
