# Cases for `fabcheck plan` (sourced by tests/cli/run.sh).
expect "plan help" 0 'usage: fabcheck plan' -- $FC plan --help
expect "plan help formulas" 0 'ZeRO-3 +all-gather of parameters before forward' -- $FC plan --help
expect "plan needs params" 2 '--params and --gpus are required' -- $FC plan --gpus 8
expect "plan bad params" 2 "--params: '70X' is not a parameter count" -- $FC plan --params 70X --gpus 8
expect "plan bad fabric" 2 "--fabric: 'xdr' is not a fabric" -- $FC plan --params 7B --gpus 16 --fabric xdr
expect "plan bad strategy" 2 "--strategy: 'zero4' is not a strategy" -- $FC plan --params 7B --gpus 16 --strategy zero4
expect "plan partial node" 2 'not a multiple of --gpus-per-node 8' -- $FC plan --params 7B --gpus 12
expect "plan partial node: both figures, each its option's" 2 \
	'plan: --gpus 18 is not a multiple of --gpus-per-node 4; give whole nodes' -- \
	$FC plan --params 7B --gpus 18 --gpus-per-node 4
expect "plan extra arg" 2 "unexpected argument 'x'" -- $FC plan --params 7B --gpus 16 x
# 70B in 16 bit on 64 GPUs: 275.6 GB a step for DDP, 413.4 GB for ZeRO-3.
expect "plan traffic ddp" 0 'ddp +275\.6 GB +all-reduce of gradients' -- $FC plan --params 70B --gpus 64
expect "plan traffic zero3" 0 'zero3 +413\.4 GB +2 x all-gather of parameters' -- $FC plan --params 70B --gpus 64
# busbw as nccl run expects it: 8 x 400 / 8 x 0.94 = 376 GB/s; DDP 275.625 / 376 s + 126 us.
expect "plan ndr time" 0 'InfiniBand NDR +400 Gb/s +1 us +376\.0 GB/s +ddp +733 ms' -- $FC plan --params 70B --gpus 64 --fabric ndr
expect "plan json" 0 '"comm_ms": 1099\.75' -- $FC plan --params 70B --gpus 64 --fabric ndr --strategy zero3 --json
# With compute: the chosen fabric being the bottleneck is a warning.
expect "plan bottleneck" 0 'zero3 on InfiniBand NDR: communication takes 1100 ms a step, compute 1000 ms: 100 ms exposed' -- $FC plan --params 70B --gpus 64 --fabric ndr --compute-ms 1000
expect "plan bottleneck verdict" 0 '"verdict": "warn"' -- $FC plan --params 70B --gpus 64 --fabric ndr --strategy zero3 --compute-ms 1000 --json
expect "plan hidden" 0 'verdict: pass' -- $FC plan --params 70B --gpus 64 --fabric ndr --strategy ddp --compute-ms 1000
expect "plan which fabric" 0 'ddp: communication is the bottleneck on 100gbe, 200gbe, hdr$' -- $FC plan --params 70B --gpus 64 --strategy ddp --compute-ms 1000
expect "plan measured" 0 'the measured rate +25 Gb/s' -- $FC plan --params 7B --gpus 16 --gbps 25
expect "plan one node" 0 'one node: collectives stay on NVLink' -- $FC plan --params 7B --gpus 8
# --ds-config: the step of the user's DeepSpeed config (worked in tests/unit/test_dsconfig.c).
DS=$(mktemp -d)
printf '{"bf16": {"enabled": true}, "gradient_accumulation_steps": 4, "zero_optimization": {"stage": 2, "reduce_bucket_size": 2e8, "allgather_bucket_size": 5e8, "overlap_comm": true}}' >"$DS/z2.json"
printf '{"zero_optimization": {"stage": 3, "stage3_prefetch_bucket_size": "auto"}}' >"$DS/auto.json"
printf '{"zero_optimization": {"stage": 2,}' >"$DS/broken.json"
expect "plan ds collectives" 0 'reduce-scatter of gradients +140 +0\.4 GB +56\.0 GB' -- $FC plan --params 7B --gpus 32 --ds-config "$DS/z2.json" --fabric ndr
expect "plan ds time" 0 'ds-zero2 +185 ms' -- $FC plan --params 7B --gpus 32 --ds-config "$DS/z2.json" --fabric ndr
# Every figure of the DeepSpeed step's text, fed known figures (issue 39 item
# 5), worked by hand from --help's formulas: 7e9 params / 2e8 a reduce bucket
# = 35 calls x 4 accumulation steps = 140 of 2e8 x 2 B = 0.4 GB (56.0 GB a
# step); 7e9 / 5e8 = 14 all-gathers of 1 GB (14.0 GB); sent per GPU 31/32 x
# 70 GB = 67.8 GB; NDR 400 Gb/s / 8 x 0.94 x 8 NICs = 376 GB/s, x
# --efficiency 0.5 = 188.0 GB/s; 67.8125 GB / 188 GB/s = 360.7 ms + 154
# calls x 31 ring steps x 1 us = 365 ms; exposed 365.5 - 0.75 x 150 = 253 ms,
# 253 / (150 + 253) = 63% of the step.
PDS=(plan --params 7B --gpus 32 --ds-config "$DS/z2.json" --fabric ndr --compute-ms 150 --efficiency 0.5 --overlap 0.75)
expect "plan ds figures: the config's line" 0 '/z2\.json: ZeRO stage 2, bf16, gradient_accumulation_steps 4, overlap_comm true; buckets \(elements\): reduce 2e\+08, allgather 5e\+08, stage3 prefetch 5e\+07$' -- $FC "${PDS[@]}"
expect "plan ds figures: the all-gathers, calls and sizes" 0 '^  all-gather of updated parameters +14 +1 GB +14\.0 GB$' -- $FC "${PDS[@]}"
expect "plan ds figures: sent per GPU" 0 '^  sent per GPU per step: 67\.8 GB$' -- $FC "${PDS[@]}"
expect "plan ds figures: efficiency and overlap as given" 0 '^communication per step \(ring, efficiency 0\.5, overlap 0\.75; exposed = not hidden by compute; fabric nominal\):$' -- $FC "${PDS[@]}"
expect "plan ds figures: rate, latency, busbw, time and exposed" 0 '^InfiniBand NDR +400 Gb/s +1 us +188\.0 GB/s +ds-zero2 +365 ms / 253 ms +bottleneck$' -- $FC "${PDS[@]}"
expect "plan ds figures: the finding's times and share" 0 'communication takes 365 ms a step, compute 150 ms: 253 ms exposed \(63% of the step\)' -- $FC "${PDS[@]}"
expect "plan ds auto" 2 'zero_optimization.stage3_prefetch_bucket_size: "auto" is filled in by the Hugging Face Trainer' -- $FC plan --params 7B --gpus 32 --ds-config "$DS/auto.json"
expect "plan ds not json" 2 'broken.json: not a JSON file \(line 1' -- $FC plan --params 7B --gpus 32 --ds-config "$DS/broken.json"
expect "plan db missing" 2 'cannot open' -- $FC plan --params 7B --gpus 32 --db "$DS/none.db"
expect "plan db and fabric" 2 'leave out --fabric and --gbps' -- $FC plan --params 7B --gpus 32 --db "$DS/none.db" --fabric ndr
rm -rf "$DS"
