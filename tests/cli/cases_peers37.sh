# Issue 37 (s49): rails and diagnose's peers on recorded inputs. Sourced by
# tests/cli/run.sh.
P37_T=$(mktemp -d /tmp/fabcheck-cli-peers37.XXXXXX)

# rails --from a capture with no RDMA port: nothing was matched, so it says
# there is no port to match and why (the node's own devices error), not
# "rails matched by device name".
FABCHECK_SYSFS=tests/data/gdr/two-socket $FC capture -o "$P37_T/2s" >/dev/null 2>&1
expect "peers37: rails --from, no port: says there is none to match" 0 \
	'^no rails: no port to match' -- "$FC" rails --from "$P37_T/2s"
expect "peers37: rails --from, no port: the node's reason" 0 \
	'^  vm: no RDMA port read: the kernel has no RDMA support \(no ib_uverbs\)$' -- \
	"$FC" rails --from "$P37_T/2s"
expect_none "peers37: rails --from, no port: not 'matched by' anything" 0 \
	'matched by' -- "$FC" rails --from "$P37_T/2s"
expect "peers37: rails --from --json, no port: matched_by none" 0 '^"none"$' -- \
	bash -c "'$FC' rails --from '$P37_T/2s' --json | jq .matched_by"

# topo -t on a real GB200 table (NUMA Affinity "0,3-9,11-17"): the text's
# NUMA column shows the list the table gives, not its first node only; a
# list wider than the column is cut at a comma with ",...".
P37_GB=tests/real/topo/idx61093033028_4xgb200-nv18_8nic-all-sys_numa-lists.txt
expect "peers37: topo -t GB200: GPU0's NUMA list whole" 0 \
	'^  GPU0 +GPU0 +- +0,3-9,11-17 +mlx5_0' -- "$FC" topo -t "$P37_GB"
expect "peers37: topo -t GB200: GPU3's NUMA list whole" 0 \
	'^  GPU3 +GPU3 +- +1,19-25,27-33 +mlx5_0' -- "$FC" topo -t "$P37_GB"
sed 's/0,3-9,11-17 /0,3-9,11-17,40-47,52,54,56,58 /' "$P37_GB" >"$P37_T/gb-long.txt"
expect "peers37: topo -t: a NUMA list past the column cut at a comma" 0 \
	'^  GPU0 +GPU0 +- +0,3-9,11-17,\.\.\. +mlx5_0' -- "$FC" topo -t "$P37_T/gb-long.txt"

# diagnose over a matrix's folders of three InfiniBand nodes of the recorded
# rack tests/data/rails/ib-shifted-names.json (tests/data/diag/rack-shifted,
# SOURCE there): dgx-su1-02, another model, names its rail-0 HCA mlx5_2.
# By name it has no peer; with the nodes' captures (built from that
# recorded rack as the rails --from cases build theirs) its port is on
# rail 0 with the others' mlx5_0, and its firmware and module are compared.
P37_S=tests/data/diag/rack-shifted
FABCHECK_SYSFS=tests/data/gdr/two-socket $FC capture -o "$P37_T/base" >/dev/null 2>&1
python3 tests/cli/bundle-rack.py "$P37_T/base" tests/data/rails/ib-shifted-names.json "$P37_T/sh"
P37_C=("$P37_T/sh/dgx-su1-01" "$P37_T/sh/dgx-su1-02" "$P37_T/sh/dgx-su2-01")
expect_none "peers37: diagnose by name: dgx-su1-02 mlx5_2 has no peer (guard)" 0 \
	'HCA firmware is 28\.39\.1002' -- "$FC" diagnose "$P37_S"
expect "peers37: diagnose --rails-from: dgx-su1-02 mlx5_2's firmware against its rail" 0 \
	"likely +dgx-su1-02 mlx5_2 port 1: HCA \(firmware\) +evidence: the port's HCA firmware is 28\.39\.1002 where 2 of 2 other nodes have 28\.41\.1000 on the same port \(its peers: the ports on its rail, rail 0 \(mlx5_0\), matched by switch\)" -- \
	bash -c "set -o pipefail; '$FC' diagnose '$P37_S' --rails-from ${P37_C[*]} | tr '\n' ' '"
expect "peers37: diagnose --rails-from: its module against its rail's" 0 \
	"possible +dgx-su1-02 mlx5_2 port 1: transceiver \(its temperature: the module or the airflow over it\) +evidence: temperature 52\.00 C where the same port's module on 2 other nodes" -- \
	bash -c "set -o pipefail; '$FC' diagnose '$P37_S' --rails-from ${P37_C[*]} | tr '\n' ' '"
expect "peers37: diagnose --rails-from: says how the peers were matched" 0 \
	'^peers over every folder: the port on its rail \(rails of 3 captures, matched by switch\)$' -- \
	"$FC" diagnose "$P37_S" --rails-from "${P37_C[@]}"
expect "peers37: diagnose --rails-from: the captures first, the folder last" 0 '^2$' -- \
	bash -c "'$FC' diagnose --rails-from ${P37_C[*]} '$P37_S' --json | jq '[.diagnosis[] | select(.subject == \"dgx-su1-02 mlx5_2 port 1\")] | length'"
expect "peers37: diagnose --rails-from --json: peers matched by rail" 0 '^"rail switch 3"$' -- \
	bash -c "'$FC' diagnose '$P37_S' --rails-from ${P37_C[*]} --json | jq '.peers | \"\(.matched_by) \(.rails_matched_by) \(.captures | length)\"'"
expect "peers37: diagnose --rails-from a folder that is no capture: refused, named" 2 \
	"--from $P37_S: manifest.json: No such file or directory; a capture holds one" -- \
	"$FC" diagnose tests/data/diag/rack-mod-peers --rails-from "$P37_S"
expect "peers37: diagnose --rails-from with two evidence folders: refused" 2 \
	'give one evidence folder and the captures' -- \
	"$FC" diagnose tests/data/diag/rack-mod-peers "$P37_S" --rails-from "${P37_C[@]}"
# A lane its module's own lanes name (module_lanes, per folder) and the
# other nodes name too (module_peers) is one problem with both pieces of
# evidence: rack-mod-peers' nodeC lane 2.
expect "peers37: diagnose: a lane named against its module and its peers is one problem" 0 \
	'^verdict: pass, 1 problem named:$' -- "$FC" diagnose tests/data/diag/rack-mod-peers
expect "peers37: diagnose: the lane's evidence against its own module kept" 0 \
	"\(ethtool -m\); and against the module's own lanes: lane 2 transmit power -4\.00 dBm where the module's 3 other lanes in use read 1\.26 to 1\.44 dBm" -- \
	"$FC" diagnose tests/data/diag/rack-mod-peers
# Every port-level reading against the same port on the other nodes: the
# card's health reporter fw recovered from 3 errors on nodeC, none on
# nodeA and nodeB (tests/data/diag/rack-fw-health, SOURCE there).
expect "peers37: diagnose: a health reporter's error count against the other nodes" 0 \
	"possible +nodeC mlx5_0 port 1: HCA \(firmware health\) +evidence: the port's HCA's health reporter fw error count \(errors it recovered from, devlink health show\) is 3 where 2 of 2 other nodes have 0 on the same port" -- \
	bash -c "set -o pipefail; '$FC' diagnose tests/data/diag/rack-fw-health | tr '\n' ' '"
rm -rf "$P37_T"
