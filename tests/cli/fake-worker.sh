#!/usr/bin/env bash
# A worker that misbehaves on purpose, for the controller's CLI tests.
# FAKE_MODE picks how: garbage, version, order, big, type, die, hang, noise,
# error, slow, evil. Started by `fabcheck pair --launcher local --worker-cmd
# THIS`. `devices --json`: the recorded port list FAKE_DEVICES names (evil:
# one port named EVIL_DEV).
if [ "${1:-}" = devices ] && [ "${FAKE_MODE:-}" = evil ]; then
	printf '{"devices":[{"name":"%s","ports":[{"device":"%s","port":1,"state":"ACTIVE","link_layer":"Ethernet","netdev":"%s","subnet":"10.0.0.0/24"}]}]}\n' \
		"$EVIL_DEV" "$EVIL_DEV" "${EVIL_NETDEV:-eth0}"
	exit 0
fi
if [ "${1:-}" = devices ]; then
	# Under the stand-in srun each node may list its own ports:
	# FAKE_DEVICES_DIR/NODE.json (NODE from SLURMD_NODENAME, a plain name).
	case ${SLURMD_NODENAME:-} in
	*[!A-Za-z0-9_-]* | '') ;;
	*) [ -n "${FAKE_DEVICES_DIR:-}" ] && [ -f "$FAKE_DEVICES_DIR/$SLURMD_NODENAME.json" ] &&
		exec cat "$FAKE_DEVICES_DIR/$SLURMD_NODENAME.json" ;;
	esac
	cat "${FAKE_DEVICES:-/dev/null}"
	exit 0
fi
read -r _hello || exit 0

# shellcheck source=tests/cli/worker_lib.sh
. "$(dirname "$0")/worker_lib.sh"
# slow: speaks the protocol; the first test finishes at 0.5 Gb/s, the second
# moves 10 messages a second and never ends (a slow link), pings answered.
slow() {
	say '"hello","version":"0","host":"fake","pid":1'
	next setup || exit 1
	say '"setup","device":"fake0","port":1,"link_layer":"Ethernet","mtu":4096,"rate_gbps":2.5,"memory":"host"'
	next connect || exit 1
	say '"connected","path_mtu":4096'
	local n=0 done=0
	while next test; do
		n=$((n + 1))
		t=$msg
		say '"ready"'
		next go || exit 1
		case $t in *'"active":true'*) ;; *) say '"result","seconds":1,"bytes":0,"msgs":0'; continue ;; esac
		if [ $n -eq 1 ]; then
			say '"result","seconds":1,"bytes":62500000,"msgs":60,"gbps":0.5,"samples_gbps":[0.5]'
			continue
		fi
		[ -n "${FAKE_MARK:-}" ] && : >"$FAKE_MARK" # the second test is under way
		while :; do
			done=$((done + 2))
			say "\"progress\",\"done\":$done"
			read -r -t 0.2 _ping
			rc=$?
			[ $rc -eq 0 ] || [ $rc -gt 128 ] || exit 0 # the controller closed
		done
	done
	exit 0
}
# evil: a compromised node's worker. It speaks the protocol but names its
# port EVIL_DEV (a traversal, a padded name), sends evidence with a file
# EVIL_FILE, then fails the first test.
evil() {
	say '"hello","version":"0","host":"evil","pid":1'
	next setup || exit 1
	say "\"evidence\",\"phase\":\"before\",\"files\":{\"${EVIL_FILE:-counters/symbol_error}\":\"ProxyCommand evil\\n\"}"
	say "\"setup\",\"device\":\"$EVIL_DEV\",\"port\":1,\"link_layer\":\"Ethernet\",\"mtu\":4096,\"rate_gbps\":2.5,\"memory\":\"host\",\"netdev\":\"${EVIL_NETDEV:-eth0}\""
	next connect || exit 1
	say '"connected","path_mtu":4096'
	next test || exit 1
	say '"error","kind":"cant","msg":"the evil worker stops here"'
}
case "${FAKE_MODE:-garbage}" in
slow) slow ;;
evil) evil ;;
garbage) echo "Welcome to the node! (motd)" ;;
version) echo '{"v":99,"seq":1,"type":"hello","version":"9.9"}' ;;
order) echo '{"v":1,"seq":4,"type":"hello"}' ;;
big) head -c 70000 /dev/zero | tr '\0' x; echo ;;
type) echo '{"v":1,"seq":1,"type":"result"}' ;;
die) printf "%b\n" "${FAKE_STDERR:-worker: something broke}" >&2; exit 5 ;;
hang) sleep 30 ;;
noise) echo "bash: warning: setlocale: LC_ALL: cannot change locale" >&2
	echo '{"v":1,"seq":1,"type":"hello","version":"0","host":"x","pid":1}'
	read -r _setup
	# As the worker says it (ctl/worker.c): no RDMA device is the node's
	# fault, kind "node" (pair exit 3, its rail "fail" under --rails).
	# FAKE_KIND=fail: a data path failure (pair exit 1, judged); "cant":
	# the worker could not run (store.h fc_pair_end_judged)
	echo '{"v":1,"seq":2,"type":"error","kind":"'"${FAKE_KIND:-node}"'","msg":"no RDMA device found: fake"}' ;;
esac
sleep 1
