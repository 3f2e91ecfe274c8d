# lab/lib.sh: helpers shared by the virtual rack scripts (sourced by rack.sh).
# Exit codes follow fabcheck's: 2 usage error, 3 could not run.

LAB_NODES_MAX=8
LAB_NODE_LETTERS=(A B C D E F G H)
LAB_RAILS_MAX=4			# fabric NICs (rails) per node
LAB_MTU_MIN=576
LAB_MTU_MAX=9000
LAB_MCAST_BASE=47000		# fabric segment of rack slot S: 230.0.0.1:(BASE + S)

# ---- messages -------------------------------------------------------------

say() { printf '%s\n' "$*"; }
# say_fit TEXT: TEXT folded at words to the terminal's width, its next
# lines 4 spaces in, as fabcheck's own text (core/summary.c: COLUMNS where it
# is a number of 40 to 1000, else 100 on a terminal; piped with no COLUMNS,
# whole).
say_fit() {
	local c=${COLUMNS:-}
	case $c in *[!0-9]*) c= ;; esac
	[ -z "$c" ] && [ -t 1 ] && c=100
	if [ -z "$c" ]; then
		say "$*"
		return
	fi
	{ [ "$c" -lt 40 ] || [ "$c" -gt 1000 ]; } && c=100
	say "$*" | fold -s -w $((c - 4)) | sed 's/ *$//; 2,$s/^/    /'
}
note() { printf 'fabcheck: %s\n' "$*" >&2; }
warn() { printf 'fabcheck: warning: %s\n' "$*" >&2; }
die_usage() { printf 'fabcheck: error: %s\n' "$*" >&2; exit 2; }
die_cant() { printf 'fabcheck: error: %s\n' "$*" >&2; exit 3; }

# ---- validation -----------------------------------------------------------

