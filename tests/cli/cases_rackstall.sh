# Cases for the rack tests' verdict that the emulator's NIC stalled
# (tests/rack/stall.sh nic_stalled), on the figures a node gives: the try's
# exit code, eth0's operstate, tx_packets before and after, its qdisc's Sent
# packets before and after, and its serial log's NETDEV WATCHDOG line. The
# stalled figures were read off nodeA of a fresh-clone make check whose
# fabric NIC stopped sending in cases_diag.sh (tx_packets 218617 throughout,
# the qdisc's Sent 43 then 46, a 4 s connect to nodeB's sshd timing out).
stall_says() { bash -c '. tests/rack/stall.sh; if nic_stalled "$@"; then echo stalled; else echo "not stalled"; fi' _ "$@"; }
WD='[  574.129349] virtio_net virtio4 eth0: NETDEV WATCHDOG: CPU: 0: transmit queue 0 timed out 5072 ms'
expect "stall: the recorded nodeA, packets handed and none completed" 0 '^stalled$' -- \
	stall_says 124 up 218617 218617 43 46 ""
expect "stall: its ring full, the qdisc holding them, the watchdog's line" 0 '^stalled$' -- \
	stall_says 124 up 218617 218617 46 46 "$WD"
expect "stall: not when the try succeeded" 0 '^not stalled$' -- \
	stall_says 0 up 218617 218617 43 46 "$WD"
expect "stall: not with the link down (a lab fault)" 0 '^not stalled$' -- \
	stall_says 1 down 5000 5000 43 46 ""
expect "stall: not when the qdisc drops all (netem loss 100%)" 0 '^not stalled$' -- \
	stall_says 124 up 5000 5000 43 43 ""
expect "stall: not when our NIC sends and the peer is silent" 0 '^not stalled$' -- \
	stall_says 124 up 5000 5003 43 46 ""
expect "stall: not on figures that are not numbers" 0 '^not stalled$' -- \
	stall_says 124 up "" "" x y ""
