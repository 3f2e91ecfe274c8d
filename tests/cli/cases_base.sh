# Cases for the top level and `devices` (sourced by tests/cli/run.sh).
expect "version" 0 '^fabcheck [0-9]+\.[0-9]+\.[0-9]+' -- $FC --version
expect "help lists commands" 0 'devices .*RDMA' -- $FC help
expect "help CMD" 0 'usage: fabcheck devices' -- $FC help devices
expect "CMD --help" 0 'usage: fabcheck devices' -- $FC devices --help
expect "no command" 2 'usage: fabcheck' -- $FC
expect "unknown command" 2 "'bogus' is not a fabcheck command" -- $FC bogus
expect "unknown global option" 2 "unknown option '--bogus'" -- $FC --bogus
expect "help unknown" 2 "'fabcheck nope' is not a command" -- $FC help nope
expect "devices bad option" 2 'usage: fabcheck devices' -- $FC devices --frob
expect "devices extra arg" 2 "unexpected argument 'x'" -- $FC devices x
# This host has no RDMA: devices must say so, name the fix, and exit 3.
expect "devices none" 3 'rdma link add rxe0' -- $FC devices
expect "devices none json" 3 '"verdict": "fail"' -- $FC devices --json
expect "lab no subcommand" 2 'usage: fabcheck lab' -- $FC lab
# Commands with subcommands answer --help for the subcommand, not the parent.
expect "nccl sub --help" 0 'usage: fabcheck nccl env' -- $FC nccl env --help
expect "nccl --help" 0 'check-log' -- $FC nccl --help
