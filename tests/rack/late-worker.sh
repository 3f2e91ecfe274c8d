#!/usr/bin/env bash
# A launcher wrapper for the rack tests: on nodeB it starts the worker 2 s
# late and holds each "go" from the controller 2 s before passing it on, so
# that in a bidirectional test one direction starts 2 s after the other.
# On any other node it is the worker itself. Used as pair --worker-cmd.
if [ "$(hostname)" != nodeB ]; then
	exec fabcheck "$@"
fi
sleep 2
while IFS= read -r line; do
	case $line in
	*'"type":"go"'*) sleep 2 ;;
	esac
	printf '%s\n' "$line"
done | fabcheck "$@"
