/* A fake HCA driving the real data path (see fake_hca.h). */
#include "tests/fake/fake_hca.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "core/vmsg.h"

#define FK_PAGE 4096
#define FK_MARK 0xfa4ec0deu /* a request this fake saw posted (fk_fresh) */

/* Counts @wr as built anew unless it carries the mark, and marks it. */
static void mark(struct fk_qp *qp, struct ibv_send_wr *wr)
{
	if (wr->qp_type.xrc.remote_srqn != FK_MARK)
		qp->fresh++;
	wr->qp_type.xrc.remote_srqn = FK_MARK;
}

/* Counts @wr as moved (fk_moved) when it was posted before with other
 * addresses, kept in its memory-window bind fields, which an RDMA write,
 * read or send ignores. The paired path only: make bench-loop's solo
 * path does not pay for it. */
static void mark_moves(struct fk_qp *qp, struct ibv_send_wr *wr)
{
	uint64_t la = wr->num_sge ? wr->sg_list[0].addr : 0, ra = wr->wr.rdma.remote_addr;

	if (wr->qp_type.xrc.remote_srqn == FK_MARK &&
	    (wr->bind_mw.bind_info.addr != la || wr->bind_mw.bind_info.length != ra))
		qp->moved++;
	wr->bind_mw.bind_info.addr = la;
	wr->bind_mw.bind_info.length = ra;
}

static struct fk_side *cq_side(struct ibv_cq *cq)
{
	return cq->cq_context;
}

/* Pushes @wc on @c (the caller holds the link lock, not c's). */
static void cq_push(struct fk_cq *c, const struct ibv_wc *wc, uint32_t freed)
{
	pthread_mutex_lock(&c->lock);
	if (c->tail - c->head < (uint64_t)c->cq.cqe) {
		c->wc[c->tail % (uint64_t)c->cq.cqe] = *wc;
		c->freed[c->tail % (uint64_t)c->cq.cqe] = freed;
		c->tail++;
	} else {
		c->overrun++;
	}
	pthread_mutex_unlock(&c->lock);
}

static int fk_poll(struct ibv_cq *cq, int n, struct ibv_wc *wc)
{
	struct fk_cq *c = (struct fk_cq *)cq;
	struct fk_side *s = cq_side(cq);
	int got = 0, solo = !s->peer;

	if (!solo)
		pthread_mutex_lock(&c->lock);
	c->polls++;
	if (c->head < c->tail && c->waited < c->delay) {
		c->waited++;
		if (!solo)
			pthread_mutex_unlock(&c->lock);
		return 0;
	}
	while (got < n && c->head < c->tail) {
		uint64_t at = c->head++ % (uint64_t)c->cq.cqe;
		uint32_t freed = c->freed[at];

		wc[got] = c->wc[at];
		if (freed)
			s->qp[wc[got].qp_num - 1].sq_used -= freed;
		got++;
	}
	if (got)
		c->waited = 0;
	if (!solo)
		pthread_mutex_unlock(&c->lock);
	return got;
}

/* Copies @len bytes to @dst, less the @drop_len bytes at @drop_off of a
 * partial write. */
static void copy_msg(uint8_t *dst, const uint8_t *src, uint64_t len, int64_t drop_off,
		     uint64_t drop_len)
{
	if (drop_off < 0 || (uint64_t)drop_off >= len) {
		memcpy(dst, src, len);
		return;
	}
	memcpy(dst, src, (size_t)drop_off);
	if ((uint64_t)drop_off + drop_len < len)
		memcpy(dst + drop_off + drop_len, src + drop_off + drop_len,
		       len - (uint64_t)drop_off - drop_len);
}

static int needs_recv(enum ibv_wr_opcode op)
{
	return op == IBV_WR_SEND || op == IBV_WR_SEND_WITH_IMM || op == IBV_WR_RDMA_WRITE_WITH_IMM;
}

