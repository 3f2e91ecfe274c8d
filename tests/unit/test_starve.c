/* Unit tests of lab/starve.c and lab/starve_run.c: whether the virtual
 * rack was starved, on recorded figures, and what a starved run's
 * document and drain become. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/out.h"
#include "ctl/drain.h"
#include "lab/starve.h"

/* Two samples of one thread's /proc/PID/schedstat into @f. */
static void between(const char *a, const char *b, struct fc_starve_fig *f)
{
	struct fc_sched x = { 0 }, y = { 0 };

	assert_int_equal(fc_sched_parse(a, &x), 0);
	assert_int_equal(fc_sched_parse(b, &y), 0);
	f->calib_gbps = f->baseline_gbps = -1;
	f->stalled = NULL;
	fc_starve_between(&x, &y, f);
}

/*
 * Recorded on this project's build host (2 cores shared by 8 helpers'
 * builds, load average 3.68): /proc/PID/schedstat of a CPU-bound loop 0.2 s
 * after it started and 3 s later. Alone beside the host's load it waited
 * 738 ms for 2271 ms on a CPU (24.5%); with two more such loops beside it,
 * 2370 ms for 650 ms (78.5%): a guest's vCPU thread then runs at a fifth of
 * its speed.
 */
static void test_judge_recorded_wait(void **state)
{
	struct fc_starve_fig f = { 0 };
	char why[1024];

	(void)state;
	between("48328265 175861014 16\n", "697831961 2545950012 241\n", &f);
	assert_int_equal((int)(f.wait_pct * 10 + 0.5), 785);
	assert_true(fc_starve_judge(&f, why, sizeof(why)));
	assert_non_null(strstr(why, FC_STARVE_TEXT " (its QEMU threads waited for a CPU 78.5% "
					 "of the 3.0 s they were runnable, over 25%)"));

	between("142692678 59934222 31\n", "2413316363 798310456 553\n", &f);
	assert_int_equal((int)(f.wait_pct * 10 + 0.5), 245);
	assert_false(fc_starve_judge(&f, why, sizeof(why)));
	assert_string_equal(why, "the virtual rack was not starved: its QEMU threads waited for "
				 "a CPU 24.5% of the 3.0 s they were runnable");
	/* the same wait, too little runnable time to say anything */
	f.runnable_s = 0.2;
	f.wait_pct = 78.5;
	assert_false(fc_starve_judge(&f, why, sizeof(why)));
	assert_non_null(strstr(why, "too idle (0.20 s runnable)"));
}

/* ../shared/design/virtual-rack.md: a quiet rack's 64 KiB-1 MiB writes move
 * 0.15-0.18 Gb/s. A calibration at the low end against a best at the high
 * end is a quiet host; below half of the best, a starved one. */
static void test_judge_calibration(void **state)
{
	struct fc_starve_fig f = { .wait_pct = -1, .calib_gbps = 0.15, .baseline_gbps = 0.18 };
	char why[1024];

	(void)state;
	assert_false(fc_starve_judge(&f, why, sizeof(why)));
	assert_non_null(strstr(why, "its calibration pair moved 0.15 Gb/s, this host's best 0.18"));
	f.calib_gbps = 0.089;
	assert_true(fc_starve_judge(&f, why, sizeof(why)));
	assert_non_null(strstr(why, FC_STARVE_TEXT " (its calibration pair moved 0.089 Gb/s, "
					 "below half of this host's best 0.18 Gb/s)"));
	f.baseline_gbps = -1; /* the host's first: nothing to hold it against */
	assert_false(fc_starve_judge(&f, why, sizeof(why)));
}

/* A quiet 3-node rack on this 2-CPU host waited 26.058% of its calibration
 * pair (lab calibrate at lab up, 2026-12-06; /work racks dr3, 3 guests):
 * its guests outnumber the CPUs and wait a third by their own number. Not
 * starved; the same wait with a CPU per guest, or 70% with three guests,
 * is. */
