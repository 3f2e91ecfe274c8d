#!/bin/sh
# A stand-in for `ethtool -S DEV` in the unit tests (FABCHECK_ETHTOOL):
# prints $FAKE_ETHTOOL_OUT, or fails as ethtool does for a netdev without
# statistics when FAKE_ETHTOOL_OUT is "none".
[ "$1" = -S ] && [ -n "$2" ] || { echo "usage: ethtool -S DEV" >&2; exit 2; }
if [ "$FAKE_ETHTOOL_OUT" = none ]; then
	echo "no stats available" >&2
	exit 94
fi
exec cat "$FAKE_ETHTOOL_OUT"
