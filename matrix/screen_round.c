/* The screening schedule's rounds: seed matchings, then adaptive retests (see screen.h). */
#include "matrix/screen.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/sched.h"
#include "core/util.h"

static int met_before(const struct fc_screen *s, int u, int v)
{
	for (int r = 0; r < s->round; r++)
		if (s->met[(size_t)u * (size_t)s->max_rounds + (size_t)r] == v)
			return 1;
	return 0;
}

void fc_screen_met(struct fc_screen *s, int a, int b, int round)
{
	if (a < 0 || b < 0 || a >= s->n || b >= s->n || a == b || round < 0 ||
	    round >= s->max_rounds)
		return;
	s->met[(size_t)a * (size_t)s->max_rounds + (size_t)round] = b;
	s->met[(size_t)b * (size_t)s->max_rounds + (size_t)round] = a;
}

static void meet(struct fc_screen *s, struct fc_scr_pair *out, int *cnt, int a, int b,
		 unsigned rails, unsigned char *busy)
{
	out[(*cnt)++] = (struct fc_scr_pair){ .a = a, .b = b, .rails = rails };
	busy[a] = busy[b] = 1;
	fc_screen_met(s, a, b, s->round);
}

static unsigned all_rails(const struct fc_screen *s)
{
	return s->rails >= 32 ? ~0u : (1u << s->rails) - 1;
}

static int seed_round(struct fc_screen *s, struct fc_scr_pair *out, unsigned char *busy)
{
	struct fc_pair_idx *p = malloc(((size_t)s->n / 2 + 1) * sizeof(*p));
	int cnt = 0, k;

	if (!p)
		return -ENOMEM;
	k = fc_sched_round(s->n, 0, s->seed_idx[s->round], p);
	for (int i = 0; i < k; i++)
		meet(s, out, &cnt, s->perm[p[i].a], s->perm[p[i].b], all_rails(s), busy);
	free(p);
	return cnt;
}

static int in_doubt(const struct fc_scr_item *x)
{
	return x->state == FC_SCR_SUSPECT || x->state == FC_SCR_UNKNOWN;
}

/* Rails of @u in doubt on which @v is cleared; *want_p: rails in doubt. */
static int coverage(const struct fc_screen *s, int u, int v, int *want_p)
{
	int want = 0, got = 0;

	for (int r = 0; r < s->rails; r++) {
		if (!in_doubt(fc_screen_item(s, u, r)))
			continue;
		want++;
		got += fc_screen_item(s, v, r)->state == FC_SCR_GOOD;
	}
	*want_p = want;
	return got;
}

/* The best free partner of @u: cleared on all of u's rails in doubt and
 * new to u if one exists, else the one that covers most; -1 when none
 * covers any. The scan starts at a random node so that partners spread. */
static int partner(struct fc_screen *s, int u, const unsigned char *busy)
{
	int best = -1, best_score = 0, start = (int)(s->rng % (uint64_t)s->n);

	s->rng = s->rng * 6364136223846793005ull + 1442695040888963407ull;
	for (int i = 0; i < s->n; i++) {
		int v = (start + i) % s->n, want, got, score;

		if (v == u || busy[v])
			continue;
		got = coverage(s, u, v, &want);
		if (!got)
			continue;
		score = got * 2 + !met_before(s, u, v);
		if (got == want && !met_before(s, u, v))
			return v;
		if (score > best_score) {
			best = v;
			best_score = score;
		}
	}
	return best;
}

/* Rails where one side is in doubt and the other cleared: what the
 * retest is for. */
static unsigned retest_rails(const struct fc_screen *s, int u, int v)
{
	unsigned m = 0;

	for (int r = 0; r < s->rails; r++) {
		const struct fc_scr_item *x = fc_screen_item(s, u, r), *y = fc_screen_item(s, v, r);

		if ((in_doubt(x) && y->state == FC_SCR_GOOD) ||
		    (in_doubt(y) && x->state == FC_SCR_GOOD))
			m |= 1u << r;
	}
	return m;
}

static int doubt_count(const struct fc_screen *s, int u)
{
	int c = 0;

	for (int r = 0; r < s->rails; r++)
		c += in_doubt(fc_screen_item(s, u, r));
	return c;
}

