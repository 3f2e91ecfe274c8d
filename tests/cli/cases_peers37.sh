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
rm -rf "$P37_T"
