/*
 * The bandwidth loop's state (verbs/bw.c, and the run around it in
 * verbs/bw_run.c), in a header of its own so that tests/unit/test_hotwait.c
 * can check its layout: what every thread reads each turn (the stop flag),
 * what they all add to (the byte counter) and each thread's own state sit
 * on cache lines apart (issue 40, item 4).
 */
#ifndef FC_VERBS_BW_RUN_H
#define FC_VERBS_BW_RUN_H

#include <pthread.h>
#include <stdint.h>

#include "verbs/chain.h"
#include "verbs/test.h"

#define BW_WC_BATCH 32
/* A cache line: what one thread writes often is kept on lines of its own
 * (64 bytes on x86-64: Intel 64 and IA-32 Architectures Optimization
 * Reference Manual, "cache line size"; Arm Neoverse N1/V2 TRMs, L1 data
 * cache "64-byte cache lines"). */
#define BW_LINE 64

#define BW_MAX_CHAIN 1024

/* What the threads of one test share: the stop flag every thread reads
 * each turn on a line of its own, apart from the counter they all add to. */
struct bw_shared {
	_Alignas(BW_LINE) int stop; /* set (atomically) by a thread that failed */
	_Alignas(BW_LINE) uint64_t bytes; /* timed bytes of every thread, for the samples */
	uint64_t t0_ns;	      /* the first timed post of any thread: the log's one start */
};

/* One thread's state, on cache lines of its own (aligned_alloc). */
struct bw_run {
	_Alignas(BW_LINE) struct vb_res *r;
	int k, nthr;	      /* this thread drives the QPs q with q % nthr == k */
	struct ibv_cq *scq, *rcq;
	struct bw_shared *sh;
	uint64_t msgs;
	uint64_t posted_all; /* every message posted, warm-up included */
	int err;
	pthread_t tid;
	const struct vb_test *t;
	struct vb_result *res;
	uint64_t posted[VB_MAX_QPS], done[VB_MAX_QPS];
	uint32_t since_sig[VB_MAX_QPS];
	int last_posted[VB_MAX_QPS];
	uint64_t qslot[VB_MAX_QPS]; /* each QP's next slot, of the cycle's (perftest's steps) */
	uint64_t nslots;      /* the chains' slots: every thin-th of the test's cycle */
	uint32_t thin;
	/* Each owned QP's chain, built once (bw_chains) and re-posted; the
	 * last list of a pass is built request by request in wrs (bw_build). */
	struct vb_chain chain[VB_MAX_QPS];
	struct ibv_send_wr *cwrs;
	struct ibv_sge *csges;
	uint32_t nslots_list; /* the post list's length, mod the cycle's slots */
	double now;	      /* the clock as last read */
	struct ibv_wc wc[BW_WC_BATCH];
	struct ibv_send_wr wrs[BW_MAX_CHAIN];
	struct ibv_sge sges[BW_MAX_CHAIN];
	int fins;
	int timed;
	double t_first, t_last, t_sample;
	/* --perftest -D: only completions in [win_lo, win_hi] count (0: all) */
	double win_lo, win_hi;
	uint64_t bytes, sample_bytes;
	struct vb_clock clk;
	uint64_t window;      /* requests in flight per QP at most */
	uint8_t *scratch;     /* --validate on GPU memory: one message's host image */
	/* --perftest's BW peak (verbs/peak.c): run_iter_bw's stamps, NULL when
	 * not measured: a post's at its list's first request, a completion's
	 * at the last request it brought the count to, @npeak requests */
	double *tpost, *tcomp;
	uint64_t npeak, totscnt, totccnt;
	int clock_in;	      /* reaps before the clock is read again (bw_reap_time) */
	int rare;	      /* a reap stamps, checks or trims (bw_reap_rare) */
};

/* How many QPs thread b->k drives (q % nthr == k). */
static inline int bw_owned(const struct bw_run *b)
{
	return (b->r->nqps - b->k + b->nthr - 1) / b->nthr;
}

/* The loop (verbs/bw.c), for the run around it (verbs/bw_run.c): one pass
 * of @per_qp requests on every QP this thread drives (or @duration
 * seconds), timed or not; the interval log's start. 0 or a negative errno. */
int bw_pass(struct bw_run *b, uint64_t per_qp, double duration, int timed);
int bw_log_start(struct bw_run *b);

#endif
