# Cases for names that are data and files no planted link redirects
# (sourced by tests/cli/run.sh): a compromised node's worker
# (FAKE_MODE=evil tests/cli/fake-worker.sh) names its port with a traversal or a padded
# name; links planted in evidence folders and at report targets; a crafted
# store's --save-evidence and --sync-fd.
EVIL=tests/cli/fake-worker.sh
export FAKE_MODE=evil
SFT=$(mktemp -d /tmp/fc-safety-XXXXXX)
EVPAIR=(--launcher local --timeout 5 --no-db --worker-cmd $EVIL)
mkdir -p "$SFT/home/.ssh"
echo "Host *" >"$SFT/home/.ssh/config"
echo keep >"$SFT/victim"

# A device name with ../ is refused before any use: nothing outside DIR.
EVIL_DEV=../../escaped expect "evidence: a worker's traversal device name is refused" 3 \
	"the worker's device: '../../escaped' is not a valid RDMA device name" -- \
	$FC pair "${EVPAIR[@]}" a b --save-evidence "$SFT/t1/ev"
expect "evidence: nothing written outside DIR" 0 '^0 found$' -- \
	bash -c "echo \$(find $SFT -name 'escaped*' | wc -l) found"
expect "evidence: DIR holds test.json and the mark" 0 '^\.fabcheck-evidence test\.json $' -- \
	bash -c "ls -A $SFT/t1/ev | tr '\n' ' '"
