/*
 * Bandwidth: keep tx_depth work requests in flight on every QP, signalling
 * one in t->cq_mod, at the addresses t->cycle gives. A warm-up pass of
 * t->warmup requests per QP (none in perftest's method) fills the pipeline
 * first; the timed pass runs from its first post to its last completion and
 * records every interval (res->bw). A send test ends with a send with
 * immediate data, so the receiver knows when to stop. With --validate
 * (test.h: struct vb_val) message m of QP q goes to its own slot, writes
 * and sends carry an immediate value, the window is at most a QP's slots,
 * and the side data reaches checks every message at its completion.
 *
 * This file is the loop of one thread (bw_pass); the run around it (the
 * chains built, the threads, the BW peak, the result) is verbs/bw_run.c.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "core/stats.h"
#include "core/util.h"
#include "verbs/bw_run.h"

/* Empty polls in a row before the loop yields the CPU. */
#define BW_IDLE_SPINS 64
/* Loop turns without a completion between two readings of the clock (the
 * deadline, the controller and -D's end): a clock_gettime costs more than
 * an empty poll, and a completion reads the clock anyway. */
#define BW_CLOCK_SPINS 256
/* Reaps of send completions between two readings of the clock while they
 * come at the loop's own pace (bw_reap_time). */
#define BW_CLOCK_REAPS 16

/* Fills work request @wr (and its @sge) for the next message on QP @q. */
static void bw_build(struct bw_run *b, int q, int last, int fin, struct ibv_send_wr *wr,
		     struct ibv_sge *sge)
{
	struct vb_res *r = b->r;
	const struct vb_test *t = b->t;
	uint32_t imm = 1;
	uint64_t slot = t->val ? vb_val_next(r, t, q, fin, &imm) : b->qslot[q] * b->thin;
	uint64_t off = vb_test_offset(t, q, slot);
	int sig = ++b->since_sig[q] >= (uint32_t)t->cq_mod || last;

	/* the next slot, kept below the cycle's (no division per request) */
	b->qslot[q] = b->qslot[q] + 1 >= b->nslots ? 0 : b->qslot[q] + 1;
	*sge = (struct ibv_sge){
		.addr = (uintptr_t)(t->op == VB_READ ? vb_rx(r, 0) : vb_tx(r, 0)) + off,
		.length = (uint32_t)t->size,
		.lkey = r->mr->lkey,
	};
	*wr = (struct ibv_send_wr){ .sg_list = sge, .num_sge = 1 };
	switch (t->op) {
	case VB_WRITE:
		/* Validated: a completion at the receiver for each message. */
		wr->opcode = t->val ? IBV_WR_RDMA_WRITE_WITH_IMM : IBV_WR_RDMA_WRITE;
		wr->imm_data = htonl(imm);
		wr->wr.rdma.remote_addr = vb_peer_rx(r, 0) + off;
		wr->wr.rdma.rkey = r->peer.rkey;
		break;
	case VB_READ:
		wr->opcode = IBV_WR_RDMA_READ;
		wr->wr.rdma.remote_addr = vb_peer_tx(r, 0) + off;
		wr->wr.rdma.rkey = r->peer.rkey;
		break;
	case VB_SEND:
		wr->opcode = fin || t->val ? IBV_WR_SEND_WITH_IMM : IBV_WR_SEND;
		wr->imm_data = htonl(imm);
		break;
	}
	if (sig) {
		wr->send_flags = IBV_SEND_SIGNALED;
		wr->wr_id = ((uint64_t)q << 32) | b->since_sig[q];
		b->since_sig[q] = 0;
	}
	if (t->op != VB_READ && t->size <= (uint64_t)t->inline_max)
		wr->send_flags |= IBV_SEND_INLINE;
	b->posted[q]++;
	if (last)
		b->last_posted[q] = 1;
}

