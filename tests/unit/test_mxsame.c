/*
 * The same recorded results, two ways (issue 39 item 5): each rail's
 * cells of a recorded matrix with rails (tests/data/matrix/rails-*) fed
 * alone to the single-port analysis (fc_mx_analyze, fc_mx_finding_text)
 * and all of them to the rails analysis (fc_mxl_analyze,
 * fc_mxl_suspect_text): the rails' suspect says the evidence in the
 * single-port finding's words, the retest beside it, and the floor is one
 * finding in both.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "matrix/mxan.h"
#include "matrix/mxlevel.h"

#include "mxl_rec.h"

/* Rail @rail's cells of @r, alone, through the single-port analysis. */
static void single(const struct rec *r, int rail, const struct fc_mx_opts *o,
		   struct fc_mx_analysis *an)
{
	struct fc_mx_result res[MAXC];
	size_t k = 0;

	for (size_t i = 0; i < r->ncells; i++)
		if (r->cells[i].rail == rail)
			res[k++] = (struct fc_mx_result){ .a = r->cells[i].a, .b = r->cells[i].b,
							  .gbps = r->cells[i].gbps,
							  .lat_us = r->cells[i].lat_us,
							  .state = r->cells[i].state,
							  .retest = r->cells[i].retest };
	assert_int_equal(fc_mx_analyze(r->n, res, k, o, an), 0);
}

/* The text of @an's first finding of @kind, into @buf. */
static const char *finding_text(const struct fc_mx_analysis *an, const struct rec *r,
				enum fc_mx_kind kind, char *buf, size_t len)
{
	const struct fc_mx_finding *f = NULL;

	for (int i = an->nfindings - 1; i >= 0; i--)
		if (an->findings[i].kind == kind)
			f = &an->findings[i];
	assert_non_null(f);
	fc_mx_finding_text(an, f, r->np, buf, len);
	return buf;
}

/* The part of @s between @from and @to (both in it) into @out. */
static const char *between(const char *s, const char *from, const char *to, char *out, size_t len)
{
	const char *a = strstr(s, from), *b;

	if (!a)
		fail_msg("'%s' not in '%s'", from, s);
	a += strlen(from);
	b = strstr(a, to);
	if (!b)
		fail_msg("'%s' not after '%s' in '%s'", to, from, s);
	snprintf(out, len, "%.*s", (int)(b - a), a);
	return out;
}

static const struct fc_mxl_suspect *only(const struct fc_mxl_analysis *an,
					 enum fc_mxl_level level)
{
	assert_int_equal(an->nsuspects, 1);
	assert_int_equal(an->suspects[0].level, level);
	return &an->suspects[0];
}

static void suspect_has(const struct fc_mxl_analysis *an, const struct rec *r,
			const struct fc_mxl_suspect *s, const char *want)
{
	char buf[768];

	fc_mxl_suspect_text(an, s, r->np, r->rp, buf, sizeof(buf));
	if (!strstr(buf, want))
		fail_msg("'%s' not in '%s'", want, buf);
}

/* nodeC slow on rail 1: the port suspect says what the single-port
 * analysis of rail 1's cells says of nodeC ("bad with 3 of 3 peers (below
 * 90% of the rack median ...; the slowest ..., with ...; its median ...)"),
 * not "bad with most of its peers"; measured again by --retest, both say
 * "still bad on retest" (the summary's "still bad on retest" reads it). */
static void test_port(void **state)
{
	struct rec r;
	struct fc_mx_analysis one = { 0 };
	struct fc_mxl_analysis an = { 0 };
	char text[768], why[512], want[600];

	(void)state;
	load("rails-4x2-port.json", &r);
	for (int retest = 0; retest < 2; retest++) {
		for (size_t i = 0; i < r.ncells; i++)
			r.cells[i].retest = retest && r.cells[i].rail == 1 &&
					    (r.cells[i].a == 2 || r.cells[i].b == 2);
		single(&r, 1, NULL, &one);
		finding_text(&one, &r, FC_MX_SUSPECT_NODE, text, sizeof(text));
		between(text, "suspect node nodeC: ", ": check", why, sizeof(why));
		assert_non_null(strstr(why, "bad with 3 of 3 peers (below 90% of the rack median"));
		assert_int_equal(strstr(why, "still bad on retest") != NULL, retest);
		assert_int_equal(fc_mxl_reanalyze(r.n, r.nrails, r.cells, r.ncells, NULL, &an), 0);
		snprintf(want, sizeof(want), "nodeC on rail 1 (rxe1): %s, while its other rails pass",
			 why);
		suspect_has(&an, &r, only(&an, FC_MXL_PORT), want);
		fc_mx_release(&one);
	}
	fc_mxl_release(&an);
}

