/* The screening schedule (matrix/screen.h) and the simulated racks it is proven on. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "matrix/mxan.h"
#include "matrix/screen.h"
/* The simulator lives with the benchmarks, outside the program. */
#include "tests/bench/screen_sim.c"

/* Seed rounds: perfect matchings, no pair twice, every node a new peer. */
static void test_seed_rounds_distinct(void **state)
{
	struct fc_scr_opts o = { .seed_rounds = 5, .seed = 42 };
	struct fc_scr_pair p[8];
	unsigned char met[16][16] = { { 0 } };
	struct fc_screen s;

	(void)state;
	assert_int_equal(fc_screen_init(&s, 16, 2, &o), 0);
	assert_int_equal(s.max_rounds, 6); /* log2(16) + 2 */
	for (int r = 0; r < 5; r++) {
		int seen[16] = { 0 };

		assert_int_equal(fc_screen_next(&s, p), 8);
		for (int i = 0; i < 8; i++) {
			assert_int_not_equal(p[i].a, p[i].b);
			assert_false(met[p[i].a][p[i].b]);
			met[p[i].a][p[i].b] = met[p[i].b][p[i].a] = 1;
			seen[p[i].a]++;
			seen[p[i].b]++;
			assert_int_equal(p[i].rails, 3u);
		}
		for (int i = 0; i < 16; i++)
			assert_int_equal(seen[i], 1);
	}
	fc_screen_release(&s);
}

static struct fc_scr_res res(int a, int b, int rail, int bad)
{
	return (struct fc_scr_res){ .a = a, .b = b, .rail = rail, .bad = bad };
}

/* Four nodes, one bad port (node 2): two seed rounds name it and clear the
 * rest; no third round. */
static void test_four_nodes_one_port(void **state)
{
	struct fc_scr_res r[8];
	struct fc_scr_pair p[2];
	struct fc_screen s;
	size_t n = 0;
	char why[256];

	(void)state;
	assert_int_equal(fc_screen_init(&s, 4, 1, NULL), 0);
	assert_int_equal(s.seed_rounds, 2); /* below the full matrix's 3 */
	for (int round = 0; round < 2; round++) {
		int cnt = fc_screen_next(&s, p);

		assert_int_equal(cnt, 2);
		for (int i = 0; i < cnt; i++)
			r[n++] = res(p[i].a, p[i].b, 0, p[i].a == 2 || p[i].b == 2);
		assert_int_equal(fc_screen_update(&s, r, n), 0);
	}
	assert_int_equal(fc_screen_item(&s, 2, 0)->state, FC_SCR_BAD);
	for (int i = 0; i < 4; i++)
		if (i != 2)
			assert_int_equal(fc_screen_item(&s, i, 0)->state, FC_SCR_GOOD);
	assert_int_equal(fc_screen_next(&s, p), 0);
	assert_int_equal(s.stop, FC_SCR_STOP_DONE);
	fc_screen_stop_text(&s, why, sizeof(why));
	assert_non_null(strstr(why, "named or cleared in 2 rounds: 1 named, 3 cleared, 0 unreachable"));
	fc_screen_release(&s);
}

/* Four nodes, two rails, node 2's rail 1 bad with every peer, and one
 * healthy pair's rail 0 bad once in the seed (the rack's spread): the
 * noise asks for more bad results than a node has peers, so the port is
 * left in doubt, and the stop text says why and what to run instead. */
static void test_four_nodes_noisy_seed(void **state)
{
	struct fc_scr_res r[32];
	struct fc_scr_pair p[2];
	struct fc_screen s;
	size_t n = 0;
	int cnt, noisy = 0;
	char why[512], small[224];

	(void)state;
	assert_int_equal(fc_screen_init(&s, 4, 2, NULL), 0);
	while ((cnt = fc_screen_next(&s, p)) > 0) {
		for (int i = 0; i < cnt; i++)
			for (int rail = 0; rail < 2; rail++) {
				int bad = rail == 1 && (p[i].a == 2 || p[i].b == 2);

				if (rail == 0 && !noisy && p[i].a != 2 && p[i].b != 2)
					bad = noisy = 1;
				r[n++] = res(p[i].a, p[i].b, rail, bad);
			}
		assert_int_equal(fc_screen_update(&s, r, n), 0);
	}
	assert_true(s.k_confirm > 3);
	assert_int_not_equal(fc_screen_item(&s, 2, 1)->state, FC_SCR_BAD);
	assert_int_not_equal(s.stop, FC_SCR_STOP_DONE);
	fc_screen_stop_text(&s, why, sizeof(why));
	assert_non_null(strstr(why, "; no (node, rail) can be named on 4 nodes: 17% of the seed "
				    "rounds' results between cleared ports were bad, so naming "
				    "one asks for 4 bad results against cleared peers and each "
				    "node has 3 peers (run --full)"));
	fc_screen_release(&s);
	/* Without the noise the clause is not there. */
	assert_int_equal(fc_screen_init(&s, 4, 2, NULL), 0);
	fc_screen_small_text(&s, small, sizeof(small));
	assert_string_equal(small, "");
	fc_screen_release(&s);
}

