# Cases for the last words of every exit (sourced by tests/cli/run.sh): one
# JSON document when a signal ends a command, the ssh control folder removed
# then too, and made only under an XDG_RUNTIME_DIR of the user's own.
EXT=$(mktemp -d /tmp/fc-exit-XXXXXX)
# sig_run SIG CMD...: CMD in the background, SIG once it waits, then its
# exit status and what its stdout holds, parsed as JSON documents.
sig_run() {
	local sig=$1 pid
	shift
	"$@" >"$EXT/out" 2>"$EXT/err" &
	pid=$!
	if [ -n "${FAKE_MARK:-}" ]; then # until the fake worker's mark (60 s at most)
		for _ in $(seq 600); do [ -e "$FAKE_MARK" ] && break; sleep 0.1; done
		sleep 0.2
	else
		sleep 1.5
	fi
	kill -"$sig" $pid
	wait $pid
	echo "exit $?"
	python3 -c '
import json, sys
t = open(sys.argv[1]).read()
dec, i, docs = json.JSONDecoder(), 0, []
while t[i:].strip():
    while t[i].isspace(): i += 1
    d, i = dec.raw_decode(t, i)
    docs.append(d)
for d in docs:
    print(len(docs), "doc:", d["verdict"], d["error"]["code"], d["error"]["exit_code"], d["error"]["message"])' "$EXT/out" 2>&1 | tail -1
}
expect "SIGTERM: pair --json writes one document" 0 '^1 doc: error interrupted 143 interrupted by SIGTERM$' -- \
	bash -c "$(declare -f sig_run); EXT=$EXT; FAKE_MODE=hang sig_run TERM $FC pair --launcher local --timeout 20 --no-db --worker-cmd tests/cli/fake-worker.sh a b --json | tail -1"
expect "SIGTERM: pair ends as by the signal" 0 '^exit 143$' -- \
	bash -c "$(declare -f sig_run); EXT=$EXT; FAKE_MODE=hang sig_run TERM $FC pair --launcher local --timeout 20 --no-db --worker-cmd tests/cli/fake-worker.sh a b --json | head -1"
expect "SIGHUP: pair --json writes one document" 0 '^1 doc: error interrupted 129 interrupted by SIGHUP$' -- \
	bash -c "$(declare -f sig_run); EXT=$EXT; FAKE_MODE=hang sig_run HUP $FC --json pair --launcher local --timeout 20 --no-db --worker-cmd tests/cli/fake-worker.sh a b | tail -1"
expect "SIGHUP: the line on stderr" 0 "interrupted by SIGHUP; nothing was judged" -- cat "$EXT/err"
# Nothing measured is lost to a signal (doc/signals.md): a pair whose
# first test finished (0.5 Gb/s) and whose second never ends, SIGTERM'd,
# writes the first result in its document and its store, then ends as by
# the signal.
expect "SIGTERM: pair keeps what it measured in its document" 0 \
	'^exit 143 error interrupted 143 interrupted by SIGTERM write 0\.5$' -- bash -c "
	$(declare -f sig_run); EXT=$EXT; rm -f $EXT/p.db $EXT/mark
	FAKE_MARK=$EXT/mark FAKE_MODE=slow sig_run TERM $FC pair --launcher local --timeout 20 --db $EXT/p.db \
		--worker-cmd tests/cli/fake-worker.sh a b --test write,read --bw -s 1M --json | head -1 | tr '\n' ' '
	jq -r '[.verdict, .error.code, .error.exit_code, .error.message, .results[0].test, .results[0].gbps] | join(\" \")' $EXT/out"
expect "SIGTERM: pair's measured result is in the store" 0 '^\[\(0\.5, True\)\]$' -- \
	python3 -c 'import sqlite3, sys, json
c = sqlite3.connect(sys.argv[1])
print([(g, any("interrupted by SIGTERM" in f for f in json.loads(d)["findings"]))
       for (g, d) in c.execute("SELECT gbps, doc FROM pairs")])' "$EXT/p.db"
expect "SIGTERM: the line on stderr says what is kept" 0 \
	'interrupted by SIGTERM: the results measured before it are kept, judged and stored' -- cat "$EXT/err"
# preflight through a stand-in ssh whose node never answers: SIGTERM ends
# it with its document and removes the control folder it made.
EXS=$EXT/ssh
mkdir -p "$EXS/home"
ln -s "$(pwd)/tests/cli/stand-in-ssh.sh" "$EXS/ssh"
printf 'user x\ncontrolmaster false\ncontrolpersist no\n' >"$EXS/g-none"
printf '#!/bin/sh\nsleep 20\n' >"$EXS/home/fabcheck"
chmod +x "$EXS/home/fabcheck"
EXENV=(env -u FABCHECK_SSH_MUX PATH="$EXS:$EXS/home:$PATH" SSH_ARGV="$EXS/argv" SSH_HOME="$EXS/home" SSH_G_OUT="$EXS/g-none")
expect "SIGTERM: preflight --json writes one document" 0 '^1 doc: error interrupted 143 interrupted by SIGTERM$' -- \
	bash -c "$(declare -f sig_run); EXT=$EXT; sig_run TERM ${EXENV[*]} XDG_RUNTIME_DIR=/nonexistent $FC preflight nodeA --timeout 20 --json | tail -1"
