/*
 * Latency, one message in flight on QP 0. write: ping-pong through memory
 * (the answering side polls the last byte of the slot the peer writes), or
 * with --lat-mode imm through RDMA WRITE WITH IMMEDIATE, each side waiting
 * on its receive completion so that no CPU reads the buffer (GPU memory);
 * send: ping-pong through receives; read: one read at a time. Every round
 * after the warm-up goes into the histogram res->lat; write and send report
 * half the round trip, read the whole read, as perftest does.
 *
 * fabcheck's method times each round from its post to its answer and reaps
 * the send completions after the clock stopped. perftest's method times
 * from one post to the next (perftest's tposted[i + 1] - tposted[i]), so
 * the reaping and the loop are inside the figure, as in perftest; with -D
 * only the rounds within perftest's trimmed window (vb_pt_window) count.
 *
 * --validate (test.h: struct vb_val): write by immediate, send and read
 * only. Each message is checked off the clock: the timing side after its
 * round was timed, the answering side after it answered.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "core/util.h"
#include "verbs/test.h"

struct lat_run {
	struct vb_res *r;
	const struct vb_test *t;
	struct vb_result *res;
	int outstanding; /* signalled sends not yet completed */
	struct vb_clock clk;
	uint64_t warm;
	double end;
	double prev_post;  /* perftest's method: the last round's post */
	/* perftest's method with -D: only rounds in [win_lo, win_hi] count
	 * (vb_pt_window; 0: every round) */
	double win_lo, win_hi;
	struct ibv_wc last_wc; /* the last send completion reaped */
	uint8_t *scratch;  /* --validate on GPU memory: one message's host image */
};

static int lat_reap(struct lat_run *l, int block)
{
	struct ibv_wc wc[8];

	do {
		int n = ibv_poll_cq(l->r->scq, 8, wc);

		if (n < 0) {
			fc_err("%s: polling the send completion queue failed", l->r->pi->dev);
			return -EIO;
		}
		for (int i = 0; i < n; i++) {
			if (wc[i].status != IBV_WC_SUCCESS) {
				vb_wc_error(l->r, &wc[i]);
				return -EIO;
			}
			l->outstanding--;
			l->last_wc = wc[i];
		}
		if (n) {
			l->clk.last_progress = fc_now();
			block = 0;
		} else if (block) {
			int err = vb_clock_tick(l->r, &l->clk, fc_now());

			if (err)
				return err;
		}
	} while (block);
	return 0;
}

static int lat_post(struct lat_run *l, enum ibv_wr_opcode op, uint64_t slot, uint32_t imm)
{
	struct vb_res *r = l->r;
	uint64_t size = l->t->size;
	struct ibv_sge sge;
	struct ibv_send_wr wr, *bad;
	int err;

	/* Validated: this side's own message number, the last flag kept. */
	if (l->t->val)
		slot = vb_val_next(r, l->t, 0, (imm & FC_VIMM_LAST) != 0, &imm);
	sge = (struct ibv_sge){
		.addr = (uintptr_t)vb_test_local(r, l->t, op == IBV_WR_RDMA_READ, slot),
		.length = (uint32_t)size,
		.lkey = r->mr->lkey,
	};
	wr = (struct ibv_send_wr){ .sg_list = &sge, .num_sge = 1, .opcode = op,
				   .send_flags = IBV_SEND_SIGNALED };
	while (l->outstanding >= r->tx_depth)
		if ((err = lat_reap(l, 1)))
			return err;
	if (op != IBV_WR_RDMA_READ && size <= (uint64_t)l->t->inline_max)
		wr.send_flags |= IBV_SEND_INLINE;
	if (op == IBV_WR_RDMA_WRITE) {
		wr.wr.rdma.remote_addr = vb_test_remote(r, l->t, 1, slot);
		wr.wr.rdma.rkey = r->peer.rkey;
	} else if (op == IBV_WR_RDMA_READ) {
		wr.wr.rdma.remote_addr = vb_test_remote(r, l->t, 0, slot);
		wr.wr.rdma.rkey = r->peer.rkey;
	} else {
		wr.imm_data = htonl(imm);
	}
	if (op == IBV_WR_RDMA_WRITE_WITH_IMM) {
		wr.wr.rdma.remote_addr = vb_test_remote(r, l->t, 1, slot);
		wr.wr.rdma.rkey = r->peer.rkey;
		wr.imm_data = htonl(imm);
	}
	err = ibv_post_send(r->qp[0], &wr, &bad);
	if (err) {
		fc_err("%s qp 0x%x: cannot post a %s: %s", r->pi->dev, r->qp[0]->qp_num,
		       vb_op_name(l->t->op), strerror(err));
		return -err;
	}
	l->outstanding++;
	l->res->posted++;
	return 0;
}

