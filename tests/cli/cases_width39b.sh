# Cases for tables that fit the terminal without losing a figure (sourced by
# tests/cli/run.sh; issue 39 item 3): at COLUMNS=100 and 80 no line of
# `devices` or `topo` passes the width, and every figure of the --json
# document is still in the text whole: each port's rate, GID and payload
# ceiling (the devices table folds its columns, as ip -d does, instead of
# cutting a cell), every cell of the GPU/HCA distance matrix (folded into
# blocks of columns), every word of a recommendation's reason (wrapped).
W39B=$(mktemp -d /tmp/fc-width39b-XXXXXX)
# w39b_over WIDTH FILE: "ok N" where no line of FILE passes WIDTH, else the
# lines that do.
w39b_over() {
	awk -v w="$1" '{ n++; if (length($0) > w) bad = bad length($0) ": " $0 "\n" }
		END { printf "%s", bad == "" ? "ok " n "\n" : "no:\n" bad }' "$2"
}

# A node of 8 InfiniBand NDR ports and 2 RoCE v2 ports (tests/data/devices),
# its device list in a capture of a recorded sysfs tree (bundle-rack.py).
FABCHECK_SYSFS=tests/data/gdr/two-socket $FC capture -o "$W39B/cap" >/dev/null 2>&1
python3 tests/cli/bundle-rack.py "$W39B/cap" tests/data/devices/ib8-roce2.json "$W39B/dv"
W39BD=$W39B/dv/gpu-node-017
# w39b_dev_figs WIDTH: the figures of each port (its rate with width and
# speed, its GID with type, its payload ceiling, each GID of its table) the
# text at WIDTH lacks, from --json; "all N" when none is lacking.
w39b_dev_figs() {
	COLUMNS=$1 $FC devices --from "$W39BD" >"$W39B/d$1.txt" 2>&1
	$FC devices --from "$W39BD" --json 2>/dev/null | python3 -c '
import json, sys
text = open(sys.argv[1]).read()
figs = []
for d in json.load(sys.stdin)["devices"]:
    for p in d["ports"]:
        figs.append("%g Gb/s (%s %s)" % (p["rate_gbps"], p["width"], p["speed"]))
        figs.append("%s (%s)" % (p["gid"], p["gid_type"]))
        figs.append("%.3f Gb/s at %d B" % (p["payload_gbps"], p["active_mtu"]))
        figs += [g["gid"] + " " for g in p["gids"]]
lack = [f for f in figs if f not in text]
print("lacks: " + " | ".join(lack) if lack else "all %d" % len(figs))' "$W39B/d$1.txt"
}
for w in 100 80; do
	expect "width: devices at COLUMNS=$w keeps every rate, GID and ceiling whole" 0 '^all 46$' -- \
		w39b_dev_figs $w
	expect "width: devices at COLUMNS=$w fits, its table folded" 0 '^ok [0-9]+$' -- \
		w39b_over $w "$W39B/d$w.txt"
done
# The fold: the columns that do not fit on a second line under each port,
# 4 spaces in, under their own header (as ip -d folds a long line).
expect "width: devices' second band: a GID under its port" 0 \
	'^mlx5_10 .* 200 Gb/s \(4X 50\.0 Gbps\) .*#    ::ffff:10\.210\.8\.21 \(RoCE v2\) +194\.560 Gb/s at 4096 B$' -- \
	bash -c "grep -m1 -A1 '^mlx5_10 ' $W39B/d100.txt | paste -sd#"
# Wide enough, the table is one line a port, as before.
expect "width: devices at COLUMNS=200: one line a port" 0 '^mlx5_10 .*ens108f0np0 +3 +::ffff:10\.210\.8\.21 \(RoCE v2\) +194\.560 Gb/s at 4096 B$' -- \
	bash -c "COLUMNS=200 $FC devices --from $W39BD"
expect "width: devices --from a folder that is no capture" 3 \
	"error: --from $W39B: manifest.json: .*fabcheck capture" -- $FC devices --from "$W39B"