/* Says why a post on QP @q failed (out of the loop's way). */
static __attribute__((noinline, cold)) int bw_post_failed(struct bw_run *b, int q,
							   struct ibv_send_wr *wrs,
							   struct ibv_send_wr *bad, int n, int err)
{
	struct vb_res *r = b->r;

	fc_err("%s qp 0x%x: cannot post %d %s%s of %llu bytes (request %d of the list): %s",
	       r->pi->dev, r->qp[q]->qp_num, n, vb_op_name(b->t->op), n > 1 ? "s" : "",
	       (unsigned long long)b->t->size, (int)(bad - wrs) + 1, strerror(err));
	return -err;
}

/* Posts the @n chained work requests @wrs on QP @q in one ibv_post_send. */
static inline int bw_post_chain(struct bw_run *b, int q, struct ibv_send_wr *wrs, int n)
{
	struct ibv_send_wr *bad;
	int err;

	if (__builtin_expect(b->tpost != NULL, 0)) {
		if (b->totscnt < b->npeak)
			b->tpost[b->totscnt] = fc_now();
		b->totscnt += (uint64_t)n;
	}
	err = ibv_post_send(b->r->qp[q], wrs, &bad);

	if (__builtin_expect(err != 0, 0))
		return bw_post_failed(b, q, wrs, bad, n, err);
	b->posted_all += (uint64_t)n;
	return 0;
}

/* Builds request by request the list of QP @q that holds its last request
 * (or, validated, any list: each request has its own slot and number). */
static int bw_post_built(struct bw_run *b, int q, int list, uint64_t target, int stopping,
			 int fin)
{
	int n = 0;

	while (n < list && !b->last_posted[q]) {
		int last = stopping || b->posted[q] + 1 >= target;

		bw_build(b, q, last, fin && last, &b->wrs[n], &b->sges[n]);
		vb_chain_lost(&b->chain[q]);
		b->wrs[n].next = NULL;
		if (n)
			b->wrs[n - 1].next = &b->wrs[n];
		n++;
	}
	return bw_post_chain(b, q, b->wrs, n);
}

/* QP @q's list for a post at its slot and phase: its ring's next, or its
 * chain moved on. */
static inline struct ibv_send_wr *bw_aim(struct bw_run *b, int q)
{
	struct vb_chain *c = &b->chain[q];

	return c->nring ? vb_ring_aim(c, b->qslot[q], b->since_sig[q]) :
			  vb_chain_aim(c, b->qslot[q], b->since_sig[q]);
}

/* Re-posts QP @q's chain: its signalled requests and addresses moved on. */
static int bw_post_again(struct bw_run *b, int q)
{
	struct vb_chain *c = &b->chain[q];
	uint64_t s = b->qslot[q] + b->nslots_list;
	uint32_t p = b->since_sig[q] + (uint32_t)c->lmod;
	struct ibv_send_wr *wr = bw_aim(b, q);

	b->qslot[q] = s >= b->nslots ? s - b->nslots : s;
	b->since_sig[q] = p >= (uint32_t)c->cq_mod ? p - (uint32_t)c->cq_mod : p;
	b->posted[q] += (uint64_t)c->len;
	return bw_post_chain(b, q, wr, c->len);
}

/* Posts QP @q's lists while @room requests fit in its window and it stays
 * below @fast, with no request written between two posts (its chain is
 * vb_chain_still): the ring's next list, or the list in place. Returns
 * the posts made, or a negative errno. */
