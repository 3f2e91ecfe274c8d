/* A QP's work-request chain, built once and re-posted (see chain.h). */
#include "verbs/chain.h"

#include <arpa/inet.h>
#include <string.h>

#include "core/util.h"

void vb_chain_signal(struct vb_chain *c, int from, int i0)
{
	if (c->cq_mod >= c->len) { /* one signalled request at most */
		if (from < c->len)
			c->wr[from].send_flags &= ~(unsigned)IBV_SEND_SIGNALED;
		if (i0 < c->len)
			c->wr[i0].send_flags |= IBV_SEND_SIGNALED;
		return;
	}
	for (int i = from; i < c->len; i += c->cq_mod)
		c->wr[i].send_flags &= ~(unsigned)IBV_SEND_SIGNALED;
	for (int i = i0; i < c->len; i += c->cq_mod)
		c->wr[i].send_flags |= IBV_SEND_SIGNALED;
}

void vb_chain_place(struct vb_chain *c, uint64_t slot)
{
	uint64_t s = slot, len = (uint64_t)c->len;
	/* a placed list holds the post before this one, lslots back */
	uint64_t was = slot >= c->lslots ? slot - c->lslots : slot + c->nslots - c->lslots;

	/* the posts after this one that stay clear of the cycle's end */
	c->moves = c->fixed || slot + len + c->lslots > c->nslots ? 0 :
		   (c->nslots - slot - len) / c->lslots;
	if (c->placed && was + len <= c->nslots && slot + len <= c->nslots) {
		/* from one unwrapped place to another: all move alike */
		vb_chain_move(c, (slot - was) * c->step);
		return;
	}
	c->placed = 1;
	for (int i = 0; i < c->len; i++) {
		uint64_t off = c->nslots > 1 ? s * c->step : 0;

		c->sge[i].addr = c->lbase + off;
		c->wr[i].wr.rdma.remote_addr = c->rbase + off;
		if (++s >= c->nslots)
			s = 0;
	}
}

/* Ring request @i's link: none where a list ends (@pos starts one). */
static struct ibv_send_wr *ring_next(struct vb_chain *c, int i, int pos)
{
	int j = i + 1 >= c->nring ? 0 : i + 1;

	return (j - pos + c->nring) % c->len ? &c->wr[j] : NULL;
}

void vb_ring_place(struct vb_chain *c, uint64_t slot, uint32_t since)
{
	int pos = (int)slot; /* slot < nslots <= nring */

	for (int i = 0; i < c->nring; i++) {
		/* the request's place in the stream from pos: signalled as
		 * the cq_mod-th since the last signalled one (bw_build) */
		uint64_t d = (uint64_t)((i - pos + c->nring) % c->nring);

		c->wr[i].next = ring_next(c, i, pos);
		if ((d + since + 1) % (uint64_t)c->cq_mod == 0)
			c->wr[i].send_flags |= IBV_SEND_SIGNALED;
		else
			c->wr[i].send_flags &= ~(unsigned)IBV_SEND_SIGNALED;
	}
	c->pos = pos;
	c->placed = 1;
}

/* Where slot 0 of QP @q is, on this side (@lbase) and the peer's. */
static void chain_bases(struct vb_chain *c, const struct vb_res *r, const struct vb_test *t)
{
	uint64_t off0 = vb_test_offset(t, c->q, 0);

	c->lbase = (uintptr_t)(t->op == VB_READ ? vb_rx(r, 0) : vb_tx(r, 0)) + off0;
	c->rbase = t->op == VB_READ ? vb_peer_tx(r, 0) + off0 :
		   t->op == VB_WRITE ? vb_peer_rx(r, 0) + off0 : 0;
}

/* The cycle the chain's slots go round: its slots and their step, every
 * @thin-th slot of fabcheck's cycle. */
static void chain_cycle(struct vb_chain *c, const struct vb_test *t, uint32_t thin)
{
	if (t->cycle == VB_CYCLE_PAGE) {
		c->nslots = t->pt_nsteps;
		c->step = t->pt_step;
		/* perftest keeps a list's requests where it built them */
		c->fixed = c->nslots <= 1 || c->len > 1;
	} else {
		c->nslots = t->cyc_nslots / thin;
		c->step = t->cyc_stride * thin;
		c->fixed = c->nslots <= 1;
	}
	c->thin = t->cycle == VB_CYCLE_PAGE ? 1 : thin;
	c->lslots = c->fixed ? 0 : (uint64_t)c->len % c->nslots;
	if (!c->lslots)
		c->fixed = 1; /* a whole number of cycles: each post where the last was */
	c->lstep = c->lslots * c->step;
}

