# Issue 39 item 2 (each fact once) in the findings lists and the
# diagnoses (sourced by tests/cli/run.sh): a finding that says the same of
# several nodes or ports is one line naming them all ("all 4 nodes: X",
# "nodeA, nodeB, nodeD: X"; core/holders.h fc_holders_by_lead), the
# summary under the verdict names them the same way, and --json keeps
# every finding one by one. A "not determined" of several evidence sets
# (diagnose) or of several suspects (soak) is said once, naming them.
O39=$(mktemp -d /tmp/fabcheck-cli-once39.XXXXXX)

# preflight of a rack of 4 captures (nodeC's ports swapped): 41 findings,
# most of them one fact of each node (before: 41 finding bullets, 112
# lines at 100 columns; now 13 bullets, 54 lines).
tests/topo/mksysfs.sh "$O39/split" split >/dev/null 2>&1
FABCHECK_SYSFS=$O39/split $FC capture -o "$O39/cap" >/dev/null 2>&1
python3 tests/data/rails/gid_v1.py tests/data/rails/roce-4x2-swap.json "$O39/swap-v1.json"
python3 tests/cli/bundle-rack.py "$O39/cap" "$O39/swap-v1.json" "$O39/rk" >/dev/null
O39RK=("$O39/rk/nodeA" "$O39/rk/nodeB" "$O39/rk/nodeC" "$O39/rk/nodeD")
COLUMNS=100 $FC preflight --from "${O39RK[@]}" >"$O39/pf.txt" 2>&1
COLUMNS=1000 $FC preflight --from "${O39RK[@]}" >"$O39/pf-wide.txt" 2>&1
$FC preflight --from "${O39RK[@]}" --json >"$O39/pf.json" 2>/dev/null
expect "once: preflight of 4 nodes: a fact of every node is one line, 'all 4 nodes'" 0 \
	'^  - all 4 nodes: PCIe link of GPU1 \(0000:41:00\.0\) trained at x8 of x16: reseat the card' -- \
	cat "$O39/pf-wide.txt"
expect "once: preflight of 4 nodes: a fact of 3 of them names the 3" 0 \
	'^  - nodeA, nodeB, nodeD: rxe0 port 1 has no RoCE v2 GID .* give eth0 an IPv4 address$' -- \
	cat "$O39/pf-wide.txt"
# nodeC's own sentences (its ports swapped: eth2 where the others have
# eth0) stay as they are, on lines of their own.
expect "once: preflight of 4 nodes: the distinct ones kept as they are" 0 '^1 1$' -- bash -c \
	"echo \$(grep -c '^  - nodeC: rxe0 port 1 has no RoCE v2 GID .* give eth2 an IPv4 address$' $O39/pf-wide.txt) \
	\$(grep -c '^  - nodeC: rxe1 port 1 has no RoCE v2 GID .* give eth0 an IPv4 address$' $O39/pf-wide.txt)"
expect "once: preflight of 4 nodes: each fact once (13 findings' lines, not 41)" 0 '^13 0$' -- bash -c \
	"echo \$(grep -c '^  - ' $O39/pf-wide.txt) \$(grep -c '^  - nodeB: ' $O39/pf-wide.txt)"
expect "once: preflight of 4 nodes: at most 60 lines at 100 columns (112 before)" 0 '^ok' -- \
	bash -c "n=\$(wc -l <$O39/pf.txt); [ \$n -le 60 ] && echo ok \$n || echo no: \$n"
expect "once: preflight of 4 nodes: the summary names the nodes as the findings do" 0 \
	'^  all 4 nodes: PCIe link of GPU0 \(0000:05:00\.0\) at 2\.5 GT/s of 16 GT/s' -- \
	bash -c "awk '/^verdict: / {n = NR} n && NR > n' $O39/pf.txt"
expect "once: preflight --json keeps every finding one by one" 0 '^41 4 10$' -- \
	jq -r '"\(.findings | length) \([.findings[] | select(test("^node[A-D]: PCIe link of GPU1 "))] | length) \([.findings[] | select(startswith("nodeB: "))] | length)"' "$O39/pf.json"
# Two nodes through the local launcher, no RDMA on this host: "both nodes".
expect "once: preflight of 2 nodes: one line for both" 1 '^  - both nodes: the kernel has no RDMA support' -- \
	env FAKE_DEVICES=tests/data/rails/devices-2rail.json $FC preflight nodeA nodeB --launcher local

