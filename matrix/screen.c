/* The screening schedule: evidence per (node, rail) and its rounds (see screen.h). */
#include "matrix/screen.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/sched.h"
#include "core/util.h"

/* The expected count of healthy items named by noise alone stays under this. */
#define SCR_FALSE_NAMES 0.01
#define SCR_NOISE_FLOOR 0.01
#define SCR_K_MIN 2
#define SCR_K_MAX 8

static uint64_t rng_next(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static int rng_below(uint64_t *x, int n)
{
	return (int)(rng_next(x) % (uint64_t)n);
}

static void shuffle(int *v, int n, uint64_t *rng)
{
	for (int i = n - 1; i > 0; i--) {
		int j = rng_below(rng, i + 1), t = v[i];

		v[i] = v[j];
		v[j] = t;
	}
}

static int log2_ceil(int n)
{
	int k = 0;

	while ((1 << k) < n)
		k++;
	return k;
}

int fc_screen_init(struct fc_screen *s, int n, int rails, const struct fc_scr_opts *o)
{
	int full, *idx;

	memset(s, 0, sizeof(*s));
	if (n < 2 || n > FC_SCHED_MAX_NODES || rails < 1 || rails > FC_SCR_MAX_RAILS)
		return -EINVAL;
	if (o)
		s->o = *o;
	s->n = n;
	s->rails = rails;
	s->rng = s->o.seed ? s->o.seed : 1;
	full = fc_sched_rounds(n, 0);
	s->seed_rounds = s->o.seed_rounds > 0 ? s->o.seed_rounds : 3;
	/* Below the full matrix: with all its rounds the screen adds nothing. */
	if (s->seed_rounds > full - 1)
		s->seed_rounds = full > 1 ? full - 1 : 1;
	s->max_rounds = s->o.max_rounds > 0 ? s->o.max_rounds : log2_ceil(n) + 2;
	if (s->max_rounds < s->seed_rounds)
		s->max_rounds = s->seed_rounds;
	s->k_confirm = SCR_K_MIN;
	s->perm = malloc((size_t)n * sizeof(*s->perm));
	idx = malloc((size_t)full * sizeof(*idx));
	s->seed_idx = malloc((size_t)s->seed_rounds * sizeof(*s->seed_idx));
	s->met = malloc((size_t)n * (size_t)s->max_rounds * sizeof(*s->met));
	s->item = calloc((size_t)n * (size_t)rails, sizeof(*s->item));
	if (!s->perm || !idx || !s->seed_idx || !s->met || !s->item) {
		free(idx);
		fc_screen_release(s);
		return -ENOMEM;
	}
	for (int i = 0; i < n; i++)
		s->perm[i] = i;
	for (int i = 0; i < full; i++)
		idx[i] = i;
	shuffle(s->perm, n, &s->rng);
	shuffle(idx, full, &s->rng);
	memcpy(s->seed_idx, idx, (size_t)s->seed_rounds * sizeof(*idx));
	free(idx);
	for (size_t i = 0; i < (size_t)n * (size_t)s->max_rounds; i++)
		s->met[i] = -1;
	s->undecided = n * rails;
	return 0;
}

void fc_screen_release(struct fc_screen *s)
{
	free(s->perm);
	free(s->seed_idx);
	free(s->met);
	free(s->item);
	free(s->links);
	free(s->named_links);
	memset(s, 0, sizeof(*s));
}

/* Latest result of each (pair, rail): sort keys, keep the last of each. */
struct key {
	int lo, hi, rail;
	size_t at;
};

static int cmp_key(const void *x, const void *y)
{
	const struct key *a = x, *b = y;

	if (a->lo != b->lo)
		return a->lo - b->lo;
	if (a->hi != b->hi)
		return a->hi - b->hi;
	if (a->rail != b->rail)
		return a->rail - b->rail;
	return (a->at > b->at) - (a->at < b->at);
}

static struct fc_scr_item *item(struct fc_screen *s, int node, int rail)
{
	return &s->item[(size_t)node * (size_t)s->rails + (size_t)rail];
}

/* Passes, bad results and errors per item from the latest results. */
static void count(struct fc_screen *s, const struct fc_scr_res *res, const struct key *k,
		  size_t nk)
{
	memset(s->item, 0, (size_t)s->n * (size_t)s->rails * sizeof(*s->item));
	for (size_t i = 0; i < nk; i++) {
		const struct fc_scr_res *r = &res[k[i].at];
		struct fc_scr_item *x = item(s, r->a, r->rail), *y = item(s, r->b, r->rail);

		if (r->bad < 0) {
			x->errors++;
			y->errors++;
		} else if (r->bad) {
			x->bads++;
			y->bads++;
		} else {
			x->passes++;
			y->passes++;
		}
	}
}

static int cand_good(const struct fc_scr_item *x)
{
	return x->passes >= 1 && x->passes >= x->bads;
}

/* Direct evidence against each side, and the noise q between candidates. */
static void direct(struct fc_screen *s, const struct fc_scr_res *res, const struct key *k,
		   size_t nk)
{
	size_t both = 0, both_bad = 0;
	double items = (double)s->n * s->rails, q, kk;

	for (size_t i = 0; i < nk; i++) {
		const struct fc_scr_res *r = &res[k[i].at];
		struct fc_scr_item *x = item(s, r->a, r->rail), *y = item(s, r->b, r->rail);
		int gx = cand_good(x), gy = cand_good(y);

		if (r->bad < 0)
			continue;
		if (gx && gy) {
			both++;
			both_bad += r->bad > 0;
		}
		if (r->bad > 0) {
			x->direct += gy;
			y->direct += gx;
		}
	}
	if (s->round > s->seed_rounds)
		return; /* q and K as the seed rounds measured them */
	q = both ? (double)both_bad / (double)both : 0;
	s->noise = q;
	if (q < SCR_NOISE_FLOOR)
		q = SCR_NOISE_FLOOR;
	kk = q < 1 ? ceil(log(SCR_FALSE_NAMES / items) / log(q)) : SCR_K_MAX;
	s->k_confirm = kk < SCR_K_MIN ? SCR_K_MIN : kk > SCR_K_MAX ? SCR_K_MAX : (int)kk;
}

static enum fc_scr_state judge(const struct fc_screen *s, const struct fc_scr_item *x)
{
	if (x->passes >= 1 && x->passes > x->direct)
		return FC_SCR_GOOD;
	if (x->direct >= s->k_confirm + 2 * x->passes)
		return FC_SCR_BAD;
	if (!x->passes && !x->bads && x->errors >= 2)
		return FC_SCR_UNREACHABLE;
	return x->bads || x->errors ? FC_SCR_SUSPECT : FC_SCR_UNKNOWN;
}

/* Bad results of the same key in a row, newest first. */
static int bad_streak(const struct fc_scr_res *res, const struct key *k, size_t last)
{
	int streak = 0;

	for (size_t i = last + 1; i-- > 0;) {
		if (k[i].lo != k[last].lo || k[i].hi != k[last].hi || k[i].rail != k[last].rail ||
		    res[k[i].at].bad <= 0)
			break;
		streak++;
	}
	return streak;
}

static int add_link(struct fc_screen *s, int a, int b, int rail)
{
	/* Keys are sorted: the same pair on another rail is the last one. */
	if (s->nlinks && s->links[s->nlinks - 1].a == a && s->links[s->nlinks - 1].b == b) {
		s->links[s->nlinks - 1].rails |= 1u << rail;
		return 0;
	}
	if (fc_grow((void **)&s->links, &s->links_cap, s->nlinks, sizeof(*s->links)))
		return -ENOMEM;
	s->links[s->nlinks++] = (struct fc_scr_pair){ .a = a, .b = b, .rails = 1u << rail };
	return 0;
}

static int name_link(struct fc_screen *s, const struct fc_scr_res *r)
{
	if (fc_grow((void **)&s->named_links, &s->links_named_cap, s->links_named,
		 sizeof(*s->named_links)))
		return -ENOMEM;
	s->named_links[s->links_named++] = *r;
	return 0;
}

/* A bad latest result between two cleared items: retest, or name it. */
static int links(struct fc_screen *s, const struct fc_scr_res *res, const struct key *k,
		 size_t nall)
{
	s->nlinks = s->links_named = 0;
	for (size_t i = 0; i < nall; i++) {
		const struct fc_scr_res *r = &res[k[i].at];

		if (i + 1 < nall && k[i + 1].lo == k[i].lo && k[i + 1].hi == k[i].hi &&
		    k[i + 1].rail == k[i].rail)
			continue; /* not the latest */
		if (r->bad <= 0 || item(s, r->a, r->rail)->state != FC_SCR_GOOD ||
		    item(s, r->b, r->rail)->state != FC_SCR_GOOD)
			continue;
		if (bad_streak(res, k, i) >= s->k_confirm) {
			if (name_link(s, r))
				return -ENOMEM;
		} else if (add_link(s, r->a, r->b, r->rail))
			return -ENOMEM;
	}
	return 0;
}

int fc_screen_update(struct fc_screen *s, const struct fc_scr_res *res, size_t nres)
{
	struct key *k = malloc((nres + 1) * sizeof(*k));
	size_t nk = 0, i;
	int rc;

	if (!k)
		return -ENOMEM;
	for (i = 0; i < nres; i++) {
		const struct fc_scr_res *r = &res[i];

		if (r->a < 0 || r->b < 0 || r->a >= s->n || r->b >= s->n || r->a == r->b ||
		    r->rail < 0 || r->rail >= s->rails) {
			free(k);
			return -EINVAL;
		}
		k[i] = (struct key){ .lo = r->a < r->b ? r->a : r->b,
				     .hi = r->a < r->b ? r->b : r->a, .rail = r->rail, .at = i };
	}
	qsort(k, nres, sizeof(*k), cmp_key);
	/* The latest of each key, in a second array after the sorted one's use. */
	struct key *last = malloc((nres + 1) * sizeof(*last));

	if (!last) {
		free(k);
		return -ENOMEM;
	}
	for (i = 0; i < nres; i++)
		if (i + 1 == nres || k[i + 1].lo != k[i].lo || k[i + 1].hi != k[i].hi ||
		    k[i + 1].rail != k[i].rail)
			last[nk++] = k[i];
	count(s, res, last, nk);
	direct(s, res, last, nk);
	s->named = s->cleared = s->undecided = s->unreachable = 0;
	for (i = 0; i < (size_t)s->n * (size_t)s->rails; i++) {
		struct fc_scr_item *x = &s->item[i];

		x->state = (unsigned char)judge(s, x);
		s->named += x->state == FC_SCR_BAD;
		s->cleared += x->state == FC_SCR_GOOD;
		s->unreachable += x->state == FC_SCR_UNREACHABLE;
		s->undecided += x->state == FC_SCR_SUSPECT || x->state == FC_SCR_UNKNOWN;
	}
	/* Suspect links are retested where nodes are free but do not hold the
	 * screen: a link is named after K bad tries in a row only. */
	rc = links(s, res, k, nres);
	free(last);
	free(k);
	return rc;
}

int fc_screen_holds(const struct fc_screen *s, const struct fc_scr_culprit *c)
{
	int bad = 0;

	switch (c->level) {
	case FC_SCR_LVL_PORT:
		return c->node >= 0 && c->node < s->n && c->rail >= 0 && c->rail < s->rails &&
		       fc_screen_item(s, c->node, c->rail)->state == FC_SCR_BAD;
	case FC_SCR_LVL_NODE:
		if (c->node < 0 || c->node >= s->n)
			return 0;
		for (int r = 0; r < s->rails; r++)
			bad += fc_screen_item(s, c->node, r)->state == FC_SCR_BAD;
		return 2 * bad > s->rails;
	case FC_SCR_LVL_LINK:
		for (int i = 0; i < s->links_named; i++) {
			const struct fc_scr_res *l = &s->named_links[i];

			if (l->rail == c->rail && ((l->a == c->a && l->b == c->b) ||
						   (l->a == c->b && l->b == c->a)))
				return 1;
		}
		return 0;
	default:
		return 1;
	}
}
