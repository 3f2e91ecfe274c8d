# fabcheck diagnose: evidence folders (tests/data/diag, doc/diagnose.md).
D=tests/data/diag
expect "diagnose: no folder is a usage error" 2 'give one evidence folder' -- "$FC" diagnose
expect "diagnose: a missing folder names it" 2 "cannot open '/nonexistent/ev': No such file" -- \
	"$FC" diagnose /nonexistent/ev
expect "diagnose: an empty folder is not evidence" 2 'not an evidence folder' -- \
	"$FC" diagnose tests/cli
expect "diagnose: IB flaps name the cable, with the next step" 0 \
	'likely   nodeC mlx5_3 port 1: cable or transceiver.*' -- "$FC" diagnose "$D/ib-flaps"
expect "diagnose: the next step names the re-run" 0 \
	"next: swap the cable \(then the transceiver\) of nodeC mlx5_3 port 1" -- \
	"$FC" diagnose "$D/ib-flaps"
expect "diagnose: what a port does not expose is said" 0 \
	'transceiver readings not exposed' -- "$FC" diagnose "$D/ib-flaps"
# 78 C: above its 75 C high warning, under its 80 C alarm: the module's own
# word is a warning (SFF-8472 section 9), so "possible", not "likely"
expect "diagnose --json: the hot module names the transceiver, possible at its warning" 0 '^ok$' -- \
	bash -c "'$FC' diagnose --json '$D/module-hot' | jq -e '.diagnosis[0].part == \"transceiver\" and .diagnosis[0].confidence == \"possible\"' >/dev/null && echo ok"
expect "diagnose: the recorded verdict is the exit code (rack, mtu 1500)" 1 \
	'recorded verdict fail.*' -- "$FC" diagnose "$D/rack-mtu"
expect "diagnose: a folder of folders is diagnosed one by one" 1 \
	'rack-loss: recorded verdict fail' -- "$FC" diagnose "$D"
# The folders pair, matrix and soak --save-evidence write with rails, as the
# code names them: pair --rails: DIR/alone-railR, DIR/loaded-railR;
# matrix --rails: DIR/NNN-A-B-railDEV/alone-railR (one level more); soak:
# DIR/NNN-A-B as the matrix. Each set is found, in the order written.
DG=$(mktemp -d /tmp/fc-diag-XXXXXX)
mkdir -p "$DG/pair" "$DG/mx/001-nodeA-nodeB-railrxe0" "$DG/mx/002-nodeA-nodeB-railrxe1" "$DG/soak"
cp -r "$D/rack-healthy" "$DG/pair/alone-rail0"
cp -r "$D/rack-loss" "$DG/pair/loaded-rail0"
cp -r "$D/rack-healthy" "$DG/mx/001-nodeA-nodeB-railrxe0/alone-rail0"
cp -r "$D/rack-loss" "$DG/mx/002-nodeA-nodeB-railrxe1/alone-rail1"
cp -r "$D/rack-loss" "$DG/soak/003-nodeA-nodeB"
expect "diagnose: pair --rails folder, each rail's test" 1 \
	"alone-rail0: recorded verdict warn.*loaded-rail0: recorded verdict fail" -- \
	bash -c "set -o pipefail; '$FC' diagnose '$DG/pair' | tr '\n' ' '"
expect "diagnose: matrix --rails folder, two levels down" 1 \
	"001-nodeA-nodeB-railrxe0/alone-rail0: recorded verdict warn.*002-nodeA-nodeB-railrxe1/alone-rail1: recorded verdict fail" -- \
	bash -c "set -o pipefail; '$FC' diagnose '$DG/mx' | tr '\n' ' '"
expect "diagnose: soak folder of slices" 1 "003-nodeA-nodeB: recorded verdict fail" -- \
	"$FC" diagnose "$DG/soak"
expect "diagnose --json: every set of the matrix --rails folder" 0 '^2 fail true$' -- \
	bash -c "'$FC' diagnose --json '$DG/mx' | jq -r '\"\\(.sets | length) \\(.verdict) \\(.diagnosis | length > 0)\"'"
expect "diagnose: both ports of one card failed every rail's test: the card" 1 \
	"over every folder: *likely *nodeF HCA PCIe 0000:17:00: HCA" -- \
	bash -c "set -o pipefail; '$FC' diagnose '$D/card-rails' | tr '\n' ' '"
