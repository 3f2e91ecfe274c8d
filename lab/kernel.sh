# lab/kernel.sh: the guests' kernel (Debian's own) and a busybox initramfs that
# loads the modules the rack needs. Built once under $LAB_HOME/kernel/<version>
# and rebuilt only when an input changes (kernel version, module list, the
# initramfs init, busybox). Sourced by rack.sh.

# The kernel cannot load modules on demand in the guests (the shared host root
# has no /lib/modules/<guest kernel>), so the initramfs loads them all up front.
# crc32_generic: without it rdma_rxe fails ("failed to init crc32 algorithm").
LAB_MODULES=(crc32_generic virtio_pci virtio_net virtio_rng 9pnet_virtio 9p
	rdma_rxe rdma_ucm ib_uverbs
	sch_netem sch_tbf ifb sch_ingress cls_matchall act_mirred
	veth dummy 8021q)
# Without these there is no rack; the others are skipped (with a warning)
# by a kernel that lacks them or builds them in.
LAB_MODULES_NEEDED=" virtio_pci virtio_net 9pnet_virtio 9p rdma_rxe ib_uverbs "
LAB_INITRD_RECIPE=2	# bump when the way the initramfs is assembled changes

kernel_apt_version() {
	apt-cache depends linux-image-amd64 2>/dev/null |
		sed -n 's/^ *Depends: *linux-image-\([0-9][^ ]*-amd64\)$/\1/p' | head -n 1
}

