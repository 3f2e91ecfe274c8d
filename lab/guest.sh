# lab/guest.sh: stage 2 of a rack node, run by bash as PID 1 inside the guest,
# chrooted into the host's root (read-only; /tmp, /run are tmpfs). Copied onto
# the rack's share by 'fabcheck lab up'. Brings up the fabric NIC (eth0), the
# Soft-RoCE device rxe0 on it, the management NIC (eth1) and sshd, writing its
# progress to <share>/state/<node>: kernel -> rdma -> ready (or "failed: why").
set -u
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
node= ip= mtu= share= mac= prefix=24
for w in $(cat /proc/cmdline); do
	case $w in
	fc.node=*) node=${w#*=} ;;
	fc.ip=*) ip=${w#*=} ;;
	fc.mtu=*) mtu=${w#*=} ;;
	fc.share=*) share=${w#*=} ;;
	fc.mac=*) mac=${w#*=} ;;
	esac
done

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
port_active() { grep -q ACTIVE /sys/class/infiniband/rxe0/ports/1/state; }

hostname "$node" || failed "cannot set the hostname"
# The nodes know each other by name, on their fabric addresses.
{ cat /etc/hosts; cat "$share/hosts"; } >/run/hosts 2>/dev/null &&
	mount --bind /run/hosts /etc/hosts || failed "cannot add the rack's nodes to /etc/hosts"
ip link set lo up

# The fabric NIC is the first NIC (PCI slot 0x10, eth1 is 0x11); check its MAC.
[ "$(cat /sys/class/net/eth0/address 2>/dev/null)" = "$mac" ] ||
	failed "eth0 is not the fabric NIC (expected MAC $mac, found $(cat /sys/class/net/eth0/address 2>/dev/null))"
ip link set eth0 mtu "$mtu" || failed "cannot set MTU $mtu on eth0"
ip addr add "$ip/$prefix" dev eth0 || failed "cannot add $ip/$prefix to eth0"
ip link set eth0 up || failed "cannot bring eth0 up"
ip addr add 10.0.2.15/24 dev eth1 && ip link set eth1 up &&
	ip route add default via 10.0.2.2 dev eth1 || failed "cannot set up the management NIC eth1"

rdma link add rxe0 type rxe netdev eth0 || failed "rdma link add rxe0 type rxe netdev eth0 failed (see the kernel messages above)"
wait_for 20 port_active || failed "rxe0 port 1 did not become ACTIVE in 20 s"
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
