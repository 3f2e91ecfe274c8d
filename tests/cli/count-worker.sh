#!/usr/bin/env bash
# A worker that counts how many of its kind run at once (the --fanout
# cases): while it runs it holds a file in $COUNT_DIR, and it appends to
# $COUNT_DIR/seen how many it saw there, itself included. As a preflight
# probe it then runs the real one ($COUNT_FC preflight-probe ...); as a pair
# worker it answers as tests/cli/mx-worker.sh does (no RDMA device).
d=$COUNT_DIR
: >"$d/run.$$"
trap 'rm -f "$d/run.$$"' EXIT
find "$d" -name 'run.*' | wc -l >>"$d/seen"
sleep 0.3
if [ "$1" = preflight-probe ]; then
	"$COUNT_FC" "$@"
	exit $?
fi
read -r _hello || exit 0
echo '{"v":1,"seq":1,"type":"hello","version":"0","host":"x","pid":1}'
read -r _setup
echo '{"v":1,"seq":2,"type":"error","kind":"node","msg":"no RDMA device found (test worker)"}'
