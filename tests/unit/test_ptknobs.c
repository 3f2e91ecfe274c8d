/*
 * --perftest's defaults, refusals and output against perftest's (issue 40,
 * item 2): the 64 KiB size, 512 receives, the tx depth and CQ moderation
 * cut to -n, what perftest refuses, each side's own window both ways, the
 * units and columns, the BW peak (on the fake HCA, tests/fake/fake_hca.h).
 * The last test writes doc/pair-bench.md's table of knobs from what these
 * resolve to and fails when the doc says otherwise (FC_DOC_WRITE=1 rewrites
 * the doc's table instead).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/stats.h"
#include "core/util.h"
#include "pair/pair.h"
#include "tests/fake/fake_hca.h"

#define PT VB_METHOD_PERFTEST
#define FC VB_METHOD_FABCHECK

/* Write bandwidth at @size, -n @iters, list @l, asked CQ moderation @c
 * (0: the method's), -t 128, as the controller checks it: what perftest
 * refuses (-1 too), then vb_knobs_settle's verdict. */
static int settle(enum vb_method m, uint64_t size, uint64_t iters, int l, int c,
		  struct vb_knob_out *out)
{
	struct vb_knob_in in = { .method = m, .op = VB_WRITE, .size = size, .tx_depth = 128,
				 .window = 128, .nqps = 1, .post_list = l, .cq_mod = c,
				 .iters = iters };

	memset(out, 0, sizeof(*out));
	if (vb_pt_refused(&in, out->why, sizeof(out->why)))
		return -1;
	return vb_knobs_settle(&in, out);
}

static void test_size_default(void **state)
{
	struct pair_cfg cfg = { .method = PT };
	uint64_t s[PAIR_MAX_SIZES];

	(void)state;
	assert_int_equal(pair_sizes(&cfg, 0, s), 1);
	assert_int_equal(s[0], 65536); /* DEF_SIZE_BW */
	pair_sizes(&cfg, 1, s);
	assert_int_equal(s[0], 2); /* DEF_SIZE_LAT */
	cfg.method = FC;
	pair_sizes(&cfg, 0, s);
	assert_int_equal(s[0], 1 << 20);
}

/* 512 receives, cut to -n and made even, as force_dependecies. */
static void test_receives(void **state)
{
	struct pair_cfg cfg = { .method = PT, .tx_depth = 128, .ops = 1u << VB_WRITE };

	(void)state;
	assert_int_equal(pair_rx_depth(&cfg), 0); /* no send: no receives asked */
	cfg.ops |= 1u << VB_SEND;
	assert_int_equal(pair_rx_depth(&cfg), 512);
	cfg.iters = 100;
	assert_int_equal(pair_rx_depth(&cfg), 100);
	cfg.iters = 51;
	assert_int_equal(pair_rx_depth(&cfg), 52);
	cfg.iters = 0;
	cfg.duration = 5;
	assert_int_equal(pair_rx_depth(&cfg), 512);
	cfg.method = FC;
	assert_int_equal(pair_rx_depth(&cfg), 0); /* twice the tx depth */
	assert_int_equal(vb_rx_depth(0, 128, 1 << 15), 256);
	assert_int_equal(vb_rx_depth(512, 128, 1 << 15), 512);
}

/* The fake's receiving side of a --perftest send keeps 512 posted a QP. */
static void test_receives_posted(void **state)
{
	struct fk_cfg c = { .nqps = 2, .tx_depth = 128, .threads = 1, .max_size = 65536,
			    .timeout = 5, .rx_depth = 512 };
	struct vb_test t = { .op = VB_SEND, .size = 65536, .iters = 1000, .passive = 1,
			     .interval = 0.1, .method = PT, .warmup = VB_KNOB_DEFAULT,
			     .cq_mod = VB_KNOB_DEFAULT, .inline_max = VB_KNOB_DEFAULT,
			     .cycle = VB_CYCLE_DEFAULT, .post_list = 1, .threads = 1 };
	struct fk_side s;

	(void)state;
	assert_int_equal(fk_side_init(&s, &c), 0);
	assert_int_equal(vb_test_resolve(&s.r, &t), 0);
	assert_int_equal(vb_test_prepare(&s.r, &t), 0);
	assert_int_equal(s.r.rq_posted[0], 512);
	assert_int_equal(s.r.rq_posted[1], 512);
	fk_side_free(&s);
}