static void test_judge_more_guests_than_cpus(void **state)
{
	struct fc_starve_fig f = { .wait_pct = 26.058, .runnable_s = 63.682, .calib_gbps = -1,
				   .baseline_gbps = -1, .guests = 3, .cpus = 2 };
	char why[1024];

	(void)state;
	assert_true(fc_starve_inherent_pct(3, 2) > 33.3 && fc_starve_inherent_pct(3, 2) < 33.4);
	assert_true(fc_starve_inherent_pct(4, 2) == 50);
	assert_true(fc_starve_inherent_pct(2, 2) == 0 && fc_starve_inherent_pct(2, 16) == 0);
	assert_true(fc_starve_inherent_pct(0, 2) == 0 && fc_starve_inherent_pct(3, 0) == 0);
	assert_false(fc_starve_judge(&f, why, sizeof(why)));
	assert_non_null(strstr(why, "was not starved"));
	f.wait_pct = 70;
	assert_true(fc_starve_judge(&f, why, sizeof(why)));
	assert_non_null(strstr(why, "over 58%, above what its own threads wait on the host's CPUs)"));
	f.wait_pct = 26.058;
	f.cpus = 4;
	assert_true(fc_starve_judge(&f, why, sizeof(why)));
	assert_non_null(strstr(why, "over 25%)"));
}

/* A bridged 2-node rack whose QEMU had the host's CPUs first (lab calibrate,
 * 2026-12-06, lab/starve.c): its 4 busy threads asked 22.0 s of runnable
 * time in about 9 s on 2 CPUs, so they wait by themselves; 28% is theirs,
 * not a busy host's. The same wait with the window unknown, or twice the
 * room (4 CPUs), is starvation; and a host busy with other work (the rack
 * ran 10 s of 20 s of CPU and waited 20 s: 67%) still is. */
static void test_judge_own_threads(void **state)
{
	struct fc_starve_fig f = { .wait_pct = 28.1, .runnable_s = 22.0, .calib_gbps = -1,
				   .baseline_gbps = -1, .guests = 2, .cpus = 2, .wall_s = 9 };
	char why[1024];

	(void)state;
	assert_true(fc_starve_demand_pct(22.0, 2, 9) > 18.1 && fc_starve_demand_pct(22.0, 2, 9) < 18.2);
	assert_true(fc_starve_demand_pct(22.0, 2, 0) == 0 && fc_starve_demand_pct(22.0, 4, 9) == 0);
	assert_true(fc_starve_demand_pct(0, 2, 9) == 0 && fc_starve_demand_pct(22.0, 0, 9) == 0);
	assert_false(fc_starve_judge(&f, why, sizeof(why)));
	assert_non_null(strstr(why, "was not starved"));
	f.wall_s = 0;
	assert_true(fc_starve_judge(&f, why, sizeof(why)));
	assert_non_null(strstr(why, "over 25%)"));
	f.wall_s = 9;
	f.cpus = 4;
	assert_true(fc_starve_judge(&f, why, sizeof(why)));
	f = (struct fc_starve_fig){ .wait_pct = 66.7, .runnable_s = 30, .calib_gbps = -1,
				    .baseline_gbps = -1, .guests = 2, .cpus = 2, .wall_s = 10 };
	assert_true(fc_starve_judge(&f, why, sizeof(why)));
	assert_non_null(strstr(why, "over 58%, above what its own threads wait"));
}

/* The kernel's line of a node whose NIC stalled, read off a rack of make
 * check (tests/cli/cases_lab.sh): set aside whatever the figures. */
static void test_judge_stalled(void **state)
{
	struct fc_starve_fig f = { .wait_pct = 2, .runnable_s = 4, .calib_gbps = -1,
				   .baseline_gbps = -1,
				   .stalled = "nodeB: virtio_net virtio4 eth0: NETDEV WATCHDOG: "
					      "CPU: 0: transmit queue 0 timed out 5072 ms" };
	char why[1024];

	(void)state;
	assert_true(fc_starve_judge(&f, why, sizeof(why)));
	assert_non_null(strstr(why, "stalled a node's NIC (nodeB: virtio_net"));
	assert_non_null(strstr(why, "results are not about the nodes; restart the rack"));
}