static int64_t bw_post_still(struct bw_run *b, int q, uint64_t room, uint64_t fast)
{
	struct vb_chain *c = &b->chain[q];
	struct ibv_qp *qp = b->r->qp[q];
	struct ibv_send_wr *wr = bw_aim(b, q), *bad = NULL;
	struct ibv_send_wr *end = c->wr + (c->nring ? c->nring : c->len);
	uint64_t len = (uint64_t)c->len, posted = b->posted[q];
	long step = c->nring ? c->len : 0, nring = c->nring;
	int64_t k = 0;
	int err;

	for (;;) {
		posted += len;
		room -= len;
		k++;
		if (__builtin_expect((err = ibv_post_send(qp, wr, &bad)) != 0, 0))
			return bw_post_failed(b, q, wr, bad, (int)len, err);
		if (room < len || posted >= fast)
			break;
		wr += step;
		if (wr >= end)
			wr -= nring;
	}
	if (nring) /* the list after the last one posted */
		c->pos = (int)((wr - c->wr + step) % nring);
	return k;
}

/* The steady state: QP @q's chain posted again while @room requests fit
 * in its window and it stays below @fast, with what changes per post
 * (the count, the slot, the signal phase) kept in registers across the
 * posts and stored once after them (perftest's run_iter_bw keeps its
 * counters in locals likewise); a chain that needs nothing written
 * between two posts (vb_chain_still) is only posted again. Not while the
 * BW peak is stamped: that takes bw_post_again's path. */
static int bw_post_run(struct bw_run *b, int q, uint64_t room, uint64_t fast)
{
	struct vb_chain *c = &b->chain[q];
	struct ibv_qp *qp = b->r->qp[q];
	struct ibv_send_wr *wr = c->wr, *bad = NULL;
	uint64_t len = (uint64_t)c->len, posted = b->posted[q], first = posted;
	uint64_t slot = b->qslot[q], nsl = b->nslots_list, nslots = b->nslots;
	uint32_t since = b->since_sig[q], lmod = (uint32_t)c->lmod, cq_mod = (uint32_t)c->cq_mod;
	int err = 0;

	if (vb_chain_still(c)) {
		int64_t k = room >= len && posted < fast ? bw_post_still(b, q, room, fast) : 0;

		if (k < 0)
			return (int)k;
		b->posted[q] = posted + (uint64_t)k * len;
		b->qslot[q] = (slot + (uint64_t)k * nsl) % nslots;
		b->since_sig[q] = (uint32_t)((since + (uint64_t)k * lmod) % cq_mod);
		b->posted_all += (uint64_t)k * len;
		return 0;
	}
	while (room >= len && posted < fast) {
		wr = vb_chain_aim(c, slot, since);
		slot += nsl;
		slot = slot >= nslots ? slot - nslots : slot;
		since += lmod;
		since = since >= cq_mod ? since - cq_mod : since;
		posted += len;
		room -= len;
		if (__builtin_expect((err = ibv_post_send(qp, wr, &bad)) != 0, 0))
			break;
	}
	b->posted[q] = posted;
	b->qslot[q] = slot;
	b->since_sig[q] = since;
	b->posted_all += posted - first - (err ? len : 0);
	return err ? bw_post_failed(b, q, wr, bad, (int)len, err) : 0;
}

/* The timed pass's first post of this thread; the first of all threads
 * starts the interval log (thread 0 opens it at its first sample). */
static void bw_first_post(struct bw_run *b, double now)
{
	uint64_t zero = 0, ns = (uint64_t)(now * 1e9);

	b->t_first = now;
	if (b->timed)
		__atomic_compare_exchange_n(&b->sh->t0_ns, &zero, ns, 0, __ATOMIC_ACQ_REL,
					    __ATOMIC_RELAXED);
}

int bw_log_start(struct bw_run *b)
{
	double t0 = (double)__atomic_load_n(&b->sh->t0_ns, __ATOMIC_ACQUIRE) * 1e-9;

	if (fc_bwlog_init(&b->res->bw, t0 > 0 ? t0 : b->t_first)) {
		fc_err("cannot keep the bandwidth intervals: out of memory");
		return -ENOMEM;
	}
	b->res->have_bw = 1;
	return 0;
}

/* Posts what the window allows on every QP: its chain again, or built
 * request by request for the list that ends the pass (and validated). */
