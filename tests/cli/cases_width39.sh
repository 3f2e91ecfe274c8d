# Cases for lines that fit the terminal on stderr and in the TUI (sourced by
# tests/cli/run.sh; issue 39 item 3): progress and info lines fit COLUMNS
# (else 100 where stderr is a terminal), wrapped at words with a long path
# whole on a line of its own, or cut at a word with " ..." where the
# figures stay; piped without COLUMNS each stays whole on its line; the
# messages of fc_log wrap only on a terminal (a fabcheck that runs another
# reads its child's last stderr line); a TUI cell never runs past the
# screen, a long rail name cut with the "~" marker.
W39=$(mktemp -d /tmp/fc-width39-XXXXXX)
MXD=tests/data/matrix
W39N="rack7-row3-node-gpu-a100-000017 rack7-row3-node-gpu-a100-000018 rack7-row3-node-gpu-a100-000019"
W39DB=$W39/a-folder-with-a-rather-long-name-for-the-width-cases/and-one-more-level-below-that
mkdir -p "$W39DB"
# w39_fit WIDTH FILE: "ok N" where every line of FILE fits WIDTH but a line
# that is one word (a path, whole); else the lines that do not.
w39_fit() {
	awk -v w="$1" '{ n++; if (length($0) > w && $0 !~ /^ *[^ ]+$/) bad = bad length($0) ": " $0 "\n" }
		END { printf "%s", bad == "" ? "ok " n "\n" : "no:\n" bad }' "$2"
}
# w39_words A B: "same" when files A and B hold the same words in order (a
# wrapped text and the whole one).
w39_words() {
	[ "$(tr -s ' \n' '\n\n' <"$1")" = "$(tr -s ' \n' '\n\n' <"$2")" ] && echo same || echo differ
}

# matrix --import: "matrix run N in STORE: importing ... from FILE" with a
# store path of 124 characters: 197 columns on one line before.
COLUMNS=100 $FC matrix --import $MXD/rack4-slowC.json --db "$W39DB/store-of-the-width-cases.db" \
	2>"$W39/imp100.err" >/dev/null
COLUMNS=1000 $FC matrix --import $MXD/rack4-slowC.json --db "$W39DB/store-of-the-width-cases.db" \
	2>"$W39/imp1000.err" >/dev/null
expect "width: matrix's import line fits COLUMNS=100, the path whole on its own line" 0 '^ok 3$' -- \
	w39_fit 100 "$W39/imp100.err"
expect "width: the import line wrapped keeps every word" 0 '^same$' -- \
	w39_words "$W39/imp100.err" <(sed 's/run 2 in/run 1 in/' "$W39/imp1000.err")
expect "width: piped without COLUMNS, the import line is whole on one line" 0 '^1 matrix run 1 in .* from tests/data/matrix/rack4-slowC\.json$' -- \
	bash -c "env -u COLUMNS $FC matrix --import $MXD/rack4-slowC.json --db $W39DB/s0.db 2>&1 >/dev/null </dev/null |
		awk '{ n++; l = \$0 } END { print n, l }'"

# matrix's progress with 31-character node names at COLUMNS=80 (one rail,
# no port listing): the names alone take 80 columns; the line wraps, its
# figures, verdict and reason on the next lines, not cut (115 columns
# before).
w39_progress() {
	COLUMNS=80 $FC matrix $W39N --rails first --launcher local --worker-cmd tests/cli/mx-worker.sh \
		--timeout 5 --db "$W39/p.db" 2>"$W39/p.err" >/dev/null
	echo $(w39_fit 80 "$W39/p.err") \
		$(grep -c '^    .* error: rack7-row3-node-gpu-a100-0000[0-9]*: no RDMA device found$' "$W39/p.err")
}
expect "width: matrix progress with long names fits COLUMNS=80, each verdict and reason kept" 0 \
	'^ok [0-9]+ 3$' -- w39_progress
# The pair's reason is its child's last stderr line (matrix/mx_run.c): piped,
# the child's error stays whole whatever COLUMNS says.
expect "width: the pair child's reason whole under COLUMNS (its stderr is a pipe)" 0 '^3$' -- \
	bash -c "grep -c '(test worker)' $W39/p.err"

# soak with the same names at COLUMNS=60: its first line wraps at words (114
# columns before), each slice's figure stays (cut away before: "soak:
# 19:33:59 (+2 s) ...").
COLUMNS=60 FAKE_DEVICES=tests/data/rails/devices-2rail.json $FC soak ${W39N% *} --duration 4 \
	--slice 2 --interval 1 --launcher local --worker-cmd tests/cli/rack-worker.sh --timeout 5 \
	--db "$W39/s.db" 2>"$W39/s.err" >/dev/null