# A name padded so that a 1024-byte path would be cut at ".ssh/config"
# (the "-1/before" cut off): refused, the file untouched.
pad=$(python3 -c 'import sys; p = sys.argv[1]; n = 1023 - len(p) - len("../../home/.ssh/config")
print("../../home/.ssh/" + "/" * n + "config")' "$SFT/ev/a/")
EVIL_DEV=$pad expect "evidence: a padded device name is refused" 3 \
	"is not a valid RDMA device name \(longer than 63 characters\)" -- \
	$FC pair "${EVPAIR[@]}" a b --save-evidence "$SFT/ev"
expect "evidence: the padded name wrote no file" 0 '^Host \*$' -- cat "$SFT/home/.ssh/config"
# A good name: the evidence is saved under DIR/NODE/DEV-PORT.
EVIL_DEV=evil0 expect "evidence: a good name is saved" 3 'the evil worker stops here' -- \
	$FC pair "${EVPAIR[@]}" a b --save-evidence "$SFT/ok"
expect "evidence: the snapshot under NODE/DEV-PORT" 0 '^ProxyCommand evil$' -- \
	cat "$SFT/ok/a/evil0-1/before/sys/class/infiniband/evil0/ports/1/counters/symbol_error"
# A link planted in fabcheck's own folder is replaced, its target kept.
ln -sf "$SFT/victim" "$SFT/ok/test.json"
rm -r "$SFT/ok/b"
ln -s "$SFT/home/.ssh" "$SFT/ok/b"
EVIL_DEV=evil0 expect "evidence: a link planted in a folder of ours is refused" 3 \
	"evidence: '$SFT/ok/b' is a symbolic link" -- \
	$FC pair "${EVPAIR[@]}" a b --save-evidence "$SFT/ok"
expect "evidence: the planted links' targets are kept" 0 '^keep,Host \*,$' -- \
	bash -c "cat $SFT/victim $SFT/home/.ssh/config | tr '\n' ,"
rm "$SFT/ok/b"
EVIL_DEV=evil0 expect "evidence: a link at test.json is removed, not followed" 3 'the evil worker stops here' -- \
	$FC pair "${EVPAIR[@]}" a b --save-evidence "$SFT/ok"
expect "evidence: test.json is a file, the victim kept" 0 '^file keep$' -- \
	bash -c "[ -f $SFT/ok/test.json ] && [ ! -L $SFT/ok/test.json ] && echo file \$(cat $SFT/victim)"
# Someone else's folder (non-empty, not fabcheck's), a link as DIR: refused.
mkdir "$SFT/theirs"
ln -s "$SFT/victim" "$SFT/theirs/test.json"
EVIL_DEV=evil0 expect "evidence: a full folder that is not fabcheck's is refused" 3 \
	"already holds files and is not a fabcheck evidence folder" -- \
	$FC pair "${EVPAIR[@]}" a b --save-evidence "$SFT/theirs"
expect "evidence: the victim behind its link is kept" 0 '^keep$' -- cat "$SFT/victim"
ln -s "$SFT/ok" "$SFT/evlink"
EVIL_DEV=evil0 expect "evidence: a link as DIR is refused" 3 "evidence: '$SFT/evlink' is a symbolic link" -- \
	$FC pair "${EVPAIR[@]}" a b --save-evidence "$SFT/evlink"
# Through the matrix: each pair's DIR/NNN-A-B, the worker's name refused.
EVIL_DEV=../../../escaped expect "evidence: matrix, a traversal refused" 3 'its one pair could not run' -- \
	$FC matrix nodeA nodeB --launcher local --worker-cmd $(pwd)/$EVIL --timeout 5 \
	--db "$SFT/m.db" --save-evidence "$SFT/mx/ev"
expect "evidence: matrix, nothing outside DIR" 0 '^0 found$' -- \
	bash -c "echo \$(find $SFT -name 'escaped*' | wc -l) found"
expect "evidence: matrix, the pair's folder" 0 '^001-nodeA-nodeB$' -- ls "$SFT/mx/ev"
# The port list of a rails run: a traversal device name refused.
EVIL_DEV=../x expect "rails: a worker's device list with a traversal is refused" 3 \
	"the port list \('fabcheck devices --json'\): '../x' is not a valid RDMA device name" -- \
	$FC pair "${EVPAIR[@]}" a b --rails all
# report: a link planted at the target is refused, its target kept; a
# device is written in place, never replaced; no FILE.tmp.PID is left.
ln -s "$SFT/victim" "$SFT/r.html"
expect "report: a link at the target is refused" 3 "--html: cannot write $SFT/r.html: it is a symbolic link" -- \
	$FC report --db "$SFT/m.db" --run 1 --html "$SFT/r.html"
expect "report: the link's target is kept" 0 '^keep$' -- cat "$SFT/victim"
if mknod "$SFT/null" c 1 3 2>/dev/null; then
	expect "report: a character device is written in place" 0 "wrote $SFT/null" -- \
		$FC report --db "$SFT/m.db" --run 1 --csv "$SFT/null"
	expect "report: the device is still a device" 0 '^char$' -- \
		bash -c "[ -c $SFT/null ] && echo char"
fi
mkfifo "$SFT/fifo"
expect "report: a FIFO nobody reads fails at once" 3 "--prom: cannot write $SFT/fifo: nothing reads the FIFO" -- \
	timeout 10 $FC report --db "$SFT/m.db" --run 1 --prom "$SFT/fifo"
expect "report: a regular file replaced, no temporary left" 0 '^r2\.html $' -- \
	bash -c "mkdir $SFT/rep && $FC report --db $SFT/m.db --run 1 --html $SFT/rep/r2.html >/dev/null 2>&1 &&
		$FC report --db $SFT/m.db --run 1 --html $SFT/rep/r2.html >/dev/null 2>&1; ls -A $SFT/rep | tr '\n' ' '"
# A crafted store chooses no file and no descriptor: a stored
# --save-evidence or --sync-fd is used on resume (and the TUI's rerun) only
# when the command line repeats it.
MW=$(pwd)/tests/cli/mx-worker.sh
cp "$SFT/m.db" "$SFT/evil.db"
sft_craft() {
	python3 -c 'import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); c.execute(sys.argv[2]); c.commit()' \
		"$SFT/evil.db" "UPDATE runs SET params = json_set(params, '\$.pair_args', json('$1')), ended = NULL WHERE id = 1"
}
sft_craft "[\"--launcher\", \"local\", \"--worker-cmd\", \"$MW\", \"--save-evidence\", \"$SFT/stolen\"]"
expect "crafted store: stored --save-evidence refused" 2 \
	"carry --save-evidence '$SFT/stolen'.*give --pair-opt='--save-evidence=$SFT/stolen'" -- \
	$FC matrix --resume 1 --db "$SFT/evil.db" --launcher local --worker-cmd "$MW" --timeout 5
expect "crafted store: no folder made at the stored path" 0 '^0 found$' -- \
	bash -c "echo \$(find $SFT -name stolen | wc -l) found"
expect "crafted store: --save-evidence used when repeated" 3 'matrix run 1' -- \
	$FC matrix --resume 1 --db "$SFT/evil.db" --launcher local --worker-cmd "$MW" --timeout 5 \
	--pair-opt=--save-evidence="$SFT/stolen"
expect "crafted store: the repeated folder is made" 0 '^test\.json$' -- ls "$SFT/stolen"
sft_craft "[\"--launcher\", \"local\", \"--worker-cmd\", \"$MW\", \"--sync-fd\", \"7\"]"
expect "crafted store: stored --sync-fd refused" 2 "carry --sync-fd '7'" -- \
	$FC matrix --resume 1 --db "$SFT/evil.db" --launcher local --worker-cmd "$MW" --timeout 5
rm -rf "$SFT"
unset FAKE_MODE
