# Cases for 'fabcheck nccl run' on the 2-node rack $RACK_NAME (sourced by
# tests/rack/run.sh; helpers in tests/rack/lib.sh). The guests have no GPU,
# no CUDA driver and no NCCL: the run must stop within its deadline with exit
# 3 and one finding per node that names the node, the library and the fix.
NR=("$FC" nccl run nodeA nodeB --ssh-config "$SSH_CFG" --timeout 20)

t0=$SECONDS
expect "nccl run: no driver on either node, both named" 3 \
	'(nodeA, nodeB|both nodes): no CUDA driver: cannot load libcuda\.so\.1.*install the NVIDIA driver' \
	-- bash -c "set -o pipefail; $(printf '%q ' "${NR[@]}") | tr '\n' ' '"
if [ $((SECONDS - t0)) -le 30 ]; then
	ok "nccl run: no driver reported within the deadline"
else
	not_ok "nccl run: no driver reported within the deadline" "took $((SECONDS - t0)) s (deadline 20 s)"
fi
expect_json "nccl run --json: one failing finding per node, no results" 3 \
	"d['verdict'] == 'fail' and len(d['findings']) == 2 and
	 d['findings'][0].startswith('nodeA: ') and d['findings'][1].startswith('nodeB: ') and
	 all('libcuda.so.1' in f for f in d['findings']) and 'results' not in d" \
	-- "${NR[@]}" --json
expect "nccl run: 2 GPUs per node, still one finding per node" 3 \
	'nodeA \(GPU 0\): no CUDA driver.*nodeB \(GPU 0\): no CUDA driver' \
	-- bash -c "set -o pipefail; $(printf '%q ' "${NR[@]}") -g 2 | tr '\n' ' '"
expect "nccl run: an unreachable node is named" 3 'nodeZ: cannot reach the node over ssh' \
	-- "$FC" nccl run nodeA nodeZ --ssh-config "$SSH_CFG" --timeout 10
