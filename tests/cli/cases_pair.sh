# Cases for `fabcheck pair` and `fabcheck worker` on this host, which has no
# RDMA device (sourced by tests/cli/run.sh). The verbs path runs on the rack
# (tests/rack/cases_pair.sh); here: options, errors that name the node and
# the fix, and the wire protocol against a worker that misbehaves.
FAKE=tests/cli/fake-worker.sh
LOCAL=(--launcher local --timeout 3 --no-db)
expect "pair help" 0 'usage: fabcheck pair NODE_A NODE_B' -- $FC pair --help
expect "pair listed" 0 'pair +RDMA bandwidth' -- $FC help
expect_quiet "worker hidden" 0 -- bash -c "! $FC help | grep -w worker"
expect "pair one node" 2 'expected two nodes' -- $FC pair nodeA
expect "pair bad node name" 2 "'node;rm' is not a node name" -- $FC pair 'node;rm' nodeB
expect "pair bad test" 2 "--test: 'atomic' is not a test" -- $FC pair a b --test write,atomic
expect "pair bad size" 2 "-s: '3X' is not a size" -- $FC pair a b -s 3X
expect "pair size too small" 2 "-s: '1' is out of range" -- $FC pair a b -s 1
expect "pair bad qps" 2 "-q: '0' is out of range" -- $FC pair a b -q 0
expect "pair bad dev" 2 "-d: 'mlx5_0:x' |-d PORT: 'x'" -- $FC pair a b -d mlx5_0:x
expect "pair bad dev name" 2 "is not a device name" -- $FC pair a b -d 'a b'
expect "pair bad gid" 2 "-x: '300' is out of range" -- $FC pair a b -x 300
expect "pair -s with -a" 2 '-s and -a exclude' -- $FC pair a b -s 64K -a
expect "pair bad launcher" 2 "'pbs' is not a launcher; expected ssh, slurm or local" -- $FC pair a b --launcher pbs
expect "pair missing ssh config" 2 "--ssh-config: cannot read '/nonexistent'" -- \
	$FC pair a b --ssh-config /nonexistent
expect "pair bad timeout" 2 "--timeout: 'soon' is not" -- $FC pair a b --timeout soon
expect "pair unknown option" 2 "run 'fabcheck pair --help'" -- $FC pair a b --frob
# No RDMA device here: exit 3, names the node and the fix.
expect "pair local no device" 3 '[ab]: no RDMA device found: .*rdma link add' -- \
	$FC pair "${LOCAL[@]}" a b
expect "pair local no device json" 3 '"verdict": "fail"' -- $FC pair "${LOCAL[@]}" a b --json
expect "pair json keeps nodes" 3 '"node": "b"' -- $FC pair "${LOCAL[@]}" a b --json
# Unreachable node, fabcheck missing there.
# Whichever of the two nodes fails first is named.
expect "pair unreachable" 3 'nosuch[12].invalid: cannot reach the node over ssh \(exit 255.*--ssh-config' -- \
	$FC pair nosuch1.invalid nosuch2.invalid --timeout 3 --no-db
expect "pair worker missing" 3 '[ab]: fabcheck is not installed .*exit 127.*--worker-cmd' -- \
	$FC pair "${LOCAL[@]}" --worker-cmd /nonexistent/fabcheck a b
# --worker-cmd reaches the node's shell as its words, each one quoted: a
# stand-in ssh records the line and runs it in a shell as sshd would.
SSHD=$(mktemp -d /tmp/fabcheck-cli-ssh.XXXXXX)
ln -s "$(pwd)/tests/cli/stand-in-ssh.sh" "$SSHD/ssh"
SSHENV=(env PATH="$SSHD:$PATH" SSH_ARGV="$SSHD/argv" SSH_HOME="$SSHD")
expect "worker-cmd with ';' runs nothing more" 3 '[ab]: fabcheck is not installed .*exit 127' -- \
	"${SSHENV[@]}" $FC pair --timeout 5 --no-db --worker-cmd 'fabcheck; touch injected' a b
expect_quiet "worker-cmd with ';': no file made" 0 -- \
	bash -c "ls '$SSHD' | grep -v -x -e argv -e ssh; true"
expect "worker-cmd with ';': the quoted line" 0 "^'fabcheck;' touch injected worker$" -- \
	tail -n 1 "$SSHD/argv"
expect "FABCHECK_WORKER_CMD: words through ssh" 3 '[ab]: refused a message from the worker: message is not JSON' -- \
	"${SSHENV[@]}" FABCHECK_WORKER_CMD="env FAKE_MODE=garbage $(pwd)/$FAKE" \
	$FC pair --timeout 5 --no-db a b
expect "FABCHECK_WORKER_CMD: the line" 0 "^env FAKE_MODE=garbage $(pwd)/$FAKE worker$" -- \
	tail -n 1 "$SSHD/argv"