/* tx depth and CQ moderation cut to -n (force_dependecies' order). */
static void test_caps(void **state)
{
	struct vb_knob_out o;

	(void)state;
	assert_int_equal(settle(PT, 64, 50, 1, 0, &o), 0);
	assert_int_equal(o.tx_depth, 50);
	assert_int_equal(o.cq_mod, 50);
	assert_true(settle(PT, 64, 80, 1, 70, &o) >= 0); /* asked: capped too */
	assert_int_equal(o.cq_mod, 70);
	assert_true(settle(PT, 64, 60, 1, 70, &o) >= 0);
	assert_int_equal(o.cq_mod, 60);
	assert_int_equal(settle(PT, 64, 0, 1, 0, &o), 0); /* -D: no cut */
	assert_int_equal(o.tx_depth, 128);
	assert_int_equal(o.cq_mod, 100);
	assert_int_equal(settle(FC, 64, 50, 1, 0, &o), 0);
	assert_int_equal(o.tx_depth, 128);
	assert_int_equal(o.cq_mod, 64);
}

/* What perftest refuses, in its words; fabcheck's method runs them. */
static void test_refusals(void **state)
{
	struct vb_knob_out o;

	(void)state;
	assert_int_equal(settle(PT, 8, 5000, 64, 0, &o), -1);
	assert_non_null(strstr(o.why, "\"Number of iterations must be a multiple of post list size\""));
	assert_non_null(strstr(o.why, "use -n 5056"));
	assert_int_equal(settle(PT, 8, 1024, 16, 5, &o), -1);
	assert_non_null(strstr(o.why, "\"Post list size must be a multiple of CQ moderation\""));
	assert_int_equal(settle(PT, 8, 1024, 16, 4, &o), 0);
	assert_int_equal(settle(PT, 8, 1024, 64, 0, &o), 0);
	assert_int_equal(o.cq_mod, 64);
	assert_true(settle(FC, 8, 5000, 64, 0, &o) >= 0);
	assert_true(settle(FC, 8, 1024, 16, 5, &o) >= 0);
}

/* Both ways: a side that ran alone for half its run. perftest adds each
 * side's own figure; fabcheck counts the window both ran. */
static json_t *side_res(double t0, double gbps, double secs, double first_half)
{
	double bytes = gbps * 1e9 / 8 * secs;

	return json_pack("{s:f, s:f, s:f, s:f, s:[[f, f], [f, f], [f, f]]}", "gbps", gbps, "seconds",
			 secs, "msgs", bytes / 65536, "t0", t0, "curve", 0.0, 0.0, secs / 2,
			 bytes * first_half, secs, bytes);
}

static double bidir_gbps(enum vb_method m, json_t **out)
{
	struct pair_cfg cfg = { .method = m, .bidir = 1, .interval = 0.1 };
	json_t *doc = json_pack("{s:[]}", "findings");
	json_t *e = json_pack("{s:s, s:I, s:I}", "test", "write", "size_bytes", (json_int_t)65536,
			      "iters", (json_int_t)1000);
	/* a's bytes mostly before b started, b's mostly after a ended */
	json_t *res[2] = { side_res(0, 100, 2, 0.9), side_res(1, 100, 2, 0.1) };
	int active[2] = { 1, 1 };
	double off[2] = { 0, 0 }, g;

	pair_bw_entry(doc, &cfg, e, VB_WRITE, res, active, off, 0);
	g = json_real_value(json_object_get(e, "gbps"));
	json_decref(res[0]);
	json_decref(res[1]);
	json_decref(doc);
	if (out)
		*out = e;
	else
		json_decref(e);
	return g;
}

static void test_bidir_windows(void **state)
{
	json_t *e;

	(void)state;
	assert_true(fabs(bidir_gbps(PT, &e) - 200) < 1e-9);
	assert_true(fabs(json_real_value(json_object_get(e, "msg_rate_mpps")) -
			 2 * 100e9 / 8 / 65536 / 1e6) < 1e-6);
	assert_null(json_object_get(e, "overlap"));
	json_decref(e);
	assert_true(bidir_gbps(FC, NULL) < 50); /* the common second: 20 + 20 */
}

