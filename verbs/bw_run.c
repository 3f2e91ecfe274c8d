/*
 * The bandwidth test around its loop (verbs/bw.c): each thread's chains,
 * the BW peak's stamps, the threads (each pinned to a CPU of the HCA's
 * node), and the result of them all.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "core/stats.h"
#include "core/util.h"
#include "verbs/bw_run.h"

/* Builds the chain of every QP this thread drives, once per test. */
static int bw_chains(struct bw_run *b)
{
	const struct vb_test *t = b->t;
	int list = t->post_list > 1 ? t->post_list : 1, own = bw_owned(b), n;

	if (!t->active || t->val)
		return 0;
	n = vb_chain_size(t, list, own);
	b->cwrs = aligned_alloc(BW_LINE, (size_t)own * (size_t)n * sizeof(*b->cwrs));
	b->csges = calloc((size_t)own * (size_t)n, sizeof(*b->csges));
	if (!b->cwrs || !b->csges) {
		fc_err("cannot hold %d work request%s per QP for %d QP%s: out of memory", n, fc_s(n),
		       own, fc_s(own));
		return -ENOMEM;
	}
	for (int q = b->k, i = 0; q < b->r->nqps; q += b->nthr, i++)
		vb_chain_init(&b->chain[q], b->r, t, q, list, own, b->cwrs + (size_t)i * (size_t)n,
			      b->csges + (size_t)i * (size_t)n);
	/* the slots a post moves on (none where the chain stays in place),
	 * of the chains' (vb_chain_thin) */
	b->nslots_list = (uint32_t)b->chain[b->k].lslots;
	b->nslots = b->chain[b->k].nslots;
	b->thin = b->chain[b->k].thin;
	return 0;
}

/* --perftest: the BW peak's stamps for the timed pass, where perftest
 * takes them: iterations (not -D) of at most VB_PT_PEAK_MAX a QP, one
 * thread (perftest has no others), not validated. */
static int bw_peak_start(struct bw_run *b)
{
	const struct vb_test *t = b->t;

	if (t->method != VB_METHOD_PERFTEST || !t->active || t->duration > 0 || b->nthr > 1 ||
	    t->val || !t->iters || t->iters > VB_PT_PEAK_MAX)
		return 0;
	b->npeak = t->iters * (uint64_t)b->r->nqps;
	b->tpost = calloc(b->npeak, sizeof(double));
	b->tcomp = calloc(b->npeak, sizeof(double));
	if (!b->tpost || !b->tcomp) {
		fc_err("cannot keep %llu time stamps for the BW peak: out of memory",
		       (unsigned long long)b->npeak);
		return -ENOMEM;
	}
	return 0;
}

/* The warm-up and the timed pass of one thread. */
static int bw_both(struct bw_run *b)
{
	const struct vb_test *t = b->t;
	uint64_t warm = t->warmup > 0 ? (uint64_t)t->warmup : 0;
	int err = 0;

	vb_clock_start(&b->clk, t->active ? "sending" : "receiving");
	b->clk.quiet = b->k > 0;
	if ((err = bw_chains(b)))
		return err;
	/* Warm-up: untimed (t->warmup requests per QP, none when 0). */
	if (t->active && warm)
		err = bw_pass(b, warm, 0, 0);
	if (!err && (err = bw_peak_start(b)) == 0)
		err = bw_pass(b, t->iters, t->duration, 1);
	if (err && b->nthr > 1)
		__atomic_store_n(&b->sh->stop, 1, __ATOMIC_RELAXED);
	return err;
}

/* Pins the calling thread to the k-th CPU of the HCA's node. */
static void bw_pin(const struct bw_run *b)
{
	cpu_set_t one;
	int cpu = b->r->pin ? fc_cpu_nth(&b->r->cpus, b->k) : -1, err;

	if (cpu < 0)
		return;
	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	if ((err = pthread_setaffinity_np(pthread_self(), sizeof(one), &one)))
		fc_warn("%s: data path thread %d of %d: cannot pin to CPU %d: %s", b->r->pi->dev,
			b->k + 1, b->nthr, cpu, strerror(err));
}

static void *bw_thread(void *arg)
{
	struct bw_run *b = arg;

	bw_pin(b);
	b->err = bw_both(b);
	return NULL;
}

