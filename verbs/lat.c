/*
 * Latency, one message in flight on QP 0. write: ping-pong through memory
 * (the answering side polls the last byte of the slot the peer writes), or
 * with --lat-mode imm through RDMA WRITE WITH IMMEDIATE, each side waiting
 * on its receive completion so that no CPU reads the buffer (GPU memory);
 * send: ping-pong through receives; read: one read at a time. Every round
 * after the warm-up goes into the histogram res->lat; write and send report
 * half the round trip, read the whole read, as perftest does.
 *
 * The timing side reads the clock once a round: when the answer arrives,
 * which ends that round and starts the next, whose request (prepared while
 * the last one was in flight) is posted right after; the histogram, the
 * send completions and the next request's preparation follow the post, in
 * the shadow of the round in flight. A round is thus from one post to the
 * next (perftest's tposted[i + 1] - tposted[i], run_iter_lat_send) with
 * nothing but the post between the answer and that next post. Write
 * latency by polling writes the round's two marker bytes there too (as
 * perftest's run_iter_lat_write does), since the buffer may still be read
 * until the answer. perftest's method leaves out the last round (n - 1
 * samples of n rounds, as perftest) and with -D counts only the rounds
 * within its trimmed window (vb_pt_window). The answering side answers
 * first and reads the clock, reaps and posts receives after.
 *
 * --validate (test.h: struct vb_val): write by immediate, send and read
 * only. Each message is checked after the next post (timing side) or the
 * answer (answering side), and prepared (stamped into its tx slot) as
 * without it, while the round before is in flight: a QP's messages take
 * its part >= 2 slots in turn (core/vstream.h, vb_val_prepare; a slot a
 * message, as the worker refuses perftest's one buffer: ctl/worker_gdr.c
 * val_prepare), so the slot written is never the one in flight, and the
 * message it held before was delivered (the answer that followed it came)
 * or, read, checked.
 * The answering side learns from the message whether it was the last
 * one, and sets that flag in its prepared immediate after.
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
	double t_prev;	   /* the clock at the start of the round in flight */
	struct ibv_send_wr wr; /* the next request, prepared (lat_prep) */
	struct ibv_sge sge;
	/* perftest's method with -D: only rounds in [win_lo, win_hi] count
	 * (vb_pt_window; 0: every round) */
	double win_lo, win_hi;
	struct ibv_wc last_wc; /* the last send completion reaped */
	uint8_t *scratch;  /* --validate on GPU memory: one message's host image */
};

/* Reaps the send completions there are; with @block, until one came
 * (the clock read every 1024 empty polls, for the deadline). */
static int lat_reap(struct lat_run *l, int block)
{
	struct ibv_wc wc[8];
	unsigned spins = 0;

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
			block = 0; /* progress: the round's stamp (lat_stamp) */
		} else if (block && ++spins % 1024 == 0) {
			int err = vb_clock_tick(l->r, &l->clk, fc_now());

			if (err)
				return err;
		}
	} while (block);
	return 0;
}

/* Prepares the request of round @slot (@op, immediate @imm) in l->wr. */
static void lat_prep(struct lat_run *l, enum ibv_wr_opcode op, uint64_t slot, uint32_t imm)
{
	struct vb_res *r = l->r;
	uint64_t size = l->t->size;
	struct ibv_send_wr *wr = &l->wr;

	/* Validated: this side's own message number, the last flag kept. */
	if (l->t->val)
		slot = vb_val_next(r, l->t, 0, (imm & FC_VIMM_LAST) != 0, &imm);
	l->sge = (struct ibv_sge){
		.addr = (uintptr_t)vb_test_local(r, l->t, op == IBV_WR_RDMA_READ, slot),
		.length = (uint32_t)size,
		.lkey = r->mr->lkey,
	};
	*wr = (struct ibv_send_wr){ .sg_list = &l->sge, .num_sge = 1, .opcode = op,
				    .send_flags = IBV_SEND_SIGNALED, .imm_data = htonl(imm) };
	if (op != IBV_WR_RDMA_READ && size <= (uint64_t)l->t->inline_max)
		wr->send_flags |= IBV_SEND_INLINE;
	if (op != IBV_WR_SEND && op != IBV_WR_SEND_WITH_IMM) {
		wr->wr.rdma.remote_addr = vb_test_remote(r, l->t, op != IBV_WR_RDMA_READ, slot);
		wr->wr.rdma.rkey = r->peer.rkey;
	}
}

