# Hostile inputs of the third safety review (issue "safe by construction,
# round three"), each through the one mechanism the project has: the one
# escaping output path (core/out.h fc_emit), the one bounded reader, the one
# replacing writer, the one name check. Sourced by tests/cli/run.sh.
R3=$(mktemp -d /tmp/fc-round3-XXXXXX)
# AER totals from evidence are counts (u64 in the kernel): a crafted
# 2^63 - 1 in each of a bridge's three files is no count, and summing them
# (diag/rules.c r_bridge) must not overflow under UBSan.
cp -r tests/data/diag/pcie-aer-downtrained "$R3/aer"
for r3f in "$R3"/aer/*/*/after/pcie/bridge-*/aer_dev_*; do
	sed -i 's/^\(TOTAL_ERR_[A-Z]*\) .*/\1 9223372036854775807/' "$r3f"
done
expect_none "diagnose: AER totals of 2^63 - 1 overflow nothing" 0 'runtime error|AER 9223372036854775807' -- \
	timeout 20 $FC diagnose "$R3/aer"
# The duplicate check of a hostfile is n log n (core/util.c fc_check_nodes
# sorts) and its list grows by doubling: 200,000 names and one twice are
# refused at once, not after minutes of comparisons.
seq -f 'n%g' 1 200000 >"$R3/hosts"
echo n5 >>"$R3/hosts"
expect "matrix --hostfile: 200,000 names, one twice, refused within 10 s" 2 \
	"node 'n5' is given twice" -- timeout 10 $FC matrix --hostfile "$R3/hosts"
# A live latency figure has the one bound of figures (core/util.h
# fc_figure_max) that Gb/s figures and stored ones have: a p50 of 1e300 us
# is refused, never stored.
R3EVIL=(--launcher local --timeout 3 --worker-cmd "$(pwd)/tests/cli/evil-worker.sh" a b
	--test write --lat -n 100)
expect "evil worker: a p50 of 1e300 us is refused" 3 \
	'a: refused its result: its "p50_us" of 1e\+300 is no figure \(above 1e\+09 us\)' -- \
	env EVIL_MODE=latfig EVIL_LIMIT=20 timeout 60 $FC pair "${R3EVIL[@]}" --db "$R3/l.db"
expect "evil worker: the refused latency is not kept" 0 '^ok$' -- python3 -c '
import json, sqlite3, sys
c = sqlite3.connect(sys.argv[1])
rows = list(c.execute("SELECT lat_us, doc FROM pairs"))
print("ok" if rows and all(l is None and json.loads(d)["results"] == [] for l, d in rows)
      else "no: %r" % rows)' "$R3/l.db"
# plan --db reads a run's stored parameters through the same bound: a
# busbw of 1e308 GB/s is no measurement, not a pass with an empty table.
python3 -c '
import sqlite3, sys, time
c = sqlite3.connect(sys.argv[1])
c.execute("INSERT INTO runs(kind, params, started, ended, verdict) VALUES(?, ?, ?, ?, ?)",
          ("nccl", "{\"nodes\": 2, \"gpus_per_node\": 8, \"peak_busbw_gbytes_s\": 1e308}",
           time.time() + 10, time.time() + 10, "pass"))
c.commit()' "$R3/l.db"
expect "plan --db: a stored busbw of 1e308 is said to be no measurement" 2 \
	'"peak_busbw_gbytes_s" of 1e\+308 is no measurement.*nccl run 2 has no busbw figure' -- \
	bash -c "set -o pipefail; $FC plan --params 7B --gpus 16 --db $R3/l.db 2>&1 | tr '\\n' ' '"
# report --list and --slurm print what a store holds through the one
# escaping output path (core/out.h fc_emit_listing): a run's kind and a
# Slurm action's node, reason and command with escape sequences reach the
# terminal as \xNN, never as bytes.
python3 -c '
import sqlite3, sys, time
c = sqlite3.connect(sys.argv[1])
c.execute("UPDATE runs SET kind = ?, verdict = ? WHERE id = 1", ("mx\x1b]0;owned\x07", "fail\x1b[2J"))
c.execute("CREATE TABLE IF NOT EXISTS actions (id INTEGER PRIMARY KEY, run INTEGER, time REAL,"
          " node TEXT NOT NULL, action TEXT NOT NULL, reason TEXT, detail TEXT, command TEXT,"
          " result TEXT)")