/* A node whose pairs only error is unreachable, not bad; bad input refused. */
static void test_errors_and_input(void **state)
{
	struct fc_scr_res r[] = { res(0, 1, 0, -1), res(0, 2, 0, -1), res(1, 2, 0, 0),
				  res(3, 1, 0, 0) };
	struct fc_scr_res wrong = res(0, 9, 0, 0), self = res(1, 1, 0, 0), rail = res(0, 1, 2, 0);
	struct fc_screen s;

	(void)state;
	assert_int_equal(fc_screen_init(&s, 4, 2, NULL), 0);
	assert_int_equal(fc_screen_update(&s, r, 4), 0);
	assert_int_equal(fc_screen_item(&s, 0, 0)->state, FC_SCR_UNREACHABLE);
	assert_int_equal(fc_screen_item(&s, 1, 0)->state, FC_SCR_GOOD);
	assert_int_equal(fc_screen_item(&s, 0, 1)->state, FC_SCR_UNKNOWN);
	assert_int_equal(fc_screen_update(&s, &wrong, 1), -EINVAL);
	assert_int_equal(fc_screen_update(&s, &self, 1), -EINVAL);
	assert_int_equal(fc_screen_update(&s, &rail, 1), -EINVAL);
	fc_screen_release(&s);
	assert_int_equal(fc_screen_init(&s, 1, 1, NULL), -EINVAL);
	assert_int_equal(fc_screen_init(&s, 8, FC_SCR_MAX_RAILS + 1, NULL), -EINVAL);
}

/* A later result of the same pair and rail replaces the earlier: a dip
 * between two cleared ports is a suspect link, retested on its rail only,
 * and gone once the retest passes. */
static void test_link_retest(void **state)
{
	struct fc_scr_opts o = { .seed_rounds = 1 };
	struct fc_scr_res r[32];
	struct fc_scr_pair p[3];
	struct fc_screen s;
	size_t n = 0;
	int pairs[][2] = { { 0, 1 }, { 2, 3 }, { 0, 2 }, { 1, 3 }, { 0, 3 } }, cnt, found = 0;

	(void)state;
	assert_int_equal(fc_screen_init(&s, 4, 2, &o), 0);
	assert_int_equal(fc_screen_next(&s, p), 2); /* the seed round */
	for (int i = 0; i < 5; i++)
		for (int rail = 0; rail < 2; rail++)
			r[n++] = res(pairs[i][0], pairs[i][1], rail, i == 4 && rail == 1);
	assert_int_equal(fc_screen_update(&s, r, n), 0);
	/* 0 and 3 pass twice on rail 1 and dipped once with each other. */
	assert_int_equal(fc_screen_item(&s, 0, 1)->state, FC_SCR_GOOD);
	assert_int_equal(fc_screen_item(&s, 3, 1)->state, FC_SCR_GOOD);
	assert_int_equal(s.nlinks, 1);
	assert_int_equal(s.links[0].a, 0);
	assert_int_equal(s.links[0].b, 3);
	assert_int_equal(s.undecided, 0); /* a link does not hold the screen... */
	cnt = fc_screen_next(&s, p);
	assert_int_equal(s.stop, FC_SCR_STOP_DONE);
	assert_int_equal(cnt, 0);
	fc_screen_release(&s);

	/* ...but is retested, on its rail, while items are still in doubt. */
	assert_int_equal(fc_screen_init(&s, 6, 2, &o), 0);
	assert_int_equal(fc_screen_next(&s, p), 3);
	r[n++] = res(4, 5, 0, 1); /* 4 and 5 in doubt on rail 0 */
	assert_int_equal(fc_screen_update(&s, r, n), 0);
	assert_int_equal(s.nlinks, 1);
	/* Retests of 4 and 5 come first, then the link if 0 and 3 are free;
	 * 4 stays bad, so rounds go on until it is named. */
	while ((cnt = fc_screen_next(&s, p)) > 0) {
		for (int i = 0; i < cnt; i++) {
			int link = p[i].a == 0 && p[i].b == 3, four = p[i].a == 4 || p[i].b == 4;

			assert_int_equal(p[i].rails, link ? 2u : p[i].rails & 3u);
			assert_true(p[i].rails != 0);
			found |= link;
			for (int rail = 0; rail < 2; rail++)
				if (p[i].rails & (1u << rail) && n < 32)
					r[n++] = res(p[i].a, p[i].b, rail, four && rail == 0);
		}
		assert_int_equal(fc_screen_update(&s, r, n), 0);
	}
	assert_int_equal(s.stop, FC_SCR_STOP_DONE);
	assert_int_equal(fc_screen_item(&s, 4, 0)->state, FC_SCR_BAD);
	assert_int_equal(fc_screen_item(&s, 5, 0)->state, FC_SCR_GOOD);
	/* Retested (and passed), or left in doubt when nothing else was. */
	assert_int_equal(s.nlinks, found ? 0 : 1);
	fc_screen_release(&s);
}

