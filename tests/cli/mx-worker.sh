#!/usr/bin/env bash
# A worker for the matrix runner's CLI tests, started by the real
# `fabcheck pair --launcher local --worker-cmd THIS`: the worker of the node
# named in $MX_HANG_NODE never answers (a hung node, until pair's deadline or
# the matrix ends it); any other fails at once as a worker on a host without
# RDMA does. It lets the tests hold some pairs of a round while others finish.
read -r hello || exit 0
case $hello in
*"\"${MX_HANG_NODE:-none}\""*) sleep 60 ;;
esac
echo '{"v":1,"seq":1,"type":"hello","version":"0","host":"x","pid":1}'
read -r _setup
echo '{"v":1,"seq":2,"type":"error","kind":"node","msg":"no RDMA device found (test worker)"}'
sleep 1
