#!/usr/bin/env bash
# Benchmark (not a test): fabcheck pair against perftest on a 2-node virtual
# rack, alternating, the same message size and iteration count each time.
#   write bandwidth: fabcheck pair --test write --bw   vs  ib_write_bw
#   read latency:    fabcheck pair --test read --lat   vs  ib_read_lat
# (both report the whole read; perftest's t_typical is its median, compared
# with fabcheck's p50). Prints each run, the medians and the ratios: the
# target is bandwidth ratio >= 1.0 and latency ratio <= 1.0.
#   BENCH_RUNS (default 5)  BENCH_BW_SIZE (65536)  BENCH_BW_ITERS (500)
#   BENCH_LAT_ITERS (1000)  BENCH_RACK: use this running rack, boot none
set -u
cd "$(dirname "$0")/.." || exit 2
FC=${FC:-$PWD/fabcheck}
RUNS=${BENCH_RUNS:-5}
BW_SIZE=${BENCH_BW_SIZE:-65536}
BW_ITERS=${BENCH_BW_ITERS:-500}
LAT_ITERS=${BENCH_LAT_ITERS:-1000}

rack=${BENCH_RACK:-}
if [ -z "$rack" ]; then
	rack=bench-$$
	trap '"$FC" lab down --name "$rack" >/dev/null 2>&1' EXIT
	trap 'exit 130' INT TERM
	echo "bench: booting a 2-node rack '$rack' (about 40 s)"
	"$FC" lab up --name "$rack" --nodes 2 >/dev/null || { echo "bench: the rack did not boot" >&2; exit 3; }
fi
cfg=$("$FC" lab ssh-config --name "$rack") || exit 3
net=$("$FC" lab status --name "$rack" --json | python3 -c \
	'import json, sys; print(json.load(sys.stdin)["fabric"]["subnet"].rsplit(".", 1)[0])') || exit 3
peer=$net.2
node() { local n=$1; shift; ssh -F "$cfg" "$n" -- "$@" 2>/dev/null </dev/null; }
jget() { python3 -c 'import json, sys; d = json.load(sys.stdin); print(eval(sys.argv[1]))' "$1"; }

fc_bw() {
	"$FC" pair nodeA nodeB --ssh-config "$cfg" --no-db --min-gbps 0.0001 --test write --bw \
		-s "$BW_SIZE" -n "$BW_ITERS" --json 2>/dev/null | jget "d['results'][0]['gbps']"
}
fc_lat() {
	"$FC" pair nodeA nodeB --ssh-config "$cfg" --no-db --min-gbps 0.0001 --test read --lat \
		-s 2 -n "$LAT_ITERS" --json 2>/dev/null | jget "d['results'][0]['p50_us']"
}
# perftest: the server on nodeB, the client on nodeA; the client's table line.
pt() {
	local tool=$1; shift
	node nodeB "timeout 120 $tool -d rxe0 -x 1 -F $* >/tmp/bench-srv.log 2>&1 &"
	sleep 1
	node nodeA "timeout 120 $tool -d rxe0 -x 1 -F $* $peer" | awk '$1 ~ /^[0-9]+$/ && NF >= 4 { line = $0 } END { print line }'
}
pt_bw() { pt ib_write_bw -s "$BW_SIZE" -n "$BW_ITERS" --report_gbits | awk '{ print $4 }'; }
pt_lat() { pt ib_read_lat -s 2 -n "$LAT_ITERS" | awk '{ print $5 }'; }

median() { python3 -c 'import statistics, sys; v = [float(x) for x in sys.argv[1:] if x]; print(statistics.median(v) if v else "nan")' "$@"; }

echo "bench: write bandwidth, $BW_SIZE B x $BW_ITERS; read latency, 2 B x $LAT_ITERS; $RUNS runs each, alternating"
printf '  %-4s %16s %16s %16s %16s\n' run "fabcheck Gb/s" "ib_write_bw Gb/s" "fabcheck p50 us" "ib_read_lat us"
fb=() pb=() fl=() pl=()
for ((i = 1; i <= RUNS; i++)); do
	fb+=("$(fc_bw)")
	pb+=("$(pt_bw)")
	fl+=("$(fc_lat)")
	pl+=("$(pt_lat)")
	printf '  %-4s %16s %16s %16s %16s\n' "$i" "${fb[-1]:-?}" "${pb[-1]:-?}" "${fl[-1]:-?}" "${pl[-1]:-?}"
done
mfb=$(median "${fb[@]}") mpb=$(median "${pb[@]}") mfl=$(median "${fl[@]}") mpl=$(median "${pl[@]}")
python3 - "$mfb" "$mpb" "$mfl" "$mpl" <<'PY'
import sys
fb, pb, fl, pl = (float(x) for x in sys.argv[1:])
print(f"  median bandwidth: fabcheck {fb:.4f} Gb/s, ib_write_bw {pb:.4f} Gb/s, ratio {fb / pb:.3f} (target >= 1.0)")
print(f"  median read latency: fabcheck p50 {fl:.2f} us, ib_read_lat t_typical {pl:.2f} us, ratio {fl / pl:.3f} (target <= 1.0)")
PY
