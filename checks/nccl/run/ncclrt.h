/*
 * fabcheck nccl run: the pure parts (libc and jansson only). The size
 * series, the nccl-tests bandwidth formulas, the unique-id hex codec, the
 * NCCL version code, the controller-worker messages of a run and their
 * checks, and the result table.
 */
#ifndef FC_NCCLRT_H
#define FC_NCCLRT_H

#include <jansson.h>

#include "core/busbw.h"
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

/* What the rails can carry: core/busbw.h (plan and check-log use it too). */

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
	int64_t wrong[NCR_MAX_SIZES]; /* elements checked that were wrong */
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
