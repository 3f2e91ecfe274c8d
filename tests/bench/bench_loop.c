/*
 * The bandwidth loop's cost against perftest's (make bench-loop): the real
 * loop of verbs/bw.c and a reference loop written here the way perftest's
 * run_iter_bw is (src/perftest_resources.c: each QP's chain built once by
 * ctx_set_send_wqes and posted again, the signalled flag moved and the
 * addresses stepped only without a post list, a completion counting
 * cq_mod), both on the same fake HCA without a peer (tests/fake: nothing
 * copied, each request done when posted; its completions shown after 0, 8
 * or 32 empty polls), 64-byte writes with the same knobs (the method's
 * CQ moderation as vb_test_resolve settles it).
 *
 * Each case (method x post list 1, 8, 32 x 1 or 4 threads, a QP each, x
 * delay) runs BENCH_RUNS pairs (default 6), fabcheck and the reference one
 * after the other, in turn first; a pair's ratio is fabcheck's CPU ns per
 * work request over the reference's (the process's CPU time: on a shared
 * host the wall clock counts other processes' time). It prints the mean
 * ratio with its 95% interval (Student's t) and fails (exit 1) when the
 * interval's lower end is above BENCH_MAX_RATIO (1.25): fabcheck shown
 * slower than that. Figures on a busy host are noisy; the ratio is what is
 * judged, never a rate.
 *
 * "bench_loop --one fabcheck|reference [LIST [DELAY [METHOD]]]" runs one
 * case (by default perftest's method, post list 32, one thread, no delay)
 * once, for callgrind to count instructions by difference
 * (scripts/bench_loop_count.sh counts both methods at post list 32).
 */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/util.h"
#include "tests/fake/fake_hca.h"

#define WRS_PER_QP (1ULL << 19)
#define BENCH_MAX_RATIO 1.25
#define REF_POLL_BATCH 16 /* perftest's CTX_POLL_BATCH */
#define REF_CYCLE 4096	  /* perftest's cycle buffer: a page */
#define REF_LINE 64	  /* perftest's DEF_CACHE_LINE_SIZE */
#define REF_MAX_LIST 32

struct bcase {
	enum vb_method m;
	int list, threads, delay;
};

/* Student's t at 95% (two-sided) for n - 1 degrees of freedom. */
static double t95(int n)
{
	static const double t[] = { 0, 12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365,
				    2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145, 2.131,
				    2.120, 2.110, 2.101, 2.093, 2.086 };

	return n - 1 < (int)(sizeof(t) / sizeof(t[0])) ? t[n - 1] : 1.96;
}

static double cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static struct vb_test bench_test(const struct bcase *c)
{
	return (struct vb_test){ .op = VB_WRITE, .size = 64, .iters = WRS_PER_QP, .active = 1,
				 .interval = 0.1, .method = c->m, .warmup = 0,
				 .cq_mod = VB_KNOB_DEFAULT, .inline_max = VB_KNOB_DEFAULT,
				 .cycle = VB_CYCLE_DEFAULT, .post_list = c->list,
				 .threads = c->threads };
}

static int side_up(struct fk_side *s, const struct bcase *c)
{
	struct fk_cfg cfg = { .nqps = c->threads, .tx_depth = 128, .threads = c->threads,
			      .max_size = 64, .timeout = 10, .max_inline = 236 };

	if (fk_side_init(s, &cfg))
		return -1;
	fk_set_delay(s, c->delay);
	return 0;
}

/* ---- The reference: perftest's run_iter_bw, one thread per QP ---- */

struct ref_qp {
	struct fk_side *s;
	const struct vb_test *t;
	int q, err;
	int cq_mod;	  /* perftest's: the list's length with a post list */
	pthread_t tid;
	struct ibv_send_wr wr[REF_MAX_LIST];
	struct ibv_sge sge[REF_MAX_LIST];
};

/* perftest's ctx_set_send_reg_wqes: the list's requests a cache line
 * apart in the page, the last of each cq_mod signalled (post list: the
 * CQ moderation is the list's length). */
static void ref_build(struct ref_qp *p)
{
	struct vb_res *r = &p->s->r;
	int n = p->t->post_list;

	for (int j = 0; j < n; j++) {
		p->sge[j] = (struct ibv_sge){ .addr = (uintptr_t)vb_tx(r, 0) + (uint64_t)j * REF_LINE,
					      .length = (uint32_t)p->t->size, .lkey = r->mr->lkey };
		p->wr[j] = (struct ibv_send_wr){ .wr_id = (uint64_t)p->q, .sg_list = &p->sge[j],
						 .num_sge = 1, .opcode = IBV_WR_RDMA_WRITE,
						 .next = j + 1 < n ? &p->wr[j + 1] : NULL };
		p->wr[j].wr.rdma.remote_addr = vb_peer_rx(r, 0) + (uint64_t)j * REF_LINE;
		p->wr[j].wr.rdma.rkey = r->peer.rkey;
		if (n == 1 || (j + 1) % p->cq_mod == 0)
			p->wr[j].send_flags = IBV_SEND_SIGNALED;
		if (p->t->size <= (uint64_t)p->t->inline_max)
			p->wr[j].send_flags |= IBV_SEND_INLINE;
	}
}

