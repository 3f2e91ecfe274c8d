# lab/guest.sh: stage 2 of a rack node, run by bash as PID 1 inside the guest,
# chrooted into the host's root (read-only; /tmp, /run are tmpfs). Copied onto
# the rack's share by 'fabcheck lab up'. Brings up the fabric NICs (eth0, and
# eth2... with --rails), a Soft-RoCE device on each (rxe0, rxe1...), the management NIC (eth1) and sshd, writing its
# progress to <share>/state/<node>: kernel -> rdma -> ready (or "failed: why").
set -u
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
node= ip= mtu= share= mac= prefix=24 rails=1 addressing=subnet ipv6=0 nodes=1 index=0
storip= stormac=
for w in $(cat /proc/cmdline); do
	case $w in
	fc.node=*) node=${w#*=} ;;
	fc.ip=*) ip=${w#*=} ;;
	fc.mtu=*) mtu=${w#*=} ;;
	fc.share=*) share=${w#*=} ;;
	fc.mac=*) mac=${w#*=} ;;
	fc.rails=*) rails=${w#*=} ;;
	fc.addressing=routed) addressing=routed prefix=31 ;;
	fc.ipv6=1) ipv6=1 ;;
	fc.nodes=*) nodes=${w#*=} ;;
	fc.index=*) index=${w#*=} ;;
	fc.storip=*) storip=${w#*=} ;;
	fc.stormac=*) stormac=${w#*=} ;;
	fc.ip[1-9]=* | fc.mac[1-9]=*) k=${w%%=*}; eval "${k#fc.}=\${w#*=}" ;;
	esac
done

[[ $rails =~ ^[1-9]$ ]] || rails=1
[[ $nodes =~ ^[0-9]+$ ]] || nodes=1

say() { echo "fabcheck-guest: $node: [$(cut -d' ' -f1 /proc/uptime) s] $*" >/dev/console; }
state() {
	echo "$1" >"$share/state/$node.new" && mv -f "$share/state/$node.new" "$share/state/$node"
	say "$1"
}
failed() {
	state "failed: $*"
	echo o >/proc/sysrq-trigger
	sleep 10
}
# wait_for SECONDS CMD...: polls CMD every 0.1 s until it succeeds.
wait_for() {
	local n=$(($1 * 10))
	shift
	while ! "$@" 2>/dev/null; do
		n=$((n - 1))
		[ $n -le 0 ] && return 1
		sleep 0.1
	done
}
port_active() { grep -q ACTIVE "/sys/class/infiniband/$1/ports/1/state"; }

# fabric_up DEV IP MAC RXE: one rail's NIC, its address and its rxe device.
fabric_up() {
	[ "$(cat "/sys/class/net/$1/address" 2>/dev/null)" = "$3" ] ||
		failed "$1 is not a fabric NIC (expected MAC $3, found $(cat "/sys/class/net/$1/address" 2>/dev/null))"
	ip link set "$1" mtu "$mtu" || failed "cannot set MTU $mtu on $1"
	local net=${2%.*} host=${2##*.} plen=$prefix hlen=32 j
	if [ "$ipv6" = 1 ]; then # IPv6 only: fd00:A:B:C::D, no IPv4 (nodad: no wait)
		net=fd00:${net//./:}: plen=$((prefix == 31 ? 127 : 64)) hlen=128
		ip addr add "$net:$host/$plen" dev "$1" nodad || failed "cannot add $net:$host/$plen to $1"
	else
		net+=. && ip addr add "$2/$prefix" dev "$1" || failed "cannot add $2/$prefix to $1"
	fi
	ip link set "$1" up || failed "cannot bring $1 up"
	# Routed (a /31 or /127 per port): the other nodes' ports on this segment
	# are on-link host routes, so traffic flows while every subnet differs.
	if [ "$addressing" = routed ]; then
		for ((j = 0; j < nodes; j++)); do
			[ "$j" = "$index" ] && continue
			ip route add "$net$([ "$ipv6" = 1 ] && echo :)$((2 * j + 1))/$hlen" dev "$1" ||
				failed "cannot add a route to node $j's port on $1"
		done
	fi
}

hostname "$node" || failed "cannot set the hostname"
# The nodes know each other by name, on their fabric addresses.
{ cat /etc/hosts; cat "$share/hosts"; } >/run/hosts 2>/dev/null &&
	mount --bind /run/hosts /etc/hosts || failed "cannot add the rack's nodes to /etc/hosts"
ip link set lo up

# Rail 0's NIC is the first NIC (PCI slot 0x10, eth1 is 0x11, the management
# NIC); rail R's is slot 0x11+R, eth(R+1). Each MAC is checked.
fabric_up eth0 "$ip" "$mac"
for ((r = 1; r < rails; r++)); do
	eval "rip=\${ip$r:-} rmac=\${mac$r:-}"
	[ -n "$rip" ] && [ -n "$rmac" ] || failed "no address or MAC for rail $r on the kernel command line"
	fabric_up "eth$((r + 1))" "$rip" "$rmac"
done
# The storage NIC (--storage-nic): found by its MAC, its own subnet.
if [ -n "$stormac" ]; then
	sdev=
	for f in /sys/class/net/*/address; do
		[ "$(cat "$f")" = "$stormac" ] && sdev=$(basename "$(dirname "$f")")
	done
	[ -n "$sdev" ] || failed "no NIC with the storage MAC $stormac"
	ip link set "$sdev" mtu "$mtu" && ip addr add "$storip/24" dev "$sdev" && ip link set "$sdev" up ||
		failed "cannot set up the storage NIC $sdev"
fi
ip addr add 10.0.2.15/24 dev eth1 && ip link set eth1 up &&
	ip route add default via 10.0.2.2 dev eth1 || failed "cannot set up the management NIC eth1"

for ((r = 0; r < rails; r++)); do
	dev=eth0
	[ $r -gt 0 ] && dev=eth$((r + 1))
	rdma link add "rxe$r" type rxe netdev "$dev" ||
		failed "rdma link add rxe$r type rxe netdev $dev failed (see the kernel messages above)"
done
if [ -n "$stormac" ]; then
	rdma link add "rxe$rails" type rxe netdev "$sdev" ||
		failed "rdma link add rxe$rails type rxe netdev $sdev failed (the storage NIC)"
fi
for ((r = 0; r < rails + (${#stormac} > 0); r++)); do
	wait_for 20 port_active "rxe$r" || failed "rxe$r port 1 did not become ACTIVE in 20 s"
done
state rdma

mkdir -p /run/sshd /run/home && chmod 755 /run/sshd
# ssh sessions get HOME=/run/home (sshd_config); a login shell's /etc/profile
# resets PATH, so put the rack's bin/ (fabcheck) back in front.
printf 'PATH=%s/bin:$PATH\nexport PATH\n' "$share" >/run/home/.bash_profile
cp /run/home/.bash_profile /run/home/.profile
# -r: no re-exec of sshd for each connection (seconds under emulation);
# an OpenSSH that no longer knows it gets the plain command.
/usr/sbin/sshd -r -f "$share/sshd_config" -E /tmp/sshd.log ||
	/usr/sbin/sshd -f "$share/sshd_config" -E /tmp/sshd.log ||
	failed "sshd did not start: $(tail -n 3 /tmp/sshd.log 2>/dev/null)"
state ready

# PID 1 from here on: bash reaps every child that comes to it (waitpid(-1)),
# so orphaned processes of ssh sessions do not pile up as zombies.
trap '' TERM INT HUP
while :; do
	sleep 3600 &
	wait $!
done
