# Cases for `lab` that need no guest (sourced by tests/cli/run.sh): the C
# side finds lab/rack.sh and passes arguments; the script validates them.
# The rack itself is tested by tests/rack/run.sh.
export FABCHECK_LAB_HOME=${TMPDIR:-/tmp}/fabcheck-cli-lab-$$
expect "lab --help" 0 'up \[--nodes N\] \[--name NAME\]' -- $FC lab --help
expect "help lab" 0 'fault \[--name NAME\] NODE \[--rail R\] loss PCT' -- $FC help lab
expect "lab unknown command" 2 "'frob' is not a lab command" -- $FC lab frob
expect "lab up --nodes 0" 2 "--nodes: '0' is not a number from 1 to 8" -- $FC lab up --nodes 0
expect "lab up --nodes 99" 2 "--nodes: '99' is not a number from 1 to 8" -- $FC lab up --nodes 99
expect "lab up bad name" 2 "--name: 'A B' is not a rack name" -- $FC lab up --name 'A B'
expect "lab up --mtu 65536" 2 "--mtu: '65536' is not a number from 576 to 9000" -- $FC lab up --mtu 65536
expect "lab status of no rack" 3 "no rack named 'nosuch' is up" -- $FC lab status --name nosuch
expect "lab fault bad kind" 2 "'jitter' is not a fault kind" -- $FC lab fault nodeA jitter
expect "lab fault bad loss" 2 "'200' is not a loss percentage" -- $FC lab fault nodeA loss 200
expect "lab exec without command" 2 'missing the command to run on nodeA' -- $FC lab exec nodeA
expect "lab down of no rack" 0 "rack 'nosuch' is not up" -- $FC lab down --name nosuch
expect "lab script missing" 3 'cannot find lab/rack.sh|FABCHECK_LAB_SCRIPT' -- \
	env FABCHECK_LAB_SCRIPT=/nonexistent/rack.sh $FC lab status
rm -rf "$FABCHECK_LAB_HOME"
unset FABCHECK_LAB_HOME
# No QEMU (nor ssh...) on PATH: lab up cannot run, says what to install.
nopath=${TMPDIR:-/tmp}/fabcheck-cli-nopath-$$
mkdir -p "$nopath" && ln -sf "$(command -v bash)" "$nopath/bash"
expect "lab up without qemu" 3 'the rack needs qemu-system-x86_64.*scripts/deps.sh demo' -- \
	env PATH="$nopath" $FC lab up --name nopath
rm -rf "$nopath"

# Options anywhere on the line; rails.
expect "lab fault: --name after the operands" 3 "no rack named 'nosuch' is up" -- $FC lab fault nodeC rate 20 --name nosuch
expect "lab fault: --rail after the kind" 3 "no rack named 'nosuch' is up" -- $FC lab fault nodeC rate 20 --rail 1 --name=nosuch
expect "lab fault: --rail without value" 2 "--rail: missing value" -- $FC lab fault nodeC rate 20 --rail
expect "lab fault: miswire takes no value" 2 "'miswire' takes no value, got 'now'" -- $FC lab fault nodeC miswire now
expect "lab up --rails 5" 2 "--rails: '5' is not a number from 1 to 4" -- $FC lab up --rails 5
expect "lab status: unknown option after --name" 2 "lab status: unknown option '--frob'" -- $FC lab status --name x --frob
expect "lab fault: a negative value is a value" 2 "'-1' is not a loss percentage" -- $FC lab fault nodeA loss -1
expect "lab fault: -5 as a rate" 2 "'-5' is not a rate" -- $FC lab fault nodeA rate -5 --name nosuch