static void test_sched_parse(void **state)
{
	struct fc_sched s = { 0 };

	(void)state;
	assert_int_equal(fc_sched_parse("x y 1", &s), -EINVAL);
	assert_int_equal(fc_sched_parse("12", &s), -EINVAL);
	assert_int_equal(fc_sched_parse("", &s), -EINVAL);
	assert_int_equal(fc_sched_parse("-5 3 1", &s), -EINVAL);
	assert_int_equal(s.tasks, 0);
	assert_int_equal(fc_sched_parse("10 20 3\n", &s), 0);
	assert_int_equal(fc_sched_parse("1 2 3", &s), 0);
	assert_int_equal(s.tasks, 2);
	assert_true(s.cpu_ns == 11 && s.wait_ns == 22);
}

static void put(const char *dir, const char *name, const char *text, size_t len)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	fwrite(text, 1, len, f);
	fclose(f);
}

/* A rack folder and a /proc of its own: nodeA's QEMU with two threads;
 * nodeB's pid file names a process that is not the rack's QEMU (skipped);
 * nodeC's holds no number. */
static void test_sample_and_stall(void **state)
{
	static const char cmd[] = "qemu-system-x86_64\0-name\0fabcheck/sv/nodeA\0";
	static const char serial[] = "fabcheck-guest: nodeB: ready\n[  574.129349] virtio_net "
				     "virtio4 eth0: NETDEV WATCHDOG: CPU: 0: transmit queue 0 "
				     "timed out 5072 ms\n\033[1mmore\n";
	char root[] = "/tmp/fc-starve-XXXXXX", p[256], line[512];
	struct fc_sched s;

	(void)state;
	assert_non_null(mkdtemp(root));
	snprintf(p, sizeof(p), "mkdir -p %s/rack/nodes %s/proc/4242/task/4242 "
			       "%s/proc/4242/task/4243 %s/proc/77/task/77",
		 root, root, root, root);
	assert_int_equal(system(p), 0);
	snprintf(p, sizeof(p), "%s/rack/nodes", root);
	put(p, "nodeA.pid", "4242\n", 5);
	put(p, "nodeB.pid", "77\n", 3);
	put(p, "nodeC.pid", "x\n", 2);
	snprintf(p, sizeof(p), "%s/proc/4242", root);
	put(p, "cmdline", cmd, sizeof(cmd) - 1);
	put(p, "task/4242/schedstat", "1000 200 5\n", 11);
	put(p, "task/4243/schedstat", "3000 800 9\n", 11);
	snprintf(p, sizeof(p), "%s/proc/77", root);
	put(p, "cmdline", "sleep\0" "600", 9);
	put(p, "task/77/schedstat", "99999 99999 1\n", 14);
	snprintf(p, sizeof(p), "%s/proc", root);
	snprintf(line, sizeof(line), "%s/rack", root);
	assert_int_equal(fc_starve_sample(p, line, "sv", &s), 1);
	assert_int_equal(s.tasks, 2);
	assert_true(s.cpu_ns == 4000 && s.wait_ns == 1000);
	assert_int_equal(fc_starve_sample(p, line, "other", &s), 0); /* another rack's name */

	assert_int_equal(fc_starve_stalled(line, p, sizeof(p)), -1);
	snprintf(p, sizeof(p), "%s/rack/nodes", root);
	put(p, "nodeB.serial.log", serial, sizeof(serial) - 1);
	assert_int_equal(fc_starve_stalled(line, p, sizeof(p)), 0);
	assert_string_equal(p, "nodeB: NETDEV WATCHDOG: CPU: 0: transmit queue 0 timed out 5072 ms");
	snprintf(p, sizeof(p), "rm -rf %s", root);
	assert_int_equal(system(p), 0);
}