/* The text of a one-result document in method @m. */
static char *render(enum vb_method m, int gbits, int peak)
{
	json_t *doc = json_pack("{s:{s:s, s:b}, s:[{s:s, s:s, s:I, s:I, s:i, s:f, s:f}], s:{}, s:{}}",
				"options", "method", vb_method_name(m), "report_gbits", gbits,
				"results", "test", "write", "metric", "bw", "size_bytes",
				(json_int_t)65536, "iters", (json_int_t)5000, "qps", 4, "gbps", 83.886080,
				"msg_rate_mpps", 0.16, "a", "b");
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (peak)
		json_object_set_new(json_array_get(json_object_get(doc, "results"), 0), "peak_gbps",
				    json_real(92.274688));
	pair_render(f, doc);
	fclose(f);
	json_decref(doc);
	return buf;
}

static void test_units(void **state)
{
	char *s;

	(void)state;
	/* 83.886080 Gb/s = 10000 MiB/s; 92.274688 = 11000; 5000 a QP x 4 */
	s = render(PT, 0, 1);
	assert_non_null(strstr(s, "#bytes"));
	assert_non_null(strstr(s, "BW peak[MiB/sec]"));
	assert_non_null(strstr(s, "BW average[MiB/sec]"));
	assert_non_null(strstr(s, "MsgRate[Mpps]"));
	if (!strstr(s, " 20000 ") || !strstr(s, " 11000.00 ") || !strstr(s, " 10000.00 ") ||
	    !strstr(s, " 0.160000"))
		fail_msg("not perftest's figures:\n%s", s);
	free(s);
	s = render(PT, 1, 0);
	assert_non_null(strstr(s, "BW average[Gb/sec]"));
	if (!strstr(s, " 83.89 ") || !strstr(s, " 0.00 ") || !strstr(s, "BW peak 0.00: not measured"))
		fail_msg("not perftest's Gb/s line:\n%s", s);
	free(s);
	s = render(FC, 0, 0);
	assert_null(strstr(s, "MiB/sec"));
	assert_non_null(strstr(s, "83.886 Gb/s"));
	free(s);
}

/* perftest's BW peak from hand-made stamps: 8 requests, lists of 2,
 * signalled every 2; the stretch of requests 2..5 (posted at 10, the 6th
 * completed at 14) is 1 s a request, the best. */
static void test_peak_delta(void **state)
{
	double tp[8] = { 0, 0, 10, 0, 12, 0, 20, 0 };
	double tc[8] = { 0, 9, 0, 13, 0, 14, 0, 40 };

	(void)state;
	assert_true(fabs(vb_pt_peak_delta(tp, tc, 8, 2, 2, 40) - 1.0) < 1e-12);
	/* none better than the whole */
	assert_true(vb_pt_peak_delta(tp, tc, 0, 2, 2, 40) == 40);
}

/* A --perftest write on the fake has a peak, at least its average; -D none. */
static void test_peak_run(void **state)
{
	struct fk_cfg c = { .nqps = 2, .tx_depth = 128, .threads = 1, .max_size = 65536,
			    .timeout = 5 };
	struct vb_test t = { .op = VB_WRITE, .size = 65536, .iters = 2000, .active = 1,
			     .interval = 0.1, .method = PT, .warmup = VB_KNOB_DEFAULT,
			     .cq_mod = VB_KNOB_DEFAULT, .inline_max = VB_KNOB_DEFAULT,
			     .cycle = VB_CYCLE_DEFAULT, .post_list = 1, .threads = 1 };
	struct fk_side a, b;
	struct vb_test tb = t;
	struct vb_result ra, rb;
	int ea, eb;

	(void)state;
	tb.active = 0;
	assert_int_equal(fk_side_init(&a, &c), 0);
	assert_int_equal(fk_side_init(&b, &c), 0);
	fk_connect(&a, &b);
	assert_int_equal(vb_test_resolve(&a.r, &t), 0);
	assert_int_equal(vb_test_resolve(&b.r, &tb), 0);
	assert_int_equal(vb_test_prepare(&b.r, &tb), 0);
	assert_int_equal(vb_test_prepare(&a.r, &t), 0);
	fk_run_pair(&a, &t, &ra, &ea, &b, &tb, &rb, &eb);
	assert_int_equal(ea, 0);
	assert_true(ra.peak_gbps > 0);
	if (ra.peak_gbps < 0.99 * fc_gbps(ra.bytes, ra.seconds))
		fail_msg("peak %.3f below the average %.3f Gb/s", ra.peak_gbps,
			 fc_gbps(ra.bytes, ra.seconds));
	vb_result_release(&ra);
	vb_result_release(&rb);
	fk_side_free(&a);
	fk_side_free(&b);
}

