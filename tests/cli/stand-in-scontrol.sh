#!/bin/sh
# A stand-in `scontrol` for the CLI cases (FABCHECK_SCONTROL points here):
# the nodes' states live in $FAKE_SLURM/NODE as two lines, state and
# reason; a node without a file is one Slurm does not know. Each call's
# arguments are logged one a line to $FAKE_SLURM/log ("--" between calls),
# so a case can see that a reason with blanks came as one argument.
# $FAKE_SLURM/deny makes each update fail as a user without the rights.
# `create reservation` / `delete ReservationName=` keep $FAKE_SLURM/resv-NAME.
d=${FAKE_SLURM:?}
{ for a in "$@"; do printf '%s\n' "$a"; done; echo --; } >>"$d/log"
case "$1 $2" in
"create reservation")
	# Held: $FAKE_SLURM/resv-NAME holds the arguments; $FAKE_SLURM/busy
	# makes it fail as Slurm does for nodes it cannot hold.
	[ -f "$d/busy" ] && { echo "Error creating the reservation: Requested nodes are busy" >&2; exit 1; }
	r=${3#ReservationName=}
	shift 2
	printf '%s\n' "$@" >"$d/resv-$r"
	echo "Reservation created: $r"
	exit 0 ;;
"delete ReservationName="*)
	r=${2#ReservationName=}
	[ -f "$d/resv-$r" ] || { echo "Error deleting the reservation: Requested reservation is invalid" >&2; exit 1; }
	rm -f "$d/resv-$r"
	exit 0 ;;
"show node")
	[ -f "$d/$3" ] || { echo "Node $3 not found" >&2; exit 1; }
	{ read -r st; read -r rs; } <"$d/$3"
	printf 'NodeName=%s Arch=x86_64 CoresPerSocket=1 \n   NodeAddr=10.0.0.9 NodeHostName=%s Version=22.05.8\n' "$3" "$3"
	printf '   State=%s ThreadsPerCore=1 TmpDisk=0 Weight=1 Owner=N/A MCS_label=N/A\n   Partitions=rack \n' "$st"
	[ -n "$rs" ] && printf '   Reason=%s [root@2026-12-01T22:00:00]\n' "$rs"
	exit 0 ;;
"update NodeName="*)
	n=${2#NodeName=}
	[ -f "$d/deny" ] && { echo "slurm_update error: Access/permission denied" >&2; exit 1; }
	[ -f "$d/$n" ] || { echo "slurm_update error: Invalid node name specified" >&2; exit 1; }
	case "$3" in
	State=DRAIN) printf 'IDLE+DRAIN\n%s\n' "${4#Reason=}" >"$d/$n" ;;
	State=RESUME) printf 'IDLE\n\n' >"$d/$n" ;;
	*) echo "Invalid input: $3" >&2; exit 1 ;;
	esac
	exit 0 ;;
esac
echo "stand-in scontrol: $* not understood" >&2
exit 1
