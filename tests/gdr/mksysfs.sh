#!/usr/bin/env bash
# Writes the recorded sysfs trees under tests/data/gdr/ that the GPU-choice
# tests read (the layout topo/pcitopo.c loads). Run from the repository
# root when the scenarios change; the output is committed.
#
# two-socket: socket 0 (numa 0) has GPU 0000:3b:00.0 and mlx5_0 under one
#   PCIe switch (PIX), GPU 0000:3d:00.0 under that switch too, and mlx5_3 on
#   another host bridge of the same socket (NODE). Socket 1 (numa 1) has GPU
#   0000:86:00.0 and mlx5_1 under two levels of switches (PXB), and mlx5_2 on
#   a root port of its own (PHB). nvidia_peermem is loaded.
# no-peermem: one host bridge, a GPU and an HCA on separate root ports (PHB),
#   no peer-memory module.
set -eu
OUT=${1:-tests/data/gdr}

pci() { # ROOT PATH CLASS VENDOR NUMA
	local r=$1 p=$2 bdf=${2##*/}
	mkdir -p "$r/devices/$p" "$r/bus/pci/devices"
	echo "$3" >"$r/devices/$p/class"
	echo "$4" >"$r/devices/$p/vendor"
	echo 0x1234 >"$r/devices/$p/device"
	echo "$5" >"$r/devices/$p/numa_node"
	ln -sfn "../../../devices/$p" "$r/bus/pci/devices/$bdf"
}
bridge() { pci "$1" "$2" 0x060400 0x10b5 "$3"; }
gpu() { pci "$1" "$2" 0x030200 0x10de "$3"; }
hca() { # ROOT PATH NAME NUMA
	pci "$1" "$2" 0x020700 0x15b3 "$4"
	mkdir -p "$1/class/infiniband/$3"
	ln -sfn "../../../devices/$2" "$1/class/infiniband/$3/device"
}

R=$OUT/two-socket
rm -rf "$R"
S0=pci0000:00/0000:00:01.0
bridge "$R" "$S0" 0
bridge "$R" "$S0/0000:1a:00.0" 0
bridge "$R" "$S0/0000:1a:00.0/0000:1b:00.0" 0
bridge "$R" "$S0/0000:1a:00.0/0000:1b:01.0" 0
bridge "$R" "$S0/0000:1a:00.0/0000:1b:02.0" 0
gpu "$R" "$S0/0000:1a:00.0/0000:1b:00.0/0000:3b:00.0" 0
hca "$R" "$S0/0000:1a:00.0/0000:1b:01.0/0000:3c:00.0" mlx5_0 0
gpu "$R" "$S0/0000:1a:00.0/0000:1b:02.0/0000:3d:00.0" 0
bridge "$R" pci0000:40/0000:40:01.0 0
hca "$R" pci0000:40/0000:40:01.0/0000:41:00.0 mlx5_3 0
S1=pci0000:80/0000:80:01.0/0000:81:00.0
bridge "$R" pci0000:80/0000:80:01.0 1
bridge "$R" "$S1" 1
bridge "$R" "$S1/0000:82:00.0" 1
bridge "$R" "$S1/0000:82:00.0/0000:83:00.0" 1
bridge "$R" "$S1/0000:82:00.0/0000:83:00.0/0000:84:00.0" 1
gpu "$R" "$S1/0000:82:00.0/0000:83:00.0/0000:84:00.0/0000:86:00.0" 1
bridge "$R" "$S1/0000:82:01.0" 1
bridge "$R" "$S1/0000:82:01.0/0000:87:00.0" 1
bridge "$R" "$S1/0000:82:01.0/0000:87:00.0/0000:88:00.0" 1
hca "$R" "$S1/0000:82:01.0/0000:87:00.0/0000:88:00.0/0000:89:00.0" mlx5_1 1
bridge "$R" pci0000:80/0000:80:02.0 1
hca "$R" pci0000:80/0000:80:02.0/0000:90:00.0 mlx5_2 1
mkdir -p "$R/module/nvidia_peermem"
echo 1.0 >"$R/module/nvidia_peermem/version"

R=$OUT/no-peermem
rm -rf "$R"
bridge "$R" pci0000:00/0000:00:01.0 0
bridge "$R" pci0000:00/0000:00:02.0 0
gpu "$R" pci0000:00/0000:00:01.0/0000:3b:00.0 0
hca "$R" pci0000:00/0000:00:02.0/0000:5e:00.0 mlx5_0 0
mkdir -p "$R/module/mlx5_core"