static int bw_fill(struct bw_run *b, uint64_t target, int stopping, int fin)
{
	struct vb_res *r = b->r;
	int list = b->t->post_list > 1 ? b->t->post_list : 1, val = b->t->val != NULL;
	/* the requests a QP may post before its last list */
	uint64_t fast = val || stopping || target < (uint64_t)list ? 0 : target - (uint64_t)list;

	if (!b->t_first)
		bw_first_post(b, fc_now());
	for (int q = b->k; q < r->nqps; q += b->nthr) {
		if (b->posted[q] < fast && !b->tpost) {
			uint64_t used = b->posted[q] - b->done[q];
			int err = bw_post_run(b, q, used < b->window ? b->window - used : 0, fast);

			if (err)
				return err;
		}
		/* A whole list at a time (perftest posts only full lists too). */
		while (b->posted[q] - b->done[q] + (uint64_t)list <= b->window) {
			int err;

			if (b->posted[q] < fast)
				err = bw_post_again(b, q);
			else if (!b->last_posted[q])
				err = bw_post_built(b, q, list, target, stopping, fin);
			else
				break;
			if (err)
				return err;
		}
	}
	return 0;
}

/* Thread 0 samples the bytes of every thread, from the log's start. */
static int bw_sample(struct bw_run *b, double now)
{
	uint64_t bytes = b->nthr > 1 ? __atomic_load_n(&b->sh->bytes, __ATOMIC_RELAXED) : b->bytes;
	int err;

	if (!b->timed || b->k)
		return 0;
	if (!b->res->have_bw) {
		if ((err = bw_log_start(b)))
			return err;
		b->t_sample = b->res->bw.t0;
	}
	if (now - b->t_sample < b->t->interval)
		return 0;
	vb_result_push(b->res, fc_gbps(bytes - b->sample_bytes, now - b->t_sample));
	fc_bwlog_mark(&b->res->bw, now, bytes);
	b->t_sample = now;
	b->sample_bytes = bytes;
	return 0;
}

/* What one completion needs beyond its count, where the test asks for it
 * (rarely: --perftest's BW peak, a validated read, -D's trimmed window):
 * its stamp, its check. 1 when its count is timed, 0 when not, -EIO. */
static int bw_reap_rare(struct bw_run *b, int q, uint64_t cnt, const struct ibv_wc *wc,
			double now)
{
	if (b->tcomp && (b->totccnt += cnt) <= b->npeak)
		b->tcomp[b->totccnt - 1] = now;
	if (b->t->val && b->t->op == VB_READ && vb_val_reads(b->r, b->t, q, cnt, wc, b->scratch))
		return -EIO;
	return b->timed && (!b->win_hi || (now >= b->win_lo && now <= b->win_hi));
}

/* The time a reap of send completions stamps (the samples, -D's end and
 * window, progress): the clock read again when the loop waited for it
 * (@waited empty turns, BW_IDLE_SPINS or more: the link is slower than
 * the loop, and a reading costs it nothing), on a software provider (its
 * post is a system call beside which a reading is nothing; the virtual
 * rack's rxe sends 8 KiB at about 1,500 messages/s, a reap or two in a
 * 0.1 s sample interval), while the BW peak is stamped (perftest's
 * run_iter_bw reads the cycle counter at every completion), and every
 * BW_CLOCK_REAPS reaps otherwise: then it is at most that many reaps old,
 * each after fewer than BW_IDLE_SPINS empty polls and one window's posts
 * (microseconds). A clock_gettime costs 16 ns on this project's build
 * host (CPU time of 10^7 calls), the reference loop's time for about ten
 * requests at post list 32 on the fake HCA (1.7 ns each, make
 * bench-loop). The pass's end reads the clock for its last completion
 * (bw_pass). */
