/* Unit tests of loss as a rate (core/lossrate.c) and of "no working flow
 * control" judged against the pairs' own loss (core/congest.c), on the
 * rxe counters recorded on the virtual rack: tests/data/diag/rack-healthy
 * (a healthy but busy Soft-RoCE pair, which retries) and rack-loss (the
 * same pair with netem dropping 5% of what nodeB sends), each with its
 * SOURCE. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <string.h>

#include "core/congest.h"
#include "core/lossrate.h"

static json_t *load(const char *path)
{
	json_t *d = json_load_file(path, 0, NULL);

	assert_non_null(d);
	return d;
}

/* A recorded pair's loss: its counters, the packets its results moved. */
static struct fc_loss loss_of(const json_t *d)
{
	struct fc_loss l = { 0 };

	fc_loss_counters(&l, json_object_get(d, "counters"));
	l.packets = fc_loss_packets(d);
	return l;
}

/* The exact conditional test against figures computed by hand and
 * published: P(X >= 10 | Binomial(12, 1/2)) = 79/4096; 3 against 3 over
 * equal exposures, 42/64; Fay's rateratio.test vignette (CRAN, 2022): 9
 * events in 16660 against 2 in 17877, two-sided p 0.05011, twice the
 * one-sided 0.02505. */
static void test_poisson_rate_p(void **state)
{
	(void)state;
	assert_true(fabs(fc_poisson_rate_p(10, 1, 2, 1) - 79.0 / 4096) < 1e-12);
	assert_true(fabs(fc_poisson_rate_p(3, 1, 3, 1) - 42.0 / 64) < 1e-12);
	assert_true(fabs(fc_poisson_rate_p(9, 16660, 2, 17877) - 0.025053) < 1e-6);
	assert_true(fabs(fc_poisson_rate_p(0, 5, 7, 5) - 1) < 1e-12);
	assert_true(fc_poisson_rate_p(488, 6400, 125, 6400) < 1e-50);
	assert_true(fc_poisson_rate_p(5, 0, 1, 10) == 1); /* no exposure: nothing shown */
	assert_true(fc_poisson_rate_p(1e6, 1, 1e6, 1) > 0.49); /* large counts, equal rates */
}

/* Packets: 200 writes and 200 reads of 64 KiB at path MTU 4096 (no
 * "posted" in these older documents: the iterations), 16 packets each. */
static void test_packets(void **state)
{
	json_t *h = load("tests/data/diag/rack-healthy/test.json");
	json_t *posted = json_loads("{\"path_mtu\": 1024, \"results\": [{\"size_bytes\": 4000,"
				    " \"iters\": 100, \"posted\": [110, 0]}, {\"size_bytes\": 8,"
				    " \"iters\": 50, \"bidir\": true}]}", 0, NULL);
	json_t *rails = json_loads("{\"path_mtu\": 4096, \"results\": [{\"size_bytes\": 4096,"
				   " \"iters\": 999}], \"rails\": [{\"loaded\": {\"results\":"
				   " [{\"size_bytes\": 8192, \"posted\": [10, 0]}]}, \"alone\":"
				   " {\"results\": [{\"size_bytes\": 100, \"iters\": 5}]}}]}", 0, NULL);

	(void)state;
	assert_true(fc_loss_packets(h) == 6400);
	assert_true(fc_loss_packets(posted) == 110 * 4 + 100);
	assert_true(fc_loss_packets(rails) == 20 + 5); /* the rails', not the aggregate */
	json_decref(h);
	json_decref(posted);
	json_decref(rails);
}

/* An incast round with @round's loss (no pause, no CNP) against @pairs:
 * its first outcome, level and evidence. */
