/*
 * The bandwidth loop's knobs resolved together, before any traffic (pure;
 * see test.h: vb_knobs_settle). The controller runs it on the options to
 * refuse a combination or say what it changes; each worker runs it again
 * on what its device and --validate allow, with the same result where
 * both know the same window.
 *
 * The rule. bw_fill posts a whole list of L requests on a QP only while
 * outstanding + L <= W (the window: -t, or fewer under --validate), and
 * signals one request in C; a completion frees the requests up to its
 * signalled one. When the fill stops, at least W - L + 1 requests are in
 * flight; after k lists of L the requests since the last signalled one
 * number (k * L) mod C, at most C - gcd(L, C). So a signalled request is
 * in flight whenever the window is full exactly when
 *	L <= W and L + C - gcd(L, C) <= W;
 * otherwise the loop waits for a completion that never comes.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/vmsg.h"
#include "core/vstream.h"
#include "core/util.h"
#include "verbs/test.h"

/* perftest (src/perftest_parameters.h): DEF_CQ_MOD, MSG_SIZE_CQ_MOD_LIMIT. */
#define PT_CQ_MOD 100
#define PT_CQ_MOD_LIMIT 8192

static int gcd(int a, int b)
{
	return (int)fc_gcd((uint64_t)a, (uint64_t)b);
}

int vb_knobs_fit(int post_list, int cq_mod, int window)
{
	return post_list >= 1 && cq_mod >= 1 && post_list <= window &&
	       post_list + cq_mod - gcd(post_list, cq_mod) <= window;
}

/* perftest_parameters.c, force_dependecies: with iterations (not -D) the
 * tx depth is cut to them ("if (tx_depth > iters) tx_depth = iters"),
 * before the CQ moderation is capped at it. */
static int pt_tx_depth(const struct vb_knob_in *in)
{
	return in->iters > 0 && (uint64_t)in->tx_depth > in->iters ? (int)in->iters : in->tx_depth;
}

int vb_cq_mod_default(const struct vb_knob_in *in, int post_list)
{
	int c;

	if (in->method != VB_METHOD_PERFTEST)
		return in->tx_depth >= 2 ? (in->tx_depth / 2 < 64 ? in->tx_depth / 2 : 64) : 1;
	/* perftest_parameters.c, force_dependecies, in its order: 100; 1 above
	 * 8 KiB unless every size runs (-a: it cannot change per size); at
	 * most the tx depth; the post list's length with a post list. */
	c = PT_CQ_MOD;
	if (in->size > PT_CQ_MOD_LIMIT && !in->all_sizes)
		c = 1;
	if (c > pt_tx_depth(in))
		c = pt_tx_depth(in);
	if (post_list > 1)
		c = post_list;
	return c;
}

/* The window's description for a message: "-t 128" or "--validate's 16 slots per QP". */
static const char *window_what(const struct vb_knob_in *in, char *buf, size_t len)
{
	if (in->window < in->tx_depth)
		snprintf(buf, len, "%d requests per QP, the slots --validate gives each of the %d QPs at %llu B (-q, -s)",
			 in->window, in->nqps, (unsigned long long)in->size);
	else
		snprintf(buf, len, "-t %d", in->tx_depth);
	return buf;
}

/* The largest CQ moderation up to @c that fits, or 0. */
static int fitting_cq_mod(int post_list, int c, int window)
{
	for (; c >= 1; c--)
		if (vb_knobs_fit(post_list, c, window))
			return c;
	return 0;
}

int vb_pt_refused(const struct vb_knob_in *in, char *why, size_t len)
{
	int c = in->cq_mod > pt_tx_depth(in) ? pt_tx_depth(in) : in->cq_mod, l = in->post_list;

	if (in->method != VB_METHOD_PERFTEST || l < 2)
		return 0;
	if (in->iters > 0 && in->iters % (uint64_t)l) {
		snprintf(why, len,
			 "perftest refuses -n %llu with --post-list %d: \"Number of iterations must be a multiple of post list size\" (perftest_parameters.c, force_dependecies): use -n %llu",
			 (unsigned long long)in->iters, l,
			 (unsigned long long)((in->iters / (uint64_t)l + 1) * (uint64_t)l));
		return -1;
	}
	if (c > 0 && l % c) {
		snprintf(why, len,
			 "perftest refuses --post-list %d with --cq-mod %d%s: \"Post list size must be a multiple of CQ moderation\" (perftest_parameters.c, force_dependecies): use a --cq-mod that divides %d, or leave it out (perftest then signals once a list)",
			 l, in->cq_mod, c < in->cq_mod ? " (capped at the tx depth)" : "", l);
		return -1;
	}
	return 0;
}