/* Whether round @it is the last one. */
static int lat_last(const struct lat_run *l, uint64_t it)
{
	if (l->end > 0)
		return it >= l->warm && fc_now() >= l->end;
	return it + 1 >= l->warm + l->t->iters;
}

/* Round @it took @secs (fabcheck's method); then, off the clock, the send
 * completions are reaped. In perftest's method the sample is the time
 * from the previous post to @t0, this round's post. */
static int lat_record(struct lat_run *l, uint64_t it, double t0, double secs)
{
	int pt = l->t->method == VB_METHOD_PERFTEST;

	if (pt) {
		if (it > l->warm && l->prev_post > 0 &&
		    (!l->win_hi || (l->prev_post >= l->win_lo && t0 <= l->win_hi))) {
			fc_hist_add(&l->res->lat, (t0 - l->prev_post) / (l->t->op == VB_READ ? 1 : 2));
			l->res->msgs++;
		}
		l->prev_post = t0;
	} else if (it >= l->warm) {
		fc_hist_add(&l->res->lat, secs);
		l->res->msgs++;
	}
	while (l->outstanding > 0) {
		int err = lat_reap(l, 1);

		if (err)
			return err;
	}
	return 0;
}

/* The answering side, once its answer is posted: outside the round the
 * peer times, it reaps its send completions and posts the receive again
 * (validated: recv_done, after the check). */
static int answered(struct lat_run *l, int recv)
{
	int err = lat_reap(l, 0);

	if (!err && recv && !l->t->val)
		err = vb_post_recvs(l->r, 0);
	return err;
}

/* Spins until the last byte of rx slot @it holds @pass. */
static int wait_byte(struct lat_run *l, uint64_t it, uint8_t pass)
{
	volatile uint8_t *p = vb_test_local(l->r, l->t, 1, it) + l->t->size - 1;
	unsigned spins = 0;
	int err;

	while (*p != pass) {
		if (++spins % 1024 == 0 && (err = vb_clock_tick(l->r, &l->clk, fc_now())))
			return err;
	}
	__sync_synchronize();
	l->clk.last_progress = fc_now();
	l->clk.done++;
	return 0;
}

static int lat_write(struct lat_run *l)
{
	struct vb_res *r = l->r;
	uint64_t size = l->t->size;
	int err = 0;

	/* The value that marks round @it in its slot's last byte: a new one
	 * each time the slot comes round again (every round with one buffer). */
	uint64_t cycle = l->t->cycle == VB_CYCLE_PAGE ? 1 : l->t->cyc_nslots;

	for (uint64_t it = 0;; it++) {
		uint8_t pass = (uint8_t)((it / cycle) % 255 + 1);
		uint8_t *tx = vb_test_local(r, l->t, 0, it);
		int last;
		double t0;

		if (l->t->active) {
			last = lat_last(l, it);
			tx[size - 2] = (uint8_t)last;
			tx[size - 1] = pass;
			t0 = fc_now();
			if ((err = lat_post(l, IBV_WR_RDMA_WRITE, it, 0)) ||
			    (err = wait_byte(l, it, pass)))
				break;
			if ((err = lat_record(l, it, t0, (fc_now() - t0) / 2)))
				break;
		} else {
			if ((err = wait_byte(l, it, pass)))
				break;
			last = vb_test_local(r, l->t, 1, it)[size - 2];
			tx[size - 2] = (uint8_t)last;
			tx[size - 1] = pass;
			if ((err = lat_post(l, IBV_WR_RDMA_WRITE, it, 0)) || (err = answered(l, 0)))
				break;
			l->res->msgs++; /* rounds answered, warm-up included */
		}
		if (last)
			break;
	}
	return err;
}

static int lat_read(struct lat_run *l)
{
	int err = 0;

	for (uint64_t it = 0;; it++) {
		int last = lat_last(l, it);
		double t0 = fc_now();

		if ((err = lat_post(l, IBV_WR_RDMA_READ, it, 0)) || (err = lat_reap(l, 1)))
			break;
		l->clk.done++;
		if ((err = lat_record(l, it, t0, fc_now() - t0)))
			break;
		if (l->t->val && (err = vb_val_reads(l->r, l->t, 0, 1, &l->last_wc, l->scratch)))
			break;
		if (last)
			break;
	}
	return err;
}

/* Waits for one receive; returns its immediate data in *imm_p and the
 * completion in *wc_p. Validated, its receive is posted again only once
 * the message was checked (recv_done). */
