/* The data path's entry: bandwidth and latency loops over connected QPs (see test.h). */
#include "verbs/test.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "core/util.h"

static const char *const op_names[] = {
	[VB_WRITE] = "write", [VB_READ] = "read", [VB_SEND] = "send",
};

int vb_op_parse(const char *s, enum vb_op *op_p)
{
	for (size_t i = 0; i < sizeof(op_names) / sizeof(op_names[0]); i++)
		if (!strcmp(s, op_names[i])) {
			*op_p = (enum vb_op)i;
			return 0;
		}
	return -EINVAL;
}

const char *vb_op_name(enum vb_op op)
{
	return op_names[op];
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

		if (cap > (8u << 20))
			return 0; /* enough samples: keep the first 8 Mi (64 MiB) */
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
	memset(res, 0, sizeof(*res));
}

int vb_test_prepare(struct vb_res *r, const struct vb_test *t)
{
	if (t->size > r->stride || t->size > r->peer.stride) {
		fc_err("%s: message of %llu bytes is larger than the buffer slots (%llu bytes)",
		       r->pi->dev, (unsigned long long)t->size, (unsigned long long)r->stride);
		return -EINVAL;
	}
	if (t->lat && t->op == VB_WRITE)
		memset(vb_rx(r, 0), 0, (size_t)r->stride * r->nslots);
	if (t->op == VB_SEND)
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
