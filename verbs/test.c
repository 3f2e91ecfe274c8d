/* The data path's entry: bandwidth and latency loops over connected QPs (see test.h). */
#include "verbs/test.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "core/vmsg.h"
#include "core/util.h"

static const char *const op_names[] = {
	[VB_WRITE] = "write", [VB_READ] = "read", [VB_SEND] = "send",
};

/* Position of @s in @names, or -EINVAL. */
static int name_index(const char *const *names, size_t n, const char *s)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(s, names[i]))
			return (int)i;
	return -EINVAL;
}

int vb_op_parse(const char *s, enum vb_op *op_p)
{
	int i = name_index(op_names, sizeof(op_names) / sizeof(op_names[0]), s);

	if (i < 0)
		return i;
	*op_p = (enum vb_op)i;
	return 0;
}

const char *vb_op_name(enum vb_op op)
{
	return op_names[op];
}

static const char *const method_names[] = {
	[VB_METHOD_FABCHECK] = "fabcheck", [VB_METHOD_PERFTEST] = "perftest",
};

int vb_method_parse(const char *s, enum vb_method *m_p)
{
	int i = name_index(method_names, sizeof(method_names) / sizeof(method_names[0]), s);

	if (i < 0)
		return i;
	*m_p = (enum vb_method)i;
	return 0;
}

const char *vb_method_name(enum vb_method m)
{
	return method_names[m];
}

/* perftest (perftest_parameters.h): DEF_INLINE_WRITE,
 * DEF_INLINE_SEND_RC_UC_XRC, DEF_CACHE_LINE_SIZE. */
#define PT_INLINE_WRITE 220
#define PT_INLINE_SEND 236
#define PT_CACHE_LINE 64
#define PT_CYCLE 4096 /* its cycle buffer: one page */
/* perftest inlines only on devices it recognises; of those, fabcheck knows
 * NVIDIA (Mellanox) ones. Elsewhere (Soft-RoCE among them) it sends none. */
#define VENDOR_MELLANOX 0x02c9
#define VENDOR_MELLANOX2 0x119f

static int perftest_inline(const struct vb_res *r, const struct vb_test *t)
{
	if (!t->lat || t->op == VB_READ)
		return 0;
	if (r->vendor_id != VENDOR_MELLANOX && r->vendor_id != VENDOR_MELLANOX2)
		return 0;
	return t->op == VB_WRITE ? PT_INLINE_WRITE : PT_INLINE_SEND;
}

/*
 * perftest's buffers (perftest_resources.c): a region per QP of
 * BUFF_SIZE(size, cycle_buffer), the larger of the message and a page, in
 * which messages up to half a page step by cache lines (increase_loc_addr;
 * latency tests and larger messages reuse one address). Regions that do
 * not fit in the half are shared round robin.
 */
static void resolve_regions(struct vb_test *t, uint64_t half)
{
	uint64_t step = t->size > PT_CACHE_LINE ?
				(t->size + PT_CACHE_LINE - 1) & ~(uint64_t)(PT_CACHE_LINE - 1) :
				PT_CACHE_LINE;
	uint64_t region = t->size > PT_CYCLE ? (t->size + PT_CYCLE - 1) & ~(uint64_t)(PT_CYCLE - 1) :
					       PT_CYCLE;

	t->pt_region = region;
	t->pt_nregions = half / region ? (uint32_t)(half / region) : 1;
	t->pt_step = step;
	t->pt_nsteps = t->lat || t->size > PT_CYCLE / 2 ? 1 : (uint32_t)(PT_CYCLE / step);
}

/* The slots a size cycles through, in the smaller of the two halves. */
static void resolve_slots(const struct vb_res *r, struct vb_test *t)
{
	uint64_t half = (uint64_t)r->stride * r->nslots;
	uint64_t peer = (uint64_t)r->peer.stride * r->peer.nslots;

	if (peer && peer < half)
		half = peer;
	if (fc_cycle_layout(t->size, half, &t->cyc_stride, &t->cyc_nslots)) {
		t->cyc_stride = r->stride;
		t->cyc_nslots = r->nslots;
	}
	resolve_regions(t, half);
}

/* Post list and CQ moderation for a window of @window requests per QP. */
int vb_test_knobs(const struct vb_res *r, struct vb_test *t, int window)
{
	struct vb_knob_in in = {
		.method = t->method, .op = t->op, .size = t->size, .all_sizes = t->all_sizes,
		.tx_depth = r->tx_depth, .window = window, .nqps = r->nqps, .validate = t->val != NULL,
		.post_list = t->post_list, .cq_mod = t->cq_mod_asked,
		.iters = t->duration > 0 ? 0 : t->iters,
	};
	struct vb_knob_out out;

	if (t->lat) {
		t->post_list = 1;
		t->cq_mod = 1; /* every latency request is signalled */
		return 0;
	}
	if (vb_knobs_settle(&in, &out) < 0) {
		fc_err("%s: %s", r->pi ? r->pi->dev : "bandwidth", out.why);
		return -EINVAL;
	}
	snprintf(t->note, sizeof(t->note), "%s", out.note);
	t->post_list = out.post_list;
	t->cq_mod = out.cq_mod;
	return 0;
}

