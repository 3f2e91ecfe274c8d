# Files another hand wrote or planted (doc/security.md): each goes through
# the one bounded reader (core/readfile.h), the one replacing writer
# (core/safefile.h) and the one name check (core/names.h). Sourced by
# tests/cli/run.sh.
UNT=$(mktemp -d /tmp/fc-untrusted-XXXXXX)
UPROBE=(--probe-doc tests/data/preflight/rxe-node.json --node nodeB)
echo keep >"$UNT/victim"
ln -s victim "$UNT/state.json"
# health --state: a planted link is refused, never written through nor replaced.
expect "health --state: a link at the state file is refused" 0 \
	'cannot write the state file .*state.json \(it is a symbolic link\)' -- \
	timeout 20 $FC health "${UPROBE[@]}" --state "$UNT/state.json"
expect "health --state: the link and its target are left as they were" 0 '^victim keep$' -- \
	sh -c "echo \$(readlink '$UNT/state.json') \$(cat '$UNT/victim')"
# A FIFO named as a file fabcheck reads never holds it: opened without
# waiting for a writer, read with a deadline; the state file is a file only.
mkfifo "$UNT/fifo"
expect "health --reference: a FIFO with no writer is read as empty, not waited on" 3 \
	"--reference $UNT/fifo: '\\[' or '\\{' expected near end of file" -- \
	timeout 20 $FC health "${UPROBE[@]}" --no-state --reference "$UNT/fifo"
expect "health --state: a FIFO is not read" 0 "--state $UNT/fifo: cannot read it: not a regular file" -- \
	timeout 20 $FC health "${UPROBE[@]}" --state "$UNT/fifo"
expect "plan --ds-config: a FIFO with no writer is read as empty" 2 "fifo: not a JSON file" -- \
	timeout 20 $FC plan --params 7B --gpus 32 --ds-config "$UNT/fifo"
(sleep 12 >"$UNT/fifo" &)
expect "plan --ds-config: a FIFO whose writer stalls is given up after 10 s" 2 \
	"fifo: cannot read it: its writer sent nothing for 10 s" -- \
	timeout 20 $FC plan --params 7B --gpus 32 --ds-config "$UNT/fifo"
# ... and a file over 64 MiB is refused without being read whole.
truncate -s 65M "$UNT/big.json"
expect "plan --ds-config: a file over 64 MiB is refused" 2 "big.json: cannot read it: over 64 MiB" -- \
	timeout 20 $FC plan --params 7B --gpus 32 --ds-config "$UNT/big.json"
# diagnose follows no link inside evidence: a 0600 file stays unread.
cp -r tests/data/diag/module-hot "$UNT/ev"
echo 'secret-0600-bytes' >"$UNT/secret"
chmod 600 "$UNT/secret"
for uf in $(find "$UNT/ev" -name netdev); do ln -sf "$UNT/secret" "$uf"; done
expect "diagnose: a link inside evidence is said and left out" 0 \
	"netdev' is a symbolic link: left out" -- timeout 20 $FC diagnose "$UNT/ev"
expect_none "diagnose: nothing of the link's target is read" 0 'secret-0600' -- \
	timeout 20 $FC diagnose "$UNT/ev"
# A net device name from evidence passes the name check before it is a
# word of a suggested command (ethtool -m NETDEV).
for uf in $(find "$UNT/ev" -name netdev); do
	rm "$uf" && printf 'e0;reboot$(id)\033[2J\n' >"$uf"
done
expect "diagnose: a crafted netdev is said and left out" 0 \
	"netdev: 'e0;reboot\\\$\(id\)\\\\x1b\[2J' is not a net device name" -- timeout 20 $FC diagnose "$UNT/ev"
expect_none "diagnose: the crafted netdev is in no suggested command" 0 'reboot\$\(id\)[^\\]' -- \
	timeout 20 $FC diagnose "$UNT/ev"
rm -rf "$UNT"