/* nodeC slow on both rails: the host, with each rail's evidence in the
 * single-port words. */
static void test_host(void **state)
{
	struct rec r;
	struct fc_mx_analysis one;
	struct fc_mxl_analysis an;
	const struct fc_mxl_suspect *s;
	char text[768], why[512], want[600];

	(void)state;
	load("rails-4x2-host.json", &r);
	assert_int_equal(fc_mxl_analyze(r.n, r.nrails, r.cells, r.ncells, NULL, &an), 0);
	s = only(&an, FC_MXL_NODE);
	for (int rail = 0; rail < 2; rail++) {
		single(&r, rail, NULL, &one);
		finding_text(&one, &r, FC_MX_SUSPECT_NODE, text, sizeof(text));
		between(text, "suspect node nodeC: ", ": check", why, sizeof(why));
		snprintf(want, sizeof(want), "rail %d (rxe%d): %s", rail, rail, why);
		suspect_has(&an, &r, s, want);
		fc_mx_release(&one);
	}
	suspect_has(&an, &r, s, "nodeC: bad on every rail (2), median 0.02 Gb/s against 0.162 Gb/s");
	suspect_has(&an, &r, s, ": the host (PCIe switch, NUMA, CPU or firmware), not one link");
	fc_mxl_release(&an);
}

/* One slow (pair, rail) cell: the link's figure and why, as the single
 * port analysis gives them ("0.02 Gb/s (below 90% of the rack median
 * 0.163 Gb/s)"). */
static void test_link(void **state)
{
	struct rec r;
	struct fc_mx_analysis one;
	struct fc_mxl_analysis an;
	char text[768], why[512], want[600];

	(void)state;
	load("rails-4x2-link.json", &r);
	single(&r, 0, NULL, &one);
	finding_text(&one, &r, FC_MX_SUSPECT_LINK, text, sizeof(text));
	between(text, "suspect link nodeA-nodeD: ", " while", why, sizeof(why));
	assert_non_null(strstr(why, "0.02 Gb/s (below 90% of the rack median"));
	assert_int_equal(fc_mxl_analyze(r.n, r.nrails, r.cells, r.ncells, NULL, &an), 0);
	snprintf(want, sizeof(want), "nodeA - nodeD on rail 0 (rxe0): %s, while both pass", why);
	suspect_has(&an, &r, only(&an, FC_MXL_LINK), want);
	fc_mx_release(&one);
	fc_mxl_release(&an);
}

/* nodeC's latency on rail 1 above --max-lat-us, its bandwidth in line:
 * "latency above 120 us" in both, and no "median X Gb/s against X Gb/s",
 * a comparison that says nothing (issue 39). */
static void test_latency(void **state)
{
	const struct fc_mx_opts o = { .min_rack_pct = 90, .asym_pct = 90, .max_lat_us = 120 };
	struct rec r;
	struct fc_mx_analysis one;
	struct fc_mxl_analysis an;
	char text[768], why[512], want[600], buf[768];

	(void)state;
	load("rails-4x2-healthy.json", &r);
	for (size_t i = 0; i < r.ncells; i++)
		if (r.cells[i].rail == 1 && (r.cells[i].a == 2 || r.cells[i].b == 2))
			r.cells[i].lat_us = 300;
	single(&r, 1, &o, &one);
	finding_text(&one, &r, FC_MX_SUSPECT_NODE, text, sizeof(text));
	between(text, "suspect node nodeC: ", ": check", why, sizeof(why));
	assert_string_equal(why, "bad with 3 of 3 peers (latency above 120 us)");
	assert_int_equal(fc_mxl_analyze(r.n, r.nrails, r.cells, r.ncells, &o, &an), 0);
	snprintf(want, sizeof(want), "nodeC on rail 1 (rxe1): %s, while its other rails pass", why);
	suspect_has(&an, &r, only(&an, FC_MXL_PORT), want);
	fc_mxl_suspect_text(&an, &an.suspects[0], r.np, r.rp, buf, sizeof(buf));
	assert_null(strstr(buf, "against"));
	fc_mx_release(&one);
	fc_mxl_release(&an);
}

