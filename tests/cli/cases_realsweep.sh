# A new user's sweep (issue 36/39): the commands that read captures, run on
# the public captures of tests/real and the evidence folders of
# tests/data/diag, their text read against the input. Sourced by
# tests/cli/run.sh. Each case is a sentence that was false, missing or
# garbled on that input.
RS_D=tests/data/diag
RS_N=tests/real/nccl

# diagnose over several folders: a problem found over every folder is shown
# with its evidence and next step above the summary, whatever rule named it
# (module_rx_peers, module_peers were only in the summary), under one
# heading.
expect "sweep: diagnose shows a far end's transmitter found over every folder" 0 \
	"over every folder: +possible +nodeC mlx5_0 port 1: far end's transmitter or fibre \(lanes 1, 2, 3, 4\) +evidence: " -- \
	bash -c "set -o pipefail; '$FC' diagnose '$RS_D/rack-rx-peers' | tr '\n' ' '"
expect "sweep: diagnose shows a module's temperature against its peers above the summary" 0 '^2$' -- \
	bash -c "'$FC' diagnose '$RS_D/rack-mod-peers' | grep -c 'transceiver (its temperature'"
expect "sweep: diagnose says 'over every folder' once" 0 '^1$' -- \
	bash -c "'$FC' diagnose '$RS_D/rack-config-peers' | grep -c '^over every folder:'"
# The summary names each problem once: a pair's mismatch named under a
# merged subject is not named again per folder, nor a port named likely
# over every folder again as possible in one folder.
expect "sweep: diagnose summary: nodeC's MTU and trust, each once (3, not 5)" 0 \
	'^verdict: pass, 3 problems named:$' -- "$FC" diagnose "$RS_D/rack-config-peers"
expect "sweep: diagnose summary: firmware not active on nodeA and nodeB, once (2, not 4)" 0 \
	'^verdict: pass, 2 problems named:$' -- "$FC" diagnose "$RS_D/rack-fw-stored-odd"
expect "sweep: diagnose summary: a port on 2 of 4 lanes, once (likely over every folder)" 0 \
	'^verdict: pass, 1 problem named:$' -- "$FC" diagnose "$RS_D/rack-peers-2x"
expect "sweep: diagnose --json summary: 1 + 3 lines for rack-config-peers" 0 '^4$' -- \
	bash -c "'$FC' diagnose --json '$RS_D/rack-config-peers' | jq '.summary | length'"
# A configuration mismatch's next step is the step for what differs: a GID
# type is not fixed by an MTU or by trust and PFC (and the reverse).
expect "sweep: diagnose: a GID type mismatch's step names the GID index" 0 \
	"next: set the same value on both ends \(GID type: a RoCE v2 GID on both ends, its index from /sys/class/infiniband/DEV/ports/PORT/gid_attrs/types/" -- \
	"$FC" diagnose "$RS_D/gid-mismatch"
expect_none "sweep: diagnose: a GID type mismatch's step says nothing of MTU or mlnx_qos" 0 \
	'mtu 9000|mlnx_qos' -- "$FC" diagnose "$RS_D/gid-mismatch"
expect_none "sweep: diagnose: a trust and PFC mismatch's step says nothing of MTU" 0 \
	"mtu 9000|subnet manager's MTU" -- "$FC" diagnose "$RS_D/qos-mismatch"
expect "sweep: diagnose: a trust and PFC mismatch's step names mlnx_qos" 0 \
	"next: set the same value on both ends \(trust and PFC: 'mlnx_qos -i DEV --trust dscp" -- \
	"$FC" diagnose "$RS_D/qos-mismatch"
# A port without a network interface (an InfiniBand port): its module is
# read with mlxlink through the HCA, never 'ethtool -m mlx5_1' (ethtool
# takes a network interface).
expect "sweep: diagnose: an IB port's module is read with mlxlink -m" 0 \
	"replace the transceiver of nodeA mlx5_1 \(mlxlink -d mlx5_1 -m, lane 2\)" -- \
	"$FC" diagnose "$RS_D/ib-far-tx-fault"
expect_none "sweep: diagnose: no 'ethtool -m' of an RDMA device name" 0 \
	'ethtool -m mlx5_' -- "$FC" diagnose "$RS_D/ib-far-tx-fault"
# The congestion reading says what its figure is, without a dangling
# "at least".
expect "sweep: diagnose: PortXmitWait's share is said to be a lower bound" 0 \
	'PortXmitWait \+2343750000 ticks, each at least the time of 8 bytes at 100 Gb/s: the share is a lower bound\)' -- \
	"$FC" diagnose "$RS_D/ib-xmit-wait"
# A folder given as a shell completes it ("DIR/"): no "DIR//NNN" paths.
expect_none "sweep: diagnose DIR/: no doubled slash in the set paths" 1 '//' -- \
	"$FC" diagnose "$RS_D/card-rails/"