/* ---- doc/pair-bench.md's table of knobs, from what the code resolves ---- */

static const char *sz(uint64_t v, char *buf)
{
	return fc_fmt_size(v, buf, 32);
}

/* Appends a row: the knob, perftest's, fabcheck's, perftest's source. */
static void row(FILE *f, const char *knob, const char *pt, const char *fc, const char *src)
{
	fprintf(f, "| %s | %s | %s | %s |\n", knob, pt, fc, src);
}

static char *knob_table(void)
{
	struct pair_cfg p = { .method = PT, .tx_depth = 128, .ops = 1u << VB_SEND },
			q = { .method = FC, .tx_depth = 128, .ops = 1u << VB_SEND };
	struct vb_knob_out o;
	uint64_t s[PAIR_MAX_SIZES], n;
	double d;
	char a[32], b[32], c[256], e[256], *buf = NULL, *tp, *tf;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	fprintf(f, "| knob | perftest (and `--perftest`) | fabcheck's default | perftest's source (HEAD) |\n");
	fprintf(f, "| --- | --- | --- | --- |\n");
	pair_sizes(&p, 0, s);
	snprintf(c, sizeof(c), "%s", sz(s[0], a));
	pair_sizes(&q, 0, s);
	row(f, "bandwidth size (`-s`)", c, sz(s[0], b), "perftest_parameters.h DEF_SIZE_BW");
	pair_test_length(&p, VB_WRITE, 0, &n, &d);
	snprintf(c, sizeof(c), "%llu messages a QP, write; ", (unsigned long long)n);
	pair_test_length(&p, VB_READ, 0, &n, &d);
	snprintf(c + strlen(c), sizeof(c) - strlen(c), "%llu read and send", (unsigned long long)n);
	pair_test_length(&q, VB_WRITE, 0, &n, &d);
	snprintf(e, sizeof(e), "%.0f s a size", d);
	row(f, "bandwidth length (`-n`)", c, e, "perftest_parameters.h DEF_ITERS_WB, DEF_ITERS");
	settle(PT, 64, 50, 1, 0, &o);
	snprintf(c, sizeof(c), "%d, cut to `-n` (`-n 50`: %d)", p.tx_depth, o.tx_depth);
	settle(FC, 64, 50, 1, 0, &o);
	snprintf(e, sizeof(e), "%d (`-n 50`: %d)", q.tx_depth, o.tx_depth);
	row(f, "tx depth (`-t`)", c, e, "perftest_parameters.c force_dependecies");
	settle(PT, 64, 0, 1, 0, &o);
	n = (uint64_t)o.cq_mod;
	settle(PT, 65536, 0, 1, 0, &o);
	snprintf(c, sizeof(c), "%llu up to 8 KiB, %d above (`-a`: 100); at most the tx depth (`-n 50`: ",
		 (unsigned long long)n, o.cq_mod);
	settle(PT, 64, 50, 1, 0, &o);
	snprintf(c + strlen(c), sizeof(c) - strlen(c), "%d); `--post-list 16`: ", o.cq_mod);
	settle(PT, 64, 1024, 16, 0, &o);
	snprintf(c + strlen(c), sizeof(c) - strlen(c), "%d", o.cq_mod);
	settle(FC, 64, 0, 1, 0, &o);
	snprintf(e, sizeof(e), "%d (min(64, tx depth / 2)); `--post-list 16`: ", o.cq_mod);
	settle(FC, 64, 1024, 16, 0, &o);
	snprintf(e + strlen(e), sizeof(e) - strlen(e), "%d", o.cq_mod);
	row(f, "CQ moderation (`--cq-mod`)", c, e, "perftest_parameters.c force_dependecies");
	p.iters = 51;
	snprintf(c, sizeof(c), "%d a QP, cut to `-n`, made even (`-n 51`: ", PAIR_PT_RX_DEPTH);
	snprintf(c + strlen(c), sizeof(c) - strlen(c), "%d)", pair_rx_depth(&p));
	p.iters = 0;
	snprintf(e, sizeof(e), "twice the tx depth (%d)", vb_rx_depth(pair_rx_depth(&q), 128, 1 << 15));
	row(f, "receives (send bandwidth)", c, e,
	    "perftest_parameters.h DEF_RX_SEND; perftest_parameters.c force_dependecies");
	row(f, "refused", settle(PT, 8, 5000, 64, 0, &o) < 0 && settle(PT, 8, 1024, 16, 5, &o) < 0 ?
			"`-n` not a multiple of `--post-list`; `--post-list` not a multiple of `--cq-mod`, in perftest's words" :
			"nothing perftest refuses",
	    settle(FC, 8, 5000, 64, 0, &o) >= 0 && settle(FC, 8, 1024, 16, 5, &o) >= 0 ?
		    "only what would stall (list + cq-mod - gcd > window)" : "?",
	    "perftest_parameters.c force_dependecies");
	{
		json_t *ej;

		bidir_gbps(PT, &ej);
		snprintf(c, sizeof(c), "%s", json_object_get(ej, "overlap") ? "the window both ran" :
									     "each side's own window, added");
		json_decref(ej);
		bidir_gbps(FC, &ej);
		snprintf(e, sizeof(e), "%s", json_object_get(ej, "overlap") ? "the window both ran" :
									     "each side's own window, added");
		json_decref(ej);
	}
	row(f, "both ways (`-b`)", c, e, "perftest_parameters.c print_full_bw_report");
	tp = render(PT, 0, 1);
	tf = render(FC, 0, 1);
	row(f, "bandwidth unit (text)",
	    strstr(tp, "BW average[MiB/sec]") ? "MiB/sec; Gb/sec with `--report-gbits`" : "Gb/s",
	    strstr(tf, "MiB/sec") ? "MiB/sec" : "Gb/s", "perftest_parameters.c print_report_bw (report_fmt)");
	row(f, "BW peak (text)", strstr(tp, "BW peak[") ? "a column (`-n` up to 20,000 a QP)" : "none",
	    strstr(tf, "peak") ? "a column" : "none", "perftest_parameters.c print_report_bw");
	row(f, "iterations (text)", strstr(tp, " 20000 ") ? "#iterations: `-n` times the QPs" : "per QP",
	    strstr(tf, " 5000 ") ? "ITERS: `-n` a QP" : "?", "perftest_parameters.c print_report_bw");
	free(tp);
	free(tf);
	fclose(f);
	return buf;
}