static void test_rack_dir(void **state)
{
	char buf[256];

	(void)state;
	setenv("FABCHECK_LAB_HOME", "/x/lab", 1);
	assert_int_equal(fc_starve_rack_dir("demo", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "/x/lab/racks/demo");
	assert_int_equal(fc_starve_rack_dir("../etc", buf, sizeof(buf)), -EINVAL);
	assert_int_equal(fc_starve_rack_dir("Demo", buf, sizeof(buf)), -EINVAL);
	assert_int_equal(fc_starve_rack_dir("", buf, sizeof(buf)), -EINVAL);
	unsetenv("FABCHECK_LAB_HOME");
}

/* A starved run's document names no node: its findings, diagnosis and
 * suspects go under "lab"'s "set_aside", and its one finding is the
 * sentence. */
static void test_set_aside(void **state)
{
	struct fc_starve_fig f = { .wait_pct = 78.5, .runnable_s = 3 };
	json_t *doc = json_pack("{s:s, s:[s], s:[{s:s}], s:[{s:s}], s:[i]}", "verdict", "fail",
				"findings", "nodeA rxe1 port 1: error counters rose",
				"diagnosis", "subject", "nodeA rxe1", "suspects", "node", "nodeA",
				"results", 1);
	const json_t *aside;

	(void)state;
	fc_starve_set_aside(doc, &f, FC_STARVE_TEXT " (why)");
	assert_string_equal(fc_jstr(doc, "verdict", ""), "warn");
	assert_int_equal(json_array_size(json_object_get(doc, "findings")), 1);
	assert_string_equal(json_string_value(json_array_get(json_object_get(doc, "findings"), 0)),
			    FC_STARVE_TEXT " (why)");
	assert_null(json_object_get(doc, "diagnosis"));
	assert_null(json_object_get(doc, "suspects"));
	assert_non_null(json_object_get(doc, "results")); /* the measurements stay */
	assert_true(json_is_true(json_object_get(json_object_get(doc, "lab"), "starved")));
	aside = json_object_get(json_object_get(doc, "lab"), "set_aside");
	assert_string_equal(json_string_value(json_array_get(json_object_get(aside, "findings"), 0)),
			    "nodeA rxe1 port 1: error counters rose");
	json_decref(doc);
}

static int hold_yes(char *why, size_t len)
{
	snprintf(why, len, "%s (held)", FC_STARVE_TEXT);
	return 1;
}

/* The drain of a starved run drains nothing and says why; without the
 * hook the same call drains (here through an scontrol that is missing:
 * one failed command). */
static void test_drain_held(void **state)
{
	struct fc_drain_opts o = { .drain = 1 };
	json_t *targets = json_array(), *doc = json_pack("{s:s, s:[]}", "verdict", "fail",
							 "findings");

	(void)state;
	setenv("FABCHECK_SCONTROL", "/nonexistent/scontrol", 1);
	fc_drain_target(targets, "nodeA", "port", "rxe1", "error counters rose");
	fc_drain_hold = hold_yes;
	assert_int_equal(fc_drain_apply(doc, NULL, 0, "matrix", &o, targets, NULL), 0);
	assert_int_equal(json_array_size(json_object_get(doc, "slurm")), 0);
	assert_non_null(strstr(fc_jstr(doc, "drain_held", ""), "(held)"));
	fc_drain_hold = NULL;
	json_object_del(doc, "drain_held");
	fc_drain_apply(doc, NULL, 0, "matrix", &o, targets, NULL);
	assert_null(json_object_get(doc, "drain_held"));
	assert_true(json_array_size(json_object_get(doc, "slurm")) > 0 ||
		    json_array_size(json_object_get(doc, "findings")) > 0);
	unsetenv("FABCHECK_SCONTROL");
	json_decref(targets);
	json_decref(doc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_judge_recorded_wait),
		cmocka_unit_test(test_judge_calibration),
		cmocka_unit_test(test_judge_stalled),
		cmocka_unit_test(test_judge_more_guests_than_cpus),
		cmocka_unit_test(test_judge_own_threads),
		cmocka_unit_test(test_sched_parse),
		cmocka_unit_test(test_sample_and_stall),
		cmocka_unit_test(test_rack_dir),
		cmocka_unit_test(test_set_aside),
		cmocka_unit_test(test_drain_held),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
