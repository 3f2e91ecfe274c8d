# `--help` at every level (sourced by tests/cli/run.sh): every command and
# subcommand prints its own usage on stdout and exits 0, with --help, with -h
# and through `help`; every --json document that a command can write without
# a rack holds an `error` member.
help_all() {
	local c s h out rc bad=0
	for c in $($FC help | awk '/^  [a-z]/ {print $1}'); do
		for h in --help -h; do
			out=$($FC "$c" "$h" 2>/dev/null); rc=$?
			[ "$rc" = 0 ] && grep -q "^usage: fabcheck $c" <<<"$out" || { echo "fabcheck $c $h: exit $rc"; bad=1; }
		done
		$FC help "$c" 2>/dev/null | grep -q "^usage: fabcheck $c" || { echo "fabcheck help $c"; bad=1; }
	done
	for s in check-log env run; do
		for h in --help -h; do
			out=$($FC nccl "$s" "$h" 2>/dev/null); rc=$?
			[ "$rc" = 0 ] && grep -q "^usage: fabcheck nccl $s" <<<"$out" || { echo "fabcheck nccl $s $h: exit $rc"; bad=1; }
		done
	done
	for s in up status ssh-config exec fault down kernel; do
		for h in --help -h; do
			out=$($FC lab "$s" "$h" 2>/dev/null); rc=$?
			[ "$rc" = 0 ] && grep -q "^usage: fabcheck lab $s" <<<"$out" &&
				grep -q "^  $s " <<<"$out" || { echo "fabcheck lab $s $h: exit $rc: $out"; bad=1; }
		done
	done
	[ $bad = 0 ] && echo "every level ok"
}
expect "--help at every level: usage, exit 0" 0 '^every level ok$' -- help_all
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
	cmds=$($FC help | awk '/^  [a-z]/ {print $1}'
		$FC nccl --help | awk '/^  [a-z]/ {print "nccl " $1}'
		for s in up status ssh-config fault down kernel; do echo "lab $s"; done)
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
export FABCHECK_LAB_HOME=${TMPDIR:-/tmp}/fabcheck-cli-help-$$
expect "lab status --json of no rack: error names it" 3 '^cant_run 3 no rack named .nosuch. is up' -- \
	bash -c "set -o pipefail; $FC lab status --json --name nosuch | jq -r '\"\(.error.code) \(.error.exit_code) \(.error.message)\"'"
expect "fabcheck --json lab status: the same document" 3 '^cant_run$' -- \
	bash -c "set -o pipefail; $FC --json lab status --name nosuch | jq -r .error.code"
rm -rf "$FABCHECK_LAB_HOME"
unset FABCHECK_LAB_HOME