# The wire: each misbehaviour refused with a reason naming the node.
# wire MODE: the pair run here against the stand-in worker misbehaving as MODE.
wire() { env FAKE_MODE="$1" $FC pair "${LOCAL[@]}" --worker-cmd $FAKE a b; }
expect "wire garbage" 3 '[ab]: refused a message from the worker: message is not JSON' -- \
	wire garbage
expect "wire version" 3 '[ab]: refused .*speaks wire protocol 99, this fabcheck speaks 1: install the same' -- \
	wire version
expect "wire order" 3 '[ab]: refused .*message 4 is out of order: expected 1' -- \
	wire order
expect "wire oversized" 3 "[ab]: refused .*(a line over 65536 bytes|message of 70000 bytes is over the 65536-byte limit)" -- \
	wire big
expect "wire out of turn" 3 "[ab]: protocol error: the worker answered 'result' where 'hello' was due" -- \
	wire type
expect "wire worker dies" 3 '(a|b): the worker exited with status 5; it said: worker: something broke' -- \
	wire die
expect "wire worker hangs" 3 '[ab]: no message from the worker for 5 s \(--timeout 3 s, then 2 s for the worker.s own report\): the node or its fabcheck hangs; rerun with -v' -- \
	wire hang
expect "wire stderr noise ignored" 3 '[ab]: no RDMA device found: fake' -- \
	wire noise
expect_quiet "wire stderr hidden" 0 -- \
	bash -c "! FAKE_MODE=noise $FC pair ${LOCAL[*]} --worker-cmd $FAKE a b 2>&1 | grep setlocale"
expect "wire stderr with -v" 0 '\[a\] bash: warning: setlocale' -- \
	bash -c "FAKE_MODE=noise $FC -v pair ${LOCAL[*]} --worker-cmd $FAKE a b 2>&1; true"
# A slow link and a deadline too short for it: the test that finished is kept
# in the report and in the store, the one under way is judged on what it had
# moved (a bandwidth figure, "complete": false) with a finding that says the
# link is slow; exit 1 (a check failed), not 3 (could not run).
PT=$(mktemp -d /tmp/fc-pair-XXXXXX)
slow_pair() {
	local out rc
	out=$(FAKE_MODE=slow $FC pair --launcher local --timeout 5 --db "$PT/p.db" \
		--worker-cmd $FAKE a b --test write,read --bw -s 1M --min-gbps 0.01 --deadline 2 \
		--json 2>/dev/null)
	rc=$?
	python3 -c '
import json, sys
d = json.loads(sys.stdin.read())
r = d["results"]
ok = (sys.argv[1] == "1" and d["verdict"] == "fail" and d["error"] is None and len(r) == 2 and
      r[0]["test"] == "write" and r[0].get("complete", True) and r[0]["gbps"] == 0.5 and
      r[1]["test"] == "read" and r[1]["complete"] is False and 0 < r[1]["gbps"] < 1 and
      r[1]["messages_done"] > 0 and
      any("read bandwidth at 1 MiB: the link is slow" in f and "--deadline 2 s" in f for f in d["findings"]))
print("ok" if ok else "no: exit %s %s" % (sys.argv[1], json.dumps(d)[:600]))' "$rc" <<<"$out"
}
expect "slow link: deadline judged, finished result kept" 0 '^ok$' -- slow_pair
expect "slow link: the store keeps both results" 0 '^ok$' -- python3 -c '
import json, sqlite3, sys
rows = sqlite3.connect(sys.argv[1]).execute("SELECT verdict, doc FROM pairs").fetchall()
d = json.loads(rows[0][1]) if len(rows) == 1 else {}
print("ok" if rows and rows[0][0] == "fail" and len(d["results"]) == 2 else "no: %r" % rows)' "$PT/p.db"
rm -rf "$PT"
# The worker side: refuses bad input with an error message on stdout.
expect "worker garbage" 3 '"kind":"protocol".*not JSON.*"seq":1,"type":"error"' -- bash -c "echo hi | $FC worker 2>/dev/null"
expect "worker version" 3 'wire protocol 7, this fabcheck speaks 1' -- \
	bash -c "echo '{\"v\":7,\"seq\":1,\"type\":\"hello\"}' | $FC worker 2>/dev/null"
expect "worker out of order" 3 'message 2 is out of order: expected 1' -- \
	bash -c "echo '{\"v\":1,\"seq\":2,\"type\":\"hello\"}' | $FC worker 2>/dev/null"
expect "worker wrong type" 3 "expected a 'hello' message from the controller, got 'setup'" -- \
	bash -c "echo '{\"v\":1,\"seq\":1,\"type\":\"setup\"}' | $FC worker 2>/dev/null"
expect "worker no device" 3 '"kind":"node","msg":"no RDMA device.*"seq":2,"type":"error"' -- \
	bash -c "printf '%s\n' '{\"v\":1,\"seq\":1,\"type\":\"hello\",\"node\":\"n\"}' '{\"v\":1,\"seq\":2,\"type\":\"setup\"}' | $FC worker 2>/dev/null"
