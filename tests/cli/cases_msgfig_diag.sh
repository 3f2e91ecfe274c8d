# diagnose's messages with figures through the command line (sourced by
# tests/cli/run.sh; issue 39 item 5): lines whose figure ends them, checked
# as printed lines against the recorded evidence folders of tests/data/diag.
DFT=$(mktemp -d /tmp/fc-diagfigs-XXXXXX)
# hca-all-ports: nodeF's dual-port card, both ports with the same notes:
# one heading naming each port, its device and port number (1, then 2),
# the notes said once under it (issue 39 item 2).
cat >$DFT/want-notes <<'EOF'
  evidence notes, nodeF mlx5_4 port 1, nodeF mlx5_4 port 2:
EOF
expect "diagnose: the evidence notes of nodeF mlx5_4, ports 1 and 2" 0 '^same$' -- \
	sh -c '"$1" diagnose tests/data/diag/hca-all-ports | grep "evidence notes" | diff - "$2" && echo same' \
	sh $FC $DFT/want-notes
rm -rf "$DFT"