# topo on the recorded nvidia-smi matrices with the most NICs (10, 12 and 18
# of them: 20 to 26 columns, up to 226 columns on one line before).
TOPOF=$FABCHECK_SHARED/fixtures/topo
# w39b_cells WIDTH FILE: each GPU row's cells read back from the folded
# matrix of topo's text against --json's "matrix": "cells N" when all N
# are there with their value, else the first that is not.
w39b_cells() {
	COLUMNS=$1 $FC topo --nvidia-smi-topo "$2" >"$W39B/t.txt" 2>&1
	$FC topo --nvidia-smi-topo "$2" --json 2>/dev/null | python3 -c '
import json, sys
doc = json.load(sys.stdin)
lines = open(sys.argv[1]).read().split("\n")
start = next(i for i, l in enumerate(lines) if l.startswith("matrix ("))
got, head = {}, None
for l in lines[start + 1:]:
    if not l.strip():
        continue
    if not l.startswith("  "):
        break
    words = l.split()
    if l.startswith("   "):
        head = words
    else:
        for c, v in zip(head, words[1:]):
            got[(words[0], c)] = v
want = {(r, c): v for r, row in doc["matrix"].items() for c, v in row.items()
        if r.startswith("GPU")}
bad = [k for k in want if got.get(k) != want[k]]
print("cells %d" % len(want) if not bad and want else "lost %s: %s" % (bad[:1], got.get(bad[0]) if bad else "no cell"))' "$W39B/t.txt"
}
for f in dgx-a100-40gb_nv12_12nic-pxb_numa-1-3-5-7_TRUNCATED \
	a100-sxm4_nv12_18-mlx5-named-columns_numa-affinity-no-gpu-numa-id_TRUNCATED \
	hgx-h100_tab-separated_10nic_nic-rows-trailing-tabs_TRUNCATED; do
	for w in 100 80; do
		expect "width: topo ${f%%_*} at COLUMNS=$w keeps every matrix cell" 0 '^cells [0-9]+$' -- \
			w39b_cells $w "$TOPOF/$f.txt"
		expect "width: topo ${f%%_*} at COLUMNS=$w fits" 0 '^ok [0-9]+$' -- \
			w39b_over $w "$W39B/t.txt"
	done
done
# The matrix of 8 GPUs and 18 NICs at 80 columns: 4 blocks of 8, 8, 8 and 2
# columns, each under its own header line.
expect "width: topo's 26 matrix columns at COLUMNS=80 in 4 blocks" 0 '^4 +GPU0 +GPU1 .*GPU7#mlx5_0 .*mlx5_7#mlx5_8 .*mlx5_15#mlx5_16 +mlx5_17$' -- \
	bash -c "COLUMNS=80 $FC topo --nvidia-smi-topo $TOPOF/a100-sxm4_nv12_18-mlx5-named-columns_numa-affinity-no-gpu-numa-id_TRUNCATED.txt |
		sed -n '/^matrix (/,/^NVLink/p' | grep '^   ' | sed 's/^ *//' | awk '{ n++; s = s (n > 1 ? \"#\" : \"\") \$0 } END { print n, s }'"
# A recommendation's reason wraps at words: the same words as --json's.
w39b_why() {
	COLUMNS=80 $FC topo --nvidia-smi-topo "$TOPOF/$1.txt" |
		sed -n '/^recommended NCCL settings:/,/^$/p' | grep '^      ' | tr -s ' \n' '\n\n' | sed '/^$/d' >"$W39B/why.txt"
	$FC topo --nvidia-smi-topo "$TOPOF/$1.txt" --json |
		python3 -c 'import json, sys; print("\n".join(r["why"] for r in json.load(sys.stdin)["recommendations"]))' |
		tr -s ' \n' '\n\n' | sed '/^$/d' | cmp -s - "$W39B/why.txt" && echo "same $(wc -l <"$W39B/why.txt")"
}
expect "width: topo's recommendations wrapped at COLUMNS=80, every word kept" 0 '^same [0-9]+$' -- \
	w39b_why dgx-a100-40gb_nv12_12nic-pxb_numa-1-3-5-7_TRUNCATED

