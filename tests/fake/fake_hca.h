/*
 * A fake HCA for the data path's unit tests and bench-loop: ibv_post_send,
 * ibv_post_recv and ibv_poll_cq are inline calls through the context's ops
 * (infiniband/verbs.h), so a struct vb_res whose context, CQs and QPs are
 * these drives the real loops of verbs/bw.c and verbs/lat.c.
 *
 * The "HCA" executes a work request when it is posted: a write or read
 * copies the bytes between the two sides' buffers (real addresses: the
 * peer's addr and rkey are its buffer's), a send or a write with immediate
 * takes the peer QP's oldest receive and completes it on the peer's
 * receive CQ; with no receive posted the message waits (receiver not
 * ready) with every later one of its QP until one is. A signalled request
 * completes on the sender's CQ. Like an HCA it refuses a post beyond the
 * send queue (max_send_wr, freed by the completion of a later signalled
 * request) or receive queue, with ENOMEM.
 *
 * Programmable: completions seen only after some empty polls (a delay),
 * one request completing in error, one message arriving short, part
 * of one message not written (a partial write: a page, or fewer bytes).
 * Without a peer (loop only) nothing is copied and sends need no receive:
 * the loop's own cost.
 *
 * It tells a request posted again unchanged from one built anew: after a
 * post it marks each request in the XRC field (qp_type.xrc.remote_srqn,
 * which an RC QP ignores); a request without the mark was built (or
 * zero-filled) since it was last posted.
 */
#ifndef FC_FAKE_HCA_H
#define FC_FAKE_HCA_H

#include <pthread.h>
#include <stdint.h>

#include "verbs/test.h"

struct fk_cq {
	struct ibv_cq cq;	  /* first: the loops get &cq */
	pthread_mutex_t lock;
	struct ibv_wc *wc;
	uint32_t *freed;	  /* send requests each completion frees */
	uint64_t head, tail;
	int delay;		  /* empty polls before each completion shows */
	int waited;
	uint64_t polls;
	uint64_t overrun;	  /* completions lost to a full CQ (a real one errors) */
};

struct fk_rwr {
	uint64_t wr_id, addr;
	uint32_t len;
};

struct fk_msg {			  /* a message waiting for a receive */
	uint32_t imm, len;
	int has_imm;
	enum ibv_wr_opcode op;
	const uint8_t *src;
	uint64_t remote;
	uint64_t wr_id;
	int signaled;
	uint32_t freed;
	uint64_t seq;		  /* its number on the QP, from 0 */
};

struct fk_side;

struct fk_qp {
	struct ibv_qp qp;	  /* first */
	struct fk_side *side;
	int q;
	pthread_mutex_t *link;	  /* the connection's lock (both QPs) */
	uint32_t unsig;		  /* requests since the last signalled one */
	int64_t sq_used;	  /* the sender's thread alone posts and polls its send CQ */
	struct fk_rwr *rq;
	uint64_t rq_head, rq_tail;
	struct fk_msg *pend;	  /* receiver not ready: in order */
	uint64_t pend_head, pend_tail;
	uint64_t sent;		  /* messages executed */
	uint64_t imms;		  /* of those, with an immediate value */
	uint64_t posted;	  /* requests accepted */
	uint64_t posts;		  /* ibv_post_send calls */
	uint64_t fresh;		  /* requests posted that were built since the last post (fk_fresh) */
	uint64_t moved;		  /* requests posted again with other addresses (fk_moved) */
	int64_t cap_sq;		  /* max_send_wr (vb_qp_init_attr: tx_depth + 1) */
	int cap_rq;		  /* max_recv_wr (rx_depth) */
};

/* What a test asks the fake to do wrong (for one QP's one message). */
struct fk_fault {
	int qp;			  /* -1: none */
	uint64_t seq;		  /* the message, from 0 on its QP */
	enum ibv_wc_status status;/* != SUCCESS: its completion's status */
	int64_t short_by;	  /* > 0: that many bytes fewer arrive (byte_len too) */
	int64_t drop_off;	  /* >= 0: the bytes at this offset are not written, */
	int64_t drop_len;	  /* this many (0: a page, 4 KiB) */
};

struct fk_side {
	struct vb_res r;
	struct ibv_context ctx;
	struct ibv_pd pd;
	struct ibv_mr mr;
	struct fk_cq scq[VB_MAX_CQSETS], rcq[VB_MAX_CQSETS];
	struct fk_qp qp[VB_MAX_QPS];
	struct fk_side *peer;	  /* NULL: loop only */
	struct fk_fault fault;
	pthread_mutex_t links[VB_MAX_QPS];
	uint64_t enomem;	  /* posts refused for a full queue */
};

struct fk_cfg {
	int nqps, tx_depth, threads;
	uint64_t max_size;
	double timeout;
	int max_inline;
	int rx_depth;	/* vb_opts.rx_depth: 0 twice tx_depth */
};

/* Builds side @s (its vb_res ready for vb_test_resolve); with @peer, both
 * are connected QP to QP (call on both, then fk_connect). 0 or -ENOMEM. */
int fk_side_init(struct fk_side *s, const struct fk_cfg *c);
void fk_connect(struct fk_side *a, struct fk_side *b);
void fk_side_free(struct fk_side *s);
/* Every CQ of @s shows each completion after @polls empty polls. */
void fk_set_delay(struct fk_side *s, int polls);
/* A side's send requests executed, and accepted, on QP @q. */
uint64_t fk_sent(const struct fk_side *s, int q);
/* ibv_post_send calls on QP @q of @s, and the requests among those
 * posted that were built since their last post (fk_fresh). */
uint64_t fk_posts(const struct fk_side *s, int q);
uint64_t fk_fresh(const struct fk_side *s, int q);
/* Requests of QP @q posted again with addresses other than their last
 * post's (the loop wrote them between two posts; paired sides only). */
uint64_t fk_moved(const struct fk_side *s, int q);
/* Completions lost to full CQs on @s (0 on a correct loop). */
uint64_t fk_overruns(const struct fk_side *s);

/* What a worker does for --validate (ctl/worker_gdr.c), on side @s for
 * test @t: rx_cap for messages up to @max_size, @t resolved with @v as
 * its validation (tag 0x26; each message's number stamped into its
 * header when @stamping, host memory; else, as GPU memory, each slot
 * keeps the message it was filled with), the slots filled, the receive
 * half poisoned, @t prepared. 0 or the failing step's error. */
int fk_val_side(struct fk_side *s, struct vb_test *t, struct vb_val *v, uint64_t max_size,
		int stamping);

/* Runs a test on both sides at once (a thread each), as two workers do:
 * @ta on @a, @tb on @b (either may be NULL: that side idle). Results in
 * @ra, @rb; returns each side's error in @ea, @eb. */
void fk_run_pair(struct fk_side *a, struct vb_test *ta, struct vb_result *ra, int *ea,
		 struct fk_side *b, struct vb_test *tb, struct vb_result *rb, int *eb);

#endif