# Issue 38 item 5: a node's own fault names the device (and port) it was
# asked for when none could be opened; none asked, none found: none named
# (above), never one made up.
expect "worker no device: names the device and port asked for" 3 \
	'"kind":"node","msg":".*","device":"mlx5_9","port":1,("v":1,)?"seq":2,"type":"error"' -- \
	bash -c "printf '%s\n' '{\"v\":1,\"seq\":1,\"type\":\"hello\",\"node\":\"n\"}' '{\"v\":1,\"seq\":2,\"type\":\"setup\",\"dev\":\"mlx5_9\",\"port\":1}' | $FC worker 2>/dev/null"
expect_quiet "worker stdin closed" 3 -- bash -c "$FC worker </dev/null 2>/dev/null"
expect "worker stdin closed after hello" 3 '"type":"hello"' -- \
	bash -c "echo '{\"v\":1,\"seq\":1,\"type\":\"hello\",\"node\":\"n\"}' | $FC worker 2>/dev/null"
# Every run is kept in the store, failed ones too (--db FILE).
pair_db=$(mktemp -d)
expect "pair stores the run" 0 '^1\|pair\|fail\|a\|b$' -- bash -c "$FC pair --launcher local --timeout 3 --db $pair_db/r.db a b >/dev/null 2>&1; sqlite3 $pair_db/r.db 'select r.id, r.kind, r.verdict, p.a, p.b from runs r join pairs p on p.run = r.id'"
expect "pair store in text" 3 "kept as run 2 in $pair_db/r.db" -- $FC pair --launcher local --timeout 3 --db $pair_db/r.db a b
expect "pair bad store" 3 '--db /nonexistent/dir/x.db: the result could not be kept there' -- $FC pair --launcher local --timeout 3 --db /nonexistent/dir/x.db a b
rm -rf "$pair_db"
# The slurm launcher (srun --nodelist=NODE): this host has no Slurm cluster.
expect "pair slurm launcher without slurm" 3 '[ab]: .*srun' -- $FC pair a b --launcher slurm --no-db --timeout 3
# The measuring method and the warm-up.
expect "pair bad method" 2 "--method: 'qperf' is not a method; expected fabcheck or perftest" -- \
	$FC pair a b --method qperf
expect "pair bad warm-up" 2 "--warm-up: '0' is out of range" -- $FC pair a b --warm-up=0
expect "pair help names --perftest" 0 '--perftest +measure as perftest does' -- $FC pair --help

# ---- message-rate knobs and latency mode: bad values are named ----------------
expect "pair --post-list 0" 2 'post-list.*0' -- $FC pair a b --post-list 0
expect "pair --inline junk" 2 'inline.*junk' -- $FC pair a b --inline junk
expect "pair --threads more than QPs" 2 'threads 4 needs at least as many QPs: add -q 4' \
	-- $FC pair a b --threads 4
expect "pair --lat-mode bogus" 2 "lat-mode: 'bogus' is not a mode; expected poll or imm" \
	-- $FC pair a b --lat-mode bogus
expect "pair --help lists message rate" 0 'post-list N.*' -- $FC pair --help
expect "pair --post-list longer than -t" 2 'post-list 64 is longer than the window \(-t 32\)' \
	-- $FC pair a b --post-list 64 -t 32
# The knobs that could stall the loop are refused before any traffic,
# naming the options, the rule and a fix (verbs/knobs.c); perftest's usual
# message-rate line (its CQ moderation the list's length) is not.
expect "pair --post-list 67 --cq-mod 100 would stall" 2 \
	'post-list 67 with --cq-mod 100 in a window of -t 128 leaves no signalled request.*raise -t to 166' \
	-- $FC pair a b --post-list 67 --cq-mod 100
expect "pair --perftest -q 4 --post-list 64 is no stall" 3 '[ab]: .*srun' \
	-- $FC pair a b --perftest -q 4 --post-list 64 -n 640 --launcher slurm --no-db --timeout 3
# What perftest itself refuses, --perftest refuses in its words
# (perftest_parameters.c, force_dependecies): its write default of 5000
# iterations is no multiple of 64; a list of 16 with CQ moderation 5.
expect "pair --perftest refuses iterations off the post list, as perftest" 2 \
	'perftest refuses -n 5000 with --post-list 64: "Number of iterations must be a multiple of post list size".*use -n 5056' \
	-- $FC pair a b --perftest -q 4 --post-list 64
expect "pair --perftest refuses a list CQ moderation does not divide, as perftest" 2 \
	'perftest refuses --post-list 16 with --cq-mod 5: "Post list size must be a multiple of CQ moderation"' \
	-- $FC pair a b --perftest --post-list 16 --cq-mod 5 -n 160
expect "pair --perftest names --report-gbits" 0 'report-gbits +with --perftest' -- $FC pair --help
expect "pair --hugepages with --use-cuda" 2 'hugepages backs host memory.*use-cuda' \
	-- $FC pair a b --hugepages --use-cuda
rm -rf "$SSHD"
