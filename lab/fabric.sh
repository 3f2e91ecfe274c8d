# lab/fabric.sh: the rack's fabric segments (rail 0, rails after it, the
# storage NIC's), as the QEMU guests' NICs reach each other. Sourced by rack.sh.
#
# Two transports, chosen at 'lab up' (FABCHECK_LAB_FABRIC=bridge|mcast):
#   mcast   QEMU's "-netdev socket,mcast=": every frame to a UDP multicast group
#           that every guest of the segment joins; needs no privilege. The
#           default: every rack case was written and tuned on it.
#   bridge  a Linux bridge per segment on the host (fcb<SLOT>-<SEG>) and a tap
#           per node's NIC (fct<SLOT>-<SEG>-<NODE>), QEMU's "-netdev tap". Needs
#           root (CAP_NET_ADMIN) and /dev/net/tun.
# Measured on the 2-core test host (QEMU 7.2, Debian 12, 2026-12-06):
#   * throughput: 'lab calibrate' (nodeA-nodeB, rxe0, 2 s) moved 0.35 Gb/s over
#     the bridge against 0.044 Gb/s over the multicast socket, the same rack and
#     kernel: each multicast frame is copied to every guest of the segment and
#     dropped by all but one, and crosses two UDP sockets, whose receive queues
#     overflowed (/proc/net/udp: 148184 and 119596 drops on two guests' sockets
#     after one calibration), losses Soft-RoCE then retransmits;
#   * yet the rack stage took as long (1231 s against 1256 s): its time is
#     commands and fixed durations in the guests, not bytes;
#   * and on the bridge one rack case failed once in three whole runs: matrix
#     --rails with one node's rail 1 at 5 Mbit/s also named that node's rail-0
#     link to a peer (0.0385 Gb/s, 21% of its rail's median 0.182): the rails
#     of a Soft-RoCE guest share its one vCPU, and at the bridge's speed the
#     slowed rail's retransmissions took enough of it to fail the other rail.
#     Not the default until the rack's cases hold on it.

FABRIC_TAP_PREFIX=fct
FABRIC_BR_PREFIX=fcb

# fabric_segments: the segments of this rack: 0..RAILS-1, and the storage one.
fabric_segments() {
	seq 0 $((RACK_RAILS - 1))
	[ -n "${RACK_STORAGE:-}" ] && echo "$STORAGE_SEG"
	return 0
}

fabric_br() { echo "$FABRIC_BR_PREFIX$RACK_SLOT-$1"; }     # fabric_br SEG
fabric_tap() { echo "$FABRIC_TAP_PREFIX$RACK_SLOT-$1-$2"; } # fabric_tap SEG NODE

# fabric_slot_used S UDP: whether slot S's segments are taken by another rack, by
# either transport (its UDP port among UDP, the bound sockets' local addresses
# the caller listed once with ss, or its bridge present).
fabric_slot_used() {
	local s=$1 udp=$2 seg
	for seg in $(fabric_segments); do
		grep -q ":$((LAB_MCAST_BASE + s + 500 * seg))\$" <<<"$udp" && return 0
		[ -e "/sys/class/net/$FABRIC_BR_PREFIX$s-$seg" ] && return 0
	done
	return 1
}

# fabric_bridge_possible: root, the tun device, and the ip tool.
fabric_bridge_possible() {
	[ "$(id -u)" = 0 ] && [ -c /dev/net/tun ] && [ -w /dev/net/tun ] && command -v ip >/dev/null
}

# fabric_choose: sets RACK_FABRIC for 'lab up' (before the slot is chosen).
fabric_choose() {
	case ${FABCHECK_LAB_FABRIC:-} in
	mcast) RACK_FABRIC=mcast ;;
	bridge)
		fabric_bridge_possible ||
			die_cant "FABCHECK_LAB_FABRIC=bridge: a bridged fabric needs root and /dev/net/tun; run as root, or unset it (the multicast fabric needs neither)"
		RACK_FABRIC=bridge ;;
	"") RACK_FABRIC=mcast ;;
	*) die_usage "FABCHECK_LAB_FABRIC: '$FABCHECK_LAB_FABRIC' is not a fabric; expected bridge or mcast (or unset it)" ;;
	esac
}

# fabric_link_add_bridge SEG: the segment's bridge, up, at the rack's largest
# MTU, no STP (no forwarding delay), no IPv6 of its own (it would talk on the
# segment: router solicitations, MLD).
fabric_link_add_bridge() {
	local br
	br=$(fabric_br "$1")
	ip link add "$br" type bridge stp_state 0 forward_delay 0 2>/dev/null || return 1
	[ -w "/proc/sys/net/ipv6/conf/$br/disable_ipv6" ] && echo 1 >"/proc/sys/net/ipv6/conf/$br/disable_ipv6"
	ip link set "$br" mtu "$LAB_MTU_MAX" up
}

# fabric_link_add_tap SEG NODE: node NODE's tap on the segment's bridge.
fabric_link_add_tap() {
	local tap br
	tap=$(fabric_tap "$1" "$2")
	br=$(fabric_br "$1")
	ip tuntap add "$tap" mode tap 2>/dev/null || return 1
	[ -w "/proc/sys/net/ipv6/conf/$tap/disable_ipv6" ] && echo 1 >"/proc/sys/net/ipv6/conf/$tap/disable_ipv6"
	ip link set "$tap" mtu "$LAB_MTU_MAX" master "$br" up
}

# fabric_up: the bridges and taps of a bridged rack. On failure with the
# transport not forced, the rack falls back to the multicast fabric, said.
fabric_up() {
	local seg i err=""
	[ "$RACK_FABRIC" = bridge ] || return 0
	for seg in $(fabric_segments); do
		fabric_link_add_bridge "$seg" || { err="cannot create the bridge $(fabric_br "$seg")"; break; }
		for ((i = 0; i < RACK_NODES; i++)); do
			fabric_link_add_tap "$seg" "$i" || { err="cannot create the tap $(fabric_tap "$seg" "$i")"; break 2; }
		done
	done
	[ -z "$err" ] && return 0
	fabric_down
	[ "${FABCHECK_LAB_FABRIC:-}" = bridge ] && die_cant "FABCHECK_LAB_FABRIC=bridge: $err; check 'ip link' for a leftover of that name, or unset it"
	warn "$err; the rack's fabric is QEMU's multicast socket instead (slower: see lab/fabric.sh)"
	RACK_FABRIC=mcast
}

# fabric_down: a bridged rack's taps and bridges, whatever is left of them.
fabric_down() {
	local l
	[ "${RACK_FABRIC:-mcast}" = bridge ] || return 0
	[ -n "${RACK_SLOT:-}" ] || return 0
	for l in /sys/class/net/"$FABRIC_TAP_PREFIX$RACK_SLOT"-* /sys/class/net/"$FABRIC_BR_PREFIX$RACK_SLOT"-*; do
		[ -e "$l" ] && ip link del "${l##*/}" 2>/dev/null
	done
	return 0
}

# fabric_netdev ID SEG NODE: QEMU's -netdev value for node NODE on segment SEG.
fabric_netdev() {
	if [ "$RACK_FABRIC" = bridge ]; then
		echo "tap,id=$1,ifname=$(fabric_tap "$2" "$3"),script=no,downscript=no"
	else
		echo "socket,id=$1,mcast=$(rail_mcast "$2"),localaddr=127.0.0.1"
	fi
}

# fabric_segment SEG: the segment as 'lab status' names it.
fabric_segment() {
	if [ "${RACK_FABRIC:-mcast}" = bridge ]; then fabric_br "$1"; else rail_mcast "$1"; fi
}
