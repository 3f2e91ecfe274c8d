# Messages with figures of core/ that a C test cannot spell as printed
# (their words hold '"'), fed known figures through the command line
# (sourced by tests/cli/run.sh; issue 39 item 5): a worker's message whose
# type is no type, a worker's net device name past its rule, a capture's
# manifest of another format or of another kind of value.
CFT=$(mktemp -d /tmp/fc-corefigs-XXXXXX)
# A stand-in worker: its hello (message 1), then at the setup either a
# message 2 of no valid type or a setup whose net device holds a '/'.
cat >$CFT/worker.sh <<'EOF'
#!/bin/sh
read -r _hello || exit 0
printf '{"v":1,"seq":1,"type":"hello","version":"0","host":"w","pid":1}\n'
read -r _setup || exit 0
case ${W_MODE:-} in
type) printf '{"v":1,"seq":2,"type":"Set Up"}\n' ;;
*) printf '{"v":1,"seq":2,"type":"setup","device":"mlx5_0","port":1,"link_layer":"Ethernet","netdev":"enp1s0f0/1","mtu":4096,"rate_gbps":100,"memory":"host"}\n' ;;
esac
sleep 2
EOF
chmod +x $CFT/worker.sh
CPAIR=(pair --launcher local --timeout 5 --no-db --worker-cmd $CFT/worker.sh a b)
W_MODE=type expect "wire: message 2 of the worker has no valid type" 3 \
	'a: refused a message from the worker: message 2 has no valid "type"$' -- $FC "${CPAIR[@]}"
# A net device name is at most 15 characters (IFNAMSIZ 16 with its NUL).
expect "names: the worker's net device, letters, digits and -_. only, at most 15 characters" 3 \
	"error: the worker's net device: 'enp1s0f0/1' is not a valid net device name \(it holds '/'\): a name holds letters, digits and \"-_\.\" only, at most 15 characters, and does not begin with '-' or '\.'; fix the name where it came from$" -- \
	$FC "${CPAIR[@]}"
# Capture format 1 (core/bundle.h FC_BUNDLE_FORMAT): a manifest of format
# 2; one that decodes to a list has no line to name (it said "another value
# at line -1").
mkdir -p $CFT/cap2 $CFT/caplist
printf '{"capture": 2, "files": []}\n' >$CFT/cap2/manifest.json
printf '[1, 2]\n' >$CFT/caplist/manifest.json
expect "capture: a manifest of format 2 where 1 is read" 3 \
	"$CFT/cap2"': manifest\.json: not a fabcheck capture of format 1 \("capture": 1 and a "files" list\)' -- \
	$FC topo --from $CFT/cap2
expect "capture: a manifest that is a list: no line -1" 3 \
	"$CFT/caplist: manifest\.json: not a JSON object \(another value\); capture the node again" -- \
	$FC topo --from $CFT/caplist
# A command ended by a signal (core/out.c fc_out_on_signals): nccl env
# reading a FIFO whose writer holds it open and sends nothing, SIGINT (2)
# once it reads: the one --json document, its exit code 130 (128 + 2).
mkfifo $CFT/fifo
cat >$CFT/want-sig <<'EOF'
{
  "verdict": "error",
  "findings": [
    "interrupted by SIGINT before the command finished"
  ],
  "error": {
    "code": "interrupted",
    "exit_code": 130,
    "message": "interrupted by SIGINT",
    "input": null
  }
}
EOF
(exec 3>$CFT/fifo; : >$CFT/opened; exec sleep 30) &
CW=$!
$FC nccl env --file $CFT/fifo --json >$CFT/sig.out 2>/dev/null &
CP=$!
for _ in $(seq 300); do [ -e $CFT/opened ] && break; sleep 0.1; done
sleep 0.5
kill -INT $CP
wait $CP
echo "exit $?" >$CFT/sig.rc
kill $CW 2>/dev/null
wait $CW 2>/dev/null
expect "signal: SIGINT ends nccl env with exit 130" 0 '^exit 130$' -- cat $CFT/sig.rc
expect "signal: the --json document, exit code 130 and the signal's name" 0 '^same$' -- \
	sh -c 'diff "$1" "$2" && echo same' sh $CFT/sig.out $CFT/want-sig
rm -rf "$CFT"
# lab: a subcommand of the rack's script (a stand-in here, through
# FABCHECK_LAB_SCRIPT) that ends past fabcheck's own exit codes: its exit
# status, or the signal that ended it, said with the subcommand.
MCL=$(mktemp /tmp/fc-msgfig-lab.XXXXXX)
printf '#!/bin/bash\n[ "$1" = fault ] && kill -9 $$\nexit 7\n' >"$MCL"
expect "lab: down ended with exit 7" 3 '^fabcheck: error: lab: down ended with exit 7$' -- \
	env FABCHECK_LAB_SCRIPT="$MCL" $FC lab down --json
expect "lab: fault ended on signal 9" 3 '^fabcheck: error: lab: fault ended on signal 9$' -- \
	env FABCHECK_LAB_SCRIPT="$MCL" $FC lab fault nodeA clear --json
rm -f "$MCL"
