#!/usr/bin/env bash
# Benchmark (not a test): message rate of fabcheck pair against ib_write_bw
# on a 2-node virtual rack, with the same settings on both sides: 8 B RDMA
# writes, -q QPs, post lists of P work requests, alternating runs. Prints
# each run's Mpps, the medians and their ratio (target >= 1.0) per case.
#   BENCH_RUNS (default 3)  BENCH_RATE_ITERS (20000)
#   BENCH_RATE_CASES ("1:1 4:16": QPS:POST_LIST pairs)
#   BENCH_RACK: use this running rack, boot none
set -u
cd "$(dirname "$0")/.." || exit 2
FC=${FC:-$PWD/fabcheck}
RUNS=${BENCH_RUNS:-3}
ITERS=${BENCH_RATE_ITERS:-20000}
CASES=${BENCH_RATE_CASES:-1:1 4:16}

rack=${BENCH_RACK:-}
if [ -z "$rack" ]; then
	rack=bench-rate-$$
	trap '"$FC" lab down --name "$rack" >/dev/null 2>&1' EXIT
	trap 'exit 130' INT TERM
	echo "bench-rate: booting a 2-node rack '$rack' (about 40 s)"
	"$FC" lab up --name "$rack" --nodes 2 >/dev/null || { echo "bench-rate: the rack did not boot" >&2; exit 3; }
fi
cfg=$("$FC" lab ssh-config --name "$rack") || exit 3
net=$("$FC" lab status --name "$rack" --json | python3 -c \
	'import json, sys; print(json.load(sys.stdin)["fabric"]["subnet"].rsplit(".", 1)[0])') || exit 3
peer=$net.2
node() { local n=$1; shift; ssh -F "$cfg" "$n" -- "$@" 2>/dev/null </dev/null; }
median() { python3 -c 'import statistics, sys; v = [float(x) for x in sys.argv[1:] if x]; print(statistics.median(v) if v else "nan")' "$@"; }

# ib_write_bw wants the iterations a multiple of the post list: both get that.
n_for() { echo $((ITERS / $1 * $1)); }
fc_rate() { # QPS LIST
	"$FC" pair nodeA nodeB --ssh-config "$cfg" --no-db --min-gbps 0.0001 --test write --bw \
		-s 8 -n "$(n_for "$2")" -q "$1" --post-list "$2" --json 2>/dev/null |
		python3 -c 'import json, sys; print(json.load(sys.stdin)["results"][0]["msg_rate_mpps"])'
}
pt_rate() { # QPS LIST: the client's table line, MsgRate[Mpps] is its 5th field
	local n
	n=$(n_for "$2")
	node nodeB "timeout 120 ib_write_bw -d rxe0 -x 1 -F -s 8 -n $n -q $1 --post_list $2 >/tmp/bench-srv.log 2>&1 &"
	sleep 1
	node nodeA "timeout 120 ib_write_bw -d rxe0 -x 1 -F -s 8 -n $n -q $1 --post_list $2 $peer" |
		awk '$1 ~ /^[0-9]+$/ && NF >= 5 { line = $0 } END { print line }' | awk '{ print $5 }'
}

echo "bench-rate: 8 B writes x $ITERS per QP; $RUNS runs per case, alternating"
for c in $CASES; do
	q=${c%%:*} l=${c##*:}
	f=() p=()
	for ((i = 1; i <= RUNS; i++)); do
		f+=("$(fc_rate "$q" "$l")")
		p+=("$(pt_rate "$q" "$l")")
		printf '  -q %-2s --post-list %-3s run %s: fabcheck %s Mpps, ib_write_bw %s Mpps\n' \
			"$q" "$l" "$i" "${f[-1]:-?}" "${p[-1]:-?}"
	done
	python3 - "$q" "$l" "$(median "${f[@]}")" "$(median "${p[@]}")" <<'PY'
import sys
q, l, f, p = sys.argv[1], sys.argv[2], float(sys.argv[3]), float(sys.argv[4])
r = f / p if p > 0 else float("nan")
print(f"  median -q {q} --post-list {l}: fabcheck {f:.4f} Mpps, ib_write_bw {p:.4f} Mpps, ratio {r:.3f} (target >= 1.0)")
PY
done
