#!/bin/sh
# A stand-in `ssh` (put on PATH as "ssh" by the CLI cases): records its
# arguments, one a line, in $SSH_ARGV, then runs the remote command line in
# a shell in $SSH_HOME, the way sshd hands it to the node's login shell.
# `ssh -G` prints the file $SSH_G_OUT (none: nothing, an ssh that cannot
# tell its configuration) and records its arguments, one a line, in
# $SSH_G_ARGV when that is set.
for a; do
	if [ "$a" = -G ]; then
		[ -n "${SSH_G_ARGV:-}" ] && printf '%s\n' "$@" >"$SSH_G_ARGV"
		[ -n "${SSH_G_OUT:-}" ] && cat "$SSH_G_OUT"
		exit 0
	fi
done
printf '%s\n' "$@" >"$SSH_ARGV"
for last; do :; done
cd "$SSH_HOME" || exit 255
exec sh -c "$last"
