/*
 * The all_reduce bus bandwidth a fabric can carry across nodes: one model
 * for nccl run's expectation, nccl check-log's judgement and plan's fabric
 * (doc/nccl-run.md has the derivation and the published figures it is
 * tested against).
 */
#ifndef FC_BUSBW_H
#define FC_BUSBW_H

/*
 * What the rails can carry (core/busbw.c; doc/nccl-run.md has
 * the derivation and the published figures it is tested against).
 *
 * NCCL's all_reduce algorithms, as NCCL_ALGO names them: Ring, Tree, NVLS
 * and NVLSTree (NVLink SHARP: inside one node NVLS, across nodes NVLSTree,
 * whose network part is a tree of the nodes), CollNet (IB SHARP, not
 * modelled) and PAT (not an all_reduce algorithm).
 */
enum busbw_algo {
	BUSBW_ALGO_RING = 1,
	BUSBW_ALGO_TREE = 2,
	BUSBW_ALGO_NVLS = 4,    /* NVLS and NVLSTree */
	BUSBW_ALGO_COLLNET = 8, /* CollNetDirect, CollNetChain */
	BUSBW_ALGO_PAT = 16,
};
#define BUSBW_ALGO_ALL 31

/*
 * The all_reduce algorithms NCCL may use under NCCL_ALGO=@s (NULL or empty:
 * all): a comma list, case-insensitive, "^" first to exclude the list
 * instead; of a per-operation value ("allreduce:tree;allgather:ring") the
 * all_reduce part. The value is one ncclenv_value_check() accepts: a
 * word that names no algorithm adds none here (NCCL ignores such a value
 * whole: the caller checks it first).
 */
unsigned busbw_algo_parse(const char *s);
/* "ring", "tree", "NVLS tree", "CollNet", "PAT" ("?" for a set). */
const char *busbw_algo_name(unsigned algo);

/*
 * nccl-tests' all_reduce busbw, as a share of the nodes' network payload
 * rate, when the network is the bottleneck, for one algorithm:
 *   ring: 1 (each rank sends 2(n-1)/n of the buffer, the factor nccl-tests
 *     multiplies algbw by, doc/PERFORMANCE.md of nccl-tests);
 *   tree, NVLS tree on three nodes or more: (n-1)/n (each node sends and
 *     receives twice the buffer: interior in one of NCCL's two trees and a
 *     leaf in the other; NCCL's own model halves a tree's bus bandwidth);
 *   tree, NVLS tree on two nodes: 1, a floor: only half of the traffic
 *     crosses the network, which would allow 2(n-1)/n, and the path inside
 *     the node (NVLink, NVSwitch, PCIe), which this does not know, sets
 *     what is reached between the two (nccl issue 946);
 * 0 for CollNet, PAT or one node (the network is not what is measured).
 * n = @nnodes x @gpus_per_node ranks.
 */
double busbw_algo_factor(unsigned algo, int nnodes, int gpus_per_node);

/*
 * The bus bandwidth (GB/s, 1e9 bytes/s) the rails can carry for all_reduce over
 * @nnodes nodes with any algorithm of @algos (the lowest of their factors,
 * that algorithm in @which_p; 0 when none is modelled):
 *
 *   busbw = min(rails, GPUs per node) x rate / 8 x BUSBW_RAIL_PAYLOAD x factor
 *
 * rails: the HCAs NCCL uses per node, rate: their link rate in Gb/s. Each
 * GPU drives its own rail, so at most one rail per GPU counts (one GPU
 * cannot fill several: its PCIe link is about one NIC's rate).
 * BUSBW_RAIL_PAYLOAD is the share of the line rate NCCL delivers: 0.94, the
 * middle of NVIDIA's "46-48 GB/s per NIC" for NDR 400 Gb/s on two nodes with
 * NCCL_ALGO=RING (github.com/NVIDIA/nccl-tests/issues/290). 0 for one node,
 * unknown rails or rate, or no modelled algorithm.
 */
#define BUSBW_RAIL_PAYLOAD 0.94
double busbw_rails(unsigned algos, int rails, double rate_gbit,
		   int gpus_per_node, int nnodes, unsigned *which_p);
/* The same for a measured payload rate per rail (@payload_gbytes GB/s, as
 * ib_write_bw reports it: no payload share applied). */
double busbw_payload(unsigned algos, int rails, double payload_gbytes, int gpus_per_node,
		     int nnodes, unsigned *which_p);
/* What the network alone would allow a tree on two nodes (the 2(n-1)/n
 * above; 0 elsewhere or when @algos has neither tree nor NVLS). */
double busbw_rails_bound(unsigned algos, int rails, double rate_gbit,
		   int gpus_per_node, int nnodes);

#endif
