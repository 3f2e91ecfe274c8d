#!/bin/busybox sh
# lab/initramfs-init.sh: /init of a rack node's initramfs (busybox sh), stage 1.
# Loads the modules, mounts the host's root (read-only) and the rack's share,
# then hands over to stage 2 (guest.sh on the share) chrooted into the host root.
# Parameters come on the kernel command line: fc.node fc.share fc.cache (9p
# cache mode of the host root) fc.bindir (and more that stage 2 reads).
/bin/busybox mkdir -p /proc /sys /dev /bin
/bin/busybox mount -t devtmpfs dev /dev
exec 0</dev/console 1>/dev/console 2>&1
/bin/busybox --install -s /bin
export PATH=/bin

mount -t proc proc /proc
mount -t sysfs sys /sys

node=
share=
cache=none
bindir=
for w in $(cat /proc/cmdline); do
	case $w in
	fc.node=*) node=${w#*=} ;;
	fc.share=*) share=${w#*=} ;;
	fc.cache=*) cache=${w#*=} ;;
	fc.bindir=*) bindir=${w#*=} ;;
	esac
done
say() { echo "fabcheck-init: ${node:-node}: [$(cut -d' ' -f1 /proc/uptime) s] $*"; }
failed() {
	say "FAILED: $*"
	if mountpoint -q "/newroot$share"; then
		echo "failed: $*" >"/newroot$share/state/$node"
	fi
	echo o >/proc/sysrq-trigger
	sleep 10
}

for m in $(cat /etc/modules.order); do
	insmod "/lib/mod/$m" || failed "cannot load module $m"
done

r=/newroot
mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144,cache=$cache,ro host $r ||
	failed "cannot mount the host's root (virtfs tag 'host')"
mount -t proc proc $r/proc
mount -t sysfs sys $r/sys
mount -t devtmpfs dev $r/dev
mkdir -p $r/dev/pts $r/dev/shm
mount -t devpts -o gid=5,mode=620,ptmxmode=666 devpts $r/dev/pts
mount -t tmpfs -o mode=1777 shm $r/dev/shm
mount -t tmpfs -o mode=1777 tmp $r/tmp
mount -t tmpfs -o mode=755 run $r/run
[ -d $r/var/tmp ] && mount -t tmpfs -o mode=1777 vartmp $r/var/tmp
# The folder of the fabcheck binary without cache, so a rebuild shows at once.
if [ -n "$bindir" ]; then
	mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144,cache=none,ro fcbin "$r$bindir" ||
		failed "cannot mount the fabcheck binary's folder (virtfs tag 'fcbin') on $bindir"
fi
# The share sits at the same path as on the host. Under /tmp (now a tmpfs)
# its folder must be made first; elsewhere it is already there, read-only.
mkdir -p "$r$share" 2>/dev/null
mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144 share "$r$share" ||
	failed "cannot mount the rack's share (virtfs tag 'share') on $share"
[ -f "$r$share/guest.sh" ] || failed "the share has no guest.sh"
echo "kernel" >"$r$share/state/$node"
say "stage 1 done, starting $share/guest.sh"
exec chroot $r /bin/bash "$share/guest.sh"