# Names taken from an evidence folder (node, device, set folders) are
# checked before use in a path or a line: refused naming the entry, shown
# escaped (no escape sequence reaches the terminal).
mkdir -p "$DG/bad"
cp -r "$D/ib-flaps" "$DG/bad/node"
mv "$DG/bad/node/nodeC" "$DG/bad/node/node"$'\e[2J'
cp -r "$D/ib-flaps" "$DG/bad/dev"
mv "$DG/bad/dev/nodeC/mlx5_3-1" "$DG/bad/dev/nodeC/mlx;rm-1"
mkdir "$DG/bad/set"
cp -r "$D/ib-flaps" "$DG/bad/set/x"$'\e'"]0;y"
expect "diagnose: an evidence node folder with an escape is refused" 2 \
	"folder '$DG/bad/node/node\\\\x1b\[2J': 'node\\\\x1b\[2J' is not a valid node name \(it holds the byte 0x1b\).*rename the folder or remove it" -- \
	"$FC" diagnose "$DG/bad/node"
expect "diagnose: the refusal prints no escape byte" 0 '^clean$' -- \
	bash -c "out=\$('$FC' diagnose '$DG/bad/node' 2>&1); case \$out in *$'\e'*) echo raw ;; *) echo clean ;; esac"
expect "diagnose: an evidence device folder that is no device name is refused" 2 \
	"'mlx;rm' is not a valid RDMA device name \(it holds ';'\)" -- "$FC" diagnose "$DG/bad/dev"
expect "diagnose: a set folder with an escape is refused" 2 \
	"'x\\\\x1b\]0;y' is not a valid set folder name" -- "$FC" diagnose "$DG/bad/set"
# A PCI address from an evidence folder (pcie/ROLE-BDF) is one before it is
# part of a line or the lspci command the diagnosis suggests.
cp -r "$D/pcie-aer-downtrained" "$DG/bdf"
for s in before after; do
	mv "$DG/bdf/nodeD/mlx5_2-1/$s/pcie/hca-0000:17:00.0" "$DG/bdf/nodeD/mlx5_2-1/$s/pcie/hca-0000:17:00.0;reboot"
done
expect "diagnose: a pcie/ folder whose BDF is no PCI address is left out, said" 0 \
	'pcie/hca-0000:17:00.0;reboot: not ROLE-BDF with a PCI address \(e\.g\. hca-0000:17:00\.0\): left out' -- \
	"$FC" diagnose "$DG/bdf"
expect_none "diagnose: the crafted BDF is in no suggested command" 0 'lspci.*reboot' -- \
	"$FC" diagnose "$DG/bdf"
rm -rf "$DG"
# A port against what it should run at (issue 37 item 1): a 400G port on 2
# of its module's 4 lanes (lane 3's transmitter faulted) whose test passed
# at 90% of the reduced rate is named before any test.
expect "diagnose: a port on 2 of its module's 4 lanes names the lane's transmitter" 0 \
	'likely   nodeA mlx5_0 port 1: transceiver \(lane 3 transmitter\)' -- \
	"$FC" diagnose "$D/cmis-tx-fault-2of4"
expect "diagnose: a port below the same port on the rack's other nodes, over every folder" 0 \
	'runs at 200 Gb/s on 2 lanes where 2 of 2 other nodes \(nodeB, nodeC\) run the same port at 400 Gb/s on 4 lanes' -- \
	"$FC" diagnose "$D/rack-peers-2x"
expect "diagnose: a port's MTU against the same port on the rack's other nodes" 0 \
	"nodeC mlx5_0 port 1: configuration \(MTU\)" -- "$FC" diagnose "$D/rack-config-peers"
# A port against what both ends of its link support ('ethtool DEV', real
# captures in tests/real/ethtool_link): its own advertised modes hold it.
expect "diagnose: a port held below both ends' modes by its own advertised modes" 0 \
	'likely   nodeA mlx4_0 port 1: configuration \(advertised link modes\)' -- \
	"$FC" diagnose "$D/ethtool-link-adv-40of56"
expect "diagnose: a port below its HCA's modes, the partner's not reported, is possible" 0 \
	"possible nodeA mlx5_0 port 1: link partner or cable \(the partner's modes are not reported\)" -- \
	"$FC" diagnose "$D/ethtool-link-lp-unknown"
# The HCA's firmware against the same port on the rack's other nodes, by
# preflight's model (issue 37 item 1).
expect "diagnose: a port's HCA firmware against the same port on the rack's other nodes" 0 \
	'likely   nodeC mlx5_0 port 1: HCA \(firmware\)' -- "$FC" diagnose "$D/rack-fw-peers"
