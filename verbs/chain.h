/*
 * A QP's work-request chain for the bandwidth loop, built once per test
 * and re-posted (as perftest's ctx_set_send_wqes / run_iter_bw do): each
 * post changes only what must change.
 *
 * Request i of a post that starts at slot s is at slot s + i (mod the
 * cycle), and is signalled when it is the cq_mod-th since the last
 * signalled one; its wr_id is then q << 32 | cq_mod (the completions it
 * stands for). perftest's method with a post list keeps each request at
 * its own place in the page (perftest moves addresses only without one).
 *
 * Where lists move round fabcheck's cycle of slots, the chain is mostly a
 * ring (vb_chain_size): one request per slot (every chain->thin-th slot of
 * the test's cycle, each page still reached) over a whole number of
 * cycles, lists and CQ moderation phases, each request's addresses
 * written once, its signal and link to the next once a pass, so a post is
 * the ring's next list posted as it is, no request written. Where no ring
 * fits the caches (below), the list moves: one list whose requests'
 * addresses are moved on at each post (two additions a request, on lines
 * that stay in L1).
 */
#ifndef FC_VERBS_CHAIN_H
#define FC_VERBS_CHAIN_H

#include <stdint.h>

#include "verbs/test.h"

/*
 * A ring or a moving list (vb_chain_size). A moving list pays at each
 * post its signal phase and its move (about 45 instructions, callgrind on
 * make bench-loop's fake) and two in-cache additions a request; a ring
 * pays nothing at a post, but once it outgrows the L1 data cache each of
 * its requests is read from L2 (its provider reads every request). The
 * first cost dominates short lists, the second long ones: on the fake HCA
 * (make bench-loop, 64 B writes, 1024 slots, 06:20 UTC, issue 40's note)
 * the ring against moves was 0.70-0.73 against 0.88-0.94 of the
 * reference at post list 1, 0.98-1.08 against 0.86-1.03 at 8 and
 * 1.33-1.40 against 1.15-1.25 at 32. So: a ring within the L1 data cache
 * of the smallest server core fabcheck runs on (32 KiB: AMD Zen 4,
 * Software Optimization Guide for AMD Family 19h Processors, 56665; Intel
 * Golden Cove 48 KiB; Arm Neoverse V2 64 KiB), or for lists shorter than
 * VB_RING_LIST within its L2 (1 MB a core on Zen 4; 2 MB on Golden Cove
 * and Neoverse V2).
 *
 * A ring over every slot of a small message's cycle (1024 of 64 B) is
 * 147 KiB a QP. What the method's cycle is for is its pages: many pages
 * exercise the IOMMU, the MTT and GPU memory as applications do
 * (doc/pair-bench.md), and those translate by pages (4 KiB the smallest:
 * the x86-64 and arm64 base page, Intel VT-d and AMD-Vi I/O page tables,
 * the mlx5 MTT's entries); the lines within a page are not. So a ring that
 * outgrows L1 over every slot steps by the fewest slots (a power of two,
 * chain->thin) that brings it within L1 while each step stays within a
 * page (VB_RING_PAGE): every page of the cycle is still written each time
 * round, by fewer messages (at 64 B and post list 32, one QP a thread:
 * every 8th slot, 512 B apart, 8 a page, a ring of 128 requests, 18 KiB).
 * perftest goes further: with a post list its requests never move, the
 * list's length of cache lines in one page (run_iter_bw moves addresses
 * only when post_list == 1 and size <= cycle_buffer / 2; cycle_buffer is
 * the page size, perftest_parameters.c; ctx_set_send_reg_wqes places a
 * list's requests a cache line apart, perftest_resources.c, perftest at
 * 00b55b6). --validate (each message its own slot) builds no chain.
 */
#define VB_RING_L1 (32u << 10)
#define VB_RING_BYTES (1u << 20)
#define VB_RING_LIST 8
#define VB_RING_PAGE 4096u

struct vb_chain {
	struct ibv_send_wr *wr;	  /* len requests linked, or the ring's nring */
	struct ibv_sge *sge;
	int len, q;
	int cq_mod, lmod;	  /* lmod: len % cq_mod */
	int fixed;		  /* the addresses never move */
	int nring;		  /* requests in the ring (0: no ring, the list moves) */
	int pos;		  /* the ring's request the next post starts at */
	int placed;		  /* a ring's links and signals follow the phase; a list holds
				   * the last post's slots (0: place anew) */
	int sig0;		  /* the first signalled request (>= len: none) */
	uint64_t moves;		  /* posts left before the list wraps round the cycle */
	uint64_t nslots, step;	  /* the cycle: slots and bytes between two */
	uint32_t thin;		  /* the chain's slot is every thin-th of the test's */
	uint64_t lslots, lstep;	  /* len slots (mod nslots), len steps in bytes */
	uint64_t lbase, rbase;	  /* slot 0's local and remote address */
	uint64_t builds;	  /* requests built from nothing (the chain's own) */
};

