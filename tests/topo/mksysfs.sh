#!/usr/bin/env bash
# Writes a recorded sysfs tree (the layout fabcheck topo --sysfs reads) for a
# server modelled on real ones. Usage: mksysfs.sh DIR SCENARIO
#   dgx    8 GPUs + 4 InfiniBand HCAs, 4 PCIe switches (2 GPUs + 1 HCA each),
#          2 host bridges per socket, 2 sockets; mlx5_2 trained x8 of x16;
#          ACS redirect on the switch port above GPU2; nvidia_peermem loaded
#   hgx    8 GPUs + 8 InfiniBand HCAs behind two-level switches (GPU and its
#          HCA PIX, neighbours PXB), peermem via memory_peers/nv_mem
#   a100   8 GPUs + 8 InfiniBand HCAs, 4 PCIe switches of 2 GPUs + 2 HCAs
#          each (DGX A100 class: both GPUs of a switch PIX to both its HCAs)
#   split  2 GPUs + 2 RoCE HCAs: GPU0 and mlx5_0 under nested switches (PXB),
#          GPU1 on another host bridge (NODE), mlx5_1 on the other socket;
#          RoCE MTU 1500 on mlx5_0, no RoCE v2 GID on mlx5_1, no peermem,
#          GPU1 at x8 of x16, config space readable only in part (not root)
#   a100pxb  DGX A100 class as nvidia-smi shows it: 4 two-level switches,
#          each device behind its own second-level switch, so both GPUs of
#          a complex are PXB to both its HCAs
#   h100   DGX H100 class: each GPU and one compute HCA under a switch (PIX):
#          mlx5_0,3,4,5 (socket 0), mlx5_6,9,10,11 (socket 1); dual-port
#          storage HCAs mlx5_1/2 and mlx5_7/8 on root ports of their own
#   flat   HGX with a flat switch per socket: GPU0-3 + mlx5_0..3, GPU4-7 +
#          mlx5_8..11, all PIX (ties of 4)
#   gb200  GB200 class: two Grace sockets, each with two GPUs and two HCAs on
#          root ports of their own (domains 0000/0002/0008/0009, 0010/...);
#          the GPUs have GB200's device id (0x2941): C2C to their Grace
#   gh200  GH200 class: one C2C GPU (0x2342) at 0000:3b:00.0 under a switch
#          with mlx5_1 (PIX, a PCIe NIC by the GPU), mlx5_0 on a root port
#          of the same Grace (P2C), mlx5_2 on another node (SYS)
#   gb300  GB300 class as NCCL's net_ib/init.cc describes Data Direct: two
#          Grace sockets, two C2C GPUs (0x31c2) each, every GPU under a
#          ConnectX-8 switch with a Data Direct function (15b3:2100), the
#          HCAs' own functions on root ports of the Grace (P2C); which HCA a
#          Data Direct function serves is not in sysfs (mlx5dv says it)
#   h100stor  DGX H100 class on PCIe Gen5: each GPU under a switch of its
#          own with a 400G (NDR) compute HCA (mlx5_0,3,4,5 / mlx5_6,9,10,11);
#          200G (HDR) storage HCAs mlx5_1 and mlx5_7 on the switches of GPU1
#          and GPU5, mlx5_2 and mlx5_8 on root ports of their own
#   h100down  h100stor with mlx5_3 (GPU1's compute HCA) port DOWN
#   h100dpu   h100stor with a BlueField-3 (15b3:a2dc) 400G Ethernet port
#          mlx5_12 on GPU2's switch
#   h100dual  PCIe Gen5, one dual-port ConnectX card (2 x 200G HDR, functions
#          .0 and .1 of one device, mlx5_0 and mlx5_1) under GPU0's switch;
#          GPU1 with a 400G (NDR) mlx5_2 under a switch of socket 0, GPU2
#          with a 400G mlx5_3 under a switch of socket 1
#   dualtie  one Gen5 switch: GPU0, the dual-port card of h100dual (mlx5_0,
#          mlx5_1: 2 x 200G) and a 400G (NDR) mlx5_2
#   pex    Broadcom PEX switches: socket 0 a Gen5 PEX (1000:c030, subsystem
#          1000:0xxx top, 1000:1xxx below) whose sub-switches hold GPU0 +
#          mlx5_0, GPU1, mlx5_1; socket 1 the same shape on a Gen4 PEX in
#          base mode (1000:c010, subsystem 1000:a064 at both levels): GPU2 +
#          mlx5_2, GPU3, mlx5_3
#   degraded  Gen5 (32 GT/s): GPU0 and mlx5_0 under one switch, mlx5_0
#          trained at 16 GT/s of 32; mlx5_1 a RoCE port with no GID on a
#          netdev (its netdev down or without an address)
#   empty  a host bridge and an Ethernet controller: no GPU, no HCA
set -eu
R=$1
SC=$2
mkdir -p "$R/bus/pci/devices" "$R/devices" "$R/class/infiniband" "$R/class/net" "$R/module"

