#!/bin/sh
# A stand-in `srun` (put on PATH as "srun" by the CLI cases): drops the
# options fabcheck gives srun (--nodelist=NODE -N1 -n1 ...) and runs the
# command after them here, as one job step on the node would.
# The step sees its node's name in SLURMD_NODENAME, as a real srun sets it
# (srun(1), "OUTPUT ENVIRONMENT VARIABLES").
while [ $# -gt 0 ] && [ "${1#-}" != "$1" ]; do
	case $1 in --nodelist=*) SLURMD_NODENAME=${1#--nodelist=} && export SLURMD_NODENAME ;; esac
	shift
done
exec "$@"
