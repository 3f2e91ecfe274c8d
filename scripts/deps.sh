#!/usr/bin/env bash
# Installs what fabcheck needs on Debian, idempotently: quiet when all is there.
#   scripts/deps.sh build   the libraries and tools to build fabcheck
#   scripts/deps.sh test    build + what the test suite runs (QEMU rack, cmocka, ...)
#   scripts/deps.sh demo    build + the virtual rack
#   scripts/deps.sh node    what fabcheck asks on a fabric node for its rails:
#                           infiniband-diags (smpquery: the IB switch a port
#                           reaches) and lldpd (lldpctl: a routed RoCE port's
#                           leaf; Debian's postinst starts the daemon, which
#                           then sends LLDP on every port)
set -euo pipefail

build=(build-essential pkg-config libibverbs-dev librdmacm-dev libncurses-dev
	libsqlite3-dev libjansson-dev libnuma-dev)
rack=(qemu-system-x86 busybox-static cpio kmod rdma-core ibverbs-providers
	ibverbs-utils rdmacm-utils perftest openssh-server openssh-client iproute2
	procps tcpdump ethtool infiniband-diags slurmctld slurmd slurm-client munge)
test=(libcmocka-dev clang valgrind tmux sqlite3 python3 man-db chromium jq time)
# Not in the rack: its guests run on the host's root and share one segment a
# rail with no switch, so LLDP would name the other nodes, not a leaf.
node=(infiniband-diags lldpd)

case "${1:-build}" in
build) want=("${build[@]}") ;;
demo) want=("${build[@]}" "${rack[@]}") ;;
test) want=("${build[@]}" "${rack[@]}" "${test[@]}") ;;
node) want=("${node[@]}") ;;
*) echo "usage: scripts/deps.sh build|test|demo|node" >&2; exit 2 ;;
esac

missing=()
for p in "${want[@]}"; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
		missing+=("$p")
	fi
done
[ ${#missing[@]} -eq 0 ] && exit 0

if ! command -v apt-get >/dev/null; then
	echo "fabcheck: missing packages: ${missing[*]}; install them with your package manager" >&2
	exit 3
fi
sudo=""
if [ "$(id -u)" != 0 ]; then
	if command -v sudo >/dev/null; then sudo=sudo; else
		echo "fabcheck: missing packages: ${missing[*]}; run as root or install them: apt-get install ${missing[*]}" >&2
		exit 3
	fi
fi
echo "fabcheck: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
# Refresh the package lists when they are missing or older than a day.
if [ -z "$(find /var/lib/apt/lists -maxdepth 1 -name '*Packages*' -mtime -1 2>/dev/null | head -n 1)" ]; then
	$sudo apt-get update -qq >&2
fi
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
