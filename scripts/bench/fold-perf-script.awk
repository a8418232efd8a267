# Fold `perf script` output (default fields, with callchains) into
# "comm;outermost;...;leaf COUNT" lines, as stackcollapse-perf.pl does:
# a sample header line, then one "addr sym+off (dso)" line per frame, leaf
# first, then a blank line. Used only to give perf's pipeline the same output
# as pprobe's in the benchmarks.
function flush() {
	if (comm != "") {
		s = comm
		for (i = n; i >= 1; i--) s = s ";" f[i]
		count[s]++
	}
	comm = ""; n = 0
}
/^[^ \t]/ { flush(); comm = $1; gsub(/ /, "_", comm); next }
/^[ \t]+[0-9a-f]+ / {
	sym = $2
	sub(/\+0x[0-9a-f]+$/, "", sym)
	if (sym == "[unknown]") { d = $NF; gsub(/[()]/, "", d); n2 = split(d, parts, "/"); sym = "[" parts[n2] "]" }
	if ($NF ~ /kernel\.kallsyms/) sym = sym "_[k]"
	f[++n] = sym
	next
}
/^$/ { flush() }
END { flush(); for (s in count) print s, count[s] }