/* A ring's requests for lists of @len over @nslots slots: whole lists,
 * moderation phases and cycles (their least common multiple). */
static uint64_t ring_len(uint64_t len, uint64_t cq_mod, uint64_t nslots)
{
	uint64_t n = len / fc_gcd(len, cq_mod) * cq_mod;

	return n / fc_gcd(n, nslots) * nslots;
}

/* The chains' shape (see chain.h, VB_RING_*): the requests a QP's chain
 * holds, and in *@thin_p the slots of the cycle it steps by. */
static int chain_shape(const struct vb_test *t, int len, int own, uint32_t *thin_p)
{
	struct vb_chain c = { .len = len };
	uint64_t n, cq_mod = t->cq_mod > 0 ? (uint64_t)t->cq_mod : 1;
	uint64_t each = (sizeof(struct ibv_send_wr) + sizeof(struct ibv_sge)) *
			(uint64_t)(own > 0 ? own : 1);

	*thin_p = 1;
	chain_cycle(&c, t, 1);
	/* a ring for fabcheck's cycle only: perftest's method moves its one
	 * request without a post list, as perftest does */
	if (c.fixed || t->cycle == VB_CYCLE_PAGE)
		return len;
	n = ring_len((uint64_t)len, cq_mod, c.nslots);
	if (n * each <= VB_RING_L1)
		return (int)n;
	/* fewer slots, every page of the cycle still reached */
	for (uint32_t thin = 2; c.nslots % thin == 0 && thin * c.step <= VB_RING_PAGE; thin *= 2) {
		uint64_t m = ring_len((uint64_t)len, cq_mod, c.nslots / thin);

		if (m * each <= VB_RING_L1) {
			*thin_p = thin;
			return (int)m;
		}
	}
	return len < VB_RING_LIST && n * each <= VB_RING_BYTES ? (int)n : len;
}

int vb_chain_size(const struct vb_test *t, int len, int own)
{
	uint32_t thin;

	return chain_shape(t, len, own, &thin);
}

uint32_t vb_chain_thin(const struct vb_test *t, int len, int own)
{
	uint32_t thin;

	chain_shape(t, len, own, &thin);
	return thin;
}

void vb_chain_init(struct vb_chain *c, const struct vb_res *r, const struct vb_test *t, int q,
		   int len, int own, struct ibv_send_wr *wr, struct ibv_sge *sge)
{
	int inl = t->op != VB_READ && t->size <= (uint64_t)t->inline_max;
	uint32_t thin;
	int n = chain_shape(t, len, own, &thin);
	enum ibv_wr_opcode op = t->op == VB_READ ? IBV_WR_RDMA_READ :
				t->op == VB_SEND ? IBV_WR_SEND : IBV_WR_RDMA_WRITE;

	*c = (struct vb_chain){ .wr = wr, .sge = sge, .len = len, .q = q,
				.cq_mod = t->cq_mod > 0 ? t->cq_mod : 1, .sig0 = len,
				.nring = n > len ? n : 0 };
	c->lmod = len % c->cq_mod;
	chain_cycle(c, t, thin);
	chain_bases(c, r, t);
	for (int i = 0; i < n; i++) {
		sge[i] = (struct ibv_sge){ .length = (uint32_t)t->size, .lkey = r->mr->lkey };
		/* each signalled one stands for cq_mod */
		wr[i] = (struct ibv_send_wr){ .wr_id = ((uint64_t)q << 32) | (uint32_t)c->cq_mod,
					      .sg_list = &sge[i], .num_sge = 1, .opcode = op,
					      .imm_data = htonl(1),
					      .next = i + 1 < len ? &wr[i + 1] : NULL,
					      .send_flags = inl ? IBV_SEND_INLINE : 0 };
		wr[i].wr.rdma.rkey = r->peer.rkey;
	}
	c->builds += (uint64_t)n;
	if (!c->nring) {
		vb_chain_place(c, 0);
		return;
	}
	/* the ring: request i at slot i of the cycle, for good (its links
	 * and signals follow the phase, vb_ring_place) */
	for (int i = 0; i < n; i++) {
		uint64_t off = (uint64_t)i % c->nslots * c->step;

		sge[i].addr = c->lbase + off;
		wr[i].wr.rdma.remote_addr = c->rbase + off;
	}
}
