/* A command's run on a lab rack, judged for starvation (see starve.h). */
#include "lab/starve.h"
#include "lab/fabloss.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/hostloss.h"
#include "core/log.h"
#include "core/out.h"

static struct {
	int started, judged, starved;
	char name[40], dir[PATH_MAX], why[1024], stalled[512];
	struct fc_sched start;
	struct fc_starve_fig fig;
} run;

int fc_starve_begin(void)
{
	const char *name = getenv("FABCHECK_LAB_RACK");

	if (!name || !*name)
		return 0;
	if (fc_starve_rack_dir(name, run.dir, sizeof(run.dir))) {
		fc_warn("FABCHECK_LAB_RACK: '%.40s' is not a lab rack's name (lowercase letters, "
			"digits, '-'); results are not checked for a starved rack",
			name);
		return 0;
	}
	snprintf(run.name, sizeof(run.name), "%s", name);
	run.fig.guests = fc_starve_sample(fc_starve_proc(), run.dir, run.name, &run.start);
	run.fig.cpus = (int)sysconf(_SC_NPROCESSORS_ONLN);
	if (run.fig.guests <= 0) {
		fc_warn("FABCHECK_LAB_RACK: no QEMU of lab rack '%s' runs here (its pid files in "
			"%s/nodes); results are not checked for a starved rack",
			run.name, run.dir);
		return 0;
	}
	run.started = 1;
	/* the fabric's own losses, judged on the same signal (fabloss.h) */
	if (fc_fabloss_begin(run.dir, run.name))
		fc_host_loss = fc_fabloss_explains;
	return 1;
}

/* Samples again and judges, once: the drain and the document agree. */
static int judge_now(void)
{
	struct fc_sched end;

	if (!run.started)
		return 0;
	if (run.judged)
		return run.starved;
	run.judged = 1;
	fc_starve_sample(fc_starve_proc(), run.dir, run.name, &end);
	run.fig.calib_gbps = run.fig.baseline_gbps = -1; /* the run's own figures judge it */
	fc_starve_between(&run.start, &end, &run.fig);
	run.fig.stalled = fc_starve_stalled(run.dir, run.stalled, sizeof(run.stalled)) ?
				  NULL :
				  run.stalled;
	run.starved = fc_starve_judge(&run.fig, run.why, sizeof(run.why));
	return run.starved;
}

int fc_starve_hold(char *why, size_t len)
{
	if (!judge_now())
		return 0;
	snprintf(why, len, "%s", run.why);
	return 1;
}

json_t *fc_starve_json(const char *rack, const struct fc_starve_fig *f, const char *why,
		       int starved)
{
	json_t *o = json_object();

	json_object_set_new(o, "rack", json_string(rack));
	json_object_set_new(o, "starved", json_boolean(starved));
	json_object_set_new(o, "why", fc_json_text(why));
	json_object_set_new(o, "wait_pct", f->wait_pct >= 0 ? json_real(f->wait_pct) : json_null());
	json_object_set_new(o, "runnable_s", json_real(f->runnable_s));
	json_object_set_new(o, "guests", json_integer(f->guests));
	json_object_set_new(o, "cpus", json_integer(f->cpus));
	json_object_set_new(o, "wall_s", f->wall_s > 0 ? json_real(f->wall_s) : json_null());
	json_object_set_new(o, "wait_limit_pct", json_real(fc_starve_wait_limit(f)));
	json_object_set_new(o, "stalled", f->stalled ? fc_json_text(f->stalled) : json_null());
	return o;
}

void fc_starve_set_aside(json_t *doc, const struct fc_starve_fig *f, const char *why)
{
	static const char *const naming[] = { "findings", "diagnosis", "suspects", "sets" };
	json_t *lab = fc_starve_json(run.name, f, why, 1), *aside = json_object(), *v;

	for (size_t i = 0; i < sizeof(naming) / sizeof(naming[0]); i++) {
		v = json_object_get(doc, naming[i]);
		if (!v)
			continue;
		json_object_set(aside, naming[i], v);
		json_object_del(doc, naming[i]);
	}
	json_object_set_new(lab, "set_aside", aside);
	json_object_set_new(doc, "lab", lab);
	json_object_set_new(doc, "findings", json_array());
	json_array_append_new(json_object_get(doc, "findings"), fc_json_text(why));
	json_object_set_new(doc, "verdict", json_string("warn"));
}

int fc_starve_doc(json_t *doc)
{
	int starved = judge_now();

	if (!run.started)
		return 0;
	if (starved)
		fc_starve_set_aside(doc, &run.fig, run.why);
	else {
		json_object_set_new(doc, "lab", fc_starve_json(run.name, &run.fig, run.why, 0));
		fc_fabloss_note(doc);
	}
	return starved;
}