static const char *judge(const struct fc_loss *round, const struct fc_loss *pairs, int *level,
			 char *ev, size_t len, json_t **vs)
{
	static const char *const senders[] = { "nodeB", "nodeC" };
	static const double g[] = { 0.04, 0.04 };
	static char name[64];
	struct fc_incast_obs o = { .receiver = "nodeA", .nsenders = 2, .sender = senders,
				   .gbps = g, .ceiling_gbps = 2.5, .loss = *round,
				   .pairs = pairs };
	json_t *out = json_object(), *first;

	o.sum[FC_CG_RETRANS] = round->retrans;
	*level = fc_incast_judge(&o, out);
	first = json_array_get(json_object_get(out, "outcomes"), 0);
	snprintf(name, sizeof(name), "%s", json_string_value(json_object_get(first, "outcome")));
	snprintf(ev, len, "%s", json_string_value(json_object_get(first, "evidence")));
	*vs = json_incref(json_object_get(out, "loss_vs_pairs"));
	json_decref(out);
	return name;
}

static void test_against_pairs(void **state)
{
	json_t *hd = load("tests/data/diag/rack-healthy/test.json");
	json_t *ld = load("tests/data/diag/rack-loss/test.json");
	struct fc_loss healthy = loss_of(hd), lossy = loss_of(ld), clean = { .packets = 6400 };
	char ev[600];
	json_t *vs;
	int level;

	(void)state;
	/* rxe's completer_retry_err: one a retry started (rxe_comp.c) */
	assert_true(healthy.retries == 125 && healthy.retrans == 632 && healthy.packets == 6400);
	assert_true(lossy.retries == 488 && lossy.retrans == 4073 && lossy.packets == 6400);

	/* 488 retries in 6400 packets against the healthy pair's 125 in 6400:
	 * loss the ports do not show alone, with both rates as evidence */
	assert_string_equal(judge(&lossy, &healthy, &level, ev, sizeof(ev), &vs),
			    "no working flow control");
	assert_int_equal(level, 2);
	assert_non_null(strstr(ev, "retransmissions 4073; 488 retransmissions started in 6400 "
				   "packets (7.62%) against the pairs' own 125 in 6400 (1.95%): "
				   "higher at 99% confidence"));
	assert_true(json_real_value(json_object_get(vs, "p_value")) < 1e-50);
	assert_true(json_real_value(json_object_get(vs, "pairs_events")) == 125);
	json_decref(vs);

	/* the healthy pair's own rate under incast: the ports' loss, not the
	 * incast's; nor when the pairs lost more */
	assert_string_equal(judge(&healthy, &healthy, &level, ev, sizeof(ev), &vs),
			    "loss under incast");
	assert_int_equal(level, 1);
	assert_non_null(strstr(ev, "125 retransmissions started in 6400 packets (1.95%) against "
				   "the pairs' own 125 in 6400 (1.95%): not higher at 99% confidence"));
	assert_true(fabs(json_real_value(json_object_get(vs, "p_value")) - 0.5252) < 1e-3);
	json_decref(vs);
	assert_string_equal(judge(&healthy, &lossy, &level, ev, sizeof(ev), &vs),
			    "loss under incast");
	json_decref(vs);

	/* pairs at exactly no loss: any loss under incast (the strict case) */
	assert_string_equal(judge(&healthy, &clean, &level, ev, sizeof(ev), &vs),
			    "no working flow control");
	assert_int_equal(level, 2);
	assert_non_null(strstr(ev, "pairs clean (no retransmission or drop in 6400 packets)"));
	assert_null(vs);

	/* no pair figures: said so, not guessed */
	assert_string_equal(judge(&lossy, NULL, &level, ev, sizeof(ev), &vs), "loss under incast");
	assert_int_equal(level, 1);
	assert_non_null(strstr(ev, "the comparison with the pairs' own loss could not be made"));
	assert_null(vs);

	/* pairs whose packets are unknown: the same */
	struct fc_loss unknown = healthy;
	unknown.packets = 0;
	assert_string_equal(judge(&lossy, &unknown, &level, ev, sizeof(ev), &vs),
			    "loss under incast");
	assert_non_null(strstr(ev, "the packets the pairs moved are not known"));
	json_decref(hd);
	json_decref(ld);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_poisson_rate_p),
		cmocka_unit_test(test_packets),
		cmocka_unit_test(test_against_pairs),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