/* A link bad K tries in a row is named, and the screen holds it. */
/* Plans the first adaptive round of a 16-node, 1-rail screen with nodes
 * 3, 5 and 11 bad, after two seed rounds; @resume: as a resumed screen
 * does, a fresh screen given the seed rounds' results and, with @met, who
 * met whom. Returns the pair count; the pairs in @out. */
static int plan_after_seeds(uint64_t seed, int resume, int met, struct fc_scr_pair *out)
{
	struct fc_scr_opts o = { .seed_rounds = 2, .seed = seed };
	struct fc_scr_res r[16];
	struct fc_scr_pair p[8], seen[16];
	struct fc_screen s, t;
	size_t n = 0;
	int cnt;

	assert_int_equal(fc_screen_init(&s, 16, 1, &o), 0);
	for (int round = 0; round < 2; round++) {
		assert_int_equal(fc_screen_next(&s, p), 8);
		for (int i = 0; i < 8; i++) {
			int bad = p[i].a == 3 || p[i].b == 3 || p[i].a == 5 || p[i].b == 5 ||
				  p[i].a == 11 || p[i].b == 11;

			seen[n] = p[i];
			r[n++] = res(p[i].a, p[i].b, 0, bad);
		}
		assert_int_equal(fc_screen_update(&s, r, n), 0);
	}
	if (!resume) {
		cnt = fc_screen_next(&s, out);
		fc_screen_release(&s);
		return cnt;
	}
	fc_screen_release(&s);
	assert_int_equal(fc_screen_init(&t, 16, 1, &o), 0);
	for (size_t i = 0; met && i < n; i++)
		fc_screen_met(&t, seen[i].a, seen[i].b, (int)(i / 8));
	t.round = 2;
	assert_int_equal(fc_screen_update(&t, r, n), 0);
	cnt = fc_screen_next(&t, out);
	fc_screen_release(&t);
	return cnt;
}

/* A resumed screen plans as the one that ran on: it remembers who met
 * whom. Without that memory some seeds retest against a peer met before. */
static void test_resume_remembers_peers(void **state)
{
	int differ = 0, planned = 0;

	(void)state;
	for (uint64_t seed = 1; seed <= 40; seed++) {
		struct fc_scr_pair a[8], b[8], c[8];
		int na = plan_after_seeds(seed, 0, 0, a), nb = plan_after_seeds(seed, 1, 1, b);
		int nc = plan_after_seeds(seed, 1, 0, c);

		planned += na > 0; /* 0: every bad node named in the seed rounds */
		assert_int_equal(na, nb);
		assert_memory_equal(a, b, sizeof(a[0]) * (size_t)na);
		differ += nc != na || memcmp(a, c, sizeof(a[0]) * (size_t)na);
	}
	assert_true(planned >= 20);
	assert_true(differ > 0);
}

/* Stored rows that name no node of the run, or a round past the limit,
 * are passed over. */
static void test_met_out_of_range(void **state)
{
	struct fc_screen s;

	(void)state;
	assert_int_equal(fc_screen_init(&s, 4, 1, NULL), 0);
	fc_screen_met(&s, -1, 2, 0);
	fc_screen_met(&s, 1, 1, 0);
	fc_screen_met(&s, 0, 4, 0);
	fc_screen_met(&s, 0, 1, s.max_rounds);
	fc_screen_met(&s, 0, 1, -1);
	for (int i = 0; i < 4 * s.max_rounds; i++)
		assert_int_equal(s.met[i], -1);
	fc_screen_met(&s, 0, 1, 1);
	assert_int_equal(s.met[0 * s.max_rounds + 1], 1);
	assert_int_equal(s.met[1 * s.max_rounds + 1], 0);
	fc_screen_release(&s);
}