# nccl check-log on a real Azure log: a completion error in the proxy
# thread ("proxy.cc:858 -> 6 [Proxy Thread]", NCCL src/proxy.cc) is a
# failure after init, not of init; error 12 is IBV_WC_RETRY_EXC_ERR.
RS_E12=$RS_N/ml-eng_azure_net-ib-completion-error-12_wrapped-warn.log
expect "sweep: check-log: a proxy thread failure is after init" 1 \
	'NCCL failed after init, in the proxy thread that drives the network transfers of collectives on node-2: 6 \(remote error\)' -- \
	"$FC" nccl check-log "$RS_E12"
expect "sweep: check-log: completion error 12 is named" 1 \
	'error 12 is IBV_WC_RETRY_EXC_ERR: the transport retry count ran out' -- \
	"$FC" nccl check-log "$RS_E12"
expect "sweep: check-log: init is not said FAILED for a proxy thread failure" 1 \
	'^  init        completion not shown; transfers FAILED after init \(the proxy thread\)$' -- \
	"$FC" nccl check-log "$RS_E12"
expect "sweep: check-log --json: run_failed, not init_failed" 1 '^false true$' -- \
	bash -c "'$FC' nccl check-log --json '$RS_E12' | jq -r '\"\\(.init_failed) \\(.run_failed)\"'; exit \${PIPESTATUS[0]}"

# topo -t on a table a person cut to GPU5, GPU6, NIC0, NIC1 (a DGX A100):
# nvidia-smi numbers its devices from GPU0, so it is an excerpt.
expect "sweep: topo: a table starting at GPU5 is said to be an excerpt" 0 \
	'the nvidia-smi matrix is cut short \(GPU or NIC rows missing, or devices not numbered from GPU0/NIC0: an excerpt\)' -- \
	"$FC" topo -t tests/real/topo/idx27527940882_dgx-a100_excerpt-reformatted_box-rule-separator.txt
expect_none "sweep: topo: a whole table numbered from GPU0 is not an excerpt" 0 'cut short' -- \
	"$FC" topo -t tests/real/topo/idx27527940882_dgx-a100-nv12_10nic_numa-3-1-7-5_prompt.txt
# topo -t on an 8 x RTX 4090 table whose GPU4, GPU5, GPU7 print SYS to the
# NICs that GPU6, on the same NUMA node (its NUMA Affinity column), reaches
# at PHB: not "the other socket" with "add an HCA on the GPU's socket";
# GPU0-3, on node 0, are on the other socket.
RS_4090=tests/real/topo/gh-go-gpuallocator-17_8x4090-pcie_2nic_tabs.txt
expect "sweep: topo: SYS on the HCA's own NUMA node is not called the other socket" 0 \
	"GPU4, GPU5, GPU7: nearest HCA NIC0 is SYS \(across the SMP interconnect, as nvidia-smi prints it\), though both are on NUMA node 1 \(the table's NUMA Affinity; GPU6 reaches it at PHB\)" -- \
	"$FC" topo -t "$RS_4090"
expect "sweep: topo: a GPU on the other NUMA node is still on the other socket" 0 \
	"GPU0, GPU1, GPU2, GPU3: nearest HCA NIC0 is on the other socket \(SYS\)" -- "$FC" topo -t "$RS_4090"
expect_none "sweep: topo: GPU4, GPU5, GPU7 are not told to add an HCA on their socket" 0 \
	"GPU[457]: nearest HCA NIC0 is on the other socket" -- "$FC" topo -t "$RS_4090"
# preflight --from a capture of a node with a GPU, an HCA, no peer-memory
# module and no dma-buf: one finding says so (the failure), not a warning
# that "GPUDirect RDMA then needs dma-buf" beside it.
RS_T=$(mktemp -d /tmp/fabcheck-cli-sweep.XXXXXX)
FABCHECK_SYSFS=tests/data/gdr/no-peermem $FC capture -o "$RS_T/np" >/dev/null 2>&1
expect "sweep: preflight --from: no GPUDirect path is a failure" 1 \
	'vm: 1 GPU but no GPUDirect RDMA path: neither nvidia_peermem is loaded nor dma-buf usable' -- \
	"$FC" preflight --from "$RS_T/np"
expect_none "sweep: preflight --from: no second finding on the missing peer-memory module" 1 \
	'no peer-memory module' -- "$FC" preflight --from "$RS_T/np"
rm -rf "$RS_T"
# check-log on a real NCCL 2.30.4 log: the RAS listener's bind WARN
# (ras/client_support.cc) is said to leave collectives alone, with the
# setting that avoids it, not "NCCL went on, but check the cause it names".
expect "sweep: check-log: a RAS bind WARN names NCCL_RAS_ADDR" 0 \
	'NCCL WARN on ubuntu2 at ras/client_support.cc:181 \(4 times\): "Call to bind failed: Address already in use"; NCCL.s RAS listener \(2\.24\+, NCCL_RAS_ADDR' -- \
	"$FC" nccl check-log tests/real/topo-extra/gh-nccl-2397_2.30.4_2node-2xa100_cx6dx-2port-fused-vnic_EXCERPT.log
