# `--help` at every level (sourced by tests/cli/run.sh): every command and
# subcommand prints its own usage on stdout and exits 0, with --help, with -h
# and through `help`; every --json document that a command can write without
# a rack holds an `error` member.
# subs_of C: the subcommands C's --help lists, for a command whose usage is
# "fabcheck C <command>" (lab, nccl): each "  NAME" line of its help. Read
# from the help itself, so that a subcommand added later is walked too.
subs_of() {
	$FC "$1" --help 2>/dev/null | grep -q "^usage: fabcheck $1 <command>" || return 0
	$FC "$1" --help 2>/dev/null | awk '/^  [a-z][a-z-]*( |$)/ {print $1}' | sort -u
}
# usage_ok WANT CMD...: CMD exits 0 and its stdout starts with WANT's usage,
# with no printf escape printed as it is ("P%%": a usage goes out by fputs).
usage_ok() {
	local want=$1 out rc
	shift
	out=$("$@" 2>/dev/null); rc=$?
	[ "$rc" = 0 ] && grep -q "^usage: fabcheck $want\( \|$\)" <<<"$out" &&
		! grep -q '%%' <<<"$out" && return 0
	echo "fabcheck ${*:2}: exit $rc: $(grep -m1 '%%' <<<"$out" || echo "${out:0:120}")"
	return 1
}
help_all() {
	local c s h bad=0 nsub=0
	for c in $($FC help | awk '/^  [a-z]/ {print $1}'); do
		for h in --help -h; do
			usage_ok "$c" $FC "$c" "$h" || bad=1
		done
		usage_ok "$c" $FC help "$c" || bad=1
		for s in $(subs_of "$c"); do
			nsub=$((nsub + 1))
			for h in --help -h; do
				usage_ok "$c $s" $FC "$c" "$s" "$h" || bad=1
			done
			usage_ok "$c $s" $FC "$c" help "$s" || bad=1
		done
	done
	[ $bad = 0 ] && echo "every level ok ($nsub subcommands)"
}
expect "--help at every level: usage, exit 0" 0 '^every level ok \(1[0-9] subcommands\)$' -- help_all
expect "lab help up: up's usage, as nccl help run gives run's" 0 '^usage: fabcheck lab up ' -- $FC lab help up
expect "lab help nosuch: not a lab command, exit 2" 2 "lab help: 'nosuch' is not a lab command" -- $FC lab help nosuch
expect "lab ssh --help: the help's example line is no lab command" 2 "'ssh' is not a lab command \\(up, status, calibrate," -- $FC lab ssh --help
expect "lab up --name x --help: the help, nothing booted" 0 '^usage: fabcheck lab up' -- \
	$FC lab up --name h39x --help
expect "lab down --help: only down's lines" 0 '^1$' -- bash -c "$FC lab down --help | grep -c '^  [a-z]'"
expect "lab exec: a -h of the node's command is not lab's" 3 "no rack named 'nosuchrack' is up" -- \
	$FC lab exec --name nosuchrack nodeA ls -h
# json_errors_all: every command `help` lists, nccl's and lab's subcommands
# (but lab exec, whose words after NODE are the node's own command), with
# an option none has and --json: exit 2 and one JSON document on stdout
# whose "error" says "usage".
json_errors_all() {
	local c out rc bad=0 cmds
	cmds=$(for c in $($FC help | awk '/^  [a-z]/ {print $1}'); do
			echo "$c"
			subs_of "$c" | grep -vx exec | sed "s/^/$c /"
		done)
	while read -r c; do
		# shellcheck disable=SC2086
		out=$($FC $c --no-such-option-39 --json 2>/dev/null); rc=$?
		[ "$rc" = 2 ] && [ "$(jq -r '.error.code' <<<"$out" 2>/dev/null)" = usage ] ||
			{ echo "fabcheck $c --no-such-option-39 --json: exit $rc: ${out:0:200}"; bad=1; }
	done <<<"$cmds"
	[ $bad = 0 ] && echo "every --json error ok ($(wc -l <<<"$cmds") commands)"
}
expect "--json: every command's usage error is a document with error" 0 \
	'^every --json error ok \([0-9]+ commands\)$' -- json_errors_all
