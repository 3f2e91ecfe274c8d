/* Beginning or resuming a matrix run (see mx_session.h). */
#include "matrix/mx_session.h"
#include "matrix/mx_history.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/log.h"
#include "core/out.h"
#include "core/pattern.h"
#include "core/sched.h"
#include "core/util.h"
#include "matrix/mx_model.h"
#include "matrix/mx_pattern.h"
#include "matrix/mx_rails.h"
#include "matrix/mx_screen.h"
#include "pair/pair.h"
#include "ctl/scale.h"
#include "ctl/ssh_mux.h"

/* pair's own defaults already measure write bandwidth at 1 MiB and read
 * latency (with read bandwidth and write latency besides): nothing to add. */
const char *const mx_default_pair_args[] = {
	NULL,
};

/* The strings of the JSON array @a (borrowed), NULL when one is not a
 * string (or out of memory). */
static const char **str_array(const json_t *a, int *n_p)
{
	const char **v = calloc(json_array_size(a) + 1, sizeof(*v));
	size_t i;
	json_t *e;

	if (!v)
		return NULL;
	json_array_foreach(a, i, e) {
		if (!json_is_string(e)) {
			free(v);
			return NULL;
		}
		v[i] = json_string_value(e);
	}
	*n_p = (int)json_array_size(a);
	return v;
}

/* The run's nodes, checked by the command line's rules: the store is a
 * file that travels, and each name reaches ssh or srun. */
static int names_from_params(struct mx_session *s)
{
	const char **v = str_array(json_object_get(s->params, "nodes"), &s->n);
	int rc = 0;

	if (!v || s->n < 2 || s->n > FC_SCHED_MAX_NODES ||
	    fc_check_nodes("matrix", (char *const *)v, s->n, NULL)) {
		fc_err("run %lld in %s: its node list is refused (it needs 2 to %d valid node "
		       "names, each once); the store is damaged or not fabcheck's",
		       (long long)s->run, fc_store_path(s->st), FC_SCHED_MAX_NODES);
		free(v);
		s->n = 0;
		return -EINVAL;
	}
	s->names = calloc((size_t)s->n + 1, sizeof(*s->names));
	for (int i = 0; s->names && i < s->n; i++)
		if (!(s->names[i] = strdup(v[i])))
			rc = -ENOMEM;
	free(v);
	return s->names ? rc : -ENOMEM;
}

/* A launch option kept in the store (or one that names a file or a
 * descriptor) is used only when the command line gives it too, with the
 * same value: as OPT VALUE, or as --pair-opt=OPT=VALUE for the options the
 * matrix has no flag of its own for. */
static int launch_repeated(const struct mx_session *s, const char *opt, const char *stored,
			   const char *given)
{
	int via = !strcmp(opt, "--save-evidence") || !strcmp(opt, "--sync-fd");

	if (!stored || (given && !strcmp(stored, given)))
		return 0;
	fc_err("run %lld in %s: its stored pair options carry %s '%s', and a store chooses "
	       "neither what runs on the nodes nor a file or descriptor: give %s%s%s%s%s on "
	       "the command line to use it", (long long)s->run, fc_store_path(s->st), opt,
	       stored, via ? "--pair-opt='" : "", opt, via ? "=" : " '", stored, "'");
	return -EPERM;
}

static void append_opt(json_t *args, const char *opt, const char *value)
{
	if (!value)
		return;
	json_array_append_new(args, json_string(opt));
	json_array_append_new(args, json_string(value));
}

/*
 * The pair options of a resumed run: the stored ones, checked by pair's
 * own rules, with --worker-cmd, --launcher and --ssh-config only when the
 * command line repeats them; the command line's launch options apply.
 */