int vb_knobs_settle(const struct vb_knob_in *in, struct vb_knob_out *out)
{
	int w = in->window, l = in->post_list < 1 ? 1 : in->post_list, c;
	int pt = in->method == VB_METHOD_PERFTEST;
	size_t n = 0;
	char wb[160];

	memset(out, 0, sizeof(*out));
	out->tx_depth = pt ? pt_tx_depth(in) : in->tx_depth;
	if (l > w) {
		if (w >= in->tx_depth) {
			snprintf(out->why, sizeof(out->why),
				 "--post-list %d is longer than the window (-t %d): raise -t to %d or shorten the list",
				 l, in->tx_depth, l);
			return -1;
		}
		n += (size_t)snprintf(out->note, sizeof(out->note),
				      "post list %d shortened to %d, the window (%s); ", l, w,
				      window_what(in, wb, sizeof(wb)));
		l = w;
	}
	c = in->cq_mod > 0 ? in->cq_mod : vb_cq_mod_default(in, l);
	if (pt && in->cq_mod > 0 && c > out->tx_depth && out->tx_depth < w) {
		/* force_dependecies caps an asked one too, at the tx depth as cut to -n */
		n += (size_t)snprintf(out->note + n, sizeof(out->note) - n,
				      "CQ moderation %d capped at the tx depth, %d (-n %llu), as perftest does; ",
				      c, out->tx_depth, (unsigned long long)in->iters);
		c = out->tx_depth;
	}
	if (in->op == VB_READ && in->validate)
		c = 1; /* every read checked at its own completion (its length) */
	if (c > w) { /* perftest too caps it at the tx depth */
		if (in->cq_mod > 0 && n < sizeof(out->note))
			n += (size_t)snprintf(out->note + n, sizeof(out->note) - n,
					      "CQ moderation %d capped at the window, %d; ", c, w);
		c = w;
	}
	if (!vb_knobs_fit(l, c, w)) {
		int fit = fitting_cq_mod(l, c, w);

		if (in->cq_mod > 0) {
			snprintf(out->why, sizeof(out->why),
				 "--post-list %d with --cq-mod %d in a window of %s leaves no signalled request in flight once the window is full, and the test would wait for a completion that never comes (the rule: post list + cq-mod - gcd(post list, cq-mod) <= window): use --cq-mod %d (or one that divides the post list) or raise -t to %d",
				 l, in->cq_mod, window_what(in, wb, sizeof(wb)), fit ? fit : 1,
				 l + in->cq_mod - gcd(l, in->cq_mod));
			return -1;
		}
		if (n < sizeof(out->note))
			n += (size_t)snprintf(out->note + n, sizeof(out->note) - n,
					      "CQ moderation %d with post list %d would stall a window of %s: one signalled request in %d instead; ",
					      c, l, window_what(in, wb, sizeof(wb)), fit);
		c = fit;
	}
	if (n >= 2 && n < sizeof(out->note))
		out->note[n - 2] = '\0'; /* the last "; " */
	out->post_list = l;
	out->cq_mod = c;
	return n ? 1 : 0;
}

int vb_val_window(int tx_depth, uint64_t size, uint64_t max_size, int nqps)
{
	uint64_t stride, cyc_stride;
	uint32_t nslots, cyc_n, part;

	vb_slot_layout(max_size, &stride, &nslots);
	if (fc_cycle_layout(size, stride * nslots, &cyc_stride, &cyc_n))
		cyc_n = nslots;
	part = fc_vpart(cyc_n, nqps);
	if (!part)
		return 0;
	return (int)part < tx_depth ? (int)part : tx_depth;
}

double vb_pt_margin(double duration)
{
	/* perftest_parameters.c: margin = duration / 4 in int seconds, and
	 * the run needs duration > 2 * margin */
	double m = floor(duration / 4);

	return m > 0 && duration > 2 * m ? m : 0;
}

void vb_pt_window(double start, double duration, double *lo_p, double *hi_p)
{
	/* catch_alarm: START_STATE -> SAMPLE_STATE at the margin (tposted[0]),
	 * SAMPLE_STATE -> STOP_SAMPLE_STATE at duration - margin
	 * (tcompleted[0]); only what completes in between counts (iters), in
	 * every test type (run_iter_bw, run_iter_bi, run_iter_lat*). */
	double m = vb_pt_margin(duration);

	*lo_p = start + m;
	*hi_p = start + duration - m;
}
