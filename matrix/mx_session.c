/* Beginning or resuming a matrix run (see mx_session.h). */
#include "matrix/mx_session.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/log.h"
#include "core/out.h"
#include "core/sched.h"
#include "matrix/mx_model.h"
#include "matrix/mx_screen.h"

/* pair's own defaults already measure write bandwidth at 1 MiB and read
 * latency (with read bandwidth and write latency besides): nothing to add. */
const char *const mx_default_pair_args[] = {
	NULL,
};

static int names_from_params(struct mx_session *s)
{
	const json_t *nodes = json_object_get(s->params, "nodes");
	size_t i;
	json_t *v;

	s->n = (int)json_array_size(nodes);
	s->names = calloc((size_t)s->n + 1, sizeof(*s->names));
	if (!s->names)
		return -ENOMEM;
	json_array_foreach(nodes, i, v) {
		if (!json_is_string(v))
			return -EINVAL;
		s->names[i] = strdup(json_string_value(v));
	}
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
	if (c->screen) /* a new relabelling each run: other peers each night */
		json_object_set_new(s->params, "screen",
				    mx_screen_params(c->max_rounds,
						     (unsigned long long)time(NULL) ^
							     (unsigned long long)getpid() << 16));
	s->run = fc_store_run_begin(s->st, "matrix", s->params);
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
	s->r = (struct mx_runner){
		.st = s->st,
		.run = s->run,
		.n = s->n,
		.names = s->names,
		.both = s->both,
		.pair_args = json_object_get(s->params, "pair_args"),
		.deadline_s = fc_jnum(s->params, "deadline_s", 300),
		.stop = stop,
		.evidence_dir = c->evidence_dir,
	};
	if (mx_run_init(&s->r))
		goto out_close;
	return 0;

out_close:
	mx_session_close(s);
	return rc;
}

int mx_session_retest(struct mx_session *s, const struct fc_mx_analysis *an)
{
	int max = an->n * 2 + 8, cnt, *a, *b;

	if (!s->retest || s->retested)
		return 0;
	s->retested = 1;
	a = calloc((size_t)max, sizeof(*a));
	b = calloc((size_t)max, sizeof(*b));
	if (!a || !b) {
		free(a);
		free(b);
		return -ENOMEM;
	}
	cnt = fc_mx_retest_plan(an, a, b, max);
	for (int i = 0; i < cnt; i++)
		if (mx_run_add(&s->r, a[i], b[i], 1))
			cnt = -ENOMEM;
	free(a);
	free(b);
	return cnt;
}

void mx_session_close(struct mx_session *s)
{
	mx_run_release(&s->r);
	for (int i = 0; i < s->n; i++)
		free(s->names[i]);
	free(s->names);
	json_decref(s->params);
	fc_store_close(s->st);
	memset(s, 0, sizeof(*s));
}