/* Executes message @m of @qp (the link lock held; a receive is there when needed). */
static void exec_msg(struct fk_qp *qp, const struct fk_msg *m)
{
	struct fk_side *s = qp->side, *p = s->peer;
	const struct fk_fault *f = &s->fault;
	int hit = f->qp == qp->q && f->seq == qp->sent;
	uint64_t len = m->len;
	struct ibv_wc wc = { .wr_id = m->wr_id, .status = IBV_WC_SUCCESS, .qp_num = qp->qp.qp_num,
			     .byte_len = m->len };

	qp->sent++;
	qp->imms += m->has_imm;
	if (hit && f->short_by > 0)
		len = (uint64_t)f->short_by < len ? len - (uint64_t)f->short_by : 0;
	if (p) {
		int64_t drop = hit ? f->drop_off : -1;
		uint64_t dl = f->drop_len > 0 ? (uint64_t)f->drop_len : FK_PAGE;
		struct fk_qp *pq = &p->qp[qp->q];

		if (m->op == IBV_WR_RDMA_READ)
			copy_msg((uint8_t *)m->src, (const uint8_t *)(uintptr_t)m->remote, len, drop, dl);
		else if (m->op == IBV_WR_RDMA_WRITE || m->op == IBV_WR_RDMA_WRITE_WITH_IMM)
			copy_msg((uint8_t *)(uintptr_t)m->remote, m->src, len, drop, dl);
		if (needs_recv(m->op)) {
			struct fk_rwr *rw = &pq->rq[pq->rq_head++ % (uint64_t)pq->cap_rq];
			struct ibv_wc rc = { .wr_id = rw->wr_id, .status = IBV_WC_SUCCESS,
					     .qp_num = pq->qp.qp_num, .byte_len = (uint32_t)len,
					     .opcode = m->op == IBV_WR_RDMA_WRITE_WITH_IMM ?
							       IBV_WC_RECV_RDMA_WITH_IMM : IBV_WC_RECV };

			if (m->op != IBV_WR_RDMA_WRITE_WITH_IMM)
				copy_msg((uint8_t *)(uintptr_t)rw->addr, m->src,
					 len < rw->len ? len : rw->len, drop, dl);
			if (m->has_imm) {
				rc.wc_flags = IBV_WC_WITH_IMM;
				rc.imm_data = m->imm;
			}
			cq_push((struct fk_cq *)pq->qp.recv_cq, &rc, 0);
		}
	}
	if (hit && f->status != IBV_WC_SUCCESS)
		wc.status = f->status;
	wc.byte_len = m->op == IBV_WR_RDMA_READ ? (uint32_t)len : m->len;
	wc.opcode = m->op == IBV_WR_RDMA_READ ? IBV_WC_RDMA_READ :
		    m->op == IBV_WR_SEND || m->op == IBV_WR_SEND_WITH_IMM ? IBV_WC_SEND :
									    IBV_WC_RDMA_WRITE;
	if (m->signaled || wc.status != IBV_WC_SUCCESS)
		cq_push((struct fk_cq *)qp->qp.send_cq, &wc, m->freed);
}

/* Runs the messages waiting on @qp while the peer has receives for them. */
static void drain(struct fk_qp *qp)
{
	struct fk_qp *pq = qp->side->peer ? &qp->side->peer->qp[qp->q] : NULL;

	while (qp->pend_head < qp->pend_tail) {
		struct fk_msg *m = &qp->pend[qp->pend_head % (uint64_t)qp->cap_sq];

		if (needs_recv(m->op) && pq && pq->rq_head == pq->rq_tail)
			return;
		exec_msg(qp, m);
		qp->pend_head++;
	}
}

/* Loop only: each request done when posted; one thread owns the QP and
 * its CQs (no lock, no copy). */