static double bw_reap_time(struct bw_run *b, int waited)
{
	if (waited >= BW_IDLE_SPINS || b->r->soft || b->tcomp || --b->clock_in <= 0) {
		b->clock_in = BW_CLOCK_REAPS;
		b->now = fc_now();
	}
	return b->now;
}

/* The @n send completions in b->wc, after @waited empty turns. Each
 * completion's count goes to its QP; the rest is added once a reap. */
static int bw_reap_send(struct bw_run *b, int n, int waited)
{
	struct ibv_wc *wc = b->wc;
	int rare = b->rare, nqps = b->r->nqps;
	uint64_t sum = 0, timed = 0;
	double now;

	if (n < 0) {
		fc_err("%s: polling the send completion queue failed", b->r->pi->dev);
		return -EIO;
	}
	now = bw_reap_time(b, waited);
	for (int i = 0; i < n; i++) {
		int q = (int)(wc[i].wr_id >> 32), in;
		uint64_t cnt = wc[i].wr_id & 0xffffffffu;

		if (__builtin_expect(wc[i].status != IBV_WC_SUCCESS, 0)) {
			vb_wc_error(b->r, &wc[i]);
			return -EIO;
		}
		if ((unsigned)q >= (unsigned)nqps)
			continue;
		b->done[q] += cnt;
		sum += cnt;
		if (__builtin_expect(rare, 0)) {
			if ((in = bw_reap_rare(b, q, cnt, &wc[i], now)) < 0)
				return in;
			timed += in ? cnt : 0;
		}
	}
	b->clk.done += sum;
	if (!rare && b->timed)
		timed = sum;
	if (timed) {
		b->bytes += timed * b->t->size;
		b->msgs += timed;
		if (b->nthr > 1)
			__atomic_add_fetch(&b->sh->bytes, timed * b->t->size, __ATOMIC_RELAXED);
	}
	b->t_last = now;
	b->clk.last_progress = now;
	return bw_sample(b, now);
}

/* An empty poll costs the poll alone. */
static inline int bw_poll_send(struct bw_run *b, int waited)
{
	int n = ibv_poll_cq(b->scq, BW_WC_BATCH, b->wc);

	return n ? bw_reap_send(b, n, waited) : 0;
}

static int bw_poll_recv(struct bw_run *b)
{
	struct ibv_wc wc[BW_WC_BATCH];
	int n = ibv_poll_cq(b->rcq, BW_WC_BATCH, wc);

	if (n < 0) {
		fc_err("%s: polling the receive completion queue failed", b->r->pi->dev);
		return -EIO;
	}
	for (int i = 0; i < n; i++) {
		int q = (int)(wc[i].wr_id & 0xff);
		const struct vb_test *t = b->t;

		if (wc[i].status != IBV_WC_SUCCESS) {
			vb_wc_error(b->r, &wc[i]);
			return -EIO;
		}
		if (q < 0 || q >= b->r->nqps)
			continue;
		b->r->rq_posted[q]--;
		b->clk.done++;
		if (t->val ? (wc[i].wc_flags & IBV_WC_WITH_IMM) && (ntohl(wc[i].imm_data) & FC_VIMM_LAST) :
			     (wc[i].wc_flags & IBV_WC_WITH_IMM) != 0)
			b->fins++;
		/* Checked before its receive is posted again. */
		if (t->val && vb_val_recv(b->r, t, q, &wc[i], (uint32_t)(wc[i].wr_id >> 8), b->scratch))
			return -EIO;
		if (vb_post_recvs(b->r, q))
			return -EIO;
	}
	if (n)
		b->clk.last_progress = b->now = fc_now();
	return 0;
}

static int bw_sends_done(const struct bw_run *b)
{
	for (int q = b->k; q < b->r->nqps; q += b->nthr)
		if (!b->last_posted[q] || b->done[q] != b->posted[q])
			return 0;
	return 1;
}