/* The requests QP chains of @len hold for @t with @own QPs a thread:
 * a ring's (see the top) or the list's @len. */
int vb_chain_size(const struct vb_test *t, int len, int own);
/* The slots of @t's cycle those chains step by (1: every slot). */
uint32_t vb_chain_thin(const struct vb_test *t, int len, int own);
/* Builds QP @q's chain of @len requests in @wr / @sge (vb_chain_size(t,
 * len, @own) of them) for @t on @r. */
void vb_chain_init(struct vb_chain *c, const struct vb_res *r, const struct vb_test *t, int q,
		   int len, int own, struct ibv_send_wr *wr, struct ibv_sge *sge);
/* Moves the signalled requests from @from to @i0 on (out of line: it
 * runs only when the phase changed). */
void vb_chain_signal(struct vb_chain *c, int from, int i0);
/* Moves every request of the chain on by @d bytes (no wrap): in line,
 * the steady state's one loop over the requests. */
static inline void vb_chain_move(struct vb_chain *c, uint64_t d)
{
	struct ibv_send_wr *w = c->wr;
	struct ibv_sge *g = c->sge;
	int n = c->len;

	/* eight at a time: the loop's steps an eighth (the inner loop unrolled) */
	for (int k = n >> 3; k; k--, w += 8, g += 8) {
#pragma GCC unroll 8
		for (int j = 0; j < 8; j++) {
			g[j].addr += d;
			w[j].wr.rdma.remote_addr += d;
		}
	}
	for (int k = n & 7; k; k--, w++, g++) {
		g->addr += d;
		w->wr.rdma.remote_addr += d;
	}
}

/* Puts every request of the chain at its slot from @slot (the wrap). */
void vb_chain_place(struct vb_chain *c, uint64_t slot);
/* Places the ring's lists from @slot, @since requests after the last
 * signalled one (out of line: once a pass). */
void vb_ring_place(struct vb_chain *c, uint64_t slot, uint32_t since);

/* The loop posted requests of its own on the chain's QP, or a pass
 * starts: the next post places the chain anew. */
static inline void vb_chain_lost(struct vb_chain *c)
{
	c->moves = 0;
	c->placed = 0;
}

/* The chain, once aimed, needs no request written between two posts: a
 * ring (its next list is ready) or a list in place whose signals stay
 * where they are (its length a whole number of CQ moderations). */
static inline int vb_chain_still(const struct vb_chain *c)
{
	return c->nring || (c->fixed && !c->lmod);
}

/* Readies the chain @c (not a ring) for a post that starts at @slot,
 * @since requests after the last signalled one, and returns the list to
 * post. The slot is read only where the list wraps (or after
 * vb_chain_lost): in between each post is the one before moved on by len
 * slots. */
static inline struct ibv_send_wr *vb_chain_aim(struct vb_chain *c, uint64_t slot, uint32_t since)
{
	int i0 = c->cq_mod - 1 - (int)since;

	if (i0 > c->len)
		i0 = c->len; /* none signalled in this list, as none before */
	if (i0 != c->sig0) {
		vb_chain_signal(c, c->sig0, i0);
		c->sig0 = i0;
	}
	if (c->fixed)
		return c->wr;
	if (c->moves) {
		c->moves--;
		if (c->len > 1) {
			vb_chain_move(c, c->lstep);
		} else {
			c->sge->addr += c->lstep;
			c->wr->wr.rdma.remote_addr += c->lstep;
		}
		return c->wr;
	}
	vb_chain_place(c, slot);
	return c->wr;
}

/* The ring @c's list for a post that starts at @slot, @since requests
 * after the last signalled one: the next one, already in place (the ring
 * is placed once a pass). */
static inline struct ibv_send_wr *vb_ring_aim(struct vb_chain *c, uint64_t slot, uint32_t since)
{
	struct ibv_send_wr *w;

	if (__builtin_expect(!c->placed, 0))
		vb_ring_place(c, slot, since);
	w = c->wr + c->pos;
	c->pos = c->pos + c->len >= c->nring ? c->pos + c->len - c->nring : c->pos + c->len;
	return w;
}

#endif
