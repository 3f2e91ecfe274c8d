# One evidence format (doc/diagnose.md): pair, matrix and soak
# --save-evidence write each port's readings as captures (core/bundle.h, the
# format `fabcheck capture` writes); diagnose reads them to the diagnosis the
# live run gave, reads the folders of files older runs wrote to the same
# one, and refuses a broken reading naming its file. The workers are
# tests/cli/rack-worker.sh sending the recorded readings of
# tests/data/diag/rack-loss (nodeB's packets lost on the way to nodeA).
EVT=$(mktemp -d /tmp/fc-evidence-XXXXXX)
EVW=(--launcher local --worker-cmd "$(pwd)/tests/cli/rack-worker.sh" --timeout 10)
export RW_EVIDENCE=tests/data/diag/rack-loss
$FC pair nodeA nodeB "${EVW[@]}" --no-db --save-evidence "$EVT/pair" --json >"$EVT/pair.json" 2>/dev/null
$FC matrix nodeA nodeB "${EVW[@]}" --db "$EVT/m.db" --save-evidence "$EVT/mx" >/dev/null 2>&1
$FC soak nodeA nodeB "${EVW[@]}" --db "$EVT/s.db" --duration 3 --slice 2 --interval 1 \
	--save-evidence "$EVT/soak" >/dev/null 2>&1
unset RW_EVIDENCE
R=nodeA/rxe0-1/before
P=sys/class/infiniband/rxe0/ports/1