int vb_test_resolve(const struct vb_res *r, struct vb_test *t)
{
	int pt = t->method == VB_METHOD_PERFTEST;

	if (t->warmup == VB_KNOB_DEFAULT)
		t->warmup = pt ? 0 : VB_KNOB_ON;
	if (t->warmup == VB_KNOB_ON) {
		if (t->lat)
			t->warmup = t->iters < 10 ? 1 : t->iters / 10 < 200 ? (int)(t->iters / 10) : 200;
		else
			t->warmup = !t->duration && (uint64_t)r->tx_depth > t->iters ? (int)t->iters :
										      r->tx_depth;
	}
	t->note[0] = '\0';
	t->cq_mod_asked = t->cq_mod;
	if (t->inline_max == VB_KNOB_DEFAULT)
		t->inline_max = pt ? perftest_inline(r, t) : t->lat ? r->max_inline : 0;
	if (t->inline_max > r->max_inline)
		t->inline_max = r->max_inline;
	if (t->op == VB_READ)
		t->inline_max = 0;
	if (t->threads < 1 || t->lat)
		t->threads = 1;
	if (t->threads > r->nqps)
		t->threads = r->nqps;
	if (t->threads > r->ncqsets)
		t->threads = r->ncqsets;
	if (t->cycle == VB_CYCLE_DEFAULT)
		t->cycle = pt ? VB_CYCLE_PAGE : VB_CYCLE_SLOTS;
	resolve_slots(r, t);
	return vb_test_knobs(r, t, r->tx_depth);
}

uint8_t *vb_test_local(const struct vb_res *r, const struct vb_test *t, int rx, uint64_t i)
{
	return (rx ? vb_rx(r, 0) : vb_tx(r, 0)) + vb_test_offset(t, 0, i);
}

uint64_t vb_test_remote(const struct vb_res *r, const struct vb_test *t, int rx, uint64_t i)
{
	return (rx ? vb_peer_rx(r, 0) : vb_peer_tx(r, 0)) + vb_test_offset(t, 0, i);
}

void vb_clock_start(struct vb_clock *c, const char *what)
{
	double now = fc_now();

	memset(c, 0, sizeof(*c));
	c->last_progress = now;
	c->next_cb = now + 1;
	c->next_abort = now + 0.05;
	c->what = what;
}

int vb_clock_tick(struct vb_res *r, struct vb_clock *c, double now)
{
	if (now - c->last_progress > r->timeout) {
		fc_err("%s: no progress for %.0f s while %s (%llu completions so far): the peer node or the link stopped; check that the peer is up, its port is active and the link is not dropping packets",
		       r->pi->dev, r->timeout, c->what, (unsigned long long)c->done);
		return -ETIMEDOUT;
	}
	if (c->quiet)
		return 0;
	if (now >= c->next_cb) {
		if (r->progress_cb)
			r->progress_cb(r->cb_arg, c->done);
		c->next_cb = now + 1;
	}
	if (now >= c->next_abort) {
		c->next_abort = now + 0.05;
		if (r->abort_cb && r->abort_cb(r->cb_arg)) {
			fc_err("the controller went away: stopping the test");
			return -ECANCELED;
		}
	}
	return 0;
}

int vb_result_push(struct vb_result *res, double v)
{
	if (res->nsamples == res->cap) {
		size_t cap = res->cap ? res->cap * 2 : 1024;
		double *p;

		if (res->cap >= VB_KEEP_INTERVALS)
			return 0; /* the summary (res->bw) has every interval */
		p = realloc(res->samples, cap * sizeof(*p));
		if (!p) {
			fc_err("cannot keep %zu samples: out of memory", cap);
			return -ENOMEM;
		}
		res->samples = p;
		res->cap = cap;
	}
	res->samples[res->nsamples++] = v;
	return 0;
}

void vb_result_release(struct vb_result *res)
{
	free(res->samples);
	fc_hist_release(&res->lat);
	if (res->have_bw)
		fc_bwlog_release(&res->bw);
	memset(res, 0, sizeof(*res));
}

int vb_test_prepare(struct vb_res *r, const struct vb_test *t)
{
	/* the smaller of the two sides' slots bounds it: name that one */
	if (t->size > r->stride || t->size > r->peer.stride) {
		int peer = r->peer.stride < r->stride;

		fc_err("%s: message of %llu bytes is larger than the %sbuffer slots (%llu bytes)",
		       r->pi->dev, (unsigned long long)t->size, peer ? "peer's " : "",
		       (unsigned long long)(peer ? r->peer.stride : r->stride));
		return -EINVAL;
	}
	if (t->lat && t->op == VB_WRITE && t->lat_mode == VB_LAT_POLL)
		memset(vb_rx(r, 0), 0, (size_t)r->stride * r->nslots);
	/* perftest's method: each QP receives into its own region, stepping
	 * as its sends do (perftest_resources.c ctx_set_recv_wqes: QP i at
	 * buf + (num_of_qps + i) * BUFF_SIZE, increase_loc_addr per receive
	 * in bandwidth tests up to half a page) */
	r->recv_region = t->cycle == VB_CYCLE_PAGE ? t->pt_region : 0;
	r->recv_step = t->pt_step;
	r->recv_nregions = t->pt_nregions ? t->pt_nregions : 1;
	r->recv_nsteps = t->pt_nsteps ? t->pt_nsteps : 1;
	if (t->op == VB_SEND || (t->op == VB_WRITE && t->lat && t->lat_mode == VB_LAT_IMM) ||
	    (t->op == VB_WRITE && t->val && t->passive))
		for (int q = 0; q < r->nqps; q++)
			if (vb_post_recvs(r, q))
				return -EIO;
	return 0;
}

int vb_test_run(struct vb_res *r, const struct vb_test *t, struct vb_result *res)
{
	memset(res, 0, sizeof(*res));
	return t->lat ? vb_lat_run(r, t, res) : vb_bw_run(r, t, res);
}
