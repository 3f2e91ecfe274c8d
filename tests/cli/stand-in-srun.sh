#!/bin/sh
# A stand-in `srun` (put on PATH as "srun" by the CLI cases): drops the
# options fabcheck gives srun (--nodelist=NODE -N1 -n1 ...) and runs the
# command after them here, as one job step on the node would.
while [ $# -gt 0 ] && [ "${1#-}" != "$1" ]; do
	shift
done
exec "$@"
