/*
 * fabcheck nccl run: the pure parts (libc and jansson only). The size
 * series, the nccl-tests bandwidth formulas, the unique-id hex codec, the
 * NCCL version code, the controller-worker messages of a run and their
 * checks, and the result table.
 */
#ifndef FC_NCCLRT_H
#define FC_NCCLRT_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#define NCR_ID_BYTES 128     /* sizeof(ncclUniqueId) */
#define NCR_MAX_SIZES 64
#define NCR_MAX_RANKS 256    /* ranks one controller drives */
#define NCR_MAX_BYTES (16ULL << 30)
#define NCR_ELEM_BYTES 4     /* float32 */

enum ncr_op { NCR_ALL_REDUCE };

/* "all_reduce" (or "allreduce"); -EINVAL otherwise (nothing logged). */
int ncr_op_parse(const char *s, enum ncr_op *out_p);
const char *ncr_op_name(enum ncr_op op);

/*
 * The sizes of a run, as nccl-tests steps them (-b, -e, -f): @min, then
 * times @factor while <= @max; each rounded down to a whole number of
 * float32 elements. Returns how many (at least 1), or -EINVAL when
 * min < 4, max < min or factor < 2, -E2BIG past @cap sizes.
 */
int ncr_size_series(uint64_t min, uint64_t max, unsigned factor, uint64_t *out, int cap);

/* nccl-tests' formulas: algbw = bytes / time (GB/s, 1e9 bytes); busbw =
 * algbw * factor, which for all_reduce is 2(n-1)/n (0 for one rank). */
double ncr_algbw(uint64_t bytes, double seconds);
double ncr_busbw_factor(enum ncr_op op, int nranks);

/*
 * What the rails can carry (checks/nccl/run/ncclrt_rails.c; doc/nccl-run.md has
 * the derivation and the published figures it is tested against).
 *
 * NCCL's all_reduce algorithms, as NCCL_ALGO names them: Ring, Tree, NVLS
 * and NVLSTree (NVLink SHARP: inside one node NVLS, across nodes NVLSTree,
 * whose network part is a tree of the nodes), CollNet (IB SHARP, not
 * modelled) and PAT (not an all_reduce algorithm).
 */
enum ncr_algo {
	NCR_ALGO_RING = 1,
	NCR_ALGO_TREE = 2,
	NCR_ALGO_NVLS = 4,    /* NVLS and NVLSTree */
	NCR_ALGO_COLLNET = 8, /* CollNetDirect, CollNetChain */
	NCR_ALGO_PAT = 16,
};
#define NCR_ALGO_ALL 31

/*
 * The all_reduce algorithms NCCL may use under NCCL_ALGO=@s (NULL or empty:
 * all): a comma list, case-insensitive, "^" first to exclude the list
 * instead; of a per-operation value ("allreduce:tree;allgather:ring") the
 * all_reduce part. The value is one ncclenv_value_check() accepts: a
 * word that names no algorithm adds none here (NCCL ignores such a value
 * whole: the caller checks it first).
 */
unsigned ncr_algo_parse(const char *s);
/* "ring", "tree", "NVLS tree", "CollNet", "PAT" ("?" for a set). */
const char *ncr_algo_name(unsigned algo);

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
double ncr_algo_factor(unsigned algo, int nnodes, int gpus_per_node);

/*
 * The bus bandwidth (GB/s, 1e9 bytes/s) the rails can carry for @op over
 * @nnodes nodes with any algorithm of @algos (the lowest of their factors,
 * that algorithm in @which_p; 0 when none is modelled):
 *
 *   busbw = min(rails, GPUs per node) x rate / 8 x NCR_RAIL_PAYLOAD x factor
 *
 * rails: the HCAs NCCL uses per node, rate: their link rate in Gb/s. Each
 * GPU drives its own rail, so at most one rail per GPU counts (one GPU
 * cannot fill several: its PCIe link is about one NIC's rate).
 * NCR_RAIL_PAYLOAD is the share of the line rate NCCL delivers: 0.94, the
 * middle of NVIDIA's "46-48 GB/s per NIC" for NDR 400 Gb/s on two nodes with
 * NCCL_ALGO=RING (github.com/NVIDIA/nccl-tests/issues/290). 0 for one node,
 * unknown rails or rate, or no modelled algorithm.
 */