static void test_link_named(void **state)
{
	struct fc_scr_res r[32];
	struct fc_scr_culprit link = { .level = FC_SCR_LVL_LINK, .node = -1, .rail = 1,
				       .a = 3, .b = 0 };
	struct fc_screen s;
	size_t n = 0;
	int pairs[][2] = { { 0, 1 }, { 2, 3 }, { 0, 2 }, { 1, 3 } };

	(void)state;
	assert_int_equal(fc_screen_init(&s, 4, 2, NULL), 0);
	for (int i = 0; i < 4; i++)
		for (int rail = 0; rail < 2; rail++)
			r[n++] = res(pairs[i][0], pairs[i][1], rail, 0);
	for (int t = 0; t < 6; t++)
		r[n++] = res(0, 3, 1, 1);
	assert_int_equal(fc_screen_update(&s, r, n), 0);
	assert_int_equal(s.links_named, 1);
	assert_true(fc_screen_holds(&s, &link));
	link.rail = 0;
	assert_false(fc_screen_holds(&s, &link));
	fc_screen_release(&s);
}

/* The acceptance case of the benchmark, small: 64 nodes x 8 rails, 1% bad
 * ports, 5% noise; every bad port named, nothing else, within the limit. */
static void test_sim_64x8(void **state)
{
	struct sim_cfg c = SIM_CFG_DEFAULT;
	struct sim_out o;

	(void)state;
	for (uint64_t seed = 1; seed <= 3; seed++) {
		c.seed = seed;
		assert_int_equal(sim_run(&c, &o), 0);
		assert_int_equal(o.truth, 5);
		assert_int_equal(o.fp, 0);
		assert_int_equal(o.fn, 0);
		assert_true(o.rounds <= 8);
		assert_true(o.rounds >= 4); /* K bad results each need rounds */
		assert_true(o.pairs < 64 * 63 / 2 / 4); /* a fraction of the full matrix */
	}
}

/* Noise alone: nothing named, and the screen stops by itself. */
static void test_sim_noise_only(void **state)
{
	struct sim_cfg c = SIM_CFG_DEFAULT;
	struct sim_out o;

	(void)state;
	c.n = 32;
	c.bad_ports = 0;
	assert_int_equal(sim_run(&c, &o), 0);
	assert_int_equal(o.truth, 0);
	assert_int_equal(o.fp, 0);
	assert_int_equal(o.stop, FC_SCR_STOP_DONE);
}

/* A bad host (every rail slow): each of its rails is named. */
static void test_sim_bad_host(void **state)
{
	struct sim_cfg c = SIM_CFG_DEFAULT;
	struct sim_out o;

	(void)state;
	c.n = 32;
	c.rails = 4;
	c.bad_ports = 0;
	c.bad_hosts = 1;
	c.noise = 0.02;
	assert_int_equal(sim_run(&c, &o), 0);
	assert_int_equal(o.truth, 4);
	assert_int_equal(o.tp, 4);
	assert_int_equal(o.fp, 0);
}

/* Without noise the same rack needs fewer rounds than with it. */
static void test_sim_noise_costs_rounds(void **state)
{
	struct sim_cfg c = SIM_CFG_DEFAULT;
	struct sim_out quiet, noisy;

	(void)state;
	c.n = 128;
	c.noise = 0;
	assert_int_equal(sim_run(&c, &quiet), 0);
	c.noise = 0.05;
	assert_int_equal(sim_run(&c, &noisy), 0);
	assert_int_equal(quiet.fn, 0);
	assert_int_equal(noisy.fn, 0);
	assert_true(quiet.rounds < noisy.rounds);
	assert_int_equal(quiet.stop, FC_SCR_STOP_DONE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_seed_rounds_distinct),
		cmocka_unit_test(test_four_nodes_one_port),
		cmocka_unit_test(test_four_nodes_noisy_seed),
		cmocka_unit_test(test_errors_and_input),
		cmocka_unit_test(test_link_retest),
		cmocka_unit_test(test_link_named),
		cmocka_unit_test(test_sim_64x8),
		cmocka_unit_test(test_sim_noise_only),
		cmocka_unit_test(test_sim_bad_host),
		cmocka_unit_test(test_sim_noise_costs_rounds),
		cmocka_unit_test(test_resume_remembers_peers),
		cmocka_unit_test(test_met_out_of_range),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