static int solo_post_send(struct fk_qp *qp, struct ibv_send_wr *wr, struct ibv_send_wr **bad)
{
	struct fk_cq *c = (struct fk_cq *)qp->qp.send_cq;

	qp->posts++;
	for (; wr; wr = wr->next) {
		mark(qp, wr);
		if (qp->sq_used >= qp->cap_sq) {
			qp->side->enomem++;
			*bad = wr;
			return ENOMEM;
		}
		qp->sq_used++;
		qp->posted++;
		qp->sent++;
		qp->unsig++;
		if (wr->send_flags & IBV_SEND_SIGNALED) {
			uint64_t at = c->tail % (uint64_t)c->cq.cqe;

			if (c->tail - c->head >= (uint64_t)c->cq.cqe) {
				c->overrun++;
				continue;
			}
			c->wc[at] = (struct ibv_wc){ .wr_id = wr->wr_id, .qp_num = qp->qp.qp_num,
						     .byte_len = wr->sg_list[0].length,
						     .opcode = IBV_WC_RDMA_WRITE };
			c->freed[at] = qp->unsig;
			c->tail++;
			qp->unsig = 0;
		}
	}
	return 0;
}

static int fk_post_send(struct ibv_qp *ibqp, struct ibv_send_wr *wr, struct ibv_send_wr **bad)
{
	struct fk_qp *qp = (struct fk_qp *)ibqp;
	int err = 0;

	if (!qp->side->peer)
		return solo_post_send(qp, wr, bad);
	pthread_mutex_lock(qp->link);
	qp->posts++;
	for (; wr; wr = wr->next) {
		struct fk_msg *m;

		mark_moves(qp, wr);
		mark(qp, wr);
		if (qp->sq_used >= qp->cap_sq) {
			qp->side->enomem++;
			*bad = wr;
			err = ENOMEM;
			break;
		}
		qp->sq_used++;
		qp->posted++;
		qp->unsig++;
		m = &qp->pend[qp->pend_tail++ % (uint64_t)qp->cap_sq];
		*m = (struct fk_msg){ .op = wr->opcode, .len = wr->sg_list[0].length,
				      .src = (const uint8_t *)(uintptr_t)wr->sg_list[0].addr,
				      .remote = wr->wr.rdma.remote_addr, .wr_id = wr->wr_id,
				      .imm = wr->imm_data,
				      .has_imm = wr->opcode == IBV_WR_SEND_WITH_IMM ||
						 wr->opcode == IBV_WR_RDMA_WRITE_WITH_IMM,
				      .signaled = (wr->send_flags & IBV_SEND_SIGNALED) != 0 };
		if (m->signaled) {
			m->freed = qp->unsig;
			qp->unsig = 0;
		}
		drain(qp);
	}
	pthread_mutex_unlock(qp->link);
	return err;
}

static int fk_post_recv(struct ibv_qp *ibqp, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad)
{
	struct fk_qp *qp = (struct fk_qp *)ibqp;
	struct fk_side *p = qp->side->peer;
	int err = 0;

	pthread_mutex_lock(qp->link);
	for (; wr; wr = wr->next) {
		if (qp->rq_tail - qp->rq_head >= (uint64_t)qp->cap_rq) {
			qp->side->enomem++;
			*bad = wr;
			err = ENOMEM;
			break;
		}
		qp->rq[qp->rq_tail++ % (uint64_t)qp->cap_rq] =
			(struct fk_rwr){ .wr_id = wr->wr_id, .addr = wr->sg_list[0].addr,
					 .len = wr->sg_list[0].length };
	}
	if (p)
		drain(&p->qp[qp->q]);
	pthread_mutex_unlock(qp->link);
	return err;
}

static int cq_init(struct fk_cq *c, struct fk_side *s, int cqe)
{
	memset(c, 0, sizeof(*c));
	c->cq.context = &s->ctx;
	c->cq.cq_context = s;
	c->cq.cqe = cqe;
	pthread_mutex_init(&c->lock, NULL);
	c->wc = calloc((size_t)cqe, sizeof(*c->wc));
	c->freed = calloc((size_t)cqe, sizeof(*c->freed));
	return c->wc && c->freed ? 0 : -ENOMEM;
}