expect "width: soak's lines fit COLUMNS=60" 0 '^ok [0-9]+$' -- w39_fit 60 "$W39/s.err"
expect "width: soak's slice lines keep their figure" 0 '^[1-9][0-9]* [1-9][0-9]*$' -- \
	bash -c "echo \$(grep -c '^soak: [0-9]' $W39/s.err) \$(grep -c ': [0-9.]* Gb/s both ways' $W39/s.err)"

# fc_log's messages on a terminal (script's pseudo-terminal) at COLUMNS=50:
# "fabcheck: warning: --ssh-config has no effect with --launcher local"
# (67 columns) wraps at words under its first line.
w39_tty() {
	COLUMNS=50 FAKE_DEVICES=tests/data/rails/devices-2rail.json script -qec "$FC pair nodeA nodeB \
		--ssh-config /dev/null --launcher local --worker-cmd tests/cli/rack-worker.sh --no-db \
		--timeout 5 >/dev/null" /dev/null | tr -d '\r' >"$W39/t.err"
	echo $(w39_fit 50 "$W39/t.err") \
		$(grep -c '^fabcheck: warning: --ssh-config has no effect with$' "$W39/t.err")
}
expect "width: a warning on a terminal fits COLUMNS=50, wrapped at words" 0 '^ok [0-9]+ 1$' -- w39_tty
# Piped, the same warning is whole on its line (a fabcheck that runs
# another reads the child's last stderr line as its reason).
expect "width: piped, the warning is whole on its line" 0 '^fabcheck: warning: --ssh-config has no effect with --launcher local$' -- \
	env COLUMNS=50 FAKE_DEVICES=tests/data/rails/devices-2rail.json $FC pair nodeA nodeB --ssh-config /dev/null \
	--launcher local --worker-cmd tests/cli/rack-worker.sh --no-db --timeout 5

# The TUI's nodes x rails overview of 12 rails at 80 columns: 8 rail
# columns and "+4 more", not a cell cut at the screen's edge; rail 1's name
# (mlx5_bond_long_1) cut to 7 with the "~" marker, not "mlx5_bo".
if command -v tmux >/dev/null; then
	. tests/cli/tui_lib.sh
	python3 $MXD/gen_rails.py --pair-docs 3 12 | sed 's/"mlx5_1"/"mlx5_bond_long_1"/g' >"$W39/r12.json"
	$FC matrix --import "$W39/r12.json" --db "$W39/r12.db" >/dev/null 2>&1
	tui_run ov12 80x30 "R R R R R R R R R R R R R" '\+4 more' -- --db "$W39/r12.db" --run 1 --max-iterations 50
	expect "width: tui overview of 12 rails fits 80 columns" 0 '^ok [0-9]+$' -- w39_fit 80 "$TUT/out-ov12.txt"
	expect "width: tui overview says the rails it leaves out, cuts a long name with ~" 0 \
		'^no +mlx5_0 ~long_1 +mlx5_2 .* mlx5_7 \+4 more$' -- cat "$TUT/out-ov12.txt"
	rm -rf "$TUT"
fi

# burnin-rack's messages: at COLUMNS=60 the unknown-setting error (252
# columns before) wraps at words under its first line.
COLUMNS=60 scripts/burnin-rack --set BOGUS=1 nodeA nodeB 2>"$W39/b.err" >/dev/null
expect "width: burnin-rack's message fits COLUMNS=60" 0 '^ok [4-9]$' -- w39_fit 60 "$W39/b.err"
expect "width: burnin-rack's message wrapped keeps its words" 0 '^same$' -- \
	w39_words "$W39/b.err" <(env -u COLUMNS scripts/burnin-rack --set BOGUS=1 nodeA nodeB 2>&1 >/dev/null)
# lab up's fabric line (lab/lib.sh say_fit): 8 rails folded at words to
# COLUMNS=60, the same words; piped with no COLUMNS, one line whole.
W39FAB="  fabric, MTU 9000: $(for r in 0 1 2 3 4 5 6 7; do printf 'rxe%d 10.%d.1.0/24, ' $r $((77 + r)); done)"
COLUMNS=60 bash -c '. lab/lib.sh; say_fit "$1"' _ "$W39FAB" >"$W39/fab60.txt"
expect "width: lab up's fabric line fits COLUMNS=60" 0 '^ok [3-9]$' -- w39_fit 60 "$W39/fab60.txt"
expect "width: lab up's fabric line folded keeps its words" 0 '^same$' -- w39_words "$W39/fab60.txt" <(echo "$W39FAB")
expect "width: lab up's fabric line piped, whole" 0 '^1$' -- \
	bash -c 'unset COLUMNS; . lab/lib.sh; say_fit "$1" | wc -l' _ "$W39FAB"
rm -rf "$W39"
