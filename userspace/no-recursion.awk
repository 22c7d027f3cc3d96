# SPDX-License-Identifier: GPL-2.0
#
# no-recursion.awk: fail when the collector's call graph has a cycle.
#
# The input is GCC's -fcallgraph-info output (one VCG file per object,
# made by the sanitizer build). Recursion on the input's shape (a stack
# depth, a tree of stacks) overflows the C stack on inputs the format
# allows, so none is allowed at all; calls through function pointers are
# not in these graphs and are kept shallow by design (one visitor call
# per line). Kahn's algorithm: drop every function that calls nothing
# left in the graph; what remains lies on, or calls into, a cycle.
/^edge:/ {
	match($0, /sourcename: "[^"]*"/)
	s = substr($0, RSTART + 13, RLENGTH - 14)
	match($0, /targetname: "[^"]*"/)
	t = substr($0, RSTART + 13, RLENGTH - 14)
	if ((s, t) in edge)
		next
	edge[s, t] = 1
	if (!(s in node))
		nodes++
	if (!(t in node))
		nodes++
	node[s] = node[t] = 1
	out[s]++
	callers[t] = callers[t] SUBSEP s
}
END {
	n = 0
	for (f in node)
		if (!out[f])
			queue[n++] = f
	for (i = 0; i < n; i++) {
		k = split(callers[queue[i]], c, SUBSEP)
		for (j = 2; j <= k; j++)
			if (--out[c[j]] == 0)
				queue[n++] = c[j]
	}
	bad = 0
	for (f in node)
		if (out[f] > 0) {
			sub(/^.*\/userspace\//, "", f)
			print "recursion: " f " is on or calls into a call cycle" > "/dev/stderr"
			bad = 1
		}
	if (bad)
		exit 1
	printf "  no recursion in %d functions\n", nodes
}
