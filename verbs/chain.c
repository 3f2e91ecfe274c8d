/* A QP's work-request chain, built once and re-posted (see chain.h). */
#include "verbs/chain.h"

#include <arpa/inet.h>
#include <string.h>

void vb_chain_signal(struct vb_chain *c, int i0)
{
	uint64_t id = ((uint64_t)c->q << 32) | (uint32_t)c->cq_mod;

	for (int i = c->sig0; i < c->len; i += c->cq_mod)
		c->wr[i].send_flags &= ~(unsigned)IBV_SEND_SIGNALED;
	for (int i = i0; i < c->len; i += c->cq_mod) {
		c->wr[i].send_flags |= IBV_SEND_SIGNALED;
		c->wr[i].wr_id = id;
	}
	c->sig0 = i0;
}

void vb_chain_move(struct vb_chain *c)
{
	struct ibv_send_wr *w = c->wr, *end = c->wr + c->len;
	struct ibv_sge *g = c->sge;
	uint64_t d = c->lstep;

	for (; w + 4 <= end; w += 4, g += 4) { /* four at a time: the loop's steps a quarter */
		g[0].addr += d;
		w[0].wr.rdma.remote_addr += d;
		g[1].addr += d;
		w[1].wr.rdma.remote_addr += d;
		g[2].addr += d;
		w[2].wr.rdma.remote_addr += d;
		g[3].addr += d;
		w[3].wr.rdma.remote_addr += d;
	}
	for (; w < end; w++, g++) {
		g->addr += d;
		w->wr.rdma.remote_addr += d;
	}
}

void vb_chain_place(struct vb_chain *c, uint64_t slot)
{
	uint64_t s = slot;

	c->slot = slot;
	/* the posts after this one that stay clear of the cycle's end */
	c->moves = c->fixed || slot + (uint64_t)c->len + c->lslots > c->nslots ? 0 :
		   (c->nslots - slot - (uint64_t)c->len) / c->lslots;
	for (int i = 0; i < c->len; i++) {
		uint64_t off = c->nslots > 1 ? s * c->step : 0;

		c->sge[i].addr = c->lbase + off;
		c->wr[i].wr.rdma.remote_addr = c->rbase + off;
		if (++s >= c->nslots)
			s = 0;
	}
}

/* Where slot 0 of QP @q is, on this side (@lbase) and the peer's. */
static void chain_bases(struct vb_chain *c, const struct vb_res *r, const struct vb_test *t)
{
	uint64_t off0 = vb_test_offset(t, c->q, 0);

	c->lbase = (uintptr_t)(t->op == VB_READ ? vb_rx(r, 0) : vb_tx(r, 0)) + off0;
	c->rbase = t->op == VB_READ ? vb_peer_tx(r, 0) + off0 :
		   t->op == VB_WRITE ? vb_peer_rx(r, 0) + off0 : 0;
}

/* The cycle the chain's slots go round: its slots and their step. */
static void chain_cycle(struct vb_chain *c, const struct vb_test *t)
{
	if (t->cycle == VB_CYCLE_PAGE) {
		c->nslots = t->pt_nsteps;
		c->step = t->pt_step;
		/* perftest keeps a list's requests where it built them */
		c->fixed = c->nslots <= 1 || c->len > 1;
	} else {
		c->nslots = t->cyc_nslots;
		c->step = t->cyc_stride;
		c->fixed = c->nslots <= 1;
	}
	c->lslots = c->fixed ? 0 : (uint64_t)c->len % c->nslots;
	if (!c->lslots)
		c->fixed = 1; /* a whole number of cycles: each post where the last was */
	c->lstep = c->lslots * c->step;
}

void vb_chain_init(struct vb_chain *c, const struct vb_res *r, const struct vb_test *t, int q,
		   int len, struct ibv_send_wr *wr, struct ibv_sge *sge)
{
	int inl = t->op != VB_READ && t->size <= (uint64_t)t->inline_max;
	enum ibv_wr_opcode op = t->op == VB_READ ? IBV_WR_RDMA_READ :
				t->op == VB_SEND ? IBV_WR_SEND : IBV_WR_RDMA_WRITE;

	*c = (struct vb_chain){ .wr = wr, .sge = sge, .len = len, .q = q,
				.cq_mod = t->cq_mod > 0 ? t->cq_mod : 1, .sig0 = len };
	c->lmod = len % c->cq_mod;
	chain_cycle(c, t);
	chain_bases(c, r, t);
	for (int i = 0; i < len; i++) {
		sge[i] = (struct ibv_sge){ .length = (uint32_t)t->size, .lkey = r->mr->lkey };
		wr[i] = (struct ibv_send_wr){ .sg_list = &sge[i], .num_sge = 1, .opcode = op,
					      .imm_data = htonl(1),
					      .next = i + 1 < len ? &wr[i + 1] : NULL,
					      .send_flags = inl ? IBV_SEND_INLINE : 0 };
		wr[i].wr.rdma.rkey = r->peer.rkey;
	}
	c->builds += (uint64_t)len;
	vb_chain_place(c, 0);
}
