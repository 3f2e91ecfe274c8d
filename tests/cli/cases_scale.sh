# Cases for many workers from one controller (doc/scale.md): the fan-out
# bound, the open-file limit, ssh connection sharing, and 64 local workers
# that all answer.
SCT=$(mktemp -d /tmp/fc-scale-XXXXXX)
scale_nodes() { seq -f "n%03g" 1 "$1" | tr '\n' ' '; }
# ---- 64 local workers at once: every one answers -------------------------
$FC preflight --launcher local --json $(scale_nodes 64) >"$SCT/pf64.json" 2>"$SCT/pf64.err"
expect "64 local workers: 64 nodes in the document" 0 '^64$' -- \
	jq '.nodes | length' "$SCT/pf64.json"
expect "64 local workers: all 64 answered" 0 '^64$' -- \
	jq '[.nodes[] | select(.status == "ok" and .error == null)] | length' "$SCT/pf64.json"
expect "64 local workers: each node once" 0 '^64$' -- \
	jq '[.nodes[].node] | unique | length' "$SCT/pf64.json"
# ---- --fanout bounds the workers running at once --------------------------
scale_count() { # DIR FANOUT-ARGS...: the most workers seen at once
	local d=$1
	shift
	mkdir -p "$d"
	COUNT_DIR=$d COUNT_FC=$FC "$@" >/dev/null 2>&1
	sort -n "$d/seen" | tail -n 1
}
expect "preflight --fanout 3: at most 3 at once" 0 '^[123]$' -- \
	scale_count "$SCT/c1" $FC preflight --launcher local --fanout 3 \
	--worker-cmd "$(pwd)/tests/cli/count-worker.sh" $(scale_nodes 12)
expect "preflight --fanout 3: all 12 probed" 0 '^12$' -- wc -l <"$SCT/c1/seen"
expect "preflight --fanout 3: all 12 answered" 0 '^12$' -- bash -c \
	"COUNT_DIR=$SCT/c1 COUNT_FC=$FC $FC preflight --launcher local --fanout 3 --json \
	--worker-cmd $(pwd)/tests/cli/count-worker.sh $(scale_nodes 12) | jq '[.nodes[] | select(.status == \"ok\")] | length'"
expect "preflight without --fanout: more than 3 at once" 0 '^([4-9]|1[0-2])$' -- \
	scale_count "$SCT/c2" $FC preflight --launcher local \
	--worker-cmd "$(pwd)/tests/cli/count-worker.sh" $(scale_nodes 12)
expect "matrix --fanout 2: one pair (two workers) at once" 0 '^[12]$' -- \
	scale_count "$SCT/c3" $FC matrix --launcher local --fanout 2 --timeout 10 \
	--worker-cmd "$(pwd)/tests/cli/count-worker.sh" --db "$SCT/m3.db" $(scale_nodes 4)
# 4 workers list the nodes' ports (every rail by default), then 6 pairs x 2;
# the pairs list none again (28 before: each pair listed both nodes' ports)
expect "matrix --fanout 2: every pair of the rack ran (4 port lists, 6 pairs, 12 workers)" 0 '^16$' -- \
	wc -l <"$SCT/c3/seen"
expect "matrix without --fanout: two pairs at once" 0 '^[34]$' -- \
	scale_count "$SCT/c4" $FC matrix --launcher local --timeout 10 \
	--worker-cmd "$(pwd)/tests/cli/count-worker.sh" --db "$SCT/m4.db" $(scale_nodes 4)
# Under Slurm the bound is on the job steps: srun processes at once.
SRUND=$SCT/srun
mkdir -p "$SRUND"
ln -s "$(pwd)/tests/cli/stand-in-srun.sh" "$SRUND/srun"
expect "preflight --launcher slurm --fanout 2: at most 2 job steps at once" 0 '^[12]$' -- \
	scale_count "$SCT/c5" env PATH="$SRUND:$PATH" $FC preflight --launcher slurm --fanout 2 \
	--worker-cmd "$(pwd)/tests/cli/count-worker.sh" $(scale_nodes 8)
expect "preflight --launcher slurm --fanout 2: all 8 steps ran" 0 '^8$' -- wc -l <"$SCT/c5/seen"
expect "bad --fanout" 2 "--fanout: '0' is out of range or not a number; expected an integer from 1 to 4096" -- \
	$FC preflight a --fanout 0
expect "matrix bad --fanout" 2 "--fanout: 'x' is out of range" -- $FC matrix a b --fanout x
# ---- the open-file limit -----------------------------------------------------
expect "open files short: says how many it can drive and the fix" 3 \
	'preflight: 40 workers at once need 144 open files .*stops at 80: this controller can drive 8 at once; give --fanout 8 or less, or raise the hard limit \(ulimit -Hn' -- \
	bash -c "ulimit -n 80 && $FC preflight --launcher local $(scale_nodes 40)"