# The sweep of every command's text on recorded inputs at 100 and 80
# columns: a table whose narrowed columns still do not fit folds as the
# devices table does (preflight's 12 columns at 80); a line of prose (a
# heading, a reason, a note) wraps at words, every word kept, and piped
# without COLUMNS it stays whole on its line. w39b_prose WIDTH LINE CMD...:
# "ok N kept K" where no line of CMD's stdout at COLUMNS=WIDTH passes WIDTH
# but a line of one word (a path), and each of the K lines that match the
# extended regex LINE in CMD's stdout piped without COLUMNS (each whole on
# its line) is in the wrapped text with all its words, in order.
w39b_prose() {
	local w=$1 line=$2
	shift 2
	COLUMNS=$w "$@" >"$W39B/p$w.txt" 2>/dev/null </dev/null
	env -u COLUMNS "$@" 2>/dev/null </dev/null | grep -E -- "$line" >"$W39B/pw.txt"
	echo $(awk -v w="$w" '{ n++; if (length($0) > w && $0 !~ /^ *[^ ]+$/) bad = bad "[" $0 "]" }
		END { print bad == "" ? "ok " n : "no: " bad }' "$W39B/p$w.txt") \
		$(python3 -c '
import sys
text = " " + " ".join(open(sys.argv[1]).read().split()) + " "
whole = [l for l in open(sys.argv[2]).read().split("\n") if l.strip()]
lost = [l for l in whole if " " + " ".join(l.split()) + " " not in text]
print("lost: " + lost[0] if lost else "kept %d" % len(whole))' "$W39B/p$w.txt" "$W39B/pw.txt")
}
MXD=tests/data/matrix
$FC matrix --import $MXD/rack4-healthy.json --db "$W39B/b.db" >/dev/null 2>&1
$FC matrix --import $MXD/rack4-slowC.json --db "$W39B/b.db" >/dev/null 2>&1
for w in 100 80; do
	# "  NCCL_ALGO: 'Foo' is not an algorithm NCCL knows; ..." (267 columns)
	expect "width: nccl check-log's setting notes at COLUMNS=$w, wrapped" 0 '^ok [0-9]+ kept [1-9][0-9]*$' -- \
		w39b_prose $w '^  NCCL_ALGO: ' $FC nccl check-log tests/data/nccl/env-misread.log
	# "peers over every folder: by name (...)" (165), "DIR/001-nodeA-nodeB:
	# recorded verdict none (no test.json)" (83)
	expect "width: diagnose's peers and verdict lines at COLUMNS=$w, wrapped" 0 '^ok [0-9]+ kept [1-9][0-9]*$' -- \
		w39b_prose $w '^peers over every folder: |: recorded verdict ' $FC diagnose tests/data/diag/rack-fw-peers
	# "  Ethernet 10 Gb/s HCA not known, write 65536 B uni, pattern pairs:
	# 0.1485 Gb/s (sd 0.00441) of 6 results, 0 pruned" (115)
	expect "width: baseline's profiles at COLUMNS=$w, wrapped" 0 '^ok [0-9]+ kept [1-9][0-9]*$' -- \
		w39b_prose $w ' pattern pairs: .* pruned$' $FC baseline --db "$W39B/b.db" --min-count 2 -o "$W39B/bl$w.json"
	# "ZeRO-3 2 x (n-1)/n x M all-gather + ..." (108), "model: ..." (93)
	expect "width: plan's model and formulas at COLUMNS=$w, wrapped" 0 '^ok [0-9]+ kept [1-9][0-9]*$' -- \
		w39b_prose $w '^model: |^formulas: |^ZeRO-3 ' $FC plan --params 70e9 --gpus 1024
	# "rail 0 (rxe0), Gb/s, row -> column, one direction measured per pair
	# (* bad, ! could not run):" (93)
	expect "width: matrix's rail headings at COLUMNS=$w, wrapped" 0 '^ok [0-9]+ kept [1-9][0-9]*$' -- \
		w39b_prose $w '^rail [01] \(rxe[01]\), Gb/s' $FC matrix --import $MXD/rack3-clean-rail0slow.json --db "$W39B/m$w.db"
	# pair on the stand-in rack: "  traffic class (default): nodeA 0 (DSCP 0,
	# ECN 0), SL 0; ..." (87), the latency legend (97), "port counters that
	# moved during the test: none (...)" (81)
	expect "width: pair's legends and counter line at COLUMNS=$w, wrapped" 0 '^ok [0-9]+ kept 3$' -- \
		w39b_prose $w '^  traffic class|^latency in us|^port counters that moved' \
		env FAKE_DEVICES=tests/data/rails/devices-2rail.json $FC pair nodeA nodeB --launcher local \
		--worker-cmd tests/cli/rack-worker.sh --no-db --timeout 5
done
# preflight of the 10-port node: 12 columns (89 columns of headers alone
# at 80 before), folded; each port's rate and GID type kept.
w39b_pf() {
	COLUMNS=$1 $FC preflight --from "$W39BD" >"$W39B/pf.txt" 2>/dev/null
	echo $(w39b_over "$1" "$W39B/pf.txt" | head -1) \
		$(grep -cE '^(gpu-node-017)? +mlx5_[0-9]+ +1 +ACTIVE +(400|200) Gb/s' "$W39B/pf.txt") \
		$(grep -cE '^ +(IB|RoCE v2) +(28\.39\.2048|22\.36\.1010)' "$W39B/pf.txt")
}
expect "width: preflight's table at COLUMNS=80 folded, every port's rate and GID kept" 0 \
	'^ok [0-9]+ 10 10$' -- w39b_pf 80
rm -rf "$W39B"
