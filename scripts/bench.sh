#!/usr/bin/env bash
# Benchmark (not a test): fabcheck pair in perftest's method (--perftest)
# against perftest on a 2-node virtual rack, like for like: the same test,
# size, iteration count, device, GID and queue depth, one QP, runs
# interleaved (the order of the two tools alternates from run to run).
#   bandwidth: write, read, send at 64 KiB and 1 MiB   (Gb/s, perftest's BW average)
#   latency:   write, read, send at 2 B                (us, perftest's t_typical
#              against fabcheck's median, both perftest's get_median)
#   message rate: write at 8 B with 1 QP singly, 4 QPs in post lists of 16,
#              write and send with 2 QPs in lists of 16, write and send at
#              64 B with 4 QPs in lists of 32 (issue 40: -q 4 --post-list 32
#              -s 64) (TEST_rate_qQPSpLIST[sSIZE]; Mpps, perftest's MsgRate
#              against fabcheck's msg_rate_mpps), the same post list and CQ
#              moderation (-Q / --cq-mod) on both
# Per case: both medians, the ratio fabcheck / perftest and its 95% bootstrap
# confidence interval; a claim only where the interval supports it. The table
# goes to doc/pair-bench.md (between its bench markers) and to stdout.
#   BENCH_RUNS (20)  BENCH_BW_ITERS_64K (200)  BENCH_BW_ITERS_1M (20)
#   BENCH_LAT_ITERS (1000)  BENCH_RATE_ITERS (20000)  BENCH_CASES (all: "write_bw_64K read_lat ...")
#   BENCH_RACK: use this running rack, boot none   BENCH_OUT: raw values file
#   BENCH_DEADLINE: seconds after which no further run starts (none)
#   BENCH_ONLY=rate: the issue 40 message-rate rows alone, bounded: cases
#     write_rate_q4p32s64 send_rate_q4p32s64, BENCH_RUNS 12,
#     BENCH_RATE_ITERS 2048, BENCH_DEADLINE 420 (about 6 to 8 minutes with
#     the boot; any of them can still be set)
# Exit 0 with the table; 1 when a case has fewer than 2 runs with a figure
# on either side (the table says which); 2 on a bad setting; 3 when the
# rack does not boot or lacks perftest.
set -u
cd "$(dirname "$0")/.." || exit 2
FC=${FC:-$PWD/fabcheck}
case ${BENCH_ONLY:-} in
"") ALL="write_bw_64K write_bw_1M read_bw_64K read_bw_1M send_bw_64K send_bw_1M write_lat read_lat send_lat write_rate_q1p1 write_rate_q4p16 write_rate_q2p16 send_rate_q2p16 write_rate_q4p32s64 send_rate_q4p32s64"
	DRUNS=20 DITRATE=20000 DDEADLINE= ;;
rate) # issue 40 item 5: like for like at -q 4 --post-list 32 -s 64
	ALL="write_rate_q4p32s64 send_rate_q4p32s64" DRUNS=12 DITRATE=2048 DDEADLINE=420 ;;
*) echo "bench: BENCH_ONLY='${BENCH_ONLY}': say rate, or leave it unset for every case" >&2; exit 2 ;;
esac
RUNS=${BENCH_RUNS:-$DRUNS}
IT64=${BENCH_BW_ITERS_64K:-200}
IT1M=${BENCH_BW_ITERS_1M:-20}
ITLAT=${BENCH_LAT_ITERS:-1000}
ITRATE=${BENCH_RATE_ITERS:-$DITRATE}
DEADLINE=${BENCH_DEADLINE:-$DDEADLINE}
CASES=${BENCH_CASES:-$ALL}
[[ $RUNS =~ ^[1-9][0-9]*$ ]] || { echo "bench: BENCH_RUNS ($RUNS) must be a whole number of runs" >&2; exit 2; }
[[ -z $DEADLINE || $DEADLINE =~ ^[1-9][0-9]*$ ]] || { echo "bench: BENCH_DEADLINE ($DEADLINE) must be seconds" >&2; exit 2; }
# perftest refuses iterations that are not a multiple of the post list.
for c in $CASES; do
	[[ $c == *_rate_q*p* ]] || continue
	pl=${c##*p} pl=${pl%%s*}
	((ITRATE % pl == 0)) || { echo "bench: BENCH_RATE_ITERS ($ITRATE) must be a multiple of $pl, the post list of $c (perftest refuses it otherwise)" >&2; exit 2; }
done
RAW=${BENCH_OUT:-$(mktemp /tmp/fabcheck-bench.XXXXXX)}
LAB=${FABCHECK_LAB_HOME:-$PWD/lab-home}

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
others() { local l n=""; for l in "$LAB"/racks/*.lock; do [ -e "$l" ] || continue; l=${l##*/}; l=${l%.lock}; [ "$l" = "$rack" ] || n+=" $l"; done; echo "${n# }"; }
node() { local n=$1; shift; ssh -F "$cfg" "$n" -- "$@" 2>/dev/null </dev/null; }