static __attribute__((noinline, cold)) int lat_post_failed(struct lat_run *l, int err)
{
	fc_err("%s qp 0x%x: cannot post a %s: %s", l->r->pi->dev, l->r->qp[0]->qp_num,
	       vb_op_name(l->t->op), strerror(err));
	return -err;
}

/* Posts the prepared request; the send queue is reaped after each post,
 * so it is full only when completions stopped coming. */
static inline int lat_send(struct lat_run *l)
{
	struct ibv_send_wr *bad;
	int err;

	while (__builtin_expect(l->outstanding >= l->r->tx_depth, 0))
		if ((err = lat_reap(l, 1)))
			return err;
	if (__builtin_expect((err = ibv_post_send(l->r->qp[0], &l->wr, &bad)) != 0, 0))
		return lat_post_failed(l, err);
	l->outstanding++;
	l->res->posted++;
	return 0;
}

/* Whether round @it is the last one; with -D, by the clock at @now. */
static int lat_last(const struct lat_run *l, uint64_t it, double now)
{
	if (l->end > 0)
		return it >= l->warm && now >= l->end;
	return it + 1 >= l->warm + l->t->iters;
}

/* Round @it ran from l->t_prev to @t (the clock when its answer came,
 * read once): into the histogram after the warm-up, half the round trip
 * for write and send, as perftest. perftest's method leaves out the last
 * round (its n - 1 samples of n posts) and, with -D, keeps only the rounds
 * within its window. Then the send completions that came are reaped
 * (but a read's, which ends the next round). */
static int lat_record(struct lat_run *l, uint64_t it, double t, int last)
{
	double t0 = l->t_prev, secs = (t - t0) / (l->t->op == VB_READ ? 1 : 2);

	l->t_prev = t;
	l->clk.last_progress = t;
	if (it >= l->warm && !(l->t->method == VB_METHOD_PERFTEST && last) &&
	    (!l->win_hi || (t0 >= l->win_lo && t <= l->win_hi))) {
		fc_hist_add(&l->res->lat, secs);
		l->res->msgs++;
	}
	/* a read's completion is its round's end: lat_read waits for it */
	return l->t->op == VB_READ ? 0 : lat_reap(l, 0);
}

/* The answering side, once its answer is posted: outside the round the
 * peer times, it reads the clock, reaps its send completions and posts the
 * receive again (validated: recv_done, after the check). */
static int answered(struct lat_run *l, int recv)
{
	int err;

	l->clk.last_progress = fc_now();
	l->res->msgs++; /* rounds answered, warm-up included */
	err = lat_reap(l, 0);

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
	/* the message's other bytes after its last one (a load fence: on
	 * x86 no instruction, as loads are not reordered with loads) */
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	l->clk.done++;
	return 0;
}

/* The marker bytes of round @it in its tx slot: its pass, the last flag. */
static inline void write_marks(struct lat_run *l, uint64_t it, uint64_t cycle, int last)
{
	uint8_t *tx = vb_test_local(l->r, l->t, 0, it);

	tx[l->t->size - 2] = (uint8_t)last;
	tx[l->t->size - 1] = (uint8_t)((it / cycle) % 255 + 1);
}

static int lat_write(struct lat_run *l)
{
	struct vb_res *r = l->r;
	uint64_t size = l->t->size;
	/* The value that marks round @it in its slot's last byte: a new one
	 * each time the slot comes round again (every round with one buffer). */
	uint64_t cycle = l->t->cycle == VB_CYCLE_PAGE ? 1 : l->t->cyc_nslots;
	int err = 0, last = 0;

	if (l->t->active) {
		last = lat_last(l, 0, l->t_prev);
		write_marks(l, 0, cycle, last);
		lat_prep(l, IBV_WR_RDMA_WRITE, 0, 0);
		l->t_prev = fc_now();
		err = lat_send(l);
	}
	for (uint64_t it = 0; !err; it++) {
		uint8_t pass = (uint8_t)((it / cycle) % 255 + 1);
		int now_last = last;
		double t;

		if (l->t->active) {
			if (!now_last) { /* round it + 1, while round it is in flight */
				last = lat_last(l, it + 1, l->t_prev);
				lat_prep(l, IBV_WR_RDMA_WRITE, it + 1, 0);
			}
			if ((err = wait_byte(l, it, pass)))
				break;
			t = fc_now();
			if (!now_last) {
				write_marks(l, it + 1, cycle, last);
				if ((err = lat_send(l)))
					break;
			}
			if ((err = lat_record(l, it, t, now_last)))
				break;
		} else {
			lat_prep(l, IBV_WR_RDMA_WRITE, it, 0);
			if ((err = wait_byte(l, it, pass)))
				break;
			now_last = vb_test_local(r, l->t, 1, it)[size - 2];
			write_marks(l, it, cycle, now_last);
			if ((err = lat_send(l)) || (err = answered(l, 0)))
				break;
		}
		if (now_last)
			break;
	}
	return err;
}