static int resume_pair_args(struct mx_session *s, const struct mx_cli *c)
{
	const char **st = NULL, **cl = NULL;
	struct pair_launch_opts ls, lc;
	char what[512];
	int ns = 0, nc = 0, rc = FC_EXIT_CANT;

	snprintf(what, sizeof(what), "run %lld in %s: stored pair option", (long long)s->run,
		 fc_store_path(s->st));
	st = str_array(json_object_get(s->params, "pair_args"), &ns);
	cl = str_array(c->pair_args, &nc);
	if (!st || !cl) {
		fc_err("%s list is not a list of strings; the store is damaged or not fabcheck's",
		       what);
		goto out_free;
	}
	if (pair_opts_check(what, st, ns, &ls) ||
	    pair_opts_check("command line", cl, nc, &lc))
		goto out_free;
	rc = FC_EXIT_USAGE;
	if (launch_repeated(s, "--worker-cmd", ls.worker_cmd, lc.worker_cmd) ||
	    launch_repeated(s, "--launcher", ls.launcher, lc.launcher) ||
	    launch_repeated(s, "--ssh-config", ls.ssh_config, lc.ssh_config) ||
	    launch_repeated(s, "--save-evidence", ls.evidence_dir, lc.evidence_dir) ||
	    launch_repeated(s, "--sync-fd", ls.sync_fd, lc.sync_fd))
		goto out_free;
	s->pair_args = json_deep_copy(json_object_get(s->params, "pair_args"));
	append_opt(s->pair_args, "--launcher", lc.launcher);
	append_opt(s->pair_args, "--ssh-config", lc.ssh_config);
	append_opt(s->pair_args, "--worker-cmd", lc.worker_cmd);
	append_opt(s->pair_args, "--save-evidence", lc.evidence_dir);
	append_opt(s->pair_args, "--sync-fd", lc.sync_fd);
	rc = s->pair_args ? 0 : FC_EXIT_CANT;
out_free:
	free(st);
	free(cl);
	return rc;
}

/* Room for the workers (a pair child's two pipes, a port listing's two)
 * and the ssh connection sharing of the run, decided once for its pairs. */
static int prepare_launch(const struct mx_cli *c, const json_t *args, char **nodes, int n)
{
	struct fc_launch l;
	double timeout;
	int fan = fc_fanout_of(c->fanout);

	if (fc_fd_reserve("matrix", n < fan ? n : fan, 2, "--fanout "))
		return FC_EXIT_CANT;
	mx_launch_of(args, &l, &timeout);
	fc_ssh_mux_setup(&l, nodes[0], c->no_mux);
	return 0;
}

static int begin_new(struct mx_session *s, const struct mx_cli *c)
{
	json_t *args = json_deep_copy(c->pair_args);

	if (c->n < 2) {
		fc_err("matrix: give at least two nodes (or --hostfile FILE, or --resume RUN)");
		json_decref(args);
		return FC_EXIT_USAGE;
	}
	if (!c->pair_test_given)
		for (int i = 0; mx_default_pair_args[i]; i++)
			json_array_append_new(args, json_string(mx_default_pair_args[i]));
	s->params = mx_params_new(c->nodes, c->n, c->both, c->retest, &c->opts, args,
				  c->deadline_s);
	json_decref(args);
	if (prepare_launch(c, c->pair_args, c->nodes, c->n))
		return FC_EXIT_CANT;
	if (mx_cli_rails_default(c)) {
		if (mx_rails_params(s->params, c->nodes, c->n, "all", c->exclude_dev, c->fanout,
				    1) < 0)
			return FC_EXIT_USAGE;
	} else if (c->rails && strcmp(c->rails, "first") &&
		   mx_rails_params(s->params, c->nodes, c->n, c->rails, c->exclude_dev, c->fanout,
				   0)) {
		return FC_EXIT_USAGE;
	}
	if (c->pattern && strcmp(c->pattern, "pairs"))
		json_object_set_new(s->params, "pattern",
				    json_pack("{s:s, s:i}", "name", c->pattern, "k",
					      c->fan_in ? c->fan_in : c->group));
	if (c->screen) /* a new relabelling each run: other peers each night */
		json_object_set_new(s->params, "screen",
				    mx_screen_params(c->max_rounds,
						     (unsigned long long)time(NULL) ^
							     (unsigned long long)getpid() << 16));
	s->run = fc_store_run_begin(s->st, "matrix", s->params);
	s->pair_args = json_incref(json_object_get(s->params, "pair_args"));
	return s->run > 0 ? 0 : FC_EXIT_CANT;
}