# case -> test, metric, size, iterations, the key compared, extra options
# of fabcheck (FX) and of perftest (PX), perftest's table column (COL)
params() {
	local c=$1
	T=${c%%_*} FX=() PX="--report_gbits" COL=4 KEY=gbps
	case $c in
	*_bw_64K) M=bw S=65536 N=$IT64 ;;
	*_bw_1M) M=bw S=1048576 N=$IT1M ;;
	*_lat) M=lat S=2 N=$ITLAT PX="" COL=5 KEY=p50_us ;;
	*_rate_q*p*) # TEST_rate_qQPSpPOSTLIST[sSIZE]: 8 B messages unless sSIZE
		local q=${c##*_q} pl
		pl=${q#*p} q=${q%p*} S=8
		[[ $pl == *s* ]] && S=${pl#*s} pl=${pl%s*}
		M=bw N=$ITRATE KEY=msg_rate_mpps COL=5
		# like for like: the same CQ moderation on both sides, given to
		# both (perftest's own: the post list's length, 100 without one)
		local cq=$((pl > 1 ? pl : 100))
		FX=(-q "$q" --post-list "$pl" --cq-mod "$cq")
		PX="--report_gbits -q $q --post_list $pl -Q $cq" ;;
	esac
}
# A run's limit: a message-rate run of a few thousand messages a QP takes
# seconds on the rack (some 3,000-7,000 messages/s, the table below).
limit() { [[ $KEY == msg_rate_mpps ]] && echo 90 || echo "$1"; }
fc_run() {
	timeout "$(limit 300)" "$FC" pair nodeA nodeB --ssh-config "$cfg" --no-db --min-gbps 0.0000001 --perftest \
		--test "$T" "--$M" -s "$S" -n "$N" "${FX[@]}" --json 2>>"$RAW.err" |
		python3 -c 'import json, sys
try:
    v = json.load(sys.stdin)["results"][0][sys.argv[1]]
    print(v if v is not None else "")
except Exception:
    print("")' "$KEY"
}
# perftest: the server on nodeB, the client on nodeA; the client's table line.
pt_run() {
	local tool=ib_${T}_$M t
	t=$(limit 120)
	node nodeB "timeout $t $tool -d rxe0 -x 1 -F -s $S -n $N $PX >/tmp/bench-srv.log 2>&1 &"
	sleep 1
	node nodeA "timeout $t $tool -d rxe0 -x 1 -F -s $S -n $N $PX $peer" |
		awk -v c="$COL" '$1 ~ /^[0-9]+$/ && NF >= 5 { v = $c } END { print v }'
	node nodeB "pkill -x $tool" >/dev/null
}

for n in nodeA nodeB; do
	for c in $CASES; do
		params "$c"
		node "$n" "command -v ib_${T}_$M" >/dev/null ||
			{ echo "bench: $n has no ib_${T}_$M (perftest): the rack's image lacks perftest; rebuild it (fabcheck lab image) or run against a rack that has it (BENCH_RACK)" >&2; exit 3; }
	done
done
busy=$(others) seen=$busy start=$SECONDS done_runs=0
echo "bench: $RUNS interleaved runs of: $CASES (raw values: $RAW)${DEADLINE:+; no run starts after $DEADLINE s}"
echo "bench: other racks running at the start: ${busy:-none}"
: >"$RAW"
: >"$RAW.err"
for ((i = 1; i <= RUNS; i++)); do
	if [[ -n $DEADLINE ]] && ((SECONDS - start >= DEADLINE)); then
		echo "bench: the deadline (BENCH_DEADLINE $DEADLINE s) passed after $done_runs of $RUNS runs: the table has those"
		break
	fi
	done_runs=$i
	for c in $CASES; do
		params "$c"
		if ((i % 2)); then
			f=$(fc_run); p=$(pt_run)
		else
			p=$(pt_run); f=$(fc_run)
		fi
		echo "$c $i ${f:-nan} ${p:-nan}" >>"$RAW"
		for o in $(others); do [[ " $seen " == *" $o "* ]] || seen+=" $o"; done
		printf '  run %2d %-13s fabcheck %-12s perftest %s\n' "$i" "$c" "${f:-?}" "${p:-?}"
	done
done
seen=${seen# }
echo "bench: $done_runs runs in $((SECONDS - start)) s"
if [[ -s $RAW.err ]]; then
	echo "bench: fabcheck's last error (all in $RAW.err):"
	grep -v '^$' "$RAW.err" | tail -n 1
fi
python3 - "$RAW" "$done_runs" "${busy:-none}" "${seen:-none}" "$IT64" "$IT1M" "$ITLAT" "$ITRATE" <<'PY'
import random, re, statistics, sys, time
raw, runs, busy, seen, it64, it1m, itlat, itrate = sys.argv[1:]
# A run that printed no figure, or zero (perftest prints 0.000000 when its
# test did not complete), is a failed run: left out of the medians and
# counted in the table.
cases, failed = {}, {}
def good(v):
    try:
        x = float(v)
    except ValueError:
        return None
    return x if x > 0 and x != float("inf") else None
for line in open(raw):
    c, _, f, p = line.split()
    d = cases.setdefault(c, ([], []))
    n = failed.setdefault(c, [0, 0])
    for k, v in enumerate((f, p)):
        x = good(v)
        if x is None: n[k] += 1
        else: d[k].append(x)
random.seed(1)
def ci(f, p, n=10000):
    r = []
    for _ in range(n):
        a = [random.choice(f) for _ in f]
        b = [random.choice(p) for _ in p]
        r.append(statistics.median(a) / statistics.median(b))
    r.sort()
    return r[int(0.025 * n)], r[int(0.975 * n) - 1]
def claim(lat, lo, hi):
    if lo > 1: return "perftest lower (faster)" if lat else "fabcheck higher"
    if hi < 1: return "fabcheck lower (faster)" if lat else "perftest higher"
    if lo >= 0.95 and hi <= 1.05: return "as fast (within 5%)"
    return "no claim: the interval includes 1 and spans more than 5%"
rows, short = [], []
for c, (f, p) in cases.items():
    lat = c.endswith("_lat")
    rate = "_rate_" in c
    unit = "us" if lat else "Mpps" if rate else "Gb/s"
    qp = re.match(r".*_rate_q(\d+)p(\d+)(?:s(\d+))?$", c)
    name = (f"{c.split('_')[0]} rate at {qp[3] or 8} B, {qp[1]} QP(s), post list {qp[2]}" if rate else
            c.replace("_", " ").replace("bw", "bw at").replace("lat", "lat at 2 B"))
    nf, np_ = failed[c]
    runs_col = f"{len(f)} / {len(p)}" + (f" ({nf} / {np_} failed)" if nf or np_ else "")
    if len(f) < 2 or len(p) < 2:
        rows.append(f"| {name} | {runs_col} | - | - | - | - | too few runs |")
        short.append(f"{c} ({len(f)} / {len(p)})")
        continue
    mf, mp = statistics.median(f), statistics.median(p)
    lo, hi = ci(f, p)
    fmt = (lambda v: f"{v:.1f}") if lat else (lambda v: f"{v:.3g}") if rate else (lambda v: f"{v:.4f}")
    rows.append(f"| {name} | {runs_col} | {fmt(mf)} {unit} | {fmt(mp)} {unit} | "
                f"{mf / mp:.3f} | [{lo:.3f}, {hi:.3f}] | {claim(lat, lo, hi)} |")
table = "\n".join([
    f"`make bench`, {time.strftime('%Y-%m-%d %H:%M')}: {runs} interleaved runs per case; "
    f"bandwidth 64 KiB x {it64} and 1 MiB x {it1m}, latency 2 B x {itlat}, "
    f"message rate {itrate} messages per QP; "
    f"fabcheck `pair --perftest` against perftest 6.x with the same settings. "
    f"Other racks running on the host: {busy} at the start; seen between cases: {seen}.",
    "",
    "| case | runs with a figure (fabcheck / perftest) | fabcheck median | perftest median | ratio | 95% CI of the ratio | claim |",
    "| --- | --- | --- | --- | --- | --- | --- |",
    *rows])
print(table)
doc = open("doc/pair-bench.md").read()
b, e = "<!-- bench:begin -->", "<!-- bench:end -->"
if b in doc and e in doc:
    doc = doc[:doc.index(b) + len(b)] + "\n" + table + "\n" + doc[doc.index(e):]
    open("doc/pair-bench.md", "w").write(doc)
    print("bench: the table is in doc/pair-bench.md")
else:
    print("bench: doc/pair-bench.md has no bench markers; the table is not written there")
if short:
    print("bench: FAIL: fewer than 2 runs with a figure on a side: " + ", ".join(short) +
          "; the reasons are in the raw file's .err", file=sys.stderr)
    sys.exit(1)
PY