c.execute("INSERT INTO actions (run, time, node, action, reason, detail, command, result)"
          " VALUES (1, ?, ?, ?, ?, ?, ?, ?)", (time.time(), "n\x1b[31m1", "drain",
          "slow\x1b]0;t\x07", "d\x1b[1m", "scontrol\x1b[8m x", "ok"))
c.commit()' "$R3/l.db"
r3_raw() { # CMD...: "raw" when CMD prints an ESC or BEL byte, else "clean"
	local out
	out=$("$@" 2>&1)
	case $out in *$'\e'* | *$'\a'*) echo raw ;; *) echo clean ;; esac
	printf '%s\n' "$out"
}
expect "report --list: a stored kind and verdict print no escape byte" 0 '^clean$' -- \
	r3_raw $FC report --list --db "$R3/l.db"
expect "report --list: the stored kind is shown escaped" 0 \
	'^ +1  mx\\x1b\]0;owned\\x07 .* +1 pair +fail\\x1b\[2J +0 nodes' -- $FC report --list --db "$R3/l.db"
expect "report --slurm: a stored action prints no escape byte" 0 '^clean$' -- \
	r3_raw $FC report --slurm --db "$R3/l.db"
expect "report --slurm: the stored node, reason and command are shown escaped" 0 \
	'drain +n\\x1b\[31m1 +slow\\x1b\]0;t\\x07.*command: scontrol\\x1b\[8m x.*finding: d\\x1b\[1m' -- \
	bash -c "$FC report --slurm --db $R3/l.db | tr '\\n' ' '"
# soak stopped by SIGTERM keeps its slices and says it was interrupted
# (ctx->stop_sig, as pair does: core/out.h), not "exited 3 without saying
# why"; then it ends as by the signal.
r3_term_soak() {
	local pid
	$FC soak nodeA nodeB --launcher local --duration 600 --slice 2 --interval 1 \
		--db "$R3/soak.db" --json >"$R3/soak.out" 2>"$R3/soak.err" &
	pid=$!
	for _ in $(seq 600); do [ -s "$R3/soak.err" ] && break; sleep 0.1; done
	sleep 3
	kill -TERM $pid
	wait $pid
	echo "exit $?"
	python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
print(d["verdict"], d["error"]["code"], d["error"]["exit_code"], d["error"]["message"],
      any("stopped by a signal" in f for f in d["findings"]))' "$R3/soak.out" 2>&1
}
expect "soak --json, SIGTERM: interrupted, its slices kept, ends as by the signal" 0 \
	'^exit 143 error interrupted 143 interrupted by SIGTERM True$' -- \
	bash -c "$(declare -f r3_term_soak); R3=$R3 FC='$FC'; r3_term_soak | tr '\\n' ' ' | sed 's/ \$//'"
# --save-evidence opens each parent folder relative to the one above it
# and follows a link there only by the kernel's fs.protected_symlinks rule
# (core/safefile.c may_follow): another user's link in a sticky folder that
# others can write (a shared /tmp) is refused, nothing written behind it.
# Needs root to plant a link of another user (chown -h); else not run.
mkdir -p "$R3/shared" "$R3/victim"
chmod 1777 "$R3/shared"
ln -s "$R3/victim" "$R3/shared/ev"
if chown -h 65534 "$R3/shared/ev" 2>/dev/null; then
	expect "--save-evidence: another user's link in a sticky parent is refused" 3 \
		"'$R3/shared/ev' is a symbolic link of user 65534 in a folder others can write" -- \
		env FAKE_MODE=evil EVIL_DEV=evil0 $FC pair --launcher local --timeout 5 --no-db \
		--worker-cmd tests/cli/fake-worker.sh a b --save-evidence "$R3/shared/ev/run1"
	expect "--save-evidence: nothing is written behind the link" 0 '^0 files$' -- \
		bash -c "echo \$(find $R3/victim -mindepth 1 | wc -l) files"
