# matrix --screen: its options, and a screen that stops by itself. (The
# schedule and its simulated racks are unit-tested; the rack test names a
# faulted port on the virtual rack.)
SCT=$(mktemp -d)
expect "screen and full are one or the other" 2 '\-\-screen and --full are two ways' -- \
	$FC matrix nodeA nodeB --screen --full --db $SCT/s.db
expect "max-rounds needs the screen" 2 '\-\-max-rounds bounds the screen; add --screen' -- \
	$FC matrix nodeA nodeB --max-rounds 3 --db $SCT/s.db
expect "max-rounds is a number" 2 "max-rounds: 'x'" -- \
	$FC matrix nodeA nodeB --screen --max-rounds x --db $SCT/s.db
expect "screen is the matrix's" 2 "option '--screen' is not one of this command's" -- \
	$FC tui --screen --db $SCT/s.db
# Every worker fails: each (node, rail) ends unreachable, and the screen
# stops after two rounds (below the full matrix's three) saying so.
expect "screen stops by itself" 3 'screen stopped: every \(node, rail\) named or cleared in 2 round\(s\): 0 named, 0 cleared, 4 unreachable' -- \
	$FC matrix --screen nodeA nodeB nodeC nodeD --launcher local --worker-cmd \
	"$(pwd)/tests/cli/mx-worker.sh" --timeout 10 --db $SCT/s.db
expect "screen json" 0 '"stop": "done".*"rounds": 2|"rounds": 2.*"stop": "done"' -- \
	sh -c "$FC matrix --screen nodeA nodeB nodeC nodeD --launcher local --worker-cmd \
	$(pwd)/tests/cli/mx-worker.sh --timeout 10 --db $SCT/s.db --json | tr -d '\n'"
# A matrix that ran 4 of its 6 pairs is incomplete, unless it is a screen,
# which runs a share of the pairs by design.
count_incomplete() {
	"$FC" matrix "$@" --launcher local --worker-cmd "$(pwd)/tests/cli/mx-worker.sh" \
		--timeout 10 --db "$SCT/c.db" --json 2>/dev/null | grep -c 'is incomplete'
}
expect "a screen leaves no 'incomplete' finding" 1 '^0$' -- \
	count_incomplete --screen nodeA nodeB nodeC nodeD
rm -rf "$SCT"
