#!/bin/bash
# A job script written for the nccl env tests: one setting per status.
export NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,ENV,NET
export NCCL_SOCKET_IFNAMES=eth0          # typo: unknown
export NCCL_MAX_NRINGS=8                 # deprecated
NCCL_NET_GDR_LEVEL=phb                   # invalid: exact case
NCCL_BUFFSIZE=4M                         # invalid: plain bytes only
mpirun -np 16 -x NCCL_IB_DISABLE=1 -x NCCL_IB_GID_INDEX=3 \
	-x NCCL_ALGO=Ring,Tree -x NCCL_PROTO='^LL128' python train.py
