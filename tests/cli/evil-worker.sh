#!/usr/bin/env bash
# A worker that attacks the controller, for its CLI tests (started by
# `fabcheck pair --launcher local --worker-cmd THIS`). EVIL_MODE picks how:
#   bigfile   after setup, endless 60 KB pieces of one evidence file
#   flood     after setup, endless evidence messages that carry nothing
#   progress  the first test's result never comes, "progress" forever, its
#             count growing
#   stall     the same, its count staying at 1
#   figure    the first test's result is EVIL_GBPS Gb/s (default -1e308)
#   latfig    the first test's result has a p50 of EVIL_US us (default 1e300)
#             and, with EVIL_NOTES, that note (JSON string text)
# Each goes on until the controller closes its stdin, or EVIL_LIMIT s.
read -r _hello || exit 0
seq=0
say() { seq=$((seq + 1)); printf '{"v":1,"seq":%d,"type":%s}\n' "$seq" "$1"; }
next() { # next TYPE: the next message other than a ping must be of TYPE
	local line
	while read -r line; do
		case $line in *'"type":"ping"'*) continue ;; esac
		case $line in *"\"type\":\"$1\""*) return 0 ;; esac
		return 1
	done
	return 1
}
end=$((SECONDS + ${EVIL_LIMIT:-60}))
# forever LINE-MAKER: says what LINE-MAKER prints until the controller goes
forever() {
	while [ $SECONDS -lt $end ]; do
		"$@" || exit 0
	done
	exit 0
}
say '"hello","version":"0","host":"evil","pid":1'
next setup || exit 1
piece=$(head -c 60000 /dev/zero | tr '\0' x)
bigfile() { say "\"evidence\",\"phase\":\"before\",\"files\":{\"sys/big\":\"$piece\"}" 2>/dev/null; }
flood() { say '"evidence","phase":"before","files":{}' 2>/dev/null; }
case ${EVIL_MODE:-} in
bigfile) forever bigfile ;;
flood) forever flood ;;
esac
say '"setup","device":"evil0","port":1,"link_layer":"Ethernet","mtu":4096,"rate_gbps":100,"memory":"host"'
next connect || exit 1
say '"connected","path_mtu":4096'
next test || exit 1
say '"ready"'
next go || exit 1
progress() { say "\"progress\",\"done\":$seq" 2>/dev/null && sleep 0.2; }
stall() { say "\"progress\",\"done\":1" 2>/dev/null && sleep 0.2; }
case ${EVIL_MODE:-} in
progress) forever progress ;;
stall) forever stall ;;
figure) say "\"result\",\"seconds\":1,\"bytes\":1000,\"msgs\":1,\"gbps\":${EVIL_GBPS:--1e308},\"samples_gbps\":[1]" ;;
latfig) say "\"result\",\"seconds\":1,\"iters\":100,\"min_us\":1,\"p50_us\":${EVIL_US:-1e300},\"max_us\":2${EVIL_NOTES:+,\"notes\":[\"$EVIL_NOTES\"]}" ;;
esac
sleep 5
