# Cases for pair's (and matrix's) --tclass and --sl on this host, which has no
# RDMA device (sourced by tests/cli/run.sh). On the rack: tests/rack/cases_qos.sh.
expect "pair help names --tclass" 0 '--tclass N +traffic class on both sides, 0\.\.255' -- $FC pair --help
expect "pair help names --sl" 0 '--sl N +service level on both sides, 0\.\.15 \(RoCE: the address' -- $FC pair --help
expect "pair --tclass 256" 2 "--tclass: '256' is out of range or not a number; expected an integer from 0 to 255" -- \
	$FC pair a b --tclass 256
expect "pair --tclass -1" 2 "--tclass: '-1' is out of range" -- $FC pair a b --tclass -1
expect "pair --tclass abc" 2 "--tclass: 'abc' is out of range or not a number" -- $FC pair a b --tclass abc
expect "pair --tclass 0x6a" 2 "--tclass: '0x6a' is out of range or not a number" -- $FC pair a b --tclass 0x6a
expect "pair --tclass empty" 2 "--tclass: empty value" -- $FC pair a b --tclass ''
expect "pair --sl 16" 2 "--sl: '16' is out of range or not a number; expected an integer from 0 to 15" -- \
	$FC pair a b --sl 16
expect "pair --sl x" 2 "--sl: 'x' is out of range or not a number" -- $FC pair a b --sl x
expect "pair --sl 3.5" 2 "--sl: '3\.5' is out of range" -- $FC pair a b --sl 3.5
expect "pair --tclass missing value" 2 "requires an argument" -- $FC pair a b --tclass
# Good values reach the report even when the run cannot start (no device here).
expect "pair --tclass 106 --sl 3 recorded in options" 3 \
	'"options": \{.*"tclass": 106, +"sl": 3, +"dscp": 26, +"ecn": 2' -- \
	bash -c "set -o pipefail; $FC pair --launcher local --timeout 3 --no-db a b --tclass 106 --sl 3 --json | tr -d '\n'"
expect "pair without --tclass records null" 3 '"tclass": null, +"sl": null' -- \
	bash -c "set -o pipefail; $FC pair --launcher local --timeout 3 --no-db a b --json | tr -d '\n'"
# matrix passes them through and refuses bad ones itself, before any pair.
expect "matrix help names --tclass" 0 '--tclass N, --sl N' -- $FC matrix --help
expect "matrix --tclass 300" 2 "--tclass: '300' is out of range" -- $FC matrix a b c --tclass 300 --db /nonexistent/x.db
expect "matrix --sl 99" 2 "--sl: '99' is out of range" -- $FC matrix a b --sl 99 --db /nonexistent/x.db
expect "matrix --sl abc" 2 "--sl: 'abc' is out of range or not a number" -- $FC matrix a b --sl abc