expect_quiet "SIGTERM: preflight's control folder is removed" 0 -- bash -c \
	"d=\$(grep -o '/tmp/fabcheck-ssh-[A-Za-z0-9]*' $EXS/argv); [ -n \"\$d\" ] && [ ! -e \"\$d\" ]"
expect "SIGHUP: pair's control folder is removed" 0 '^removed$' -- bash -c \
	"$(declare -f sig_run); EXT=$EXT; rm -f $EXS/argv; sig_run HUP ${EXENV[*]} XDG_RUNTIME_DIR=/nonexistent $FC pair nodeA nodeB --timeout 20 --no-db >/dev/null;
	d=\$(grep -o '/tmp/fabcheck-ssh-[A-Za-z0-9]*' $EXS/argv); [ -n \"\$d\" ] && [ ! -e \"\$d\" ] && echo removed"
# XDG_RUNTIME_DIR of another user's, or open to others: not used.
mkdir -m 777 "$EXT/rt"
chown nobody "$EXT/rt" 2>/dev/null
expect "ssh: another user's XDG_RUNTIME_DIR is not used" 0 'ControlPath=/tmp/fabcheck-ssh-' -- bash -c \
	"rm -f $EXS/argv; ${EXENV[*]} XDG_RUNTIME_DIR=$EXT/rt FABCHECK_FAKE=1 timeout 20 $FC preflight nodeA --timeout 1 >/dev/null 2>&1; cat $EXS/argv"
mkdir -m 700 "$EXT/rt2"
expect "ssh: the user's own XDG_RUNTIME_DIR is used" 0 "ControlPath=$EXT/rt2/fabcheck-ssh-" -- bash -c \
	"rm -f $EXS/argv; ${EXENV[*]} XDG_RUNTIME_DIR=$EXT/rt2 timeout 20 $FC preflight nodeA --timeout 1 >/dev/null 2>&1; cat $EXS/argv"
# A store's start time no calendar holds: shown as '?', never a crash in
# localtime; report --list, --slurm, the writes and tui --once with --json
# write one document and nothing else on stdout.
$FC matrix nodeA nodeB --launcher local --worker-cmd "$(pwd)/tests/cli/mx-worker.sh" --timeout 5 \
	--db "$EXT/m.db" >/dev/null 2>&1
python3 -c 'import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); c.execute("UPDATE runs SET started = 1e300"); c.commit()' "$EXT/m.db"
expect "report --list: an out-of-range start time" 0 '^ +1  matrix  \?  ' -- $FC report --list --db "$EXT/m.db"
expect "report --html: an out-of-range start time" 0 "wrote $EXT/r.html" -- $FC report --db "$EXT/m.db" --html "$EXT/r.html"
one_doc() { # CMD...: "N docs: KEYS" of what CMD wrote on stdout
	"$@" 2>/dev/null | python3 -c '
import json, sys
t = sys.stdin.read()
dec, i, docs = json.JSONDecoder(), 0, []
try:
    while t[i:].strip():
        while t[i].isspace(): i += 1
        d, i = dec.raw_decode(t, i)
        docs.append(d)
    print(len(docs), "docs:", " ".join(sorted(docs[0])) if docs else "")
except ValueError:
    print("not JSON:", t[:80])'
}
expect "report --list --json: one document" 0 '^1 docs: error findings runs verdict$' -- \
	one_doc $FC report --list --db "$EXT/m.db" --json
expect "report --json before the command: one document" 0 '^1 docs: error findings verdict wrote$' -- \
	one_doc $FC --json report --db "$EXT/m.db" --csv "$EXT/r.csv"
expect "report --slurm --json: one document" 0 '^1 docs: error findings slurm verdict$' -- \
	one_doc $FC report --slurm --db "$EXT/m.db" --json
expect "tui --once --json: one document, no screen" 0 '^1 docs: .*error.*verdict' -- \
	one_doc env TERM=xterm timeout 20 $FC tui --once --db "$EXT/m.db" --json
expect "tui --json without --once: refused, one document" 0 '^1 docs: error findings verdict$' -- \
	one_doc env TERM=xterm timeout 20 $FC --json tui --db "$EXT/m.db"
expect "lab --json before the command: status writes its document" 0 '^1 docs: error findings nodes rack state verdict$' -- \
	one_doc env FABCHECK_LAB_HOME="$EXT/lab" $FC --json lab status --name nosuch
expect "lab --json: a text subcommand still one document" 0 '^1 docs: error findings verdict$' -- \
	one_doc env FABCHECK_LAB_HOME="$EXT/lab" $FC lab down --name nosuch --json
# An open-file limit below what fabcheck needs for itself: no empty --fanout.
expect "open files: no '--fanout  or less'" 0 'can drive 0 at once; raise the limit \(ulimit -n' -- \
	bash -c "ulimit -n 64; $FC preflight --launcher local a b c d 2>&1; true"
expect_quiet "open files: never an empty --fanout value" 0 -- \
	bash -c "! (ulimit -n 64; $FC preflight --launcher local a b c d 2>&1) | grep -e '--fanout  '"
rm -rf "$EXT"