# pci PATH CLASS VENDOR NUMA CUR_GTS CUR_W MAX_GTS MAX_W
# PATH is under devices/, e.g. pci0000:00/0000:00:01.0/0000:01:00.0.
pci() {
	local p=$1 bdf
	bdf=${p##*/}
	mkdir -p "$R/devices/$p"
	echo "$2" >"$R/devices/$p/class"
	echo "$3" >"$R/devices/$p/vendor"
	echo "${DEVID:-0x1234}" >"$R/devices/$p/device"
	if [ -n "${SUBSYS:-}" ]; then
		echo "${SUBSYS% *}" >"$R/devices/$p/subsystem_vendor"
		echo "${SUBSYS#* }" >"$R/devices/$p/subsystem_device"
	fi
	echo "$4" >"$R/devices/$p/numa_node"
	echo "$5 GT/s PCIe" >"$R/devices/$p/current_link_speed"
	echo "$6" >"$R/devices/$p/current_link_width"
	echo "$7 GT/s PCIe" >"$R/devices/$p/max_link_speed"
	echo "$8" >"$R/devices/$p/max_link_width"
	ln -sfn "../../../devices/$p" "$R/bus/pci/devices/$bdf"
}

# config PATH ACS_CTL_HEX|short: 4 KiB config space with an AER capability at
# 0x100 and ACS at 0x148 (control register at 0x14e); "short" writes the 64
# bytes a non-root reader gets.
config() {
	local f="$R/devices/$1/config" ctl
	if [ "$2" = short ]; then
		head -c 64 /dev/zero >"$f"
		return
	fi
	ctl=$(printf '%04x' "$2")
	{
		head -c 256 /dev/zero
		printf '\x01\x00\x81\x14'
		head -c 68 /dev/zero
		printf '\x0d\x00\x01\x00\x5f\x00'
		printf "\\x${ctl:2:2}\\x${ctl:0:2}"
		head -c $((4096 - 0x150)) /dev/zero
	} >"$f"
}

# Bridges, GPUs and HCAs train at $GTS (default 16.0, Gen4); a bridge is
# $BRVEN's (default PLX 0x10b5).
bridge() {
	pci "$1" 0x060400 "${BRVEN:-0x10b5}" "$2" "${GTS:-16.0}" 16 "${GTS:-16.0}" 16
	config "$1" "${3:-0}"
}
gpu() { pci "$1" 0x030200 0x10de "$2" "${3:-${GTS:-16.0}}" "${4:-16}" "${GTS:-16.0}" 16; }

# hca PATH NAME NUMA LINK_LAYER [CUR_W]; $RATE, when set, is the port's rate
# as the kernel writes it ("400 Gb/sec (4X NDR)")
hca() {
	local d="$R/class/infiniband/$2" class=0x020700
	[ "$4" = Ethernet ] && class=0x020000
	pci "$1" $class 0x15b3 "$3" "${GTS:-16.0}" "${5:-16}" "${GTS:-16.0}" 16
	mkdir -p "$d/ports/1/gids" "$d/ports/1/gid_attrs/types" "$d/ports/1/gid_attrs/ndevs"
	ln -sfn "../../../devices/$1" "$d/device"
	echo "$4" >"$d/ports/1/link_layer"
	echo "4: ACTIVE" >"$d/ports/1/state"
	[ -z "${RATE:-}" ] || echo "$RATE" >"$d/ports/1/rate"
}

# gid DEV IDX GID TYPE NETDEV
gid() {
	local p="$R/class/infiniband/$1/ports/1"
	echo "$3" >"$p/gids/$2"
	echo "$4" >"$p/gid_attrs/types/$2"
	echo "$5" >"$p/gid_attrs/ndevs/$2"
}

# netdev NAME MTU [PCI PATH]
netdev() {
	mkdir -p "$R/class/net/$1"
	echo "$2" >"$R/class/net/$1/mtu"
	echo up >"$R/class/net/$1/operstate"
	[ -n "${3:-}" ] && ln -sfn "../../../devices/$3" "$R/class/net/$1/device"
	return 0
}

# One PCIe switch with two GPUs and one HCA under a root port of host bridge
# 0000:BB (hex bus), as on DGX-1/DGX-2 class machines.
dgx_switch() {
	local bb=$1 numa=$2 g1=$3 g2=$4 nic=$5 acs=${6:-0} nicw=${7:-16}
	local b=$((16#$bb)) hb rp usp
	hb=$(printf 'pci0000:%02x' $b)
	rp=$hb/$(printf '0000:%02x:01.0' $b)
	usp=$rp/$(printf '0000:%02x:00.0' $((b + 1)))
	bridge "$rp" "$numa"
	bridge "$usp" "$numa"
	bridge "$usp/$(printf '0000:%02x:00.0' $((b + 2)))" "$numa" "$acs"
	bridge "$usp/$(printf '0000:%02x:01.0' $((b + 2)))" "$numa"
	bridge "$usp/$(printf '0000:%02x:02.0' $((b + 2)))" "$numa"
	gpu "$usp/$(printf '0000:%02x:00.0/0000:%02x:00.0' $((b + 2)) $((b + 3)))" "$numa"
	gpu "$usp/$(printf '0000:%02x:01.0/0000:%02x:00.0' $((b + 2)) $((b + 4)))" "$numa"
	hca "$usp/$(printf '0000:%02x:02.0/0000:%02x:00.0' $((b + 2)) $((b + 5)))" "$nic" \
		"$numa" InfiniBand "$nicw"
	: "$g1" "$g2"
}

# One PCIe switch with two GPUs and two HCAs (DGX A100 class).
a100_switch() {
	local bb=$1 numa=$2 nic1=$3 nic2=$4
	local b=$((16#$bb)) rp usp k
	rp=$(printf 'pci0000:%02x/0000:%02x:01.0' $b $b)
	usp=$rp/$(printf '0000:%02x:00.0' $((b + 1)))
	bridge "$rp" "$numa"
	bridge "$usp" "$numa"
	for k in 0 1 2 3; do
		bridge "$usp/$(printf '0000:%02x:%02x.0' $((b + 2)) $k)" "$numa"
	done
	gpu "$usp/$(printf '0000:%02x:00.0/0000:%02x:00.0' $((b + 2)) $((b + 3)))" "$numa"
	gpu "$usp/$(printf '0000:%02x:01.0/0000:%02x:00.0' $((b + 2)) $((b + 4)))" "$numa"
	hca "$usp/$(printf '0000:%02x:02.0/0000:%02x:00.0' $((b + 2)) $((b + 5)))" "$nic1" \
		"$numa" InfiniBand
	hca "$usp/$(printf '0000:%02x:03.0/0000:%02x:00.0' $((b + 2)) $((b + 6)))" "$nic2" \
		"$numa" InfiniBand
}

# Two-level switch: top switch with two second-level switches, each holding
# one GPU and one HCA (DGX A100 / HGX H100 class).
hgx_complex() {
	local bb=$1 numa=$2 nic1=$3 nic2=$4
	local b=$((16#$bb)) hb rp usp1 k
	hb=$(printf 'pci0000:%02x' $b)
	rp=$hb/$(printf '0000:%02x:01.0' $b)
	usp1=$rp/$(printf '0000:%02x:00.0' $((b + 1)))
	bridge "$rp" "$numa"
	bridge "$usp1" "$numa"
	for k in 0 1; do
		local dsp usp2 nb=$((b + 3 + k * 4)) nic
		[ $k = 0 ] && nic=$nic1 || nic=$nic2
		dsp=$usp1/$(printf '0000:%02x:%02x.0' $((b + 2)) $k)
		usp2=$dsp/$(printf '0000:%02x:00.0' $nb)
		bridge "$dsp" "$numa"
		bridge "$usp2" "$numa"
		bridge "$usp2/$(printf '0000:%02x:00.0' $((nb + 1)))" "$numa"
		bridge "$usp2/$(printf '0000:%02x:01.0' $((nb + 1)))" "$numa"
		gpu "$usp2/$(printf '0000:%02x:00.0/0000:%02x:00.0' $((nb + 1)) $((nb + 2)))" "$numa"
		hca "$usp2/$(printf '0000:%02x:01.0/0000:%02x:00.0' $((nb + 1)) $((nb + 3)))" \
			"$nic" "$numa" InfiniBand
	done
}

# A100 class: a top switch, four second-level switches, one device each.
a100pxb_complex() {
	local bb=$1 numa=$2 nic1=$3 nic2=$4
	local b=$((16#$bb)) rp usp1 k nb dsp1 usp2 dsp2 dev
	rp=$(printf 'pci0000:%02x/0000:%02x:01.0' $b $b)
	usp1=$rp/$(printf '0000:%02x:00.0' $((b + 1)))
	bridge "$rp" "$numa"
	bridge "$usp1" "$numa"
	for k in 0 1 2 3; do
		nb=$((b + 3 + 3 * k))
		dsp1=$usp1/$(printf '0000:%02x:%02x.0' $((b + 2)) $k)
		usp2=$dsp1/$(printf '0000:%02x:00.0' $nb)
		dsp2=$usp2/$(printf '0000:%02x:00.0' $((nb + 1)))
		dev=$dsp2/$(printf '0000:%02x:00.0' $((nb + 2)))
		bridge "$dsp1" "$numa"
		bridge "$usp2" "$numa"
		bridge "$dsp2" "$numa"
		case $k in
		0 | 1) gpu "$dev" "$numa" ;;
		2) hca "$dev" "$nic1" "$numa" InfiniBand ;;
		3) hca "$dev" "$nic2" "$numa" InfiniBand ;;
		esac
	done
}

# One switch under host bridge 0000:BB holding @ngpu GPUs and the HCAs named
# after them (PIX to each other).
flat_switch() {
	local bb=$1 numa=$2 ngpu=$3 k=0 nic dsp
	local b=$((16#$bb)) rp usp
	shift 3
	rp=$(printf 'pci0000:%02x/0000:%02x:01.0' $b $b)
	usp=$rp/$(printf '0000:%02x:00.0' $((b + 1)))
	bridge "$rp" "$numa"
	bridge "$usp" "$numa"
	for ((k = 0; k < ngpu + $#; k++)); do
		dsp=$usp/$(printf '0000:%02x:%02x.0' $((b + 2)) $k)
		bridge "$dsp" "$numa"
		if [ $k -lt "$ngpu" ]; then
			gpu "$dsp/$(printf '0000:%02x:00.0' $((b + 3 + k)))" "$numa"
		else
			nic=${*:$((k - ngpu + 1)):1}
			hca "$dsp/$(printf '0000:%02x:00.0' $((b + 3 + k)))" "$nic" "$numa" InfiniBand
		fi
	done
}

# A device on a root port of its own: domain DDDD, host bridge pciDDDD:00
# (a GPU gets the device id $DEVID when set).
rootdev() {
	local dom=$1 numa=$2 what=$3 name=${4:-} rp
	rp=pci$dom:00/$dom:00:01.0
	bridge "$rp" "$numa"
	if [ "$what" = gpu ]; then
		gpu "$rp/$dom:01:00.0" "$numa"
	else
		hca "$rp/$dom:01:00.0" "$name" "$numa" InfiniBand
	fi
}

# A C2C GPU and a Data Direct function under a ConnectX-8 switch on root
# port DDDD:00:00.0 (GPU DDDD:03:00.0, Data Direct DDDD:04:00.0).
dd_unit() {
	local dom=$1 numa=$2 rp usp
	rp=pci$dom:00/$dom:00:00.0
	usp=$rp/$dom:01:00.0
	bridge "$rp" "$numa"
	bridge "$usp" "$numa"
	bridge "$usp/$dom:02:00.0" "$numa"
	bridge "$usp/$dom:02:01.0" "$numa"
	DEVID=0x31c2 gpu "$usp/$dom:02:00.0/$dom:03:00.0" "$numa"
	DEVID=0x2100 pci "$usp/$dom:02:01.0/$dom:04:00.0" 0x020700 0x15b3 "$numa" 32.0 16 32.0 16
}

NDR="400 Gb/sec (4X NDR)"
HDR="200 Gb/sec (4X HDR)"

# One Gen5 switch under host bridge 0000:BB with a GPU, a 400G compute HCA
# and, when named, a 200G storage HCA (DGX H100 class).
h100_switch() {
	local bb=$1 numa=$2 nic=$3 stor=${4:-} b=$((16#$1)) rp usp
	rp=$(printf 'pci0000:%02x/0000:%02x:01.0' $b $b)
	usp=$rp/$(printf '0000:%02x:00.0' $((b + 1)))
	bridge "$rp" "$numa"
	bridge "$usp" "$numa"
	for k in 0 1 2; do bridge "$usp/$(printf '0000:%02x:%02x.0' $((b + 2)) $k)" "$numa"; done
	gpu "$usp/$(printf '0000:%02x:00.0/0000:%02x:00.0' $((b + 2)) $((b + 3)))" "$numa"
	if [ -n "$stor" ]; then
		RATE=$HDR hca "$usp/$(printf '0000:%02x:01.0/0000:%02x:00.0' $((b + 2)) $((b + 4)))" \
			"$stor" "$numa" InfiniBand
	fi
	RATE=$NDR hca "$usp/$(printf '0000:%02x:02.0/0000:%02x:00.0' $((b + 2)) $((b + 5)))" \
		"$nic" "$numa" InfiniBand
}

# A Gen5 switch under host bridge 0000:BB with a GPU and one dual-port card
# (200G HDR a port): ports NAME1 and NAME2 on functions .0 and .1.
dual_switch() {
	local bb=$1 numa=$2 b=$((16#$1)) rp usp card
	rp=$(printf 'pci0000:%02x/0000:%02x:01.0' $b $b)
	usp=$rp/$(printf '0000:%02x:00.0' $((b + 1)))
	bridge "$rp" "$numa"
	bridge "$usp" "$numa"
	for k in 0 2; do bridge "$usp/$(printf '0000:%02x:%02x.0' $((b + 2)) $k)" "$numa"; done
	gpu "$usp/$(printf '0000:%02x:00.0/0000:%02x:00.0' $((b + 2)) $((b + 3)))" "$numa"
	card=$usp/$(printf '0000:%02x:02.0' $((b + 2)))
	RATE=$HDR hca "$card/$(printf '0000:%02x:00.0' $((b + 5)))" "$3" "$numa" InfiniBand
	RATE=$HDR hca "$card/$(printf '0000:%02x:00.1' $((b + 5)))" "$4" "$numa" InfiniBand
}

h100stor() {
	GTS=32.0
	h100_switch 00 0 mlx5_0
	h100_switch 10 0 mlx5_3 mlx5_1
	h100_switch 20 0 mlx5_4
	h100_switch 30 0 mlx5_5
	h100_switch 80 1 mlx5_6
	h100_switch 90 1 mlx5_9 mlx5_7
	h100_switch a0 1 mlx5_10
	h100_switch b0 1 mlx5_11
	bridge pci0000:d0/0000:d0:01.0 0
	RATE=$HDR hca pci0000:d0/0000:d0:01.0/0000:d1:00.0 mlx5_2 0 InfiniBand
	bridge pci0000:e0/0000:e0:01.0 1
	RATE=$HDR hca pci0000:e0/0000:e0:01.0/0000:e1:00.0 mlx5_8 1 InfiniBand
	mkdir -p "$R/module/nvidia_peermem"
}

# A Broadcom PEX switch under host bridge 0000:BB: top switch ids $TOPSS,
# three sub-switches (ids $SUBSS) holding GPU + HCA, GPU, HCA.
pex_complex() {
	local bb=$1 numa=$2 nic1=$3 nic2=$4 b=$((16#$1)) rp usp dsp sub k nb
	rp=$(printf 'pci0000:%02x/0000:%02x:01.0' $b $b)
	usp=$rp/$(printf '0000:%02x:00.0' $((b + 1)))
	bridge "$rp" "$numa"
	BRVEN=0x1000 DEVID=$PEXID SUBSYS=$TOPSS bridge "$usp" "$numa"
	for k in 0 1 2; do
		nb=$((b + 3 + 4 * k))
		dsp=$usp/$(printf '0000:%02x:%02x.0' $((b + 2)) $k)
		sub=$dsp/$(printf '0000:%02x:00.0' $nb)
		BRVEN=0x1000 DEVID=$PEXID SUBSYS=$TOPSS bridge "$dsp" "$numa"
		BRVEN=0x1000 DEVID=$PEXID SUBSYS=$SUBSS bridge "$sub" "$numa"
		BRVEN=0x1000 DEVID=$PEXID SUBSYS=$SUBSS bridge "$sub/$(printf '0000:%02x:00.0' $((nb + 1)))" "$numa"
		BRVEN=0x1000 DEVID=$PEXID SUBSYS=$SUBSS bridge "$sub/$(printf '0000:%02x:01.0' $((nb + 1)))" "$numa"
		case $k in
		0)
			gpu "$sub/$(printf '0000:%02x:00.0/0000:%02x:00.0' $((nb + 1)) $((nb + 2)))" "$numa"
			RATE=$NDR hca "$sub/$(printf '0000:%02x:01.0/0000:%02x:00.0' $((nb + 1)) $((nb + 3)))" \
				"$nic1" "$numa" InfiniBand
			;;
		1) gpu "$sub/$(printf '0000:%02x:00.0/0000:%02x:00.0' $((nb + 1)) $((nb + 2)))" "$numa" ;;
		2)
			RATE=$NDR hca "$sub/$(printf '0000:%02x:00.0/0000:%02x:00.0' $((nb + 1)) $((nb + 2)))" \
				"$nic2" "$numa" InfiniBand
			;;
		esac
	done
}

case $SC in
h100stor) h100stor ;;
dualtie)
	GTS=32.0
	dual_switch 00 0 mlx5_0 mlx5_1
	bridge pci0000:00/0000:00:01.0/0000:01:00.0/0000:02:01.0 0
	RATE=$NDR hca pci0000:00/0000:00:01.0/0000:01:00.0/0000:02:01.0/0000:04:00.0 mlx5_2 0 InfiniBand
	mkdir -p "$R/module/nvidia_peermem"
	;;
h100dual)
	GTS=32.0
	dual_switch 00 0 mlx5_0 mlx5_1
	h100_switch 10 0 mlx5_2
	h100_switch 80 1 mlx5_3
	mkdir -p "$R/module/nvidia_peermem"
	;;
h100down)
	h100stor
	echo "1: DOWN" >"$R/class/infiniband/mlx5_3/ports/1/state"
	;;
h100dpu)
	h100stor
	p=pci0000:20/0000:20:01.0/0000:21:00.0/0000:22:03.0
	bridge "$p" 0
	DEVID=0xa2dc RATE=$NDR hca "$p/0000:29:00.0" mlx5_12 0 Ethernet
	;;
pex)
	GTS=32.0 PEXID=0xc030 TOPSS="0x1000 0x0100" SUBSS="0x1000 0x1100" pex_complex 00 0 mlx5_0 mlx5_1
	GTS=16.0 PEXID=0xc010 TOPSS="0x1000 0xa064" SUBSS="0x1000 0xa064" pex_complex 80 1 mlx5_2 mlx5_3
	mkdir -p "$R/module/nvidia_peermem"
	;;
gb300)
	dd_unit 0008 0
	dd_unit 0009 0
	dd_unit 0018 1
	dd_unit 0019 1
	rootdev 0000 0 hca mlx5_0
	rootdev 0002 0 hca mlx5_1
	rootdev 0010 1 hca mlx5_2
	rootdev 0012 1 hca mlx5_3
	;;
a100pxb)
	a100pxb_complex 00 0 mlx5_0 mlx5_1
	a100pxb_complex 20 0 mlx5_2 mlx5_3
	a100pxb_complex 80 1 mlx5_4 mlx5_5
	a100pxb_complex a0 1 mlx5_6 mlx5_7
	mkdir -p "$R/module/nvidia_peermem"
	;;
h100)
	flat_switch 00 0 1 mlx5_0
	flat_switch 10 0 1 mlx5_3
	flat_switch 20 0 1 mlx5_4
	flat_switch 30 0 1 mlx5_5
	flat_switch 80 1 1 mlx5_6
	flat_switch 90 1 1 mlx5_9
	flat_switch a0 1 1 mlx5_10
	flat_switch b0 1 1 mlx5_11
	bridge pci0000:d0/0000:d0:01.0 0
	hca pci0000:d0/0000:d0:01.0/0000:d1:00.0 mlx5_1 0 InfiniBand
	hca pci0000:d0/0000:d0:01.0/0000:d1:00.1 mlx5_2 0 InfiniBand
	bridge pci0000:e0/0000:e0:01.0 1
	hca pci0000:e0/0000:e0:01.0/0000:e1:00.0 mlx5_7 1 InfiniBand
	hca pci0000:e0/0000:e0:01.0/0000:e1:00.1 mlx5_8 1 InfiniBand
	mkdir -p "$R/module/nvidia_peermem"
	;;
flat)
	flat_switch 00 0 4 mlx5_0 mlx5_1 mlx5_2 mlx5_3
	flat_switch 80 1 4 mlx5_8 mlx5_9 mlx5_10 mlx5_11
	mkdir -p "$R/module/nvidia_peermem"
	;;
gb200)
	rootdev 0000 0 hca mlx5_0
	rootdev 0002 0 hca mlx5_1
	DEVID=0x2941 rootdev 0008 0 gpu
	DEVID=0x2941 rootdev 0009 0 gpu
	rootdev 0010 1 hca mlx5_2
	rootdev 0012 1 hca mlx5_3
	DEVID=0x2941 rootdev 0018 1 gpu
	DEVID=0x2941 rootdev 0019 1 gpu
	;;
gh200)
	bridge pci0000:38/0000:38:00.0 0
	bridge pci0000:38/0000:38:00.0/0000:39:00.0 0
	bridge pci0000:38/0000:38:00.0/0000:39:00.0/0000:3a:00.0 0
	bridge pci0000:38/0000:38:00.0/0000:39:00.0/0000:3a:01.0 0
	DEVID=0x2342 gpu pci0000:38/0000:38:00.0/0000:39:00.0/0000:3a:00.0/0000:3b:00.0 0
	hca pci0000:38/0000:38:00.0/0000:39:00.0/0000:3a:01.0/0000:3c:00.0 mlx5_1 0 InfiniBand
	rootdev 0000 0 hca mlx5_0
	rootdev 0020 1 hca mlx5_2
	;;
dgx)
	dgx_switch 00 0 GPU0 GPU1 mlx5_0
	dgx_switch 20 0 GPU2 GPU3 mlx5_1 0x1d
	dgx_switch 80 1 GPU4 GPU5 mlx5_2 0 8
	dgx_switch a0 1 GPU6 GPU7 mlx5_3
	mkdir -p "$R/module/nvidia_peermem"
	pci pci0000:00/0000:00:1c.0 0x060400 0x8086 0 8.0 1 8.0 1
	config pci0000:00/0000:00:1c.0 0
	pci pci0000:00/0000:00:1c.0/0000:0f:00.0 0x020000 0x8086 0 8.0 1 8.0 1
	netdev eno1 1500 pci0000:00/0000:00:1c.0/0000:0f:00.0
	netdev lo 65536
	netdev docker0 1500
	netdev ib0 4092 pci0000:00/0000:00:01.0/0000:01:00.0/0000:02:02.0/0000:05:00.0
	;;
