# Cases for 'fabcheck lab' itself, on the 2-node rack $RACK_NAME (sourced by
# tests/rack/run.sh; helpers in tests/rack/lib.sh).
L=("$FC" lab)
SSH_CFG_DIR=${SSH_CFG%/*}
N=(--name "$RACK_NAME")
read -r NET MCAST < <("${L[@]}" status "${N[@]}" --json | python3 -c \
	'import json, sys; f = json.load(sys.stdin)["fabric"]; print(f["subnet"].rsplit(".", 1)[0], f["segment"])')

# ---- each node: rxe0 on the fabric address, hostname, fabcheck on PATH ------
i=1
for n in nodeA nodeB; do
	expect_json "$n: devices shows rxe0 ACTIVE, RoCE v2 GID ::ffff:$NET.$i, MTU 4096" 0 \
		"d['host'] == '$n' and [x['name'] for x in d['devices']] == ['rxe0'] and
		 [(p['state'], p['gid'], p['gid_type'], p['active_mtu'], p['link_layer']) for p in d['devices'][0]['ports']]
		 == [('ACTIVE', '::ffff:$NET.$i', 'RoCE v2', 4096, 'Ethernet')] and
		 abs(d['devices'][0]['ports'][0]['payload_gbps'] - 2.5 * 4096 / 4178) < 1e-3" \
		-- rexec "$n" fabcheck devices --json
	expect_out "$n: hostname is the node name" "^$n\$" -- rexec "$n" hostname
	expect_out "$n: resolves the nodes to their fabric addresses" "^$NET\.1 +nodeA $NET\.2 +nodeB\$" -- \
		rexec "$n" 'echo $(getent hosts nodeA nodeB)'
	expect_out "$n: eth0 has the fabric address and MTU 9000" "mtu 9000 .*inet $NET\.$i/24" -- \
		rexec "$n" 'echo $(ip -o link show eth0; ip -o -4 addr show eth0)'
	i=$((i + 1))
done
# The rack's bin/fabcheck is first on PATH: a link to $FC (a copy where the
# guests cannot see it, e.g. under /tmp, which is theirs).
expect_out "the guests run the recorded fabcheck" "^$(sha256sum <"$FC" | cut -c1-64) $SSH_CFG_DIR/share/bin/fabcheck\$" -- \
	rexec nodeA 'f=$(command -v fabcheck); echo $(sha256sum <"$f" | cut -c1-64) $f'

# RDMA between the two kernels over the fabric (perftest, the reference).
rexec nodeB 'timeout 30 ib_write_bw -d rxe0 -x 1 -s 65536 -n 50 -F >/tmp/bw.log 2>&1 &'
sleep 1
expect_out "nodeA -> nodeB RDMA WRITE over rxe0 completes" '^ *65536 +50 +[0-9.]+ +[0-9.]*[1-9]' -- \
	rexec nodeA "timeout 30 ib_write_bw -d rxe0 -x 1 -s 65536 -n 50 -F $NET.2"

# ---- status, ssh-config, exec -------------------------------------------------
expect "status lists nodeA" 0 "^nodeA +ready +$NET\.1 " -- "${L[@]}" status "${N[@]}"
expect "status lists nodeB" 0 "^nodeB +ready +$NET\.2 " -- "${L[@]}" status "${N[@]}"
expect_json "status --json: pass, 2 ready nodes, its ssh_config" 0 \
	"d['verdict'] == 'pass' and d['rack'] == '$RACK_NAME' and d['ssh_config'] == '$SSH_CFG' and
	 [(x['name'], x['state'], x['fabric_ip']) for x in d['nodes']] == [('nodeA', 'ready', '$NET.1'), ('nodeB', 'ready', '$NET.2')]
	 and d['fabric']['mtu'] == 9000" -- "${L[@]}" status "${N[@]}" --json
expect "ssh-config prints its path" 0 "^$SSH_CFG\$" -- "${L[@]}" ssh-config "${N[@]}"
expect "ssh_config has nodeA and nodeB" 0 '^2$' -- grep -Ec '^Host node[AB]$' "$SSH_CFG"
for k in 'StrictHostKeyChecking no' 'UserKnownHostsFile /dev/null' 'BatchMode yes' \
	 'IdentityFile /' 'ConnectTimeout [0-9]' 'LogLevel ERROR'; do
	expect "ssh_config: $k" 0 "$k" -- cat "$SSH_CFG"
done
expect "exec runs on the node" 0 '^nodeB$' -- "${L[@]}" exec "${N[@]}" nodeB hostname
expect_rc "exec passes the exit code" 7 -- "${L[@]}" exec "${N[@]}" nodeA 'exit 7'
expect "exec passes stdin" 0 '^piped$' -- bash -c 'echo piped | "$@"' _ "${L[@]}" exec "${N[@]}" nodeA cat

# ---- faults: each seen inside the guest, then cleared -----------------------------
qd() { rexec "$1" tc qdisc show dev "${2:-eth0}"; }
expect "fault loss" 0 'nodeA: eth0 drops 5% ' -- "${L[@]}" fault "${N[@]}" nodeA loss 5
expect_out "loss: netem on nodeA's eth0" 'netem .*loss 5%' -- qd nodeA
expect_out "loss: nodeB untouched" '^qdisc fq_codel' -- qd nodeB
expect "fault rate" 0 'nodeA: eth0 limited to 20 Mbit/s both ways' -- "${L[@]}" fault "${N[@]}" nodeA rate 20
expect_out "rate: tbf under the netem on egress" 'tbf 10: parent 1:1 rate 20Mbit' -- qd nodeA
expect_out "rate: the netem stays" 'netem 1: root .*loss 5%' -- qd nodeA
expect_out "rate: ingress redirected to ifb0" 'mirred.*ifb0' -- rexec nodeA tc filter show dev eth0 ingress
expect_out "rate: tbf on ifb0 (ingress)" 'tbf .*rate 20Mbit' -- qd nodeA ifb0
expect_json "status shows nodeA's faults" 0 \
	"d['nodes'][0]['faults'] == {'loss_pct': 5, 'rate_mbit': 20} and d['nodes'][1]['faults'] == {}" \
	-- "${L[@]}" status "${N[@]}" --json
expect "fault mtu" 0 'nodeA: eth0 MTU 1500' -- "${L[@]}" fault "${N[@]}" nodeA mtu 1500
expect_out "mtu: eth0 at 1500" 'mtu 1500 ' -- rexec nodeA ip -o link show eth0
expect_json "mtu: rxe0 follows (active MTU 1024)" 0 "d['devices'][0]['ports'][0]['active_mtu'] == 1024" \
	-- rexec nodeA fabcheck devices --json
expect "fault down" 0 'nodeA: eth0 is down' -- "${L[@]}" fault "${N[@]}" nodeA down
expect_out "down: eth0 down" 'state DOWN' -- rexec nodeA ip -o link show eth0
expect_out "down: rxe0 port DOWN" 'DOWN' -- rexec nodeA cat /sys/class/infiniband/rxe0/ports/1/state
expect "fault clear" 0 'nodeA: faults cleared' -- "${L[@]}" fault "${N[@]}" nodeA clear
expect_no "clear: no netem, tbf or ingress on eth0" 'netem|tbf|ingress' -- qd nodeA
expect_out "clear: no ifb0" '^none$' -- rexec nodeA 'ip link show ifb0 >/dev/null 2>&1 && echo ifb0 || echo none'
expect_out "clear: eth0 up at the rack's MTU" 'mtu 9000 .*state UP' -- rexec nodeA ip -o link show eth0
expect_json "clear: rxe0 ACTIVE at MTU 4096 again" 0 \
	"[(p['state'], p['active_mtu']) for p in d['devices'][0]['ports']] == [('ACTIVE', 4096)]" \
	-- rexec nodeA fabcheck devices --json
expect_json "clear: status shows no faults" 0 "d['nodes'][0]['faults'] == {}" -- "${L[@]}" status "${N[@]}" --json

# ---- bad input: clear messages, exit 2 (usage) or 3 (cannot run) ------------------
expect "fault: unknown node" 2 "node 'nodeZ' is not in rack '$RACK_NAME'; its nodes are: nodeA nodeB" -- \
	"${L[@]}" fault "${N[@]}" nodeZ loss 5
expect "fault: node beyond the rack" 2 "node 'nodeC' is not in rack" -- "${L[@]}" fault "${N[@]}" nodeC down
expect "fault: unknown kind" 2 "'jitter' is not a fault kind; expected loss, rate, mtu, down, miswire or clear" -- \
	"${L[@]}" fault "${N[@]}" nodeA jitter 5
expect "fault: no kind" 2 'missing the fault kind' -- "${L[@]}" fault "${N[@]}" nodeA
expect "fault: no node" 2 'missing NODE' -- "${L[@]}" fault "${N[@]}"
expect "fault: loss without value" 2 "'loss' needs a value" -- "${L[@]}" fault "${N[@]}" nodeA loss
for v in abc 0 101 -1 5x 1e3; do
	expect "fault: loss '$v'" 2 "lab fault loss: '$v' is not a loss percentage; expected a number above 0 up to 100" -- \
		"${L[@]}" fault "${N[@]}" nodeA loss "$v"
done
for v in 0 1.5 abc 100001; do
	expect "fault: rate '$v'" 2 "lab fault rate: '$v' is not a rate; expected Mbit/s" -- \
		"${L[@]}" fault "${N[@]}" nodeA rate "$v"
done
for v in 100 9001 x; do
	expect "fault: mtu '$v'" 2 "lab fault mtu: '$v' is not a number from 576 to 9000" -- \
		"${L[@]}" fault "${N[@]}" nodeA mtu "$v"
done
expect "fault: down takes no value" 2 "'down' takes no value, got 'now'" -- "${L[@]}" fault "${N[@]}" nodeA down now
expect "fault: extra argument" 2 "unexpected argument '7'" -- "${L[@]}" fault "${N[@]}" nodeA rate 5 7
expect_no "bad faults changed nothing" 'netem|tbf|ingress' -- qd nodeA
for v in 0 99 9 abc -1 ''; do
	expect "up --nodes '$v'" 2 "--nodes: '$v' is not a number from 1 to 8" -- "${L[@]}" up --name ci-bad --nodes "$v"
done
for v in Bad_Name 1rack a/b '' "$(printf 'x%.0s' {1..40})"; do
	expect "up --name '$v'" 2 "--name: '$v' is not a rack name; use 1 to 32 lowercase letters" -- "${L[@]}" up --name "$v"
done
expect "up --mtu 100" 2 "--mtu: '100' is not a number from 576 to 9000" -- "${L[@]}" up --name ci-bad --mtu 100
expect "up --timeout x" 2 "--timeout: 'x' is not a number" -- "${L[@]}" up --name ci-bad --timeout x
expect "up --nodes without value" 2 '--nodes: missing value' -- "${L[@]}" up --nodes
expect "up unknown option" 2 "lab up: unknown option '--frob'" -- "${L[@]}" up --frob
expect "up extra argument" 2 "lab up: unexpected argument 'x'" -- "${L[@]}" up x
expect "second up of the same name is refused" 3 "rack '$RACK_NAME' is already up" -- "${L[@]}" up "${N[@]}"
expect_json "the refused up left the rack running" 0 "d['verdict'] == 'pass'" -- "${L[@]}" status "${N[@]}" --json
expect "exec: unknown node" 2 "node 'nodeQ' is not in rack" -- "${L[@]}" exec "${N[@]}" nodeQ hostname
expect "exec: no command" 2 'missing the command to run on nodeA' -- "${L[@]}" exec "${N[@]}" nodeA
expect "status: unknown option" 2 "lab status: unknown option '--xml'" -- "${L[@]}" status "${N[@]}" --xml
expect "status: extra argument" 2 "lab status: unexpected argument 'x'" -- "${L[@]}" status "${N[@]}" x
expect "status of no rack" 3 "no rack named 'nosuch' is up .*fabcheck lab up --name nosuch" -- "${L[@]}" status --name nosuch
expect_json "status --json of no rack" 3 "d['verdict'] == 'fail' and d['nodes'] == []" -- "${L[@]}" status --name nosuch --json
expect "fault on no rack" 3 "no rack named 'nosuch' is up" -- "${L[@]}" fault --name nosuch nodeA down
expect "ssh-config of no rack" 3 "no rack named 'nosuch' is up" -- "${L[@]}" ssh-config --name nosuch
expect "unknown lab command" 2 "'frob' is not a lab command" -- "${L[@]}" frob
expect "lab home with a comma" 2 "FABCHECK_LAB_HOME: .* contains a space or a comma" -- \
	env FABCHECK_LAB_HOME=/tmp/a,b "${L[@]}" status
expect "FABCHECK_BIN not executable" 2 "FABCHECK_BIN: '/nonexistent' is not an executable file" -- \
	env FABCHECK_BIN=/nonexistent "${L[@]}" up --name ci-bad-$$
expect_rack_gone ci-bad-$$

# ---- a second rack beside the first ---------------------------------------------
R2=$RACK_NAME-b
RACKS+=("$R2")
if rack_up "$R2" --nodes 1 --mtu 1500; then
	expect_json "second rack: its own segment and subnet" 0 \
		"d['fabric']['segment'] != '$MCAST' and d['fabric']['transport'] == 'mcast' and not d['fabric']['subnet'].startswith('$NET.') and d['fabric']['mtu'] == 1500" \
		-- "${L[@]}" status --name "$R2" --json
	expect_json "second rack: rxe0 at MTU 1024 (fabric MTU 1500)" 0 \
		"d['host'] == 'nodeA' and d['devices'][0]['ports'][0]['active_mtu'] == 1024" \
		-- "${L[@]}" exec --name "$R2" nodeA fabcheck devices --json
	expect_out "first rack still answers" '^nodeB$' -- rexec nodeB hostname
fi
expect "second rack down" 0 "rack '$R2' is down" -- "${L[@]}" down --name "$R2"
expect_rack_gone "$R2"