# kernel_resolve: sets KERNEL_VER (e.g. 6.1.0-57-amd64).
kernel_resolve() {
	local cached
	if [ -n "${FABCHECK_LAB_KERNEL:-}" ]; then
		[[ $FABCHECK_LAB_KERNEL =~ ^[0-9][0-9a-z.+~-]*-amd64$ ]] ||
			die_usage "FABCHECK_LAB_KERNEL: '$FABCHECK_LAB_KERNEL' is not a Debian kernel version; expected the form 6.1.0-57-amd64"
		KERNEL_VER=$FABCHECK_LAB_KERNEL
		return 0
	fi
	# apt-cache takes seconds on a busy machine: its answer is kept a day.
	local memo=$LAB_HOME/kernel/resolved
	if [ -n "$(find "$memo" -mmin -1440 2>/dev/null)" ]; then
		KERNEL_VER=$(cat "$memo")
		[[ $KERNEL_VER =~ ^[0-9][0-9a-z.+~-]*-amd64$ ]] && return 0
	fi
	KERNEL_VER=$(kernel_apt_version)
	# No package lists yet (a fresh machine): fetch them once, as root.
	if [ -z "$KERNEL_VER" ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
		note "apt-cache knows no linux-image-amd64; running apt-get update"
		apt-get update -qq >/dev/null 2>&1
		KERNEL_VER=$(kernel_apt_version)
	fi
	if [ -n "$KERNEL_VER" ]; then
		mkdir -p "$LAB_HOME/kernel" && echo "$KERNEL_VER" >"$memo"
		return 0
	fi
	# Offline, or no package lists: use the newest kernel already cached.
	cached=$(ls -d "$LAB_HOME"/kernel/*-amd64 2>/dev/null | sort -V | tail -n 1)
	if [ -n "$cached" ] && [ -f "$cached/vmlinuz" ]; then
		KERNEL_VER=${cached##*/}
		warn "apt-cache cannot resolve linux-image-amd64; using the cached kernel $KERNEL_VER"
		return 0
	fi
	die_cant "cannot resolve the guest kernel: 'apt-cache depends linux-image-amd64' names no linux-image; run 'apt-get update' (Debian's package lists are needed), or set FABCHECK_LAB_KERNEL=<version>-amd64"
}

# kernel_fetch KDIR: downloads linux-image-$KERNEL_VER into KDIR once.
kernel_fetch() {
	local kdir=$1 tmp
	[ -f "$kdir/linux-image.deb" ] && [ -f "$kdir/vmlinuz" ] && return 0
	note "downloading Debian's linux-image-$KERNEL_VER for the guests (about 70 MB, once)"
	mkdir -p "$kdir"
	tmp=$(mktemp -d "$kdir/.fetch.XXXXXX")
	if ! (cd "$tmp" && apt-get download -q "linux-image-$KERNEL_VER") >"$tmp/log" 2>&1; then
		sed 's/^/    /' "$tmp/log" | tail -n 5 >&2
		rm -rf "$tmp"
		die_cant "cannot download linux-image-$KERNEL_VER with apt-get; check the apt sources and the network, or run 'apt-get update'"
	fi
	mkdir "$tmp/root"
	if ! dpkg-deb -x "$tmp"/linux-image-*.deb "$tmp/root" ||
	   [ ! -f "$tmp/root/boot/vmlinuz-$KERNEL_VER" ]; then
		rm -rf "$tmp"
		die_cant "linux-image-$KERNEL_VER did not unpack to boot/vmlinuz-$KERNEL_VER; remove $kdir and retry"
	fi
	mv "$tmp/root/boot/vmlinuz-$KERNEL_VER" "$kdir/vmlinuz"
	mv "$tmp"/linux-image-*.deb "$kdir/linux-image.deb"
	rm -rf "$tmp"
}

# initrd_stamp: a hash of everything the initramfs is made from.
initrd_stamp() {
	{
		echo "recipe $LAB_INITRD_RECIPE kernel $KERNEL_VER"
		echo "modules ${LAB_MODULES[*]}"
		sha256sum "$LAB_DIR/initramfs-init.sh" "$(command -v busybox)"
	} | sha256sum | cut -c1-16
}

# modules_closure MODROOT: prints the .ko paths (relative to MODROOT) of
# LAB_MODULES and everything they depend on, dependencies first.
modules_closure() {
	local dir=$1 line path name
	declare -A path_of=() deps_of=() done_=()
	while IFS= read -r line; do
		path=${line%%:*}
		name=${path##*/}
		name=${name%%.ko*}
		name=${name//-/_}
		path_of[$name]=$path
		deps_of[$name]=${line#*:}
	done <"$dir/modules.dep"
	_visit() {
		local m=$1 d dn
		[ -n "${done_[$m]:-}" ] && return 0
		done_[$m]=1
		[ -n "${path_of[$m]:-}" ] || { echo "missing:$m"; return 0; }
		for d in ${deps_of[$m]}; do
			dn=${d##*/}
			dn=${dn%%.ko*}
			_visit "${dn//-/_}"
		done
		echo "${path_of[$m]}"
	}
	for name in "${LAB_MODULES[@]}"; do
		_visit "$name"
	done
}

# initrd_build KDIR: the initramfs: busybox, the modules, and lab/initramfs-init.sh as /init.
initrd_build() {
	local kdir=$1 tmp mods ko base
	note "building the guest initramfs for $KERNEL_VER (once)"
	tmp=$(mktemp -d "$kdir/.initrd.XXXXXX")
	mkdir -p "$tmp/x" "$tmp/i/bin" "$tmp/i/lib/mod" "$tmp/i/etc" "$tmp/i/dev" \
		"$tmp/i/proc" "$tmp/i/sys" "$tmp/i/newroot"
	if ! dpkg-deb -x "$kdir/linux-image.deb" "$tmp/x" ||
	   ! depmod -b "$tmp/x" "$KERNEL_VER"; then
		rm -rf "$tmp"
		die_cant "cannot unpack the modules of $kdir/linux-image.deb or run depmod on them; remove $kdir and retry"
	fi
	mods=$tmp/x/lib/modules/$KERNEL_VER
	for ko in $(modules_closure "$mods" | sed -n 's/^missing://p'); do
		sed 's/-/_/g' "$mods/modules.builtin" 2>/dev/null | grep -q "/$ko\.ko" && continue
		if [[ $LAB_MODULES_NEEDED == *" $ko "* ]]; then
			rm -rf "$tmp"
			die_cant "kernel $KERNEL_VER has no module $ko; the rack needs a Debian kernel with rdma_rxe, 9p and virtio (set FABCHECK_LAB_KERNEL to one)"
		fi
		warn "kernel $KERNEL_VER has no module $ko; the guests go without it"
	done
	for ko in $(modules_closure "$mods" | grep -v '^missing:'); do
		base=${ko##*/}
		case $base in
		*.ko.xz) xz -dc "$mods/$ko" >"$tmp/i/lib/mod/${base%.xz}"; base=${base%.xz} ;;
		*.ko.zst) zstd -qdc "$mods/$ko" >"$tmp/i/lib/mod/${base%.zst}"; base=${base%.zst} ;;
		*) cp "$mods/$ko" "$tmp/i/lib/mod/" ;;
		esac
		echo "$base" >>"$tmp/i/etc/modules.order"
	done
	cp "$(command -v busybox)" "$tmp/i/bin/busybox"
	install -m 755 "$LAB_DIR/initramfs-init.sh" "$tmp/i/init"
	if ! (cd "$tmp/i" && find . | cpio -o -H newc --quiet | gzip -1) >"$kdir/initrd.img.new"; then
		rm -rf "$tmp"
		die_cant "cannot pack the initramfs with cpio and gzip"
	fi
	mv "$kdir/initrd.img.new" "$kdir/initrd.img"
	cp "$tmp/i/etc/modules.order" "$kdir/modules.order"
	rm -rf "$tmp"
}

# kernel_ensure: sets KERNEL_VER, KERNEL_IMG, KERNEL_INITRD, building what is
# missing or stale. Serialised by a lock: racks may start at the same time.
kernel_ensure() {
	local kdir stamp
	command -v busybox >/dev/null || die_cant "busybox is not installed; the guests' initramfs needs the static one: apt-get install busybox-static (or scripts/deps.sh demo)"
	file_is_static "$(command -v busybox)" ||
		die_cant "$(command -v busybox) is not statically linked; install busybox-static (apt-get install busybox-static)"
	kernel_resolve
	kdir=$LAB_HOME/kernel/$KERNEL_VER
	mkdir -p "$kdir"
	exec 8>"$LAB_HOME/kernel/.lock"
	flock -w 600 8 || die_cant "another fabcheck is building the kernel in $LAB_HOME for over 10 minutes; retry later"
	# Leftovers of a build that was interrupted (the lock is ours now).
	rm -rf "$kdir"/.fetch.* "$kdir"/.initrd.* "$kdir/initrd.img.new"
	kernel_fetch "$kdir"
	stamp=$(initrd_stamp)
	if [ ! -f "$kdir/initrd.img" ] || [ "$(cat "$kdir/initrd.stamp" 2>/dev/null)" != "$stamp" ]; then
		initrd_build "$kdir"
		echo "$stamp" >"$kdir/initrd.stamp"
	fi
	exec 8>&-
	# Older kernels of this cache are no longer used.
	for old in "$LAB_HOME"/kernel/*-amd64; do
		[ "$old" != "$kdir" ] && [ -d "$old" ] && rm -rf "$old"
	done
	KERNEL_IMG=$kdir/vmlinuz
	KERNEL_INITRD=$kdir/initrd.img
}

# file_is_static FILE: true when FILE is a 64-bit ELF without a program
# interpreter (no PT_INTERP program header), i.e. statically linked.
file_is_static() {
	local f=$1 phoff phentsize phnum i type
	[ "$(od -An -c -N4 "$f" 2>/dev/null | tr -d ' ')" = '177ELF' ] || return 1
	phoff=$(od -An -t u8 -j 32 -N 8 "$f" | tr -d ' ')
	phentsize=$(od -An -t u2 -j 54 -N 2 "$f" | tr -d ' ')
	phnum=$(od -An -t u2 -j 56 -N 2 "$f" | tr -d ' ')
	for ((i = 0; i < phnum; i++)); do
		type=$(od -An -t u4 -j $((phoff + i * phentsize)) -N 4 "$f" | tr -d ' ')
		[ "$type" = 3 ] && return 1
	done
	return 0
}