hgx)
	hgx_complex 00 0 mlx5_0 mlx5_1
	hgx_complex 40 0 mlx5_2 mlx5_3
	hgx_complex 80 1 mlx5_4 mlx5_5
	hgx_complex c0 1 mlx5_6 mlx5_7
	mkdir -p "$R/kernel/mm/memory_peers/nv_mem"
	echo 1.3 >"$R/kernel/mm/memory_peers/nv_mem/version"
	netdev eno1 1500
	;;
a100)
	a100_switch 00 0 mlx5_0 mlx5_1
	a100_switch 20 0 mlx5_2 mlx5_3
	a100_switch 80 1 mlx5_4 mlx5_5
	a100_switch a0 1 mlx5_6 mlx5_7
	mkdir -p "$R/module/nvidia_peermem"
	netdev eno1 1500
	;;
split)
	# socket 0, host bridge 00: nested switches; GPU0 below, mlx5_0 above
	bridge pci0000:00/0000:00:01.0 0 short
	bridge pci0000:00/0000:00:01.0/0000:01:00.0 0 short
	s1=pci0000:00/0000:00:01.0/0000:01:00.0
	bridge $s1/0000:02:00.0 0 short
	bridge $s1/0000:02:00.0/0000:03:00.0 0 short
	bridge $s1/0000:02:00.0/0000:03:00.0/0000:04:00.0 0 short
	gpu $s1/0000:02:00.0/0000:03:00.0/0000:04:00.0/0000:05:00.0 0 2.5 16
	bridge $s1/0000:02:01.0 0 short
	hca $s1/0000:02:01.0/0000:06:00.0 mlx5_0 0 Ethernet
	# socket 0, host bridge 40: GPU1 alone, trained x8
	bridge pci0000:40/0000:40:01.0 0 short
	gpu pci0000:40/0000:40:01.0/0000:41:00.0 0 16.0 8
	# socket 1: mlx5_1
	bridge pci0000:80/0000:80:01.0 1 short
	hca pci0000:80/0000:80:01.0/0000:81:00.0 mlx5_1 1 Ethernet
	netdev ens1f0 1500 $s1/0000:02:01.0/0000:06:00.0
	netdev ens2f0 9000 pci0000:80/0000:80:01.0/0000:81:00.0
	gid mlx5_0 0 fe80:0000:0000:0000:0a00:27ff:fe00:0001 "IB/RoCE v1" ens1f0
	gid mlx5_0 1 fe80:0000:0000:0000:0a00:27ff:fe00:0001 "RoCE v2" ens1f0
	gid mlx5_0 2 0000:0000:0000:0000:0000:ffff:0a00:0001 "IB/RoCE v1" ens1f0
	gid mlx5_0 3 0000:0000:0000:0000:0000:ffff:0a00:0001 "RoCE v2" ens1f0
	echo 0000:0000:0000:0000:0000:0000:0000:0000 >"$R/class/infiniband/mlx5_0/ports/1/gids/4"
	gid mlx5_1 0 fe80:0000:0000:0000:0a00:27ff:fe00:0002 "IB/RoCE v1" ens2f0
	gid mlx5_1 1 0000:0000:0000:0000:0000:ffff:0a00:0102 "IB/RoCE v1" ens2f0
	;;
