/*
 * A QP's work-request chain for the bandwidth loop, built once per test
 * and re-posted (as perftest's ctx_set_send_wqes / run_iter_bw do): each
 * post changes only what must change, the signalled flags where the CQ
 * moderation's phase moved and the addresses where the buffer's slots are
 * cycled (a constant added to each request's local and remote address
 * while the list does not wrap round the cycle).
 *
 * Request i of a post that starts at slot s is at slot s + i (mod the
 * cycle), and is signalled when it is the cq_mod-th since the last
 * signalled one; its wr_id is then q << 32 | cq_mod (the completions it
 * stands for). perftest's method with a post list keeps each request at
 * its own place in the page (perftest moves addresses only without one).
 */
#ifndef FC_VERBS_CHAIN_H
#define FC_VERBS_CHAIN_H

#include <stdint.h>

#include "verbs/test.h"

struct vb_chain {
	struct ibv_send_wr *wr;	  /* len requests, linked, built once */
	struct ibv_sge *sge;
	int len, q;
	int cq_mod, lmod;	  /* lmod: len % cq_mod */
	int sig0;		  /* the first signalled request (>= len: none) */
	int fixed;		  /* the addresses never move */
	uint64_t moves;		  /* posts left before the list wraps round the cycle */
	uint64_t slot;		  /* wr[0]'s slot as filled */
	uint64_t nslots, step;	  /* the cycle: slots and bytes between two */
	uint64_t lslots, lstep;	  /* len slots (mod nslots), len steps in bytes */
	uint64_t lbase, rbase;	  /* slot 0's local and remote address */
	uint64_t builds;	  /* requests built from nothing (the chain's own) */
};

/* Builds QP @q's chain of @len requests in @wr / @sge for @t on @r. */
void vb_chain_init(struct vb_chain *c, const struct vb_res *r, const struct vb_test *t, int q,
		   int len, struct ibv_send_wr *wr, struct ibv_sge *sge);
/* Moves the signalled requests so that the first is @i0 (out of line: it
 * runs only when the phase changed). */
void vb_chain_signal(struct vb_chain *c, int i0);
/* Moves every request of the chain on by len slots (no wrap). */
void vb_chain_move(struct vb_chain *c);
/* Puts every request of the chain at its slot from @slot (the wrap). */
void vb_chain_place(struct vb_chain *c, uint64_t slot);
/* The loop posted requests of its own on the chain's QP: the next post
 * places the chain anew. */
static inline void vb_chain_lost(struct vb_chain *c)
{
	c->moves = 0;
}

/* Readies @c for a post that starts at @slot, @since requests after the
 * last signalled one. The slot is read only where the list wraps (or
 * after vb_chain_lost): in between each post is the one before moved on
 * by len slots. */
static inline void vb_chain_aim(struct vb_chain *c, uint64_t slot, uint32_t since)
{
	int i0 = c->cq_mod - 1 - (int)since;

	if (i0 > c->len)
		i0 = c->len; /* none signalled in this list, as none before */
	if (i0 != c->sig0)
		vb_chain_signal(c, i0);
	if (c->fixed)
		return;
	if (c->moves) {
		c->moves--;
		if (c->len > 1) {
			vb_chain_move(c);
		} else {
			c->sge->addr += c->lstep;
			c->wr->wr.rdma.remote_addr += c->lstep;
		}
		return;
	}
	vb_chain_place(c, slot);
}

#endif
