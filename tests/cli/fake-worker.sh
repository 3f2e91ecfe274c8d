#!/usr/bin/env bash
# A worker that misbehaves on purpose, for the controller's CLI tests.
# FAKE_MODE picks how: garbage, version, order, big, type, die, hang, noise,
# error. Started by `fabcheck pair --launcher local --worker-cmd THIS`.
# `devices --json`: the recorded port list FAKE_DEVICES names.
if [ "${1:-}" = devices ]; then
	cat "${FAKE_DEVICES:-/dev/null}"
	exit 0
fi
read -r _hello || exit 0
case "${FAKE_MODE:-garbage}" in
garbage) echo "Welcome to the node! (motd)" ;;
version) echo '{"v":99,"seq":1,"type":"hello","version":"9.9"}' ;;
order) echo '{"v":1,"seq":4,"type":"hello"}' ;;
big) head -c 70000 /dev/zero | tr '\0' x; echo ;;
type) echo '{"v":1,"seq":1,"type":"result"}' ;;
die) echo "worker: something broke" >&2; exit 5 ;;
hang) sleep 30 ;;
noise) echo "bash: warning: setlocale: LC_ALL: cannot change locale" >&2
	echo '{"v":1,"seq":1,"type":"hello","version":"0","host":"x","pid":1}'
	read -r _setup
	echo '{"v":1,"seq":2,"type":"error","kind":"cant","msg":"no RDMA device found: fake"}' ;;
esac
sleep 1
