# fabcheck diagnose: evidence folders (tests/data/diag, doc/diagnose.md).
D=tests/data/diag
expect "diagnose: no folder is a usage error" 2 'give one evidence folder' -- "$FC" diagnose
expect "diagnose: a missing folder names it" 2 "cannot open '/nonexistent/ev': No such file" -- \
	"$FC" diagnose /nonexistent/ev
expect "diagnose: an empty folder is not evidence" 2 'not an evidence folder' -- \
	"$FC" diagnose tests/cli
expect "diagnose: IB flaps name the cable, with the next step" 0 \
	'likely   nodeC mlx5_3 port 1: cable or transceiver.*' -- "$FC" diagnose "$D/ib-flaps"
expect "diagnose: the next step names the re-run" 0 \
	"next: swap the cable \(then the transceiver\) of nodeC mlx5_3 port 1" -- \
	"$FC" diagnose "$D/ib-flaps"
expect "diagnose: what a port does not expose is said" 0 \
	'transceiver readings not exposed' -- "$FC" diagnose "$D/ib-flaps"
expect "diagnose --json: the hot module names the transceiver" 0 '^ok$' -- \
	bash -c "'$FC' diagnose --json '$D/module-hot' | jq -e '.diagnosis[0].part == \"transceiver\" and .diagnosis[0].confidence == \"likely\"' >/dev/null && echo ok"
expect "diagnose: the recorded verdict is the exit code (rack, mtu 1500)" 1 \
	'recorded verdict fail.*' -- "$FC" diagnose "$D/rack-mtu"
expect "diagnose: a folder of folders is diagnosed one by one" 1 \
	'rack-loss: recorded verdict fail' -- "$FC" diagnose "$D"
