#!/bin/sh
# Instructions per work request of the bandwidth loop's own, by difference
# (make bench-loop): callgrind counts one run of verbs/bw.c in each method
# and one of bench_loop's perftest-style reference (post list 32, one
# thread, 64 B writes on the fake HCA); a loop's own work is its inclusive
# count less the fake's (fk_post_send, fk_poll), per request. Exit 1 when
# fabcheck's own is above 8 instructions per request in either method
# (issue 40).
set -eu
BIN=${1:-build/bench_loop}
MAX=8
command -v valgrind >/dev/null && command -v callgrind_annotate >/dev/null || {
	echo "bench-loop: instruction count skipped: valgrind (callgrind) is not installed"
	exit 0
}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
own() { # $1: fabcheck|reference, $2: the loop's function, $3: the method
	n=$1-$3
	valgrind --tool=callgrind --callgrind-out-file="$dir/$n.cg" "$BIN" --one "$1" 32 0 "$3" >"$dir/$n.out" 2>"$dir/$n.err" || {
		echo "bench-loop: the $1 run ($3's method) under callgrind failed:" >&2
		cat "$dir/$n.err" >&2
		exit 1
	}
	wrs=$(sed -n 's/^.*: \([0-9]*\) work requests$/\1/p' "$dir/$n.out")
	# A function's inclusive count is its largest entry in the listing
	# above the annotated sources: callgrind_annotate can list a function
	# under more than one file name, each entry inclusive of the calls made
	# from its own lines only (seen on bw_pass after verbs/bw.c's split:
	# 12,558,803 under /work/.../verbs/bw.c, 1,904,146 under verbs/bw.c as a
	# ccache build with CCACHE_BASEDIR names it, and 10,584,127 under
	# infiniband/verbs.h, whose ibv_post_send is inlined into it; the
	# 12,558,803 is what bw_both's call of it costs).
	callgrind_annotate --inclusive=yes --show-percs=no "$dir/$n.cg" 2>/dev/null | tr -d , | awk -v f="$2" -v wrs="$wrs" '
		function most(v, m) { return v + 0 > m + 0 ? v + 0 : m }
		/^-- (Auto|User)-annotated source/ { done = 1 }
		done || $1 !~ /^[0-9]+$/ { next }
		$2 ~ (":" f "$") { loop = most($1, loop) }
		$2 ~ /fake_hca[.]c:fk_post_send$/ { post = most($1, post) }
		$2 ~ /fake_hca[.]c:fk_poll$/ { poll = most($1, poll) }
		END { if (!loop || !post || !wrs) exit 1; printf "%.2f %d %d %d %d\n", (loop - post - poll) / wrs, loop, post, poll, wrs }'
}
r=$(own reference ref_run perftest) || { echo "bench-loop: cannot read callgrind's counts of the reference" >&2; exit 1; }
set -- $r
echo "bench-loop: reference (perftest's run_iter_bw): $1 (loop $2 - fake $3 + $4 over $5 WRs)"
rc=0
for m in perftest fabcheck; do
	f=$(own fabcheck bw_pass $m) || { echo "bench-loop: cannot read callgrind's counts of fabcheck's loop ($m's method)" >&2; exit 1; }
	set -- $f
	echo "bench-loop: instructions per WR of the loop's own (callgrind, by difference; $m's method, post list 32, one thread): fabcheck $1 (loop $2 - fake $3 + $4 over $5 WRs)"
	awk -v f="$1" -v m=$MAX -v meth="$m" 'BEGIN { if (f > m) { printf "bench-loop: FAIL: fabcheck'"'"'s loop does %.2f instructions per WR of its own in %s'"'"'s method, over %d\n", f, meth, m; exit 1 } }' || rc=1
done
exit $rc
