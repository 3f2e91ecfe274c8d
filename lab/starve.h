/*
 * Whether the virtual rack was starved: its QEMU guests could not run at
 * the speed of their own healthy baseline because the host was busy. Then
 * a result is about the host, not the nodes. Only the lab knows that its
 * nodes are QEMU guests: a command judges this only when FABCHECK_LAB_RACK
 * names the lab rack its nodes are on (the explicit signal; scripts/demo.sh
 * sets it). Real nodes are never judged by it.
 */
#ifndef FC_LAB_STARVE_H
#define FC_LAB_STARVE_H

#include <jansson.h>
#include <stddef.h>

/* CPU time and run-queue wait of a set of threads, nanoseconds (the first
 * two fields of /proc/PID/task/TID/schedstat). */
struct fc_sched {
	double cpu_ns, wait_ns;
	int tasks;
	double uptime_s; /* the host's /proc/uptime at the sample; -1 unknown */
};

/* The figures of one judgment; a figure below 0 is unknown. */
struct fc_starve_fig {
	double wait_pct;      /* the guests' run-queue wait, % of their runnable time */
	double runnable_s;    /* their runnable time over the window, seconds */
	double calib_gbps;    /* the calibration pair's bandwidth */
	double baseline_gbps; /* this host's best calibration so far */
	const char *stalled;  /* "nodeX: its kernel's NETDEV WATCHDOG line", NULL: none */
	int guests, cpus;     /* the rack's QEMU guests and the host's CPUs; 0: unknown */
	double wall_s;        /* the window's length, seconds; 0: unknown */
};

/* Above this share of their runnable time spent waiting, beyond the share
 * their own number explains (fc_starve_inherent_pct), the guests were
 * starved (the reasoning is beside its definition in starve.c). */
#define FC_STARVE_WAIT_PCT 25.0
/* Below this share of the baseline, the calibration pair was starved. */
#define FC_STARVE_CALIB_FRAC 0.5
/* Less runnable time than this says nothing (an idle rack). */
#define FC_STARVE_MIN_RUNNABLE_S 0.5

#define FC_STARVE_TEXT \
	"the virtual rack was starved: the host is busy; results are not about the nodes"

/* Pure: the share of their runnable time @guests busy single-CPU guests
 * wait on @cpus CPUs with nothing else running, in %: (guests - cpus) /
 * guests when they outnumber the CPUs, else 0 (0 when either is unknown). */
double fc_starve_inherent_pct(int guests, int cpus);
/* The share of @runnable_s the rack's threads must wait with the host's
 * @cpus given to them alone for @wall_s: what they asked beyond cpus x wall
 * (0 when the window is unknown). */
double fc_starve_demand_pct(double runnable_s, int cpus, double wall_s);

/* Pure: the wait above which @f's guests were starved, in %:
 * FC_STARVE_WAIT_PCT above their inherent share. */
double fc_starve_wait_limit(const struct fc_starve_fig *f);

/* Pure. 1 when @f shows a starved (or stalled) rack, with the sentence
 * and its figures in @why; 0 with what was seen in @why otherwise. */
int fc_starve_judge(const struct fc_starve_fig *f, char *why, size_t len);

/* Pure: a schedstat text's first two fields into @s (added). -EINVAL when
 * the text is not two numbers. */
int fc_sched_parse(const char *text, struct fc_sched *s);

/* The rack's folder ($FABCHECK_LAB_HOME or ~/.cache/fabcheck/lab,
 * racks/NAME) into @buf. -EINVAL for a name the lab would refuse. */
int fc_starve_rack_dir(const char *name, char *buf, size_t len);

/* Sums the schedstat of every thread of the rack's QEMU processes (their
 * pid files under @dir/nodes; a pid whose command line is not that rack's
 * QEMU is skipped) read under @proc ("/proc"). Returns the processes read. */
int fc_starve_sample(const char *proc, const char *dir, const char *name, struct fc_sched *s);

/* The last node letter a lab rack has (lab/lib.sh LAB_NODE_LETTERS: A-H). */
#define FC_LAB_LAST_NODE 'H'
/* The pid of node @letter's QEMU (its pid file under @dir/nodes), when its
 * command line under @proc is that rack's QEMU; 0 otherwise. */
long fc_starve_node_pid(const char *proc, const char *dir, const char *name, char letter);

/* "/proc", or $FABCHECK_LAB_PROC (the CLI tests: a /proc of recorded
 * figures, tests/cli/cases_starve.sh). */
const char *fc_starve_proc(void);

/* The last NETDEV WATCHDOG line of any node's serial log under @dir, as
 * "nodeX: LINE" in @buf; 0 when there is one. */
int fc_starve_stalled(const char *dir, char *buf, size_t len);

/* wait % and runnable seconds between two samples into @f. */
void fc_starve_between(const struct fc_sched *a, const struct fc_sched *b,
		       struct fc_starve_fig *f);

/* The command's hooks (set by main when FABCHECK_LAB_RACK is set):
 * fc_starve_begin samples at the start; fc_starve_doc, called on each
 * judged document, samples again and, when starved, replaces the findings
 * that name nodes by the one sentence (the rest under "lab_starved"); and
 * fc_starve_hold tells the drain to drain nothing. */
int fc_starve_begin(void);
int fc_starve_doc(json_t *doc);
int fc_starve_hold(char *why, size_t len);

/* The "lab" member of a document: {rack, starved, why, wait_pct,
 * runnable_s, stalled}. */
json_t *fc_starve_json(const char *rack, const struct fc_starve_fig *f, const char *why,
		       int starved);

struct fc_ctx;
/* fabcheck lab calibrate (lab/cmd_calib.c). */
int fc_lab_calibrate(struct fc_ctx *ctx, int argc, char **argv);

/* Pure: @doc as a starved run's document (see fc_starve_doc). */
void fc_starve_set_aside(json_t *doc, const struct fc_starve_fig *f, const char *why);

#endif