static int adaptive_round(struct fc_screen *s, struct fc_scr_pair *out, unsigned char *busy)
{
	int cnt = 0, nu = 0, *u = malloc((size_t)s->n * sizeof(*u));

	if (!u)
		return -ENOMEM;
	/* Nodes with the most rails in doubt first. */
	for (int d = s->rails; d > 0; d--)
		for (int i = 0; i < s->n; i++)
			if (doubt_count(s, i) == d)
				u[nu++] = i;
	for (int i = 0; i < nu; i++) {
		int v;

		if (busy[u[i]])
			continue;
		v = partner(s, u[i], busy);
		if (v >= 0)
			meet(s, out, &cnt, u[i], v, retest_rails(s, u[i], v), busy);
	}
	/* Then suspect links, where both nodes are free: the same pair again,
	 * on the link's rails. */
	for (int i = 0; i < s->nlinks; i++)
		if (!busy[s->links[i].a] && !busy[s->links[i].b])
			meet(s, out, &cnt, s->links[i].a, s->links[i].b, s->links[i].rails,
			     busy);
	free(u);
	return cnt;
}

int fc_screen_next(struct fc_screen *s, struct fc_scr_pair *out)
{
	unsigned char *busy;
	int cnt;

	if (s->stop)
		return 0;
	if (!s->undecided) {
		s->stop = FC_SCR_STOP_DONE;
		return 0;
	}
	if (s->round >= s->max_rounds) {
		s->stop = FC_SCR_STOP_LIMIT;
		return 0;
	}
	busy = calloc((size_t)s->n, 1);
	if (!busy)
		return -ENOMEM;
	cnt = s->round < s->seed_rounds ? seed_round(s, out, busy) : adaptive_round(s, out, busy);
	free(busy);
	if (cnt == 0)
		s->stop = FC_SCR_STOP_STUCK;
	if (cnt > 0)
		s->round++;
	return cnt;
}

const char *fc_screen_state_name(enum fc_scr_state st)
{
	static const char *const names[] = {
		[FC_SCR_UNKNOWN] = "untested", [FC_SCR_SUSPECT] = "suspect",
		[FC_SCR_GOOD] = "cleared",     [FC_SCR_BAD] = "bad",
		[FC_SCR_UNREACHABLE] = "unreachable",
	};

	return (unsigned)st < sizeof(names) / sizeof(names[0]) ? names[st] : "?";
}

void fc_screen_small_text(const struct fc_screen *s, char *buf, size_t len)
{
	if (len)
		buf[0] = 0;
	if (s->k_confirm > s->n - 1)
		snprintf(buf, len, "; no (node, rail) can be named on %d nodes: %.0f%% of the seed "
			 "rounds' results between cleared ports were bad, so naming one asks for %d "
			 "bad results against cleared peers and each node has %d peers (run --full)",
			 s->n, 100 * s->noise, s->k_confirm, s->n - 1);
}

void fc_screen_stop_text(const struct fc_screen *s, char *buf, size_t len)
{
	char small[FC_SCREEN_SMALL_LEN];
	size_t at;

	switch (s->stop) {
	case FC_SCR_STOP_DONE:
		snprintf(buf, len, "every (node, rail) named or cleared in %d round%s: %d named, "
			 "%d cleared, %d unreachable, %d link%s named", s->round, fc_s(s->round),
			 s->named, s->cleared, s->unreachable, s->links_named, fc_s(s->links_named));
		break;
	case FC_SCR_STOP_LIMIT:
		snprintf(buf, len, "round limit %d reached with %d (node, rail) or link%s still "
			 "in doubt (raise --max-rounds, or run --full)", s->max_rounds,
			 s->undecided, fc_s(s->undecided));
		break;
	case FC_SCR_STOP_STUCK:
		snprintf(buf, len, "%d (node, rail) or link%s in doubt after %d round%s and no "
			 "cleared peer on their rails to test them with (run --full)",
			 s->undecided, fc_s(s->undecided), s->round, fc_s(s->round));
		break;
	default:
		snprintf(buf, len, "screening: round %d of at most %d, %d in doubt", s->round,
			 s->max_rounds, s->undecided);
	}
	at = strnlen(buf, len);
	if (s->stop == FC_SCR_STOP_DONE || at >= len)
		return;
	fc_screen_small_text(s, small, sizeof(small));
	snprintf(buf + at, len - at, "%s", small);
}