/* One read at a time; its completion is its answer. Validated, each read
 * is checked after the next one is posted, which lands in another slot. */
static int lat_read(struct lat_run *l)
{
	int last = lat_last(l, 0, l->t_prev), err;

	lat_prep(l, IBV_WR_RDMA_READ, 0, 0);
	l->t_prev = fc_now();
	err = lat_send(l);
	for (uint64_t it = 0; !err; it++) {
		int now_last = last;
		struct ibv_wc wc;
		double t;

		if (!now_last) {
			last = lat_last(l, it + 1, l->t_prev);
			lat_prep(l, IBV_WR_RDMA_READ, it + 1, 0);
		}
		if ((err = lat_reap(l, 1)))
			break;
		t = fc_now();
		l->clk.done++;
		wc = l->last_wc;
		if ((!now_last && (err = lat_send(l))) || (err = lat_record(l, it, t, now_last)))
			break;
		if (l->t->val && (err = vb_val_reads(l->r, l->t, 0, 1, &wc, l->scratch)))
			break;
		if (now_last)
			break;
	}
	return err;
}

/* Waits for one receive; returns its immediate data in *imm_p and the
 * completion in *wc_p. Its receive is posted again after the round's post
 * (answered, lat_recv_pingpong); validated, once the message was checked
 * (recv_done). */
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
	l->clk.done++;
	*imm_p = wc.wc_flags & IBV_WC_WITH_IMM ? ntohl(wc.imm_data) : 0;
	*wc_p = wc;
	return 0;
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

/* The timing side's round @it of a ping-pong through receives: round
 * it + 1 prepared while it is in flight, the answer, the clock, the next
 * post, then the rest. *@last_p: whether round it + 1 is the last. */
static int ping_round(struct lat_run *l, enum ibv_wr_opcode op, uint64_t it, int *last_p)
{
	int now_last = *last_p, err;
	struct ibv_wc wc;
	uint32_t imm;
	double t;

	if (!now_last) {
		*last_p = lat_last(l, it + 1, l->t_prev);
		lat_prep(l, round_op(l, op, *last_p), it + 1, lat_imm(it + 1, *last_p));
	}
	if ((err = wait_recv(l, &imm, &wc)))
		return err;
	t = fc_now();
	if ((!now_last && (err = lat_send(l))) || (err = lat_record(l, it, t, now_last)))
		return err;
	return l->t->val ? recv_done(l, &wc) : vb_post_recvs(l->r, 0);
}

/* The answering side's round @it: the answer prepared before the message
 * comes and posted first (its opcode and immediate, whose last flag the
 * message brings, the only fields set after), the rest after; returns 1
 * after the last round. */
static int pong_round(struct lat_run *l, enum ibv_wr_opcode op, uint64_t it)
{
	int last, err;
	struct ibv_wc wc;
	uint32_t imm;

	lat_prep(l, op, it, 0);
	if ((err = wait_recv(l, &imm, &wc)))
		return err;
	last = (imm & FC_VIMM_LAST) != 0;
	l->wr.opcode = round_op(l, op, last);
	/* validated: its own message number, prepared; else the peer's echoed */
	l->wr.imm_data = l->t->val ? l->wr.imm_data | htonl(last ? FC_VIMM_LAST : 0) : htonl(imm);
	if ((err = lat_send(l)) || (err = answered(l, 1)) || (err = recv_done(l, &wc)))
		return err;
	return last;
}

/* Ping-pong through receive completions: sends, or writes with immediate. */
static int lat_recv_pingpong(struct lat_run *l, enum ibv_wr_opcode op)
{
	int err = 0, last = 0;

	if (l->t->active) {
		last = lat_last(l, 0, l->t_prev);
		lat_prep(l, round_op(l, op, last), 0, lat_imm(0, last));
		l->t_prev = fc_now();
		err = lat_send(l);
	}
	for (uint64_t it = 0; !err; it++) {
		int now_last = last;

		if (l->t->active)
			err = ping_round(l, op, it, &last);
		else if ((err = pong_round(l, op, it)) > 0)
			return 0;
		if (now_last)
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