/* Every figure of @r's rail @rail times @k. */
static void scale(struct rec *r, int rail, double k)
{
	for (size_t i = 0; i < r->ncells; i++)
		if (r->cells[i].rail == rail)
			r->cells[i].gbps *= k;
}

/* Rail 1 below --min-gbps 0.1 on every pair, rail 0 above it: the rail's
 * finding names the floor as the single-port analysis of rail 1 does
 * ("every pair is below --min-gbps 0.1 (6 pairs of 4 nodes, the best
 * ...)"), not only its median. */
static void test_floor_one_rail(void **state)
{
	const struct fc_mx_opts o = { .min_gbps = 0.1, .min_rack_pct = 90, .asym_pct = 90 };
	struct rec r;
	struct fc_mx_analysis one;
	struct fc_mxl_analysis an;
	char text[768], why[512], want[600];

	(void)state;
	load("rails-4x2-healthy.json", &r);
	scale(&r, 1, 0.5);
	single(&r, 1, &o, &one);
	finding_text(&one, &r, FC_MX_FLOOR, text, sizeof(text));
	between(text, "", ": the floor", why, sizeof(why));
	assert_string_equal(why, "every pair is below --min-gbps 0.1 (6 pairs of 4 nodes, the best 0.086 Gb/s)");
	assert_int_equal(fc_mxl_analyze(r.n, r.nrails, r.cells, r.ncells, &o, &an), 0);
	assert_int_equal(an.floor, 0);
	snprintf(want, sizeof(want), "rail 1 (rxe1): %s, while another rail's pairs are above it", why);
	suspect_has(&an, &r, only(&an, FC_MXL_RAIL), want);
	fc_mx_release(&one);
	fc_mxl_release(&an);
}

/* Both rails below the floor: one finding about the floor, no rail
 * suspect. One rail below it while no pair could run on the other: the
 * floor again, word for word the single-port finding of that rail's
 * cells (it was "rail 1: bad for every node ...: that rail's switch"
 * with nothing faster to hold it against). */
static void test_floor_every_rail(void **state)
{
	const struct fc_mx_opts o = { .min_gbps = 1, .min_rack_pct = 90, .asym_pct = 90 };
	struct rec r;
	struct fc_mx_analysis one;
	struct fc_mxl_analysis an = { 0 };
	char text[768], rails[768];

	(void)state;
	load("rails-4x2-healthy.json", &r);
	assert_int_equal(fc_mxl_reanalyze(r.n, r.nrails, r.cells, r.ncells, &o, &an), 0);
	assert_int_equal(an.nsuspects, 0);
	assert_int_equal(an.floor, 2);
	fc_mx_floor_text(rails, sizeof(rails), o.min_gbps, an.floor_pairs, an.floor_nodes, an.floor,
			 an.floor_best_gbps);
	assert_non_null(strstr(rails, "every pair on every rail is below --min-gbps 1 (12 pairs of 4 "
				      "nodes on 2 rails, the best 0.172 Gb/s): the floor"));

	for (size_t i = 0; i < r.ncells; i++)
		if (r.cells[i].rail == 0)
			r.cells[i] = (struct fc_mxl_cell){ .a = r.cells[i].a, .b = r.cells[i].b,
							   .rail = 0, .gbps = NAN, .lat_us = NAN,
							   .state = FC_MX_ERROR };
	single(&r, 1, &o, &one);
	finding_text(&one, &r, FC_MX_FLOOR, text, sizeof(text));
	assert_int_equal(fc_mxl_reanalyze(r.n, r.nrails, r.cells, r.ncells, &o, &an), 0);
	assert_int_equal(an.nsuspects, 0);
	assert_int_equal(an.unchecked_rails, 1);
	assert_int_equal(an.floor, 1);
	fc_mx_floor_text(rails, sizeof(rails), o.min_gbps, an.floor_pairs, an.floor_nodes, an.floor,
			 an.floor_best_gbps);
	assert_string_equal(rails, text);
	fc_mx_release(&one);
	fc_mxl_release(&an);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_port),	      cmocka_unit_test(test_host),
		cmocka_unit_test(test_link),	      cmocka_unit_test(test_latency),
		cmocka_unit_test(test_floor_one_rail), cmocka_unit_test(test_floor_every_rail),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