#define NCR_RAIL_PAYLOAD 0.94
double ncr_rails_busbw(enum ncr_op op, unsigned algos, int rails, double rate_gbit,
		       int gpus_per_node, int nnodes, unsigned *which_p);
/* What the network alone would allow a tree on two nodes (the 2(n-1)/n
 * above; 0 elsewhere or when @algos has neither tree nor NVLS). */
double ncr_rails_bound(enum ncr_op op, unsigned algos, int rails, double rate_gbit,
		       int gpus_per_node, int nnodes);

/*
 * NCCL_DEBUG_SUBSYS for a rank: @user's value (NULL: unset) with the
 * subsystems the log checks read (INIT, ENV, NET) added; "INIT,ENV,NET"
 * when unset or empty; "ALL" kept; of an exclusion list ("^COLL,INIT",
 * NCCL's inverted form, src/debug.cc) those three are taken out ("^COLL"),
 * and an exclusion of nothing else becomes "ALL". Tokens are compared
 * without case, as NCCL does. Written into @out (@len bytes).
 */
void ncr_debug_subsys(const char *user, char *out, size_t len);

/* Hex of @n bytes into @out (2n + 1 chars). */
void ncr_hex_encode(const uint8_t *in, size_t n, char *out);
/* Exactly 2n hex digits into @out; -EINVAL otherwise. */
int ncr_hex_decode(const char *s, uint8_t *out, size_t n);

/* NCCL_VERSION_CODE into "2.28.9": major*10000+minor*100+patch since 2.9,
 * major*1000+minor*100+patch before. "?" for a code <= 0. */
const char *ncr_version_str(int code, char *buf, size_t len);

/* What the controller asks of one rank ("setup" message). */
struct ncr_params {
	int rank, nranks;
	int gpu;	   /* CUDA device index on the node */
	int want_topo;	   /* send the node's topology */
	enum ncr_op op;
	uint64_t min_bytes, max_bytes;
	unsigned factor;
	int iters, warmup;
	double timeout;	   /* seconds, deadline of any one step */
};

json_t *ncr_params_json(const struct ncr_params *p);
/* Reads and range-checks a "setup" message; -EPROTO with @why otherwise. */
int ncr_params_from_json(const json_t *m, struct ncr_params *p, char *why, size_t len);

/* One rank's answer to "run": for each size of the series, the mean time
 * of one operation and whether its result was wrong. */
struct ncr_rank_result {
	int nsizes;
	uint64_t bytes[NCR_MAX_SIZES];
	double time_us[NCR_MAX_SIZES];
	int wrong[NCR_MAX_SIZES]; /* elements checked that were wrong */
};

json_t *ncr_result_json(const struct ncr_rank_result *r);
/* Reads a "result" message; its sizes must be the series of @p. */
int ncr_result_from_json(const json_t *m, const struct ncr_params *p,
			 struct ncr_rank_result *r, char *why, size_t len);

/*
 * The result table over all ranks: per size {"op", "size_bytes", "count",
 * "type", "time_us" (mean over ranks, as nccl-tests), "max_time_us",
 * "algbw_gbytes_s", "busbw_gbytes_s", "busbw_gbps", "wrong"}. Every rank
 * must hold the same sizes.
 */
json_t *ncr_table(enum ncr_op op, const struct ncr_rank_result *r, int nranks);
/* Mean bus bandwidth over the sizes of a table (nccl-tests' "Avg bus
 * bandwidth"), GB/s. */
double ncr_avg_busbw(const json_t *table);

/* The deadline of one size's operations: @timeout plus the time they take
 * at 100 MB/s (a floor no working fabric is under). */
double ncr_size_deadline(double timeout, uint64_t bytes, int ops);

#endif