static int wait_recv(struct lat_run *l, uint32_t *imm_p, struct ibv_wc *wc_p)
{
	struct ibv_wc wc;
	unsigned spins = 0;
	int n, err;

	while ((n = ibv_poll_cq(l->r->rcq, 1, &wc)) == 0) {
		if (++spins % 1024 == 0 && (err = vb_clock_tick(l->r, &l->clk, fc_now())))
			return err;
	}
	if (n < 0 || wc.status != IBV_WC_SUCCESS) {
		if (n < 0)
			fc_err("%s: polling the receive completion queue failed", l->r->pi->dev);
		else
			vb_wc_error(l->r, &wc);
		return -EIO;
	}
	l->r->rq_posted[0]--;
	l->clk.last_progress = fc_now();
	l->clk.done++;
	*imm_p = wc.wc_flags & IBV_WC_WITH_IMM ? ntohl(wc.imm_data) : 0;
	*wc_p = wc;
	/* the answering side posts it again once it answered (answered) */
	return l->t->val || !l->t->active ? 0 : vb_post_recvs(l->r, 0);
}

/* Validated: checks the message of receive @wc, then posts it again. */
static int recv_done(struct lat_run *l, const struct ibv_wc *wc)
{
	int err;

	if (!l->t->val)
		return 0;
	err = vb_val_recv(l->r, l->t, 0, wc, (uint32_t)(wc->wr_id >> 8), l->scratch);
	return err ? err : vb_post_recvs(l->r, 0);
}

/* The immediate value of round @it: its number, bit 31 on the last round. */
static uint32_t lat_imm(uint64_t it, int last)
{
	return (uint32_t)(it & 0x7fffffff) | (last ? 0x80000000u : 0);
}

/* The opcode of a round: perftest's send latency is a plain SEND (its
 * send_lat), so in its method every round but the last, whose immediate
 * tells the answering side the test ended; validated, every one carries
 * the message number. */
static enum ibv_wr_opcode round_op(const struct lat_run *l, enum ibv_wr_opcode op, int last)
{
	if (op == IBV_WR_SEND_WITH_IMM && l->t->method == VB_METHOD_PERFTEST && !l->t->val && !last)
		return IBV_WR_SEND;
	return op;
}

/* Ping-pong through receive completions: sends, or writes with immediate. */
static int lat_recv_pingpong(struct lat_run *l, enum ibv_wr_opcode op)
{
	struct ibv_wc wc;
	uint32_t imm;
	int err = 0;

	for (uint64_t it = 0;; it++) {
		int last;
		double t0;

		if (l->t->active) {
			last = lat_last(l, it);
			t0 = fc_now();
			if ((err = lat_post(l, round_op(l, op, last), it, lat_imm(it, last))) ||
			    (err = wait_recv(l, &imm, &wc)))
				break;
			if ((err = lat_record(l, it, t0, (fc_now() - t0) / 2)) ||
			    (err = recv_done(l, &wc)))
				break;
		} else {
			if ((err = wait_recv(l, &imm, &wc)))
				break;
			last = (imm & 0x80000000u) != 0;
			if ((err = lat_post(l, round_op(l, op, last), it, imm)) ||
			    (err = answered(l, 1)) || (err = recv_done(l, &wc)))
				break;
			l->res->msgs++;
		}
		if (last)
			break;
	}
	return err;
}

int vb_lat_run(struct vb_res *r, const struct vb_test *t, struct vb_result *res)
{
	struct lat_run l = { .r = r, .t = t, .res = res };
	double t0 = fc_now();
	int err;

	if (!t->active && !t->passive)
		return 0;
	/* 1 ns to 10,000 s in 0.4% steps: about 44 KiB whatever the length */
	if (fc_hist_init(&res->lat, 1e-9, 1e4)) {
		fc_err("cannot keep the latency histogram: out of memory");
		return -ENOMEM;
	}
	l.warm = t->warmup > 0 ? (uint64_t)t->warmup : 0;
	if (t->duration > 0)
		l.end = t0 + t->duration;
	if (t->duration > 0 && t->method == VB_METHOD_PERFTEST)
		vb_pt_window(t0, t->duration, &l.win_lo, &l.win_hi);
	vb_clock_start(&l.clk, t->active ? "waiting for answers" : "answering");
	if (t->val && t->val->read && !(l.scratch = malloc((size_t)t->size))) {
		fc_err("--validate: no memory for a %llu-byte host image of a message",
		       (unsigned long long)t->size);
		return -ENOMEM;
	}
	switch (t->op) {
	case VB_WRITE:
		err = t->lat_mode == VB_LAT_IMM ? lat_recv_pingpong(&l, IBV_WR_RDMA_WRITE_WITH_IMM) :
						  lat_write(&l);
		break;
	case VB_READ: err = t->active ? lat_read(&l) : 0; break;
	default: err = lat_recv_pingpong(&l, IBV_WR_SEND_WITH_IMM); break;
	}
	while (!err && l.outstanding > 0)
		err = lat_reap(&l, 1);
	free(l.scratch);
	res->seconds = fc_now() - t0;
	return err;
}