static int qp_init(struct fk_side *s, int q)
{
	struct fk_qp *qp = &s->qp[q];
	struct vb_res *r = &s->r;

	memset(qp, 0, sizeof(*qp));
	qp->side = s;
	qp->q = q;
	qp->link = &s->links[q];
	qp->qp.context = &s->ctx;
	qp->qp.qp_num = (uint32_t)q + 1;
	qp->qp.qp_type = IBV_QPT_RC;
	qp->qp.state = IBV_QPS_RTS;
	qp->qp.send_cq = &s->scq[q % r->ncqsets].cq;
	qp->qp.recv_cq = &s->rcq[q % r->ncqsets].cq;
	qp->cap_sq = r->tx_depth + 1; /* vb_qp_init_attr's max_send_wr */
	qp->cap_rq = r->rx_depth;
	qp->rq = calloc((size_t)qp->cap_rq, sizeof(*qp->rq));
	qp->pend = calloc((size_t)qp->cap_sq, sizeof(*qp->pend));
	r->qp[q] = &qp->qp;
	return qp->rq && qp->pend ? 0 : -ENOMEM;
}

int fk_side_init(struct fk_side *s, const struct fk_cfg *c)
{
	struct vb_res *r = &s->r;
	void *buf;
	int err = 0;

	memset(s, 0, sizeof(*s));
	s->fault.qp = -1;
	s->fault.drop_off = -1;
	s->ctx.ops.poll_cq = fk_poll;
	s->ctx.ops.post_send = fk_post_send;
	s->ctx.ops.post_recv = fk_post_recv;
	s->pd.context = &s->ctx;
	r->ctx = &s->ctx;
	r->pd = &s->pd;
	r->pi = calloc(1, sizeof(*r->pi));
	if (!r->pi)
		return -ENOMEM;
	snprintf(r->pi->dev, sizeof(r->pi->dev), "fake0");
	r->pi->port = 1;
	r->nqps = c->nqps;
	r->timeout = c->timeout;
	r->tx_depth = c->tx_depth;
	r->rx_depth = vb_rx_depth(c->rx_depth, c->tx_depth, 1 << 15); /* res_limits */
	r->max_inline = c->max_inline;
	r->ncqsets = c->threads > 0 ? c->threads : 1;
	r->gid_index = -1;
	r->path_mtu = 4096;
	vb_slot_layout(c->max_size, &r->stride, &r->nslots);
	r->buf_len = 2 * (size_t)r->stride * r->nslots;
	/* zeroed pages, touched only where used */
	buf = mmap(NULL, r->buf_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (buf == MAP_FAILED)
		return -ENOMEM;
	r->buf = buf;
	s->mr = (struct ibv_mr){ .context = &s->ctx, .pd = &s->pd, .addr = buf,
				 .length = r->buf_len, .lkey = 0x1111, .rkey = 0x2222 };
	r->mr = &s->mr;
	/* loop only: the peer's layout is ours, at address 0 (nothing copied) */
	r->peer = (struct vb_peer){ .nqps = c->nqps, .mtu = 4096, .stride = r->stride,
				    .nslots = r->nslots, .rd_atom = 16 };
	for (int k = 0; !err && k < r->ncqsets; k++) {
		/* vb_res_open's sizes */
		err = cq_init(&s->scq[k], s, r->tx_depth * r->nqps + 1) ||
		      cq_init(&s->rcq[k], s, r->rx_depth * r->nqps + 1);
		r->set_scq[k] = &s->scq[k].cq;
		r->set_rcq[k] = &s->rcq[k].cq;
	}
	r->scq = r->set_scq[0];
	r->rcq = r->set_rcq[0];
	for (int q = 0; !err && q < r->nqps; q++) {
		pthread_mutex_init(&s->links[q], NULL);
		err = qp_init(s, q);
	}
	return err ? -ENOMEM : 0;
}

void fk_connect(struct fk_side *a, struct fk_side *b)
{
	struct fk_side *sides[2] = { a, b };

	for (int i = 0; i < 2; i++) {
		struct fk_side *s = sides[i], *p = sides[1 - i];

		s->peer = p;
		s->r.peer = (struct vb_peer){ .nqps = p->r.nqps, .mtu = 4096, .rkey = p->mr.rkey,
					      .addr = (uintptr_t)p->r.buf, .stride = p->r.stride,
					      .nslots = p->r.nslots, .rd_atom = 16 };
		for (int q = 0; q < s->r.nqps; q++)
			s->qp[q].link = &a->links[q]; /* one lock per connection */
	}
}

void fk_side_free(struct fk_side *s)
{
	for (int k = 0; k < VB_MAX_CQSETS; k++) {
		free(s->scq[k].wc);
		free(s->scq[k].freed);
		free(s->rcq[k].wc);
		free(s->rcq[k].freed);
	}
	for (int q = 0; q < VB_MAX_QPS; q++) {
		free(s->qp[q].rq);
		free(s->qp[q].pend);
	}
	free(s->r.pi);
	if (s->r.buf)
		munmap(s->r.buf, s->r.buf_len);
	memset(s, 0, sizeof(*s));
}

void fk_set_delay(struct fk_side *s, int polls)
{
	for (int k = 0; k < s->r.ncqsets; k++)
		s->scq[k].delay = s->rcq[k].delay = polls;
}

uint64_t fk_sent(const struct fk_side *s, int q)
{
	return s->qp[q].sent;
}

uint64_t fk_posts(const struct fk_side *s, int q)
{
	return s->qp[q].posts;
}

uint64_t fk_fresh(const struct fk_side *s, int q)
{
	return s->qp[q].fresh;
}

uint64_t fk_moved(const struct fk_side *s, int q)
{
	return s->qp[q].moved;
}

uint64_t fk_overruns(const struct fk_side *s)
{
	uint64_t n = 0;

	for (int k = 0; k < s->r.ncqsets; k++)
		n += s->scq[k].overrun + s->rcq[k].overrun;
	return n;
}

struct fk_job {
	struct fk_side *s;
	struct vb_test *t;
	struct vb_result *res;
	int err;
};

static void *fk_job_run(void *arg)
{
	struct fk_job *j = arg;

	j->err = j->t ? vb_test_run(&j->s->r, j->t, j->res) : 0;
	return NULL;
}

void fk_run_pair(struct fk_side *a, struct vb_test *ta, struct vb_result *ra, int *ea,
		 struct fk_side *b, struct vb_test *tb, struct vb_result *rb, int *eb)
{
	struct fk_job ja = { a, ta, ra, 0 }, jb = { b, tb, rb, 0 };
	pthread_t tid;
	int started = !pthread_create(&tid, NULL, fk_job_run, &jb);

	if (!started)
		fk_job_run(&jb);
	fk_job_run(&ja);
	if (started)
		pthread_join(tid, NULL);
	*ea = ja.err;
	*eb = jb.err;
}

int fk_val_side(struct fk_side *s, struct vb_test *t, struct vb_val *v, uint64_t max_size,
		int stamping)
{
	struct vb_res *r = &s->r;
	int err;

	memset(v, 0, sizeof(*v));
	v->tag = 0x26;
	v->stamp = v->peer_stamps = stamping;
	r->rx_cap = vb_val_rx_cap(r, max_size);
	if ((err = vb_test_resolve(r, t)))
		return err;
	t->val = v;
	if ((err = vb_val_prepare(r, t)))
		return err;
	for (uint32_t j = 0; j < t->cyc_nslots; j++) {
		struct fc_vmsg_id id = { .tag = v->tag, .seq = j % v->part, .slot = j,
					 .len = (uint32_t)t->size };

		fc_vmsg_fill(vb_test_local(r, t, 0, j), &id);
	}
	memset(vb_rx(r, 0), VB_VAL_POISON, (size_t)r->stride * r->nslots);
	return vb_test_prepare(r, t);
}