/* perftest's -D (perftest_parameters.c, catch_alarm): a margin of a
 * quarter of the duration, in whole seconds (its int arithmetic), is cut
 * at each end; BW and message rate are what completed in between over
 * that time. Without a margin (under 4 s) the window is the duration
 * itself: what completes after its end does not count either. */
static void bw_trim(struct bw_run *b, double end, double duration)
{
	b->win_lo = b->win_hi = 0;
	if (!b->timed || b->t->method != VB_METHOD_PERFTEST)
		return;
	vb_pt_window(end - duration, duration, &b->win_lo, &b->win_hi);
}

/* The checks of a turn at b->now: another thread's failure, the end of a
 * run of @end (*stopping_p), the deadline and the controller. */
static int bw_turn(struct bw_run *b, double end, int *stopping_p)
{
	if (b->nthr > 1 && __atomic_load_n(&b->sh->stop, __ATOMIC_RELAXED))
		return -ECANCELED;
	if (end && b->now >= end)
		*stopping_p = 1;
	return vb_clock_tick(b->r, &b->clk, b->now);
}

/* One pass: @per_qp requests on every QP (or @duration seconds). */
int bw_pass(struct bw_run *b, uint64_t per_qp, double duration, int timed)
{
	const struct vb_test *t = b->t;
	int fin = timed && (t->op == VB_SEND || (t->op == VB_WRITE && t->val));
	double end = 0, ticked = -1;
	int stopping = 0, err = 0, idle = 0, spins = 0;
	uint64_t seen;

	for (int q = b->k; q < b->r->nqps; q += b->nthr) { /* the QPs it drives, not VB_MAX_QPS */
		b->posted[q] = b->done[q] = 0;
		b->since_sig[q] = 0;
		b->last_posted[q] = 0;
		vb_chain_lost(&b->chain[q]); /* its phase starts again */
	}
	b->timed = timed;
	b->t_first = 0;
	b->now = fc_now();
	if (duration > 0) {
		end = b->now + duration;
		per_qp = UINT64_MAX;
		bw_trim(b, end, duration);
	}
	/* what a reap does beyond the counts (bw_reap_rare) */
	b->rare = b->tcomp || b->win_hi || (t->val && t->op == VB_READ);
	/* What follows a completion (the end, the fill, the clock's checks)
	 * runs only after one, or after BW_CLOCK_SPINS empty turns: an
	 * empty turn is the polls alone, as in perftest's loop. */
	for (seen = UINT64_MAX;;) {
		if (b->clk.done != seen) {
			seen = b->clk.done;
			idle = spins = 0;
			if ((!t->active || bw_sends_done(b)) &&
			    (!timed || !t->passive || b->fins >= bw_owned(b))) {
				/* the last completion's time (its reap may
				 * have kept an older one, bw_reap_time) */
				if (t->active)
					b->t_last = fc_now();
				break;
			}
			/* the clock's checks at a time they have not seen
			 * (bw_reap_time keeps one for a few reaps) */
			if (b->now != ticked) {
				ticked = b->now;
				if ((err = bw_turn(b, end, &stopping)))
					break;
			}
			if (t->active && (err = bw_fill(b, per_qp, stopping, fin)))
				break;
		} else if (++spins >= BW_CLOCK_SPINS) {
			spins = 0;
			b->now = fc_now();
			if ((err = bw_turn(b, end, &stopping)))
				break;
			if (stopping)
				seen = UINT64_MAX; /* the last lists, now */
		} else if (b->r->soft && ++idle >= BW_IDLE_SPINS) {
			/* Nothing completed for a while: on a software provider
			 * (rxe, siw) let the kernel run, its data path is kernel
			 * threads on the same CPUs; a hardware HCA's loop never
			 * gives its core up (it would delay the last completion's
			 * time stamp). */
			sched_yield();
			idle = 0;
		}
		if (t->active && (err = bw_poll_send(b, spins)))
			break;
		if (t->passive && (err = bw_poll_recv(b)))
			break;
	}
	return err;
}
