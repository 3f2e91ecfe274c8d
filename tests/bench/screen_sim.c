/* A synthetic rack run through the real screen and analysis (see screen_sim.h). */
#include "tests/bench/screen_sim.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "matrix/mxan.h"
#include "matrix/screen.h"

#define NOMINAL_GBPS 370.0

struct rack {
	const struct sim_cfg *c;
	double *port;		/* n * rails: factor of a hard fault, 1 healthy */
	unsigned char *flaky;	/* n * rails */
	unsigned char *host;	/* n: every rail slow */
	uint64_t rng;
};

static uint64_t next(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static double uni(uint64_t *x)
{
	return (double)(next(x) >> 11) / 9007199254740992.0;
}

static double gauss(uint64_t *x)
{
	double u = uni(x) + 1e-12, v = uni(x);

	return sqrt(-2 * log(u)) * cos(2 * M_PI * v);
}

/* @count distinct healthy items of @v (n * rails) set by @mark. */
static void pick(struct rack *k, int count, int what)
{
	int items = k->c->n * k->c->rails;

	for (int placed = 0, tries = 0; placed < count && tries < 100 * items; tries++) {
		int i = (int)(next(&k->rng) % (uint64_t)items);

		if (k->port[i] < 1 || k->flaky[i] || k->host[i / k->c->rails])
			continue;
		if (what)
			k->flaky[i] = 1;
		else
			k->port[i] = 0.25 + 0.5 * uni(&k->rng);
		placed++;
	}
}

static int rack_init(struct rack *k, const struct sim_cfg *c)
{
	size_t items = (size_t)c->n * (size_t)c->rails;

	memset(k, 0, sizeof(*k));
	k->c = c;
	k->rng = c->seed ? c->seed : 1;
	k->port = malloc(items * sizeof(*k->port));
	k->flaky = calloc(items, 1);
	k->host = calloc((size_t)c->n, 1);
	if (!k->port || !k->flaky || !k->host)
		return -ENOMEM;
	for (size_t i = 0; i < items; i++)
		k->port[i] = 1;
	for (int h = 0; h < c->bad_hosts && h < c->n; h++)
		k->host[(next(&k->rng) % (uint64_t)c->n)] = 1;
	pick(k, (int)lround(c->bad_ports * (double)items), 0);
	pick(k, (int)lround(c->flaky * (double)items), 1);
	return 0;
}

static void rack_release(struct rack *k)
{
	free(k->port);
	free(k->flaky);
	free(k->host);
}

/* The factor of one end of a pair on @rail in this test. */
static double end_factor(struct rack *k, int node, int rail)
{
	size_t i = (size_t)node * (size_t)k->c->rails + (size_t)rail;
	double f = k->port[i];

	if (k->host[node])
		f = fmin(f, 0.6);
	if (k->flaky[i] && uni(&k->rng) < k->c->flaky_p)
		f = fmin(f, 0.5);
	return f;
}

static int truth_of(const struct rack *k, int node, int rail)
{
	return k->host[node] || k->port[(size_t)node * (size_t)k->c->rails + (size_t)rail] < 1;
}

static struct fc_scr_meas measure(struct rack *k, int a, int b, int rail)
{
	double f = fmin(end_factor(k, a, rail), end_factor(k, b, rail));
	double v = NOMINAL_GBPS * (1 + k->c->jitter * gauss(&k->rng));

	if (rail == k->c->bad_rail)
		v *= 0.7;
	if (f >= 1 && uni(&k->rng) < k->c->noise)
		f = 0.3 + 0.55 * uni(&k->rng); /* a dip on a healthy pair */
	return (struct fc_scr_meas){ .a = a, .b = b, .rail = rail, .gbps = v * f, .lat_us = NAN,
				     .state = FC_MX_OK };
}


/* Scores the analysis's culprits against what was injected. */
static void score(const struct rack *k, const struct fc_screen *s,
		  const struct fc_scr_culprit *cul, int ncul, struct sim_out *o)
{
	const struct sim_cfg *c = k->c;
	size_t items = (size_t)c->n * (size_t)c->rails;
	unsigned char *named = calloc(items, 1);

	if (!named)
		return;
	for (int i = 0; i < ncul; i++) {
		/* What matrix --screen reports: the culprits its evidence holds
		 * (mx_screen_hold); the rest are a warning "in doubt". */
		if (!fc_screen_holds(s, &cul[i])) {
			o->in_doubt++;
			continue;
		}
		if (cul[i].level == FC_SCR_LVL_PORT)
			named[(size_t)cul[i].node * (size_t)c->rails + (size_t)cul[i].rail] = 1;
		else if (cul[i].level == FC_SCR_LVL_NODE)
			for (int r = 0; r < c->rails; r++)
				named[(size_t)cul[i].node * (size_t)c->rails + (size_t)r] = 1;
		o->hosts_named += cul[i].level == FC_SCR_LVL_NODE && k->host[cul[i].node];
		o->rail_named += cul[i].level == FC_SCR_LVL_RAIL && cul[i].rail == c->bad_rail;
		o->links_named += cul[i].level == FC_SCR_LVL_LINK;
	}
	for (size_t i = 0; i < items; i++) {
		int t = truth_of(k, (int)(i / (size_t)c->rails), (int)(i % (size_t)c->rails));

		o->truth += t;
		o->tp += t && named[i];
		o->fn += t && !named[i];
		o->fp += !t && named[i] && !k->flaky[i];
		o->flaky += k->flaky[i];
		o->flaky_named += k->flaky[i] && named[i];
	}
	o->precision = o->tp + o->fp ? (double)o->tp / (o->tp + o->fp) : 1;
	o->recall = o->truth ? (double)o->tp / o->truth : 1;
	free(named);
}

struct meas_buf {
	struct fc_scr_meas *m;
	struct fc_scr_res *res;
	size_t n, cap;
};

static int grow(struct meas_buf *b, size_t more)
{
	if (b->n + more > b->cap) {
		size_t cap = (b->n + more) * 2;
		struct fc_scr_meas *m = realloc(b->m, cap * sizeof(*m));
		struct fc_scr_res *r;

		if (!m)
			return -ENOMEM;
		b->m = m;
		r = realloc(b->res, cap * sizeof(*r));
		if (!r)
			return -ENOMEM;
		b->res = r;
		b->cap = cap;
	}
	return 0;
}

static int screen_loop(struct rack *k, struct fc_screen *s, struct meas_buf *b,
		       struct sim_out *o)
{
	const struct sim_cfg *c = k->c;
	struct fc_scr_pair *p = malloc(((size_t)c->n / 2 + 1) * sizeof(*p));
	int cnt, rc = 0;

	if (!p)
		return -ENOMEM;
	while (!rc && (cnt = fc_screen_next(s, p)) > 0) {
		rc = grow(b, (size_t)cnt * (size_t)c->rails);
		for (int i = 0; i < cnt && !rc; i++)
			for (int r = 0; r < c->rails; r++)
				if (p[i].rails & (1u << r))
					b->m[b->n++] = measure(k, p[i].a, p[i].b, r);
		o->pairs += cnt;
		if (!rc)
			rc = fc_scr_analyze(c->n, c->rails, b->m, b->n, NULL, b->res, NULL, NULL);
		if (!rc)
			rc = fc_screen_update(s, b->res, b->n);
		if (c->verbose && !rc)
			fprintf(stderr, "round %d: %d pairs; named %d cleared %d in doubt %d "
				"(links %d) noise %.3f K %d\n", s->round, cnt, s->named,
				s->cleared, s->undecided, s->nlinks, s->noise, s->k_confirm);
	}
	free(p);
	return rc ? rc : cnt < 0 ? cnt : 0;
}

int sim_run(const struct sim_cfg *c, struct sim_out *o)
{
	struct fc_scr_opts so = { .max_rounds = c->max_rounds, .seed = c->seed * 7919 + 13 };
	struct meas_buf b = { 0 };
	struct fc_scr_culprit *cul = NULL;
	struct fc_screen s;
	struct rack k;
	int rc, ncul = 0;

	memset(o, 0, sizeof(*o));
	rc = rack_init(&k, c);
	if (!rc)
		rc = fc_screen_init(&s, c->n, c->rails, &so);
	if (rc) {
		rack_release(&k);
		return rc;
	}
	rc = screen_loop(&k, &s, &b, o);
	if (!rc)
		rc = fc_scr_analyze(c->n, c->rails, b.m, b.n, NULL, b.res, &cul, &ncul);
	if (!rc) {
		score(&k, &s, cul, ncul, o);
		o->rounds = s.round;
		o->max_rounds = s.max_rounds;
		o->stop = s.stop;
		o->wall_s = s.round * c->round_s;
		fc_screen_stop_text(&s, o->why, sizeof(o->why));
	}
	free(cul);
	free(b.m);
	free(b.res);
	fc_screen_release(&s);
	rack_release(&k);
	return rc;
}
