/* Unit tests of the on-disk sort (store/spill.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/spill.h"

/* Records past SQLite's caches (1 MB of pages, 1 MB of sorter): 30,000 of
 * 100 bytes are sorted in runs on disk and merged. */
#define NREC 30000
#define RLEN 100

struct rec {
	double key;
	int64_t seq;
	char pad[RLEN - sizeof(double) - sizeof(int64_t)];
};

struct order {
	int n, bad;
	double key;
	int64_t seq;
	int stop_at;
};

static int check_order(const void *p, size_t len, void *arg)
{
	struct order *o = arg;
	struct rec r;

	if (len != sizeof(r)) {
		o->bad++;
		return 0;
	}
	memcpy(&r, p, sizeof(r));
	if (o->n && (r.key > o->key || (r.key == o->key && r.seq <= o->seq)))
		o->bad++;
	if (r.pad[0] != (char)(r.seq % 251) || r.pad[sizeof(r.pad) - 1] != (char)(r.seq % 7))
		o->bad++;
	o->key = r.key;
	o->seq = r.seq;
	return ++o->n == o->stop_at ? 42 : 0;
}

/* Key descending, then seq ascending, every record whole; keys repeat (a
 * tenth of the values) so that seq decides among them; a callback's stop
 * is returned. */
static void test_order(void **state)
{
	struct fc_spill *sp = fc_spill_open("test records");
	struct order o = { 0 };

	(void)state;
	assert_non_null(sp);
	for (int i = 0; i < NREC; i++) {
		int64_t seq = (int64_t)((i * 7919L) % NREC); /* a permutation: NREC and 7919 coprime */
		struct rec r = { .key = (double)(seq % 3001) - 1500.5, .seq = seq };

		memset(r.pad, (char)(seq % 251), sizeof(r.pad) - 1);
		r.pad[sizeof(r.pad) - 1] = (char)(seq % 7);
		assert_int_equal(fc_spill_add(sp, r.key, r.seq, &r, sizeof(r)), 0);
	}
	assert_int_equal(fc_spill_each(sp, check_order, &o), 0);
	assert_int_equal(o.n, NREC);
	assert_int_equal(o.bad, 0);
	assert_true(o.key == -1500.5);
	o = (struct order){ .stop_at = 5 };
	assert_int_equal(fc_spill_each(sp, check_order, &o), 42);
	assert_int_equal(o.n, 5);
	assert_true(o.key == 1499.5 && o.bad == 0);
	fc_spill_close(sp);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_order),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
