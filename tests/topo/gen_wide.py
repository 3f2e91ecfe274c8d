#!/usr/bin/env python3
# Writes an `nvidia-smi topo -m` table of G GPUs and N NICs (GPU i PIX to NIC i mod N,
# NVLink between GPUs), in the layout nvidia-smi prints: wider than any real server,
# for the reader's limits.   usage: gen_wide.py G N
import sys
g,n=int(sys.argv[1]),int(sys.argv[2])
labels=[f"GPU{i}" for i in range(g)]+[f"NIC{i}" for i in range(n)]
print("\t"+"\t".join(labels)+"\tCPU Affinity\tNUMA Affinity\tGPU NUMA ID")
for i,l in enumerate(labels):
    cells=[]
    for j,_ in enumerate(labels):
        if i==j: cells.append("X")
        elif i<g and j<g: cells.append("NV18")
        elif (i<g)!=(j<g):
            gi = i if i<g else j; ni=(j-g) if i<g else (i-g)
            cells.append("PIX" if gi%n==ni else "SYS")
        else: cells.append("SYS")
    print(l+"\t"+"\t".join(cells)+("\t0-47\t0\t0" if i<g else ""))
print("\nNIC Legend:\n")
for i in range(n): print(f"  NIC{i}: mlx5_{i}")
