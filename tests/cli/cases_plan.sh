# Cases for `fabcheck plan` (sourced by tests/cli/run.sh).
expect "plan help" 0 'usage: fabcheck plan' -- $FC plan --help
expect "plan help formulas" 0 'ZeRO-3 +all-gather of parameters before forward' -- $FC plan --help
expect "plan needs params" 2 '--params and --gpus are required' -- $FC plan --gpus 8
expect "plan bad params" 2 "--params: '70X' is not a parameter count" -- $FC plan --params 70X --gpus 8
expect "plan bad fabric" 2 "--fabric: 'xdr' is not a fabric" -- $FC plan --params 7B --gpus 16 --fabric xdr
expect "plan bad strategy" 2 "--strategy: 'zero4' is not a strategy" -- $FC plan --params 7B --gpus 16 --strategy zero4
expect "plan partial node" 2 'not a multiple of --gpus-per-node 8' -- $FC plan --params 7B --gpus 12
expect "plan extra arg" 2 "unexpected argument 'x'" -- $FC plan --params 7B --gpus 16 x
# 70B in 16 bit on 64 GPUs: 275.6 GB a step for DDP, 413.4 GB for ZeRO-3.
expect "plan traffic ddp" 0 'ddp +275\.6 GB +all-reduce of gradients' -- $FC plan --params 70B --gpus 64
expect "plan traffic zero3" 0 'zero3 +413\.4 GB +2 x all-gather of parameters' -- $FC plan --params 70B --gpus 64
expect "plan ndr time" 0 'InfiniBand NDR +400 Gb/s +1 us +50\.0 GB/s +ddp +5513 ms' -- $FC plan --params 70B --gpus 64 --fabric ndr
expect "plan json" 0 '"comm_ms": 8268\.939' -- $FC plan --params 70B --gpus 64 --fabric ndr --strategy zero3 --json
# With compute: the chosen fabric being the bottleneck is a warning.
expect "plan bottleneck" 0 'zero3 on InfiniBand NDR: communication takes 8269 ms a step, compute 6000 ms: 2269 ms exposed' -- $FC plan --params 70B --gpus 64 --fabric ndr --compute-ms 6000
expect "plan bottleneck verdict" 0 '"verdict": "warn"' -- $FC plan --params 70B --gpus 64 --fabric ndr --strategy zero3 --compute-ms 6000 --json
expect "plan hidden" 0 'verdict: pass' -- $FC plan --params 70B --gpus 64 --fabric ndr --strategy ddp --compute-ms 6000
expect "plan which fabric" 0 'ddp: communication is the bottleneck on 100gbe, 200gbe, hdr$' -- $FC plan --params 70B --gpus 64 --strategy ddp --compute-ms 6000
expect "plan measured" 0 'the measured rate +25 Gb/s' -- $FC plan --params 7B --gpus 16 --gbps 25
expect "plan one node" 0 'one node: collectives stay on NVLink' -- $FC plan --params 7B --gpus 8