expect "open files short: --fanout within it runs" 0 '^40$' -- bash -c \
	"ulimit -n 80 && $FC preflight --launcher local --fanout 8 --json $(scale_nodes 40) | jq '[.nodes[] | select(.status == \"ok\")] | length'"
expect "open files: the soft limit raised to the need" 0 'raised the open-file limit \(RLIMIT_NOFILE\) from 80 to 144 for 40 workers' -- \
	bash -c "ulimit -Sn 80 && $FC -v preflight --launcher local $(scale_nodes 40) 2>&1 >/dev/null; true"
# ---- ssh connection sharing --------------------------------------------------
SMX=$SCT/ssh
mkdir -p "$SMX"
ln -s "$(pwd)/tests/cli/stand-in-ssh.sh" "$SMX/ssh"
printf 'user x\ncontrolmaster false\ncontrolpersist no\n' >"$SMX/g-none"
printf 'controlmaster auto\ncontrolpath /home/x/.ssh/cm-%%C\ncontrolpersist 600\n' >"$SMX/g-own"
SMXENV=(env -u XDG_RUNTIME_DIR -u FABCHECK_SSH_MUX PATH="$SMX:$PATH" SSH_ARGV="$SMX/argv" SSH_HOME="$SMX" SSH_G_ARGV="$SMX/g-argv")
scale_ssh() { # G-FILE ARGS...: runs preflight of one node through the stand-in ssh
	local g=$1
	shift
	rm -f "$SMX/argv"
	"${SMXENV[@]}" SSH_G_OUT="$g" $FC preflight nodeA --timeout 5 "$@" >/dev/null 2>&1
	cat "$SMX/argv"
}
scale_ssh_words() { # G-FILE ARGS...: scale_ssh's arguments on one line, each followed by a space
	scale_ssh "$@" | tr '\n' ' '
}
expect "ssh: shared through a control folder of its own" 0 ' -o ControlMaster=auto -o ControlPath=/tmp/fabcheck-ssh-[A-Za-z0-9]{6}/%C -o ControlPersist=30 ' -- \
	scale_ssh_words "$SMX/g-none"
# ssh -G is asked about the node after a --, so that no node name can be
# taken for one of its options.
expect "ssh -G: the node after --" 0 '^-G -- nodeA $' -- sh -c "tr '\\n' ' ' <'$SMX/g-argv'"
expect_quiet "ssh: the control folder is removed at the end" 0 -- bash -c \
	"d=\$(grep -o '/tmp/fabcheck-ssh-[A-Za-z0-9]*' $SMX/argv); [ -n \"\$d\" ] && [ ! -e \"\$d\" ]"
scale_ssh_plain() { # G-FILE ARGS...: the ssh options of sharing it was given
	scale_ssh "$@" | grep -ci control
}
expect "ssh: the user's own ControlMaster is left alone" 1 '^0$' -- scale_ssh_plain "$SMX/g-own"
expect "ssh: no ssh -G, no sharing" 1 '^0$' -- scale_ssh_plain ''
expect "ssh: --no-ssh-mux" 1 '^0$' -- scale_ssh_plain "$SMX/g-none" --no-ssh-mux
expect "ssh: the argv holds the node after --" 0 ' -- nodeA fabcheck preflight-probe --json --timeout 5 $' -- scale_ssh_words "$SMX/g-none"
mkdir -m 700 "$SCT/mine"
expect "ssh: FABCHECK_SSH_MUX names the folder" 0 "ControlPath=$SCT/mine/%C" -- bash -c \
	"rm -f $SMX/argv; ${SMXENV[*]} FABCHECK_SSH_MUX=$SCT/mine $FC preflight nodeA --timeout 5 >/dev/null 2>&1; cat $SMX/argv"
expect_quiet "ssh: a folder given is kept" 0 -- test -d "$SCT/mine"
chmod 755 "$SCT/mine"
expect "ssh: a folder open to others is refused" 0 'FABCHECK_SSH_MUX=.*mine: not a folder of this user.s closed to others \(mode 0700\)' -- bash -c \
	"${SMXENV[*]} FABCHECK_SSH_MUX=$SCT/mine $FC preflight nodeA --timeout 5 2>&1; true"

# ---- the options in the help (the bash completion reads them there) -----------
expect "preflight help: --fanout, --no-ssh-mux" 0 '--fanout N .*pdsh -f \(default 256\)' -- $FC preflight --help
expect "matrix help: --fanout, --no-ssh-mux" 0 '--no-ssh-mux' -- $FC matrix --help
expect "completion offers --fanout" 0 '^--fanout$' -- bash -c \
	"fabcheck() { $FC \"\$@\"; }; . doc/fabcheck.bash-completion; COMP_WORDS=(fabcheck preflight --fan); COMP_CWORD=2; _fabcheck; printf '%s\n' \"\${COMPREPLY[@]}\""
rm -rf "$SCT"
