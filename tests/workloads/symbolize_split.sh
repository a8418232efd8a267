#!/bin/sh
# symbolize_split.sh MODE IN OUT DEBUGDIR: derive test binaries from IN.
#  strip       OUT keeps only .dynsym (strip --strip-all)
#  debuglink   OUT stripped + .gnu_debuglink to DEBUGDIR/.debug/OUT.debug (CRC checked by readers)
#  buildid     OUT stripped; its debug file at DEBUGDIR/.build-id/xx/yyyy.debug
#  minidebug   OUT stripped with a MiniDebugInfo .gnu_debugdata (xz .symtab), as Fedora does
set -eu
mode=$1 in=$2 out=$3 dbg=$4
tmp=$out.tmp.$$
case $mode in
strip)
	strip --strip-all -o "$out" "$in" ;;
debuglink)
	mkdir -p "$(dirname "$out")/.debug"
	d="$(dirname "$out")/.debug/$(basename "$out").debug"
	objcopy --only-keep-debug "$in" "$d"
	strip --strip-all -o "$tmp" "$in"
	objcopy --add-gnu-debuglink="$d" "$tmp" "$out"
	rm -f "$tmp" ;;
buildid)
	id=$(readelf -n "$in" | awk '/Build ID/ { print $3 }')
	mkdir -p "$dbg/.build-id/$(echo "$id" | cut -c1-2)"
	objcopy --only-keep-debug "$in" "$dbg/.build-id/$(echo "$id" | cut -c1-2)/$(echo "$id" | cut -c3-).debug"
	strip --strip-all -o "$out" "$in" ;;
minidebug)
	# the recipe of gdb's manual "MiniDebugInfo"
	nm -D "$in" --format=posix --defined-only | awk '{ print $1 }' | sort > "$tmp.dyn"
	nm "$in" --format=posix --defined-only | awk '$2 ~ /[TtWw]/ { print $1 }' | sort > "$tmp.funcs"
	comm -13 "$tmp.dyn" "$tmp.funcs" > "$tmp.keep"
	objcopy --only-keep-debug "$in" "$tmp.debug"
	objcopy -S --remove-section .gdb_index --remove-section .comment --keep-symbols="$tmp.keep" "$tmp.debug" "$tmp.mini"
	xz -f "$tmp.mini"
	strip --strip-all -o "$tmp" "$in"
	objcopy --add-section .gnu_debugdata="$tmp.mini.xz" "$tmp" "$out"
	rm -f "$tmp" "$tmp".* ;;
*) echo "unknown mode $mode" >&2; exit 2 ;;
esac