static int resume(struct mx_session *s, const struct mx_cli *c)
{
	struct fc_store_run info;

	if (c->n) {
		fc_err("matrix --resume %lld: the nodes come from the run; drop the node names",
		       (long long)c->resume);
		return FC_EXIT_USAGE;
	}
	if (fc_store_run_get(s->st, c->resume, &info))
		return FC_EXIT_USAGE;
	if (strcmp(info.kind, "matrix") || !json_is_array(json_object_get(info.params, "nodes"))) {
		fc_err("run %lld in %s is a %s run, not a matrix; give a matrix run's id",
		       (long long)c->resume, fc_store_path(s->st), info.kind);
		fc_store_run_release(&info);
		return FC_EXIT_USAGE;
	}
	s->run = info.id;
	s->params = json_incref(info.params);
	fc_store_run_release(&info);
	if (mx_params_check(s->params, (long long)s->run, fc_store_path(s->st)))
		return FC_EXIT_CANT;
	return resume_pair_args(s, c);
}

/* The run's traffic pattern (params "pattern"), checked: the store travels. */
static int pattern_of(struct mx_session *s)
{
	if (mx_pattern_params(s->params, &s->r.pattern, &s->r.pattern_k)) {
		fc_err("run %lld in %s: its traffic pattern is refused; the store is damaged or "
		       "not fabcheck's", (long long)s->run, fc_store_path(s->st));
		return -EINVAL;
	}
	if (s->r.pattern == FC_PAT_BISECTION)
		s->r.leaf = mx_pattern_leaves(s->params, (const char *const *)s->names, s->n);
	return 0;
}

int mx_session_open(struct mx_session *s, const struct mx_cli *c, volatile sig_atomic_t *stop)
{
	int rc;

	memset(s, 0, sizeof(*s));
	s->st = fc_store_open(c->db);
	if (!s->st)
		return FC_EXIT_CANT;
	rc = c->resume ? resume(s, c) : begin_new(s, c);
	if (rc)
		goto out_close;
	rc = FC_EXIT_CANT;
	if (names_from_params(s))
		goto out_close;
	s->both = json_is_true(json_object_get(s->params, "both_directions"));
	s->retest = json_is_true(json_object_get(s->params, "retest"));
	if (c->resume && prepare_launch(c, s->pair_args, s->names, s->n))
		goto out_close;
	s->r = (struct mx_runner){
		.st = s->st,
		.run = s->run,
		.n = s->n,
		.names = s->names,
		.both = s->both,
		.pair_args = s->pair_args,
		.deadline_s = fc_jnum(s->params, "deadline_s", 300),
		.stop = stop,
		.evidence_dir = c->evidence_dir,
		.fanout = c->fanout,
	};
	if (pattern_of(s))
		goto out_close;
	if (mx_run_init(&s->r))
		goto out_close;
	return 0;

out_close:
	mx_session_close(s);
	return rc;
}

void mx_session_close(struct mx_session *s)
{
	mx_run_release(&s->r);
	for (int i = 0; i < s->n; i++)
		free(s->names[i]);
	free(s->names);
	json_decref(s->pair_args);
	json_decref(s->params);
	fc_store_close(s->st);
	fc_ssh_mux_end();
	memset(s, 0, sizeof(*s));
}

int mx_session_retest_history(struct mx_session *s, const struct mx_model *m)
{
	struct fc_hist_opts o = FC_HIST_OPTS_DEFAULT;
	struct mx_history h;
	int cnt = 0;

	/* Only a run this process measured: not one resumed to be seen again,
	 * nor an import. */
	if (s->hist_retested || !s->r.started)
		return 0;
	s->hist_retested = 1;
	if (mx_history_load(&h, s->st, m, &o))
		return 0;
	for (int i = 0; i < h.nlinks && cnt >= 0; i++) {
		const struct fc_hist_link *l = &h.links[i];
		const struct fc_mx_analysis *an = l->rail >= 0 ? &m->ran.rails[l->rail] : &m->an;
		int fwd = fc_mx_cell(an, l->a, l->b)->state != FC_MX_NONE;

		if (!l->flagged)
			continue;
		if (mx_run_add_rail(&s->r, fwd ? l->a : l->b, fwd ? l->b : l->a, 1,
				    l->rail >= 0 ? m->rails[l->rail].name : NULL))
			cnt = -ENOMEM;
		else
			cnt++;
	}
	mx_history_release(&h);
	return cnt;
}
