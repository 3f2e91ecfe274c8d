#!/usr/bin/env bash
# lab/rack.sh: the virtual rack behind 'fabcheck lab' (see
# ../shared/design/virtual-rack.md): QEMU guests running Debian's kernel with
# Soft-RoCE (rxe0) on one shared virtual Ethernet segment, reachable by ssh.
#   bash lab/rack.sh up|status|ssh-config|exec|fault|down|kernel [options]
# fabcheck runs it as 'fabcheck lab ...' and exports FABCHECK_SELF (its own
# binary), which the guests get on their PATH unless FABCHECK_BIN says otherwise.
set -u
LAB_DIR=${BASH_SOURCE[0]%/*}
[ "$LAB_DIR" = "${BASH_SOURCE[0]}" ] && LAB_DIR=.
LAB_DIR=$(cd "$LAB_DIR" && pwd)
# shellcheck source=lab/lib.sh
. "$LAB_DIR/lib.sh"
# shellcheck source=lab/kernel.sh
. "$LAB_DIR/kernel.sh"
# shellcheck source=lab/fabric.sh
. "$LAB_DIR/fabric.sh"
# shellcheck source=lab/up.sh
. "$LAB_DIR/up.sh"
# shellcheck source=lab/ops.sh
. "$LAB_DIR/ops.sh"
# shellcheck source=lab/slurm.sh
. "$LAB_DIR/slurm.sh"

lab_usage_hint() { echo "run 'fabcheck lab --help' for the commands and options"; }

# opt_value OPT ARGC: the option needs a value.
need_value() {
	[ "$2" -ge 2 ] || die_usage "$1: missing value; $(lab_usage_hint)"
}

main() {
	local sub=${1:-}
	[ $# -gt 0 ] && shift
	case $sub in
	up) lab_up "$@" ;;
	status) lab_status "$@" ;;
	ssh-config) lab_ssh_config "$@" ;;
	exec) lab_exec "$@" ;;
	fault) lab_fault "$@" ;;
	down) lab_down "$@" ;;
	kernel) lab_kernel "$@" ;;
	"") die_usage "missing lab command; $(lab_usage_hint)" ;;
	*) die_usage "'$sub' is not a lab command (up, status, calibrate, ssh-config, exec, fault, down, kernel); $(lab_usage_hint)" ;;
	esac
}

main "$@"