#define DOC "doc/pair-bench.md"
#define BEGIN "<!-- knobs:begin (tests/unit/test_ptknobs.c writes this table) -->\n"
#define END "<!-- knobs:end -->"

static void test_doc_table(void **state)
{
	char *table = knob_table(), *doc = NULL, *b, *en;
	size_t len = 0;
	FILE *f = fopen(DOC, "r");

	(void)state;
	assert_non_null(f);
	assert_int_equal(getdelim(&doc, &len, '\0', f) > 0, 1);
	fclose(f);
	b = strstr(doc, BEGIN);
	en = b ? strstr(b, END) : NULL;
	if (!b || !en)
		fail_msg(DOC " has no table between '%s' and '%s'", BEGIN, END);
	b += strlen(BEGIN);
	if (getenv("FC_DOC_WRITE")) {
		f = fopen(DOC, "w");
		assert_non_null(f);
		fprintf(f, "%.*s%s%s", (int)(b - doc), doc, table, en);
		fclose(f);
	} else if ((size_t)(en - b) != strlen(table) || memcmp(b, table, strlen(table))) {
		fail_msg(DOC "'s table of knobs is not what the code resolves; FC_DOC_WRITE=1 build/tests/test_ptknobs rewrites it as:\n%s",
			 table);
	}
	free(doc);
	free(table);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_size_default),
		cmocka_unit_test(test_receives),
		cmocka_unit_test(test_receives_posted),
		cmocka_unit_test(test_caps),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_bidir_windows),
		cmocka_unit_test(test_units),
		cmocka_unit_test(test_peak_delta),
		cmocka_unit_test(test_peak_run),
		cmocka_unit_test(test_doc_table),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