static void *ref_run(void *arg)
{
	struct ref_qp *p = arg;
	struct vb_res *r = &p->s->r;
	struct ibv_qp *qp = r->qp[p->q];
	struct ibv_cq *cq = r->set_scq[p->q];
	struct ibv_send_wr *bad, *wr = p->wr;
	struct ibv_wc wc[REF_POLL_BATCH];
	uint64_t scnt = 0, ccnt = 0, iters = p->t->iters, base = p->sge[0].addr;
	uint64_t rbase = wr->wr.rdma.remote_addr;
	int list = p->t->post_list, cq_mod = p->cq_mod;

	while (scnt < iters || ccnt < iters) {
		while (scnt < iters && scnt + (uint64_t)list <= (uint64_t)r->tx_depth + ccnt) {
			if (list == 1 && scnt % (uint64_t)cq_mod == 0 && cq_mod > 1 && scnt != iters - 1)
				wr->send_flags &= ~(unsigned)IBV_SEND_SIGNALED;
			if (ibv_post_send(qp, wr, &bad)) {
				p->err = -EIO;
				return NULL;
			}
			if (list == 1) { /* increase_loc_addr, increase_rem_addr */
				p->sge[0].addr += REF_LINE;
				wr->wr.rdma.remote_addr += REF_LINE;
				if (p->sge[0].addr >= base + REF_CYCLE - p->t->size) {
					p->sge[0].addr = base;
					wr->wr.rdma.remote_addr = rbase;
				}
			}
			scnt += (uint64_t)list;
			if (list == 1 && (scnt % (uint64_t)cq_mod == (uint64_t)cq_mod - 1 ||
					  scnt == iters - 1))
				wr->send_flags |= IBV_SEND_SIGNALED;
		}
		if (ccnt < iters) {
			int ne = ibv_poll_cq(cq, REF_POLL_BATCH, wc);

			for (int i = 0; i < ne; i++) {
				if (wc[i].status != IBV_WC_SUCCESS) {
					p->err = -EIO;
					return NULL;
				}
				ccnt += (uint64_t)cq_mod;
			}
			if (ne < 0) {
				p->err = -EIO;
				return NULL;
			}
		}
	}
	return NULL;
}

/* One reference run over @s's QPs, a thread each. */
static int ref_once(struct fk_side *s, const struct vb_test *t)
{
	struct ref_qp *ps = calloc((size_t)t->threads, sizeof(*ps));
	int err = 0;

	if (!ps)
		return -1;
	for (int k = 0; k < t->threads; k++) {
		ps[k] = (struct ref_qp){ .s = s, .t = t, .q = k,
					 .cq_mod = t->post_list > 1 ? t->post_list : t->cq_mod };
		ref_build(&ps[k]);
	}
	for (int k = 1; k < t->threads; k++)
		if (pthread_create(&ps[k].tid, NULL, ref_run, &ps[k]))
			ps[k].err = -EAGAIN;
	ref_run(&ps[0]);
	for (int k = 0; k < t->threads; k++) {
		if (k && !ps[k].err)
			pthread_join(ps[k].tid, NULL);
		err |= ps[k].err;
	}
	free(ps);
	return err;
}

/* ---- Runs ---- */

/* One run of fabcheck's loop (@ref 0) or the reference (1): CPU ns per
 * work request in *ns_p; 0, or -1 when it failed. */
static int one_run(const struct bcase *c, int ref, double *ns_p)
{
	struct fk_side s;
	struct vb_test t = bench_test(c);
	struct vb_result res;
	double c0;
	int rc = -1;

	if (side_up(&s, c))
		return -1;
	if (vb_test_resolve(&s.r, &t) || vb_test_prepare(&s.r, &t))
		goto out;
	c0 = cpu_now();
	if (ref) {
		rc = ref_once(&s, &t);
	} else {
		rc = vb_test_run(&s.r, &t, &res) || res.msgs != t.iters * (uint64_t)c->threads;
		vb_result_release(&res);
	}
	*ns_p = (cpu_now() - c0) * 1e9 / (double)(t.iters * (uint64_t)c->threads);
out:
	fk_side_free(&s);
	return rc ? -1 : 0;
}

