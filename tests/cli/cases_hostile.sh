# A worker that attacks the controller (tests/cli/evil-worker.sh): endless
# evidence, endless progress and absurd figures are bounded and refused,
# never kept. Each run is under `timeout`: a controller that waits forever
# fails the case instead of the suite. Sourced by tests/cli/run.sh.
EVT=$(mktemp -d /tmp/fc-evil-XXXXXX)
EVIL=(--launcher local --timeout 3 --worker-cmd "$(pwd)/tests/cli/evil-worker.sh" a b
	--test write --bw -s 2 -n 100 --min-gbps 0.00001)
evil() { # MODE ARGS...: a pair against the evil worker in MODE
	local m=$1
	shift
	env EVIL_MODE="$m" EVIL_LIMIT=40 timeout 60 $FC pair "${EVIL[@]}" "$@"
}
expect "evil worker: one endless evidence file is refused at 1 MiB" 3 \
	"a: refused: its evidence file 'sys/big' is over 1024 KiB" -- evil bigfile --no-db
expect "evil worker: endless empty evidence is refused at 32 MiB" 3 \
	'a: refused: it sent more than 32 MiB of evidence' -- evil flood --no-db
# "progress" extends the wait for a result only up to the test's own
# deadline (100 messages of 2 B at the floors, and --timeout: 3 s), here
# before the end of one wait (--timeout 3 s and the worker's 2 s).
expect "evil worker: endless progress ends at the test's own deadline" 1 \
	"write bandwidth at 2 B: the link is slow: .* when the end of the wait \(5 s: --timeout 3 s, then 2 s for the worker's own report; the test's own deadline, 3 s, came before it\) came" -- evil progress --no-db
expect "evil worker: -1e308 Gb/s is refused" 3 \
	'a: refused its result: its "gbps" of -1e\+308 is no figure' -- evil figure --db "$EVT/f.db"
expect "evil worker: the refused figure is not kept" 0 '^ok$' -- python3 -c '
import json, sqlite3, sys
c = sqlite3.connect(sys.argv[1])
docs = [json.loads(d) for (d,) in c.execute("SELECT doc FROM pairs")]
nums = [g for (g,) in c.execute("SELECT gbps FROM pairs") if g is not None]
print("ok" if docs and not nums and all(d["results"] == [] for d in docs) else "no: %r %r" % (nums, docs))' "$EVT/f.db"
expect "evil worker: 5000 Gb/s one way is above any port" 3 \
	'refused its result: its "gbps" of 5000 is no figure \(above the fastest port' -- \
	env EVIL_GBPS=5000 EVIL_MODE=figure timeout 60 $FC pair "${EVIL[@]}" --no-db
rm -rf "$EVT"
# A worker's words reach the terminal escaped (fc_put_safe): its stderr with
# -v, and the error that quotes it; no escape byte is printed.
hostile_esc() { # CMD...: "clean" when CMD's output holds no ESC or BEL byte
	local out
	out=$("$@" 2>&1)
	case $out in *$'\e'* | *$'\a'*) echo raw ;; *) echo clean ;; esac
	grep -o 'it said: [^ ]* [^ ]*' <<<"$out" | head -1
}
HESC=(env FAKE_MODE=die 'FAKE_STDERR=bad \033]0;owned\007 title' $FC -v pair --launcher local
	--timeout 5 --no-db --worker-cmd tests/cli/fake-worker.sh a b)
expect "hostile: a worker's stderr and the error quoting it print no escape byte" 0 \
	'^clean$' -- hostile_esc "${HESC[@]}"
expect "hostile: the worker's words are shown escaped" 0 \
	'it said: bad \\x1b\]0;owned\\x07' -- hostile_esc "${HESC[@]}"
