# shellcheck shell=bash
# Issue 42's rack cases (traffic patterns, the fleet baseline) run alone: a
# 4-node rack with two rails, as tests/rack/run.sh boots for phase_rails.sh,
# then tests/rack/phase_pattern.sh on it, then down. tests/rack/run.sh
# sources every cases_*.sh on its 2-node rack, so this file returns at once
# there unless RACK_PATTERN=1; in make check phase_pattern.sh runs on
# run.sh's own 4-node rack after phase_rails.sh. To run it alone (a quiet
# host; about 7 minutes with the boot):
#   make fabcheck && RACK_PATTERN=1 tests/rack/run_one.sh tests/rack/cases_pattern.sh
if [ "${RACK_PATTERN:-}" != 1 ]; then
	echo "    cases_pattern.sh: runs as tests/rack/phase_pattern.sh on run.sh's 4-node rack (RACK_PATTERN=1 runs it alone)"
	return 0
fi
RPT=cipt-$$
RACKS+=("$RPT")
if rack_up "$RPT" --nodes 4 --rails 2; then
	R4=$RPT
	SSH_CFG=$("$FC" lab ssh-config --name "$RPT")
	# shellcheck source=tests/rack/phase_pattern.sh
	. tests/rack/phase_pattern.sh
fi
expect "lab down $RPT" 0 "is down" -- "$FC" lab down --name "$RPT"
expect_rack_gone "$RPT"
