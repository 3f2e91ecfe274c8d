/* The round-robin schedule's properties for every N from 2 to 512. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/sched.h"

/* Checks one schedule: each (unordered, or with @both ordered) pair exactly
 * once, no node twice in a round, the round count, full rounds. */
static void check_schedule(int n, int both)
{
	int rounds = fc_sched_rounds(n, both), max = fc_sched_round_max(n);
	struct fc_pair_idx *p = calloc((size_t)max + 1, sizeof(*p));
	unsigned char *seen = calloc((size_t)n * (size_t)n, 1);
	int *busy = calloc((size_t)n, sizeof(int));
	int *byes = calloc((size_t)n, sizeof(int));
	long total = 0;

	assert_non_null(p);
	assert_non_null(seen);
	assert_int_equal(rounds, (n % 2 ? n : n - 1) * (both ? 2 : 1));
	for (int r = 0; r < rounds; r++) {
		int cnt = fc_sched_round(n, both, r, p);

		/* Every round is full: n/2 pairs (a bye leaves one node out). */
		assert_int_equal(cnt, n / 2);
		for (int i = 0; i < n; i++)
			busy[i] = -1;
		for (int i = 0; i < cnt; i++) {
			int a = p[i].a, b = p[i].b;

			assert_true(a >= 0 && a < n && b >= 0 && b < n && a != b);
			assert_int_not_equal(busy[a], r);
			assert_int_not_equal(busy[b], r);
			busy[a] = busy[b] = r;
			if (both) {
				assert_int_equal(seen[a * n + b], 0);
				seen[a * n + b] = 1;
			} else {
				int lo = a < b ? a : b, hi = a < b ? b : a;

				assert_int_equal(seen[lo * n + hi], 0);
				seen[lo * n + hi] = 1;
			}
			total++;
		}
		for (int i = 0; i < n; i++)
			byes[i] += busy[i] != r;
	}
	assert_int_equal(total, (long)n * (n - 1) / (both ? 1 : 2));
	for (int i = 0; i < n; i++)
		assert_int_equal(byes[i], n % 2 ? (both ? 2 : 1) : 0);
	assert_int_equal(fc_sched_round(n, both, rounds, p), -EINVAL);
	assert_int_equal(fc_sched_round(n, both, -1, p), -EINVAL);
	free(p);
	free(seen);
	free(busy);
	free(byes);
}

static void test_all_sizes(void **state)
{
	(void)state;
	for (int n = 2; n <= 512; n++)
		check_schedule(n, 0);
}

static void test_both_directions(void **state)
{
	(void)state;
	for (int n = 2; n <= 64; n++)
		check_schedule(n, 1);
	check_schedule(511, 1);
	check_schedule(512, 1);
}

static void test_small(void **state)
{
	struct fc_pair_idx p[2];

	(void)state;
	assert_int_equal(fc_sched_rounds(0, 0), 0);
	assert_int_equal(fc_sched_rounds(1, 0), 0);
	assert_int_equal(fc_sched_rounds(2, 0), 1);
	assert_int_equal(fc_sched_rounds(3, 0), 3);
	assert_int_equal(fc_sched_rounds(4, 0), 3);
	assert_int_equal(fc_sched_rounds(4, 1), 6);
	assert_int_equal(fc_sched_round(2, 0, 0, p), 1);
	/* With both directions the second pass reverses the first. */
	assert_int_equal(fc_sched_round(2, 1, 1, p + 1), 1);
	assert_int_equal(fc_sched_round(2, 1, 0, p), 1);
	assert_int_equal(p[0].a, p[1].b);
	assert_int_equal(p[0].b, p[1].a);
	assert_int_equal(fc_sched_rounds(FC_SCHED_MAX_NODES + 1, 0), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_small),
		cmocka_unit_test(test_all_sizes),
		cmocka_unit_test(test_both_directions),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