/* Starts threads 1..n-1, runs thread 0 here, waits for all. */
static int bw_threads(struct bw_run *bs, int n)
{
	cpu_set_t saved;
	int err = 0, started = 1;
	int have = !pthread_getaffinity_np(pthread_self(), sizeof(saved), &saved);

	for (int k = 1; k < n; k++, started++)
		if (pthread_create(&bs[k].tid, NULL, bw_thread, &bs[k])) {
			fc_err("%s: cannot start data path thread %d of %d", bs[0].r->pi->dev, k + 1, n);
			__atomic_store_n(&bs[0].sh->stop, 1, __ATOMIC_RELAXED);
			err = -EAGAIN;
			break;
		}
	if (!err) {
		bw_pin(&bs[0]);
		err = bw_both(&bs[0]);
	}
	for (int k = 1; k < started; k++) {
		pthread_join(bs[k].tid, NULL);
		if (!err && bs[k].err != -ECANCELED)
			err = bs[k].err;
	}
	if (have)
		pthread_setaffinity_np(pthread_self(), sizeof(saved), &saved);
	return err;
}

/* --validate on memory the CPU cannot read: a host image per thread. */
static int bw_scratch(struct bw_run *bs, int n, const struct vb_test *t)
{
	for (int k = 0; t->val && t->val->read && k < n; k++)
		if (!(bs[k].scratch = malloc((size_t)t->size))) {
			fc_err("--validate: no memory for a %llu-byte host image of a message",
			       (unsigned long long)t->size);
			return -ENOMEM;
		}
	return 0;
}

int vb_bw_run(struct vb_res *r, const struct vb_test *t, struct vb_result *res)
{
	int n = t->threads > 1 ? t->threads : 1;
	struct bw_run *bs = aligned_alloc(BW_LINE, (size_t)n * sizeof(*bs));
	struct bw_shared sh = { 0 };
	double first = 0, last = 0;
	uint64_t bytes = 0;
	int err;

	if (!bs)
		return -ENOMEM;
	for (int k = 0; k < n; k++) {
		bs[k] = (struct bw_run){ .r = r, .t = t, .res = res, .k = k, .nthr = n,
					 .scq = r->set_scq[k], .rcq = r->set_rcq[k], .sh = &sh,
					 .window = (uint64_t)r->tx_depth, .thin = 1,
					 .nslots = t->cycle == VB_CYCLE_PAGE ? t->pt_nsteps : t->cyc_nslots };
		if (t->val && t->val->part < bs[k].window)
			bs[k].window = t->val->part;
	}
	err = bw_scratch(bs, n, t);
	if (!err)
		err = n > 1 ? bw_threads(bs, n) : bw_both(&bs[0]);
	for (int k = 0; k < n; k++)
		res->posted += bs[k].posted_all;
	for (int k = 0; !err && t->active && k < n; k++) {
		if (!first || (bs[k].t_first && bs[k].t_first < first))
			first = bs[k].t_first;
		if (bs[k].t_last > last)
			last = bs[k].t_last;
		bytes += bs[k].bytes;
		res->msgs += bs[k].msgs;
	}
	if (!err && t->active && bs[0].win_hi) {
		/* the trimmed window, as perftest times it */
		first = bs[0].win_lo;
		last = last < bs[0].win_hi ? last : bs[0].win_hi;
	}
	if (!err && t->active) {
		res->seconds = last - first;
		res->bytes = bytes;
		/* a run too short for thread 0 to sample still has its curve */
		if (!res->have_bw && (err = bw_log_start(&bs[0])))
			bytes = 0;
		if (res->have_bw)
			fc_bwlog_end(&res->bw, last, bytes);
	}
	if (!err && bs[0].tpost && last > first) {
		double d = vb_pt_peak_delta(bs[0].tpost, bs[0].tcomp, bs[0].npeak, t->post_list,
					    t->cq_mod, last - first);

		res->peak_gbps = d > 0 ? (double)t->size * 8 / d / 1e9 : 0;
	}
	for (int k = 0; k < n; k++) {
		free(bs[k].tpost);
		free(bs[k].tcomp);
		free(bs[k].scratch);
		free(bs[k].cwrs);
		free(bs[k].csges);
	}
	free(bs);
	return err;
}