struct ci {
	double sum, sq;
	int n;
};

static void ci_add(struct ci *c, double v)
{
	c->sum += v;
	c->sq += v * v;
	c->n++;
}

/* The mean and the half width of its 95% interval. */
static double ci_mean(const struct ci *c, double *half)
{
	double mean = c->sum / c->n;
	double sd = sqrt(fmax(0, (c->sq - c->sum * c->sum / c->n) / (c->n - 1)));

	*half = t95(c->n) * sd / sqrt(c->n);
	return mean;
}

/* One case's pairs; prints its line; 1 when the ratio is out of bounds. */
static int run_case(const struct bcase *c, int runs)
{
	struct ci ratio = { 0 }, fab = { 0 }, ref = { 0 };
	double rh, fh, eh, rm, fm, em;

	for (int k = 0; k < runs; k++) {
		double f, r;
		int first = k % 2; /* which runs first, in turn */

		if (one_run(c, first, first ? &r : &f) || one_run(c, !first, first ? &f : &r)) {
			printf("bench-loop: FAIL: %s --post-list %d --threads %d, delay %d: a run failed\n",
			       vb_method_name(c->m), c->list, c->threads, c->delay);
			return 1;
		}
		ci_add(&ratio, f / r);
		ci_add(&fab, f);
		ci_add(&ref, r);
	}
	rm = ci_mean(&ratio, &rh);
	fm = ci_mean(&fab, &fh);
	em = ci_mean(&ref, &eh);
	printf("%-9s %-8d %-7d %-6d %6.2f +- %-6.2f %6.2f +- %-6.2f %5.3f +- %.3f%s\n",
	       vb_method_name(c->m), c->list, c->threads, c->delay, fm, fh, em, eh, rm, rh,
	       rm - rh > BENCH_MAX_RATIO ? "  FAIL" : "");
	return rm - rh > BENCH_MAX_RATIO;
}

/* --one fabcheck|reference [LIST [DELAY [METHOD]]]: one run for callgrind
 * (see the top); METHOD perftest (the default) or fabcheck. */
static int one_for_count(const char *which, int list, int delay, const char *method)
{
	struct bcase c = { strcmp(method, "fabcheck") ? VB_METHOD_PERFTEST : VB_METHOD_FABCHECK,
			   list, 1, delay };
	double ns;

	if (strcmp(which, "fabcheck") && strcmp(which, "reference")) {
		fprintf(stderr, "bench_loop --one: say fabcheck or reference, not '%s'\n", which);
		return 2;
	}
	if (one_run(&c, !strcmp(which, "reference"), &ns))
		return 1;
	printf("%s: %llu work requests\n", which, WRS_PER_QP);
	return 0;
}

int main(int argc, char **argv)
{
	static const enum vb_method ms[] = { VB_METHOD_FABCHECK, VB_METHOD_PERFTEST };
	static const int lists[] = { 1, 8, 32 }, thrs[] = { 1, 4 }, delays[] = { 0, 8, 32 };
	const char *e = getenv("BENCH_RUNS");
	int runs = e && atoi(e) >= 2 ? atoi(e) : 6, bad = 0;

	if (argc >= 3 && !strcmp(argv[1], "--one"))
		return one_for_count(argv[2], argc > 3 ? atoi(argv[3]) : 32, argc > 4 ? atoi(argv[4]) : 0,
				     argc > 5 ? argv[5] : "perftest");
	printf("bench-loop: verbs/bw.c against perftest's loop on the fake HCA, 64 B writes, %llu WRs per thread, %d interleaved pairs a case, mean +- 95%% interval, CPU ns per WR\n",
	       WRS_PER_QP, runs);
	printf("%-9s %-8s %-7s %-6s %-16s %-16s %s\n", "METHOD", "POSTLIST", "THREADS", "DELAY",
	       "FABCHECK NS/WR", "REFERENCE NS/WR", "RATIO");
	for (size_t mi = 0; mi < sizeof(ms) / sizeof(ms[0]); mi++)
		for (size_t li = 0; li < sizeof(lists) / sizeof(lists[0]); li++)
			for (size_t ti = 0; ti < sizeof(thrs) / sizeof(thrs[0]); ti++)
				for (size_t di = 0; di < sizeof(delays) / sizeof(delays[0]); di++) {
					struct bcase c = { ms[mi], lists[li], thrs[ti], delays[di] };

					bad += run_case(&c, runs);
				}
	if (bad)
		printf("bench-loop: FAIL: %d case(s) with fabcheck's loop over %.2f times the reference's\n",
		       bad, BENCH_MAX_RATIO);
	return bad ? 1 : 0;
}