# diagnose of a card's two rails' tests (tests/data/diag/card-rails): no
# rule matched in either set; "not determined" said once, naming both
# (before: once per set, 33 lines; now 29).
COLUMNS=100 $FC diagnose tests/data/diag/card-rails >"$O39/dg.txt" 2>&1
COLUMNS=1000 $FC diagnose tests/data/diag/card-rails >"$O39/dg-wide.txt" 2>&1
expect "once: diagnose of 2 sets: 'not determined' said once" 0 '^1 1$' -- bash -c \
	"echo \$(grep -c ': not determined' $O39/dg-wide.txt) \$(grep -c '^not determined in 2 sets' $O39/dg-wide.txt)"
expect "once: diagnose of 2 sets: the one 'not determined' names both sets" 0 \
	'^  possible the test of tests/data/diag/card-rails/alone-rail0, tests/data/diag/card-rails/alone-rail1: not determined$' -- \
	cat "$O39/dg-wide.txt"
expect "once: diagnose of 2 sets: at most 29 lines (33 before)" 0 '^ok' -- \
	bash -c "n=\$(wc -l <$O39/dg.txt); [ \$n -le 29 ] && echo ok \$n || echo no: \$n"
expect "once: diagnose --json keeps each set's entry" 0 '^not determined,not determined$' -- \
	bash -c "$FC diagnose --json tests/data/diag/card-rails | jq -r '[.sets[].diagnosis[].part] | join(\",\")'"

# soak of 2 nodes on 2 rails, each rail's slice failed for the stand-in's
# device: its two suspects' "not determined" and its two "traffic failed"
# findings each said once, naming both (29 lines before, 24 now).
O39S=(soak nodeA nodeB --duration 4 --slice 2 --interval 1 --launcher local --worker-cmd tests/cli/fake-worker.sh)
env FAKE_DEVICES=tests/data/rails/devices-2rail.json FAKE_MODE=noise FAKE_KIND=fail COLUMNS=1000 \
	$FC "${O39S[@]}" --db "$O39/s1.db" >"$O39/soak.txt" 2>&1
env FAKE_DEVICES=tests/data/rails/devices-2rail.json FAKE_MODE=noise FAKE_KIND=fail \
	$FC "${O39S[@]}" --db "$O39/s2.db" --json >"$O39/soak.json" 2>/dev/null
expect "once: soak's suspects' parts: 'not determined' once, naming both rails' links" 0 \
	'^1   link nodeA-nodeB on rxe0, rxe1: possible not determined \(pair nodeA -> nodeB\)$' -- \
	bash -c "echo \$(grep -c 'not determined' $O39/soak.txt) \"\$(grep 'not determined' $O39/soak.txt)\""
expect "once: soak's findings: the same failure of both rails one line" 0 \
	'^1   - nodeA/rxe0-nodeB/rxe0, nodeA/rxe1-nodeB/rxe1: traffic failed at ' -- \
	bash -c "echo \$(grep -c 'traffic failed' $O39/soak.txt) \"\$(grep 'traffic failed' $O39/soak.txt)\""
expect "once: soak --json keeps each suspect's diagnosis and each finding" 0 '^2 2$' -- \
	jq -r '"\([.suspects[] | select(.diagnosis.part == "not determined")] | length) \([.findings[] | select(test("traffic failed"))] | length)"' "$O39/soak.json"

# burnin-rack's summary lists a step's findings as its text says them (the
# --json document's "findings_text"): the preflight of 2 nodes with no
# RDMA, one line for both (before: a line per node); its summary.json
# keeps each node's finding.
printf 'FABRIC=lab\nSTEPS="preflight"\nLAB_TIMEOUT=30s\n' >"$O39/pf.conf"
env FABCHECK=$FC scripts/burnin-rack nodeA nodeB --launcher local --config "$O39/pf.conf" --out "$O39/bi" >/dev/null 2>&1
expect "once: burnin-rack summary: the step's finding of both nodes once" 0 \
	'^2 1 +- both nodes: the kernel has no RDMA support' -- \
	bash -c "echo \$(grep -c 'the kernel has no RDMA support' $O39/bi/summary.txt) \$(grep -c '^ *- both nodes: ' $O39/bi/summary.txt) \"\$(grep '^ *- both nodes' $O39/bi/summary.txt)\""
expect "once: burnin-rack summary.json keeps each node's finding" 0 '^nodeA: the kernel,nodeB: the kernel$' -- \
	python3 -c "import json; print(','.join(f[:17] for f in json.load(open('$O39/bi/summary.json'))['steps'][0]['findings']))"
expect "once: --json's findings_text: the findings as the text says them" 1 '^2 1 both nodes: the kernel' -- \
	bash -c "env FAKE_DEVICES=tests/data/rails/devices-2rail.json $FC preflight nodeA nodeB --launcher local --json 2>/dev/null |
		jq -r '\"\\(.findings | length) \\(.findings_text | length) \\(.findings_text[0])\"'; exit \${PIPESTATUS[0]}"
rm -rf "$O39"