fi
ln -s "$R3/victim" "$R3/mine"
expect "--save-evidence: the user's own link in a parent is followed" 0 '^yes$' -- \
	bash -c "env FAKE_MODE=evil EVIL_DEV=evil0 $FC pair --launcher local --timeout 5 --no-db \
		--worker-cmd tests/cli/fake-worker.sh a b --save-evidence $R3/mine/run2 >/dev/null 2>&1;
		[ -f $R3/victim/run2/.fabcheck-evidence ] && echo yes"
# pair --db opens its store before anything runs, as matrix and soak do: a
# store that cannot be written is an error naming it (exit 3), not a run
# that exits as if kept with nothing in its document saying otherwise.
expect "pair --db in a folder that cannot be: refused before the run, named" 0 \
	'^3 error cant_run /dev/null/p.db$' -- bash -c "
	env EVIL_MODE=progress EVIL_LIMIT=20 timeout 60 $FC pair --launcher local --timeout 3 \
		--worker-cmd $(pwd)/tests/cli/evil-worker.sh a b --test write --bw -s 2 -n 100 \
		--db /dev/null/p.db --json >$R3/p.json 2>/dev/null
	echo \$? \$(python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); print(d[\"verdict\"], d[\"error\"][\"code\"], d[\"error\"][\"input\"])' $R3/p.json)"
# A worker that sends only "progress" whose count stays gets no more than
# twice the wait (--timeout 3 s, then 2 s for its own report) from it (a
# worker gives up itself, and says so, when no completion comes for
# --timeout: verbs/test.c vb_clock_tick): a 1 MiB test ends in seconds, not
# at its own deadline of some 2,800 s at the floors. The finding says the
# 10 s the controller waited, not 6.
expect "evil worker: progress that does not grow ends a 1 MiB test at twice the wait" 1 \
	'write bandwidth at 1 MiB: the link is slow: .* when 10 s \(twice the wait: --timeout 3 s, then 2 s for the worker.s own report\) with the count of messages done not growing, the worker sending only progress, came' -- \
	env EVIL_MODE=stall EVIL_LIMIT=60 timeout 40 $FC pair --launcher local --timeout 3 \
	--worker-cmd "$(pwd)/tests/cli/evil-worker.sh" a b --test write --bw -s 1M --no-db
# A worker's note on its result reaches the terminal through the one
# escaping output path (fc_emit's fc_put_safe), never as escape bytes.
expect "evil worker: a note with escape sequences prints no escape byte" 0 '^clean$' -- \
	r3_raw env EVIL_MODE=latfig EVIL_US=5 'EVIL_NOTES=n\u001b]0;owned\u0007 x' EVIL_LIMIT=20 \
	timeout 60 $FC pair "${R3EVIL[@]}" --no-db
expect "evil worker: the note is shown escaped" 3 '^  - write 2 B: n\\x1b\]0;owned\\x07 x$' -- \
	env EVIL_MODE=latfig EVIL_US=5 'EVIL_NOTES=n\u001b]0;owned\u0007 x' EVIL_LIMIT=20 \
	timeout 60 $FC pair "${R3EVIL[@]}" --no-db
# health --reference and --state go through the one bounded reader
# (core/readfile.h) as plan --ds-config does: a 300 MB file is refused
# unread (cases_untrusted.sh has the FIFOs).
truncate -s 300M "$R3/big.json"
expect "health --reference: a 300 MB file is refused unread" 3 \
	"--reference $R3/big.json: cannot read it: over 64 MiB" -- \
	timeout 20 $FC health --probe-doc tests/data/preflight/rxe-node.json --node nodeB --no-state \
	--reference "$R3/big.json"
expect "health --state: a 300 MB file is not read" 0 "--state $R3/big.json: cannot read it: over 64 MiB" -- \
	timeout 20 $FC health --probe-doc tests/data/preflight/rxe-node.json --node nodeB --state "$R3/big.json"
rm -rf "$R3"