# check_int OPT VALUE MIN MAX: VALUE must be a decimal integer in [MIN, MAX].
check_int() {
	local opt=$1 v=$2 lo=$3 hi=$4
	if ! [[ $v =~ ^[0-9]{1,9}$ ]] || ((10#$v < lo || 10#$v > hi)); then
		die_usage "$opt: '$v' is not a number from $lo to $hi; give an integer in that range"
	fi
}

# check_name NAME: a rack name is a folder, a QEMU -name and part of paths.
check_name() {
	if ! [[ $1 =~ ^[a-z][a-z0-9-]{0,31}$ ]]; then
		die_usage "--name: '$1' is not a rack name; use 1 to 32 lowercase letters, digits or '-', starting with a letter (e.g. lab, ci-42)"
	fi
}

# ---- rails --------------------------------------------------------------------

# Rail R of rack slot S: its own segment (multicast group and port) and
# subnet; the guest's NIC for it is eth0 for rail 0, eth(R+1) after that
# (eth1 is the management NIC).
rail_net() { # rail_net R: the first three octets of rail R's subnet
	if [ "$1" = 0 ]; then echo "$RACK_NET"; else echo "10.$((77 + $1)).$RACK_SLOT"; fi
}
rail_mcast() { echo "230.0.0.$((1 + $1)):$((RACK_PORT + 500 * $1))"; }
rail_eth() { if [ "$1" = 0 ]; then echo eth0; else echo "eth$(($1 + 1))"; fi; }
# node_octet I: node I's host number on every rail: I+1, or with
# --addressing routed 2I+1 (each port alone in its /31: .0/31, .2/31, ...).
node_octet() { if [ "${RACK_ADDRESSING:-subnet}" = routed ]; then echo $((2 * $1 + 1)); else echo $(($1 + 1)); fi; }
# The storage NIC (--storage-nic): the segment after the last rail's, its own subnet.
STORAGE_SEG=$LAB_RAILS_MAX
storage_net() { echo "10.200.$RACK_SLOT"; }

# ---- paths ------------------------------------------------------------------

lab_home_init() {
	local home=${HOME:-}
	[ -n "$home" ] || home=$(getent passwd "$(id -u)" | cut -d: -f6)
	LAB_HOME=${FABCHECK_LAB_HOME:-${XDG_CACHE_HOME:-$home/.cache}/fabcheck/lab}
	# QEMU's option syntax splits on ',' and the guests' kernel command line on
	# white space: the rack's paths must have neither.
	if [[ $LAB_HOME =~ [[:space:],] ]]; then
		die_usage "FABCHECK_LAB_HOME: '$LAB_HOME' contains a space or a comma, which QEMU's options cannot carry; choose a folder without them"
	fi
	mkdir -p "$LAB_HOME" 2>/dev/null ||
		die_cant "cannot create the lab folder '$LAB_HOME'; set FABCHECK_LAB_HOME to a writable folder"
	LAB_HOME=$(cd "$LAB_HOME" && pwd -P)
}

# rack_paths NAME: sets the variables that name a rack's files.
rack_paths() {
	RACK=$1
	RACK_DIR=$LAB_HOME/racks/$RACK
	RACK_LOCK=$LAB_HOME/racks/$RACK.lock
	RACK_ENV=$RACK_DIR/rack.env
	SHARE=$RACK_DIR/share
	SSH_CFG=$RACK_DIR/ssh_config
}

# ---- QEMU processes ---------------------------------------------------------

# rack_qemu_pids: pids of every QEMU process of this rack, found by its
# command line (so even one whose pidfile was never written is found).
rack_qemu_pids() {
	local p cmd
	for p in /proc/[0-9]*; do
		cmd=$(tr '\0' ' ' 2>/dev/null <"$p/cmdline") || continue
		case $cmd in
		*qemu-system*"-name fabcheck/$RACK/node"*"path=$SHARE,"*) echo "${p#/proc/}" ;;
		esac
	done
}

# pid_alive PID: PID runs and is not a zombie (a QEMU that exited after its
# parent did may linger as one where PID 1 does not reap).
pid_alive() {
	local st
	[[ ${1:-} =~ ^[0-9]+$ ]] || return 1
	st=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
	st=${st##*) }
	st=${st%% *}
	[ -n "$st" ] && [ "$st" != Z ] && [ "$st" != X ]
}

# rack_kill: stops every QEMU process of the rack and checks that none is
# left. Prints how many it stopped; returns 1 if one survives SIGKILL.
rack_kill() {
	local pids=() p f i
	for f in "$RACK_DIR"/nodes/*.pid; do
		[ -f "$f" ] || continue
		p=$(cat "$f" 2>/dev/null)
		[[ $p =~ ^[0-9]+$ ]] && pids+=("$p")
	done
	mapfile -t -O "${#pids[@]}" pids < <(rack_qemu_pids)
	KILLED=0
	for p in $(printf '%s\n' "${pids[@]}" | sort -u); do
		kill -TERM "$p" 2>/dev/null && KILLED=$((KILLED + 1))
	done
	for ((i = 0; i < 50; i++)); do
		[ -z "$(rack_qemu_pids)" ] && return 0
		sleep 0.1
	done
	for p in $(rack_qemu_pids); do
		kill -KILL "$p" 2>/dev/null
	done
	for ((i = 0; i < 30; i++)); do
		[ -z "$(rack_qemu_pids)" ] && return 0
		sleep 0.1
	done
	return 1
}

# ---- the rack's recorded state ------------------------------------------------

# rack_load: reads rack.env of an up rack; exits 3 with advice when the rack
# is not up.
rack_load() {
	if [ ! -f "$RACK_ENV" ] || [ ! -d "$RACK_LOCK" ]; then
		die_cant "no rack named '$RACK' is up in $LAB_HOME; start one with 'fabcheck lab up --name $RACK'"
	fi
	# shellcheck source=/dev/null
	. "$RACK_ENV"
}

# node_index NODE: sets NODE_I (0-based) or exits 2 naming the rack's nodes.
node_index() {
	local i
	for ((i = 0; i < RACK_NODES; i++)); do
		if [ "$1" = "node${LAB_NODE_LETTERS[i]}" ]; then
			NODE_I=$i
			return 0
		fi
	done
	die_usage "node '$1' is not in rack '$RACK'; its nodes are: $(rack_node_names)"
}

rack_node_names() {
	local i out=""
	for ((i = 0; i < RACK_NODES; i++)); do
		out+="${out:+ }node${LAB_NODE_LETTERS[i]}"
	done
	echo "$out"
}

# node_ssh NODE ARGS...: ssh to a rack node through the management path.
node_ssh() {
	local node=$1
	shift
	ssh -F "$SSH_CFG" "$node" -- "$@"
}

now() { echo "${EPOCHREALTIME/[.,]/}"; }		# microseconds
elapsed() { # elapsed START_US: seconds since START, one decimal
	local d=$(($(now) - $1))
	printf '%d.%d' $((d / 1000000)) $((d / 100000 % 10))
}

# ipv6_of A.B.C.D: the rack's IPv6 address of that IPv4 one (--ipv6): the
# unique-local fd00:A:B:C::D (its /64 one per rail).
ipv6_of() { local IFS=.; set -- $1; echo "fd00:$1:$2:$3::$4"; }
