/*
 * fabcheck lab calibrate: one pair between nodeA and nodeB of a lab rack
 * (1 MiB RDMA writes on rxe0 for 2 s), timed against this host's best
 * calibration so far, with the guests' run-queue wait over it: whether the
 * host starves the rack now (lab/starve.h). `lab up` runs it once the
 * guests are ready; --recorded judges its figures again without a run
 * (scripts/demo.sh, before it starts).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/log.h"
#include "core/out.h"
#include "core/readfile.h"
#include "core/summary.h"
#include "core/safefile.h"
#include "core/util.h"
#include "lab/starve.h"

struct calib {
	char dir[PATH_MAX], best_path[PATH_MAX + 32], stalled[512];
	struct fc_starve_fig fig;
};

/* A figure file: "KEY VALUE" lines (the ones fill_calib writes). */
static double read_key(const char *path, const char *key)
{
	char text[512], *p, *end;
	size_t kl = strlen(key);
	double v;

	if (fc_read_file(path, text, sizeof(text)) <= 0)
		return -1;
	for (p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (!strncmp(p, key, kl) && p[kl] == ' ') {
			v = strtod(p + kl + 1, &end);
			return end != p + kl + 1 && (*end == '\n' || !*end) && v >= 0 && v < 1e6 ? v : -1;
		}
	return -1;
}

/* Whether the rack's fabric is the host bridge (rack.env's line
 * "RACK_FABRIC=bridge", written by lab up; lab/fabric.sh): its pair moves
 * about 8 times the multicast fabric's, so each keeps its own best. */
static int rack_bridged(const char *dir)
{
	char path[PATH_MAX + 16], text[4096];

	snprintf(path, sizeof(path), "%s/rack.env", dir);
	if (fc_read_file(path, text, sizeof(text)) <= 0)
		return 0;
	return !strncmp(text, "RACK_FABRIC=bridge\n", 19) || strstr(text, "\nRACK_FABRIC=bridge\n");
}

static int fill_calib(FILE *f, void *arg)
{
	const struct fc_starve_fig *g = arg;

	fprintf(f, "gbps %.6g\nbaseline %.6g\nwait_pct %.3f\nrunnable_s %.3f\nguests %d\ncpus %d\nwall_s %.3f\n",
		g->calib_gbps, g->baseline_gbps, g->wait_pct, g->runnable_s, g->guests, g->cpus,
		g->wall_s);
	return 0;
}

static int fill_best(FILE *f, void *arg)
{
	fprintf(f, "gbps %.6g\n", *(const double *)arg);
	return 0;
}

/* The pair, run by this binary with FABCHECK_LAB_RACK unset (its result
 * is read here, not set aside): its bandwidth, or -1. */
static double run_pair(const char *dir, char **extra, int nextra)
{
	char cfg[PATH_MAX + 16], self[PATH_MAX];
	const char *base[] = { "pair", "nodeA", "nodeB", "--ssh-config", cfg, "--no-db", "-d",
			       "rxe0", "--test", "write", "--bw", "-s", "1M", "-D", "2",
			       "--min-gbps", "0.001", "--json" };
	size_t nb = sizeof(base) / sizeof(base[0]), len = 0;
	int fd[2], status;
	char **args, *out;
	double gbps = -1;
	json_t *doc;
	ssize_t n;
	pid_t pid;

	snprintf(cfg, sizeof(cfg), "%s/ssh_config", dir);
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	args = calloc(nb + (size_t)nextra + 2, sizeof(*args));
	if (n <= 0 || !args || pipe(fd)) {
		free(args);
		return -1;
	}
	self[n] = '\0';
	args[0] = self;
	memcpy(args + 1, base, sizeof(base));
	memcpy(args + 1 + nb, extra, (size_t)nextra * sizeof(*args));
	fflush(NULL);
	if ((pid = fork()) == 0) {
		dup2(fd[1], STDOUT_FILENO);
		close(fd[0]);
		close(fd[1]);
		unsetenv("FABCHECK_LAB_RACK");
		execv(self, args);
		_exit(127);
	}
	close(fd[1]);
	free(args);
	out = pid > 0 ? fc_read_fd(fd[0], 1 << 22, &len) : NULL;
	close(fd[0]);
	while (pid > 0 && waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	doc = out ? json_loadb(out, len, 0, NULL) : NULL;
	if (json_is_number(json_object_get(json_array_get(json_object_get(doc, "results"), 0),
					   "gbps")))
		gbps = json_number_value(json_object_get(
			json_array_get(json_object_get(doc, "results"), 0), "gbps"));
	json_decref(doc);
	free(out);
	return gbps;
}

/* Runs the calibration and records it (the rack's "calibration", and the
 * host's best for this MTU when it is better). 0, or -1 when the pair
 * gave no figure. */
static int calibrate(struct calib *c, char **extra, int nextra)
{
	struct fc_sched a, b;
	char path[PATH_MAX + 16];
	double best;
	int found = fc_starve_sample(fc_starve_proc(), c->dir, strrchr(c->dir, '/') + 1, &a);

	c->fig.calib_gbps = run_pair(c->dir, extra, nextra);
	fc_starve_sample(fc_starve_proc(), c->dir, strrchr(c->dir, '/') + 1, &b);
	fc_starve_between(&a, &b, &c->fig);
	c->fig.guests = found;
	c->fig.cpus = (int)sysconf(_SC_NPROCESSORS_ONLN);
	if (!found)
		c->fig.wait_pct = -1; /* no QEMU of the rack read: not measured */
	if (c->fig.calib_gbps <= 0)
		return -1;
	/* The best of racks of this many guests: more guests share the host's
	 * CPUs, and their pair moves less on a quiet host too. */
	snprintf(c->best_path + strlen(c->best_path), sizeof(c->best_path) - strlen(c->best_path),
		 "-nodes%d%s", found, rack_bridged(c->dir) ? "-bridge" : "");
	best = read_key(c->best_path, "gbps");
	c->fig.baseline_gbps = best;
	snprintf(path, sizeof(path), "%s/calibration", c->dir);
	if (fc_replace_file("lab calibrate", path, fill_calib, &c->fig))
		return -1;
	if (c->fig.calib_gbps > best)
		fc_replace_file("lab calibrate", c->best_path, fill_best, &c->fig.calib_gbps);
	return 0;
}

static int recorded(struct calib *c)
{
	char path[PATH_MAX + 16];

	snprintf(path, sizeof(path), "%s/calibration", c->dir);
	c->fig.calib_gbps = read_key(path, "gbps");
	c->fig.baseline_gbps = read_key(path, "baseline");
	c->fig.wait_pct = read_key(path, "wait_pct");
	c->fig.runnable_s = read_key(path, "runnable_s");
	c->fig.guests = (int)read_key(path, "guests"); /* -1 (unknown) reads as none */
	c->fig.cpus = (int)read_key(path, "cpus");
	c->fig.wall_s = read_key(path, "wall_s"); /* a file before it: -1, unknown */
	if (c->fig.wall_s < 0)
		c->fig.wall_s = 0;
	return c->fig.calib_gbps > 0 ? 0 : -1;
}

/* The judgment and its figures, wrapped to the terminal (core/summary.h;
 * one line where piped with no COLUMNS; whole in --json). */
static void render(FILE *f, const json_t *doc)
{
	const json_t *lab = json_object_get(doc, "lab");
	char *line = NULL;

	if (asprintf(&line, "calibration of lab rack '%s': %s", fc_jstr(lab, "rack", "?"),
		     fc_jstr(lab, "why", "?")) < 0) {
		fprintf(f, "calibration of lab rack '%s': %s\n", fc_jstr(lab, "rack", "?"),
			fc_jstr(lab, "why", "?"));
		return;
	}
	fc_put_wrapped(f, "", 2, line, 0, FC_WRAP_LINES);
	free(line);
}

int fc_lab_calibrate(struct fc_ctx *ctx, int argc, char **argv)
{
	const char *name = getenv("FABCHECK_LAB_NAME");
	struct calib c = { .fig = { .wait_pct = -1 } };
	int again = 0, mtu = 0, starved, nextra = 0;
	char why[1024], **extra = NULL;
	json_t *doc, *lab;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--name") && i + 1 < argc)
			name = argv[++i];
		else if (!strcmp(argv[i], "--mtu") && i + 1 < argc)
			mtu = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--recorded"))
			again = 1;
		else if (!strcmp(argv[i], "--json"))
			continue;
		else if (!strcmp(argv[i], "--")) {
			extra = argv + i + 1; /* the pair's own options (tests: --launcher) */
			nextra = argc - i - 1;
			break;
		} else {
			fc_err("lab calibrate: unknown argument '%s'; usage: fabcheck lab calibrate "
			       "[--name NAME] [--mtu N] [--recorded] [--json] [-- PAIR OPTIONS]",
			       argv[i]);
			return FC_EXIT_USAGE;
		}
	}
	if (!name || !*name)
		name = "lab";
	/* each refusal names its own input: a bad name said "or --mtu 0 is no
	 * MTU" of an --mtu never given (0: left out, 9000) */
	if (mtu < 0 || mtu > 65535) {
		fc_err("lab calibrate: --mtu %d is no MTU; give the rack's MTU in bytes, 1 to "
		       "65535 (left out: 9000)", mtu);
		return FC_EXIT_USAGE;
	}
	if (fc_starve_rack_dir(name, c.dir, sizeof(c.dir))) {
		fc_err("lab calibrate: '%s' is not a rack name; use 1 to 32 lowercase letters, "
		       "digits or '-', starting with a letter", name);
		return FC_EXIT_USAGE;
	}
	snprintf(c.best_path, sizeof(c.best_path), "%.*s/calibration-best-mtu%d",
		 (int)(strstr(c.dir, "/racks/") - c.dir), c.dir, mtu ? mtu : 9000);
	if (again ? recorded(&c) : calibrate(&c, extra, nextra)) {
		fc_err("lab calibrate: rack '%s': %s; check it with 'fabcheck lab status --name %s'",
		       name, again ? "no calibration recorded (lab up records one)" : "the calibration pair gave no figure (its messages above say why)", name);
		return FC_EXIT_CANT;
	}
	c.fig.stalled = fc_starve_stalled(c.dir, c.stalled, sizeof(c.stalled)) ? NULL : c.stalled;
	starved = fc_starve_judge(&c.fig, why, sizeof(why));
	if (c.fig.baseline_gbps <= 0 && !starved)
		snprintf(why + strlen(why), sizeof(why) - strlen(why),
			 "; its calibration pair moved %.3g Gb/s, this host's first at MTU %d: the "
			 "baseline from now on",
			 c.fig.calib_gbps, mtu ? mtu : 9000);
	doc = fc_doc_new();
	fc_finding(doc, starved ? FC_FAIL : FC_PASS, "%s", why);
	lab = fc_starve_json(name, &c.fig, why, starved);
	json_object_set_new(lab, "calib_gbps", json_real(c.fig.calib_gbps));
	json_object_set_new(lab, "baseline_gbps", c.fig.baseline_gbps > 0 ?
							  json_real(c.fig.baseline_gbps) :
							  json_null());
	json_object_set_new(doc, "lab", lab);
	return fc_emit_listing(ctx, doc, render);
}