# The reading is a capture: the manifest of format 1 names the host and
# each file with what it is a copy of, at the path `fabcheck capture` keeps
# it; what could not be read is the manifest's "not_read".
expect "evidence: pair's reading is a capture (manifest, host, files where capture keeps them)" 0 '^ok$' -- \
	bash -c "jq -e '.capture == 1 and .host == \"nodeA\" and .reading.phase == \"before\" and
		([.files[].path] | index(\"$P/hw_counters/rcvd_seq_err\") != null and
		 index(\"cmd/ethtool_-S_eth0\") != null and index(\"node.json\") != null) and
		(.not_read | map(.path) | index(\"cmd/ethtool_-m_eth0\") != null)' '$EVT/pair/$R/manifest.json' >/dev/null &&
		cmp -s '$EVT/pair/$R/$P/hw_counters/rcvd_seq_err' tests/data/diag/rack-loss/$R/hw_counters/rcvd_seq_err && echo ok"

# diagnose reads the captures to the diagnosis the live run gave: pair's
# own JSON, and the pair documents matrix and soak keep (test.json).
same_diag() { # FOLDER LIVE.json: diagnose FOLDER gives LIVE's diagnosis, not empty; FOLDER's readings are captures
	local n
	n=$(find "$1" -path '*/before/manifest.json' | wc -l)
	[ "$n" -ge 2 ] || { echo "$n captured readings"; return; }
	diff <(jq -S .diagnosis "$2") <("$FC" diagnose --json "$1" | jq -S .diagnosis) >/dev/null &&
		jq -e '.diagnosis | length > 0' "$2" >/dev/null && echo same
}
expect "evidence: pair --save-evidence: diagnose gives the live run's diagnosis" 0 '^same$' -- \
	same_diag "$EVT/pair" "$EVT/pair.json"
expect "evidence: matrix --save-evidence: diagnose gives the pair's live diagnosis" 0 '^same$' -- \
	same_diag "$EVT/mx" "$EVT/mx/001-nodeA-nodeB/test.json"
expect "evidence: soak --save-evidence: diagnose gives the slice's live diagnosis" 0 '^same$' -- \
	same_diag "$EVT/soak/001-nodeA-nodeB" "$EVT/soak/001-nodeA-nodeB/test.json"
expect "evidence: diagnose names the part from the captures" 0 \
	'likely +nodeB rxe0 -> nodeA rxe0: buffers or QoS configuration' -- \
	bash -c "[ -f '$EVT/pair/nodeB/rxe0-1/after/manifest.json' ] && '$FC' diagnose '$EVT/pair'"

# The folders of files older runs wrote are still read: the readings the
# workers sent, as files, with the same test.json, give the same diagnosis.
mkdir -p "$EVT/old"
cp -r tests/data/diag/rack-loss/nodeA tests/data/diag/rack-loss/nodeB "$EVT/old/"
cp "$EVT/pair/test.json" "$EVT/old/"
expect "evidence: a folder of files (the old format) reads to the captures' diagnosis" 0 '^same$' -- \
	bash -c "[ -f '$EVT/pair/$R/manifest.json' ] && [ ! -e '$EVT/old/$R/manifest.json' ] &&
		diff <('$FC' diagnose --json '$EVT/old' | jq -S .diagnosis) <('$FC' diagnose --json '$EVT/pair' | jq -S .diagnosis) >/dev/null && echo same"

# A broken reading is refused, naming the bundle and the file (exit 2, as
# any unreadable evidence folder), never judged on what is left.
bad() { # NAME: a copy of pair's folder to break
	rm -rf "${EVT:?}/bad-$1"
	cp -r "$EVT/pair" "$EVT/bad-$1"
	echo "$EVT/bad-$1/$R"
}
b=$(bad missing)
rm "$b/$P/hw_counters/rcvd_seq_err"
expect "evidence: a file the reading's manifest lists, missing, is named" 2 \
	"evidence: .*/bad-missing/$R: $P/hw_counters/rcvd_seq_err: missing \(the manifest lists it\)" -- \
	"$FC" diagnose "$EVT/bad-missing"
b=$(bad cut)
truncate -s 10 "$b/cmd/ethtool_-S_eth0"
expect "evidence: a file cut short is named" 2 \
	"bad-cut/$R: cmd/ethtool_-S_eth0: 10 bytes where the manifest says [0-9]+ \(cut short\)" -- \
	"$FC" diagnose "$EVT/bad-cut"
b=$(bad binary)
printf '1733\000\377\376\n' >"$b/evidence/time"
python3 tests/cli/bundle-rack.py --fix "$b" evidence/time
expect "evidence: a binary file (its manifest made to match) is refused, named" 2 \
	"bad-binary/$R: evidence/time: not text" -- "$FC" diagnose "$EVT/bad-binary"
b=$(bad huge)
truncate -s 17M "$b/$P/rate"
expect "evidence: a huge file is refused, named" 2 \
	"bad-huge/$R: $P/rate: 17 MiB, more than a captured file's bound" -- "$FC" diagnose "$EVT/bad-huge"
b=$(bad big)
head -c 1048600 /dev/zero | tr '\0' 7 >"$b/evidence/netdev"
python3 tests/cli/bundle-rack.py --fix "$b" evidence/netdev
expect "evidence: a file over a reading's 1 MiB (within a capture's bound) is refused, named" 2 \
	"bad-big/$R: evidence/netdev: over 1 MiB" -- "$FC" diagnose "$EVT/bad-big"
b=$(bad link)
ln -sf /etc/passwd "$b/sys/class/net/eth0/mtu"
expect "evidence: a link out of the reading is refused, named" 2 \
	"bad-link/$R: sys/class/net/eth0/mtu: a link to '/etc/passwd', outside the bundle" -- \
	"$FC" diagnose "$EVT/bad-link"
b=$(bad escape)
python3 -c '
import json, sys
p = sys.argv[1] + "/manifest.json"
m = json.load(open(p))
m["files"].append({"path": "evidence/../../../../../etc/passwd", "bytes": 1, "crc32c": "00000000"})
json.dump(m, open(p, "w"))' "$b"
expect "evidence: a manifest naming a path out of the reading is refused" 2 \
	"bad-escape/$R: manifest.json: an entry of \"files\" without a plain relative \"path\"" -- \
	"$FC" diagnose "$EVT/bad-escape"
# diagnose --from: a node's captures (`fabcheck capture`) judged as the
# readings they hold. Two readings pair wrote (captures of one port) give
# the diagnosis of the folder of files holding that port; two captures of
# a whole node (sysfs trees made of nodeB's readings) give the diagnosis of
# an old-format folder made of the same files.
mkdir -p "$EVT/oldB" && cp -r tests/data/diag/rack-loss/nodeB "$EVT/oldB/"
expect "evidence: diagnose --from two readings of a port gives the folder's diagnosis" 0 '^same$' -- \
	bash -c "diff <('$FC' diagnose --json '$EVT/oldB' | jq -S .diagnosis) \
		<('$FC' diagnose --json --from '$EVT/pair/nodeB/rxe0-1/before' '$EVT/pair/nodeB/rxe0-1/after' | jq -S .diagnosis) >/dev/null &&
		'$FC' diagnose --json '$EVT/oldB' | jq -e '.diagnosis | length > 0' >/dev/null && echo same"
ev_sys() { # PHASE: a sysfs tree holding nodeB's reading PHASE, and the same files as an old-format reading
	local r=tests/data/diag/rack-loss/nodeB/rxe0-1/$1 s=$EVT/sys-$1 nd
	nd=$(cat "$r/netdev")
	mkdir -p "$s/class/infiniband/rxe0/ports/1/gid_attrs/ndevs" "$s/class/net/$nd" "$EVT/ev-$1"
	cp -r "$r/hw_counters" "$r/state" "$r/phys_state" "$r/rate" "$r/link_layer" "$s/class/infiniband/rxe0/ports/1/"
	echo "$nd" >"$s/class/infiniband/rxe0/ports/1/gid_attrs/ndevs/0"
	cp "$r/mtu" "$r/carrier_changes" "$s/class/net/$nd/"
	cp -r "$r/hw_counters" "$r/state" "$r/phys_state" "$r/rate" "$r/link_layer" "$r/mtu" "$r/carrier_changes" "$r/netdev" "$EVT/ev-$1/"
	FABCHECK_SYSFS=$s "$FC" capture -o "$EVT/cap-$1" >/dev/null 2>&1
}
ev_sys before; ev_sys after
EVH=$(jq -r .host "$EVT/cap-after/manifest.json")
mkdir -p "$EVT/oldcap/$EVH/rxe0-1" && mv "$EVT/ev-before" "$EVT/oldcap/$EVH/rxe0-1/before" &&
	mv "$EVT/ev-after" "$EVT/oldcap/$EVH/rxe0-1/after"
expect "evidence: diagnose --from two captures of a node gives the same files' diagnosis" 0 '^same$' -- \
	bash -c "diff <('$FC' diagnose --json '$EVT/oldcap' | jq -S '.diagnosis, .sets[0].evidence') \
		<('$FC' diagnose --json --from '$EVT/cap-before' '$EVT/cap-after' | jq -S '.diagnosis, .sets[0].evidence') &&
		'$FC' diagnose --json --from '$EVT/cap-before' '$EVT/cap-after' | jq -e '.diagnosis[0].rule == \"drops\"' >/dev/null && echo same"
expect "evidence: diagnose --from, captures of two nodes refused" 2 \
	'diagnose --from: .*/nodeA/rxe0-1/before is a capture of nodeA, .*/nodeB/rxe0-1/after of nodeB: give two captures of one node' -- \
	"$FC" diagnose --from "$EVT/pair/nodeA/rxe0-1/before" "$EVT/pair/nodeB/rxe0-1/after"
mkdir -p "$EVT/sys-empty/class/net"
FABCHECK_SYSFS=$EVT/sys-empty "$FC" capture -o "$EVT/cap-empty" >/dev/null 2>&1
expect "evidence: diagnose --from a capture without RDMA ports is named" 2 \
	'diagnose --from .*/cap-empty: no RDMA port in the capture' -- "$FC" diagnose --from "$EVT/cap-empty"
expect "evidence: diagnose --from three captures refused" 2 'give one capture of a node, or two' -- \
	"$FC" diagnose --from "$EVT/cap-before" "$EVT/cap-after" "$EVT/cap-after"

rm -rf "$EVT"