degraded)
	GTS=32.0
	bridge pci0000:00/0000:00:01.0 0
	s1=pci0000:00/0000:00:01.0/0000:01:00.0
	bridge $s1 0
	bridge $s1/0000:02:00.0 0
	gpu $s1/0000:02:00.0/0000:03:00.0 0
	bridge $s1/0000:02:01.0 0
	hca $s1/0000:02:01.0/0000:04:00.0 mlx5_0 0 Ethernet
	echo "16.0 GT/s PCIe" >"$R/devices/$s1/0000:02:01.0/0000:04:00.0/current_link_speed"
	netdev ens3f0 9000 $s1/0000:02:01.0/0000:04:00.0
	gid mlx5_0 0 fe80:0000:0000:0000:0a00:27ff:fe00:0003 "IB/RoCE v1" ens3f0
	gid mlx5_0 1 0000:0000:0000:0000:0000:ffff:0a00:0003 "RoCE v2" ens3f0
	bridge pci0000:00/0000:00:02.0 0
	hca pci0000:00/0000:00:02.0/0000:05:00.0 mlx5_1 0 Ethernet
	;;
empty)
	pci pci0000:00/0000:00:1c.0 0x060400 0x8086 0 8.0 1 8.0 1
	config pci0000:00/0000:00:1c.0 0
	pci pci0000:00/0000:00:1c.0/0000:0f:00.0 0x020000 0x8086 0 8.0 1 8.0 1
	netdev eno1 1500 pci0000:00/0000:00:1c.0/0000:0f:00.0
	;;
*)
	echo "mksysfs.sh: unknown scenario '$SC' (dgx, a100, a100pxb, h100, h100stor, h100dual, dualtie, h100down, h100dpu, pex, flat, gb200, hgx, split, degraded, empty)" >&2
	exit 2
	;;
esac
