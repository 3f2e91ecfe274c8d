#!/bin/sh
# A stand-in `fabcheck` for scripts/demo.sh (FC=THIS), for
# tests/cli/cases_demo.sh: logs each call's arguments as one line in
# $DEMO_FC_LOG; `lab calibrate --recorded` exits $DEMO_CAL_RC (0 a quiet
# rack, 1 a starved one, 3 no calibration figure, as lab/cmd_calib.c);
# `lab up` also logs FABCHECK_LAB_CALIBRATE as it sees it;
# `lab ssh-config` names $DEMO_FC_LOG.cfg; every other command says what it
# is and exits 0 (a pair, a matrix that passed).
echo "$*" >>"$DEMO_FC_LOG"
# whether lab up would run its calibration pair (lab/up.sh up_calibrate)
[ "$1 ${2:-}" = "lab up" ] && echo "lab up: FABCHECK_LAB_CALIBRATE=${FABCHECK_LAB_CALIBRATE-unset}" >>"$DEMO_FC_LOG"
case "$1 ${2:-}" in
"lab calibrate") exit "${DEMO_CAL_RC:-0}" ;;
"lab ssh-config") echo "$DEMO_FC_LOG.cfg" ;;
*) echo "stand-in fabcheck: $*" ;;
esac
exit 0