# json_docs_all: every command `help` lists and every subcommand its --help
# lists (subs_of) writes, with --json, one document that has "error" (null
# when it judged; a code when it could not) on a run that needs no rack. A
# command with no line in JDOC fails the walk: a new command must be added.
JDT=$(mktemp -d)
"$FC" matrix --import tests/data/matrix/rack4-slowC.json --db "$JDT/m.db" >/dev/null 2>&1
JFD=(env FAKE_DEVICES=tests/data/rails/devices-2rail.json FABCHECK_LAB_HOME="$JDT/lab")
declare -A JDOC=(
	[devices]="${JFD[*]} $FC devices --json"
	[gpu-check]="$FC gpu-check --json"
	[pair]="${JFD[*]} $FC pair nodeA nodeB --launcher local --worker-cmd tests/cli/rack-worker.sh --no-db --timeout 5 --json"
	[matrix]="$FC matrix --import tests/data/matrix/rack4-slowC.json --db $JDT/m2.db --json"
	[preflight]="${JFD[*]} $FC preflight nodeA --launcher local --worker-cmd tests/cli/rack-worker.sh --json"
	[capture]="$FC capture -o $JDT/cap --json"
	[rails]="${JFD[*]} $FC rails nodeA nodeB --launcher local --worker-cmd $FC --json"
	[health]="$FC health --no-state --json"
	[soak]="${JFD[*]} $FC soak nodeA nodeB --launcher local --worker-cmd tests/cli/rack-worker.sh --duration 3 --db $JDT/s.db --json"
	[diagnose]="$FC diagnose tests/data/diag/card-rails --json"
	[tui]="env TERM=xterm $FC tui --once --db $JDT/m.db --json"
	[report]="$FC report --list --db $JDT/m.db --json"
	[topo]="$FC topo --json"
	[baseline]="$FC baseline --db $JDT/m.db -o $JDT/bl.json --json"
	[plan]="$FC plan --params 7B --gpus 8 --json"
	[version]="$FC version --json"
	[nccl]="$FC nccl --json"
	[nccl check-log]="$FC nccl check-log tests/data/nccl/crlf.log --json"
	[nccl env]="$FC nccl env --json"
	[nccl run]="$FC nccl run --launcher local localhost --json"
	[lab]="$FC lab --json"
	[lab up]="${JFD[*]} $FC lab up --nodes 99 --json"
	[lab status]="${JFD[*]} $FC lab status --name nosuch --json"
	[lab calibrate]="${JFD[*]} $FC lab calibrate --name nosuch --recorded --json"
	[lab ssh-config]="${JFD[*]} $FC lab ssh-config --name nosuch --json"
	[lab fault]="${JFD[*]} $FC lab fault --name nosuch nodeA clear --json"
	[lab down]="${JFD[*]} $FC lab down --name nosuch --json"
	[lab kernel]="${JFD[*]} $FC lab kernel --no-such-option-39 --json"
	[lab exec]="skip: the words after NODE are the node's command, --json among them"
)
json_docs_all() {
	local c s k out bad=0 n=0
	for c in $($FC help | awk '/^  [a-z]/ {print $1}'); do
		for k in "$c" $(subs_of "$c" | sed "s/^/$c /" | tr ' ' '@'); do
			k=${k//@/ }
			n=$((n + 1))
			if [ -z "${JDOC[$k]-}" ]; then
				echo "$k: no run in JDOC"; bad=1; continue
			fi
			[ "${JDOC[$k]#skip:}" != "${JDOC[$k]}" ] && continue
			# shellcheck disable=SC2086
			out=$(timeout 60 ${JDOC[$k]} 2>/dev/null)
			jq -e 'has("error")' <<<"$out" >/dev/null 2>&1 ||
				{ echo "$k: no error member: ${out:0:120}"; bad=1; }
		done
	done
	[ $bad = 0 ] && echo "every --json document has error ($n commands)"
}
expect "--json: every command's document has error, judged or not" 0 \
	'^every --json document has error \([0-9]+ commands\)$' -- json_docs_all
rm -rf "$JDT"
export FABCHECK_LAB_HOME=${TMPDIR:-/tmp}/fabcheck-cli-help-$$
expect "lab status --json of no rack: error names it" 3 '^cant_run 3 no rack named .nosuch. is up' -- \
	bash -c "set -o pipefail; $FC lab status --json --name nosuch | jq -r '\"\(.error.code) \(.error.exit_code) \(.error.message)\"'"
expect "fabcheck --json lab status: the same document" 3 '^cant_run$' -- \
	bash -c "set -o pipefail; $FC --json lab status --name nosuch | jq -r .error.code"
rm -rf "$FABCHECK_LAB_HOME"
unset FABCHECK_LAB_HOME
