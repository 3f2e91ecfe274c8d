/*
 * Latency, one message in flight on QP 0. write: ping-pong through memory
 * (the answering side polls the last byte of the slot the peer writes);
 * send: ping-pong through receives; read: one read at a time. Every round
 * after the warm-up is a sample; write and send report half the round trip,
 * read the whole read, as perftest does.
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
	struct ibv_sge sge = {
		.addr = (uintptr_t)(op == IBV_WR_RDMA_READ ? vb_rx(r, slot) : vb_tx(r, slot)),
		.length = (uint32_t)size,
		.lkey = r->mr->lkey,
	};
	struct ibv_send_wr wr = { .sg_list = &sge, .num_sge = 1, .opcode = op,
				  .send_flags = IBV_SEND_SIGNALED }, *bad;
	int err;

	while (l->outstanding >= r->tx_depth)
		if ((err = lat_reap(l, 1)))
			return err;
	if (op != IBV_WR_RDMA_READ && size <= (uint64_t)r->max_inline)
		wr.send_flags |= IBV_SEND_INLINE;
	if (op == IBV_WR_RDMA_WRITE) {
		wr.wr.rdma.remote_addr = vb_peer_rx(r, slot);
		wr.wr.rdma.rkey = r->peer.rkey;
	} else if (op == IBV_WR_RDMA_READ) {
		wr.wr.rdma.remote_addr = vb_peer_tx(r, slot);
		wr.wr.rdma.rkey = r->peer.rkey;
	} else {
		wr.imm_data = htonl(imm);
	}
	err = ibv_post_send(r->qp[0], &wr, &bad);
	if (err) {
		fc_err("%s qp 0x%x: cannot post a %s: %s", r->pi->dev, r->qp[0]->qp_num,
		       vb_op_name(l->t->op), strerror(err));
		return -err;
	}
	l->outstanding++;
	return 0;
}

/* Whether round @it is the last one. */
static int lat_last(const struct lat_run *l, uint64_t it)
{
	if (l->end > 0)
		return it >= l->warm && fc_now() >= l->end;
	return it + 1 >= l->warm + l->t->iters;
}

static int lat_record(struct lat_run *l, uint64_t it, double secs)
{
	if (it < l->warm)
		return 0;
	l->res->msgs++;
	return vb_result_push(l->res, secs);
}

/* Spins until the last byte of rx slot @it holds @pass. */
static int wait_byte(struct lat_run *l, uint64_t it, uint8_t pass)
{
	volatile uint8_t *p = vb_rx(l->r, it) + l->t->size - 1;
	unsigned spins = 0;
	int err;

	while (*p != pass) {
		if (++spins % 1024 == 0) {
			if ((err = vb_clock_tick(l->r, &l->clk, fc_now())))
				return err;
			if ((err = lat_reap(l, 0)))
				return err;
		}
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

	for (uint64_t it = 0;; it++) {
		uint8_t pass = (uint8_t)((it / r->nslots) % 255 + 1);
		uint8_t *tx = vb_tx(r, it);
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
			if ((err = lat_record(l, it, (fc_now() - t0) / 2)))
				break;
		} else {
			if ((err = wait_byte(l, it, pass)))
				break;
			last = vb_rx(r, it)[size - 2];
			tx[size - 2] = (uint8_t)last;
			tx[size - 1] = pass;
			if ((err = lat_post(l, IBV_WR_RDMA_WRITE, it, 0)))
				break;
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
		if ((err = lat_record(l, it, fc_now() - t0)))
			break;
		if (last)
			break;
	}
	return err;
}

/* Waits for one receive; returns its immediate data in *imm_p. */
static int wait_recv(struct lat_run *l, uint32_t *imm_p)
{
	struct ibv_wc wc;
	unsigned spins = 0;
	int n, err;

	while ((n = ibv_poll_cq(l->r->rcq, 1, &wc)) == 0) {
		if (++spins % 1024 == 0) {
			if ((err = vb_clock_tick(l->r, &l->clk, fc_now())))
				return err;
			if ((err = lat_reap(l, 0)))
				return err;
		}
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
	return vb_post_recvs(l->r, 0);
}

static int lat_send(struct lat_run *l)
{
	uint32_t imm;
	int err = 0;

	for (uint64_t it = 0;; it++) {
		int last;
		double t0;

		if (l->t->active) {
			last = lat_last(l, it);
			t0 = fc_now();
			if ((err = lat_post(l, IBV_WR_SEND_WITH_IMM, it, (uint32_t)last)) ||
			    (err = wait_recv(l, &imm)))
				break;
			if ((err = lat_record(l, it, (fc_now() - t0) / 2)))
				break;
		} else {
			if ((err = wait_recv(l, &imm)))
				break;
			last = imm != 0;
			if ((err = lat_post(l, IBV_WR_SEND_WITH_IMM, it, imm)))
				break;
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
	l.warm = t->iters < 10 ? 1 : t->iters / 10 < 200 ? t->iters / 10 : 200;
	if (t->duration > 0)
		l.end = t0 + t->duration;
	vb_clock_start(&l.clk, t->active ? "waiting for answers" : "answering");
	switch (t->op) {
	case VB_WRITE: err = lat_write(&l); break;
	case VB_READ: err = t->active ? lat_read(&l) : 0; break;
	default: err = lat_send(&l); break;
	}
	while (!err && l.outstanding > 0)
		err = lat_reap(&l, 1);
	res->seconds = fc_now() - t0;
	return err;
}
