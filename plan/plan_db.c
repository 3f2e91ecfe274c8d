/* fabcheck plan --db: the fabric as the store last measured it (see plan_db.h). */
#include "plan/plan_db.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/busbw.h"
#include "core/out.h"
#include "core/stats.h"
#include "store/store.h"

struct rail_figs {
	int nrails;
	char name[PLAN_MAX_RAILS][32];
	double *v[PLAN_MAX_RAILS];
	size_t n[PLAN_MAX_RAILS], cap[PLAN_MAX_RAILS];
	int too_many;
};

static int rail_slot(struct rail_figs *f, const char *name)
{
	for (int i = 0; i < f->nrails; i++)
		if (!strcmp(f->name[i], name))
			return i;
	if (f->nrails == PLAN_MAX_RAILS)
		return -1;
	snprintf(f->name[f->nrails], sizeof(f->name[0]), "%s", name);
	return f->nrails++;
}

/* One link result: its rate under its rail's name (rail -1: one rail). */
static int add_link(const struct fc_store_link *l, void *arg)
{
	struct rail_figs *f = arg;
	int i;

	if (!isfinite(l->gbps) || !(l->gbps > 0))
		return 0;
	if ((i = rail_slot(f, l->rail < 0 ? "" : l->device)) < 0) {
		f->too_many = 1;
		return 0;
	}
	if (f->n[i] == f->cap[i]) {
		size_t cap = f->cap[i] ? 2 * f->cap[i] : 16;
		double *v = realloc(f->v[i], cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		f->v[i] = v, f->cap[i] = cap;
	}
	f->v[i][f->n[i]++] = l->gbps;
	return 0;
}

/* The per-rail medians of matrix run @run: the fabric carries what its
 * slowest rail does on every rail (NCCL spreads channels evenly). */
static int from_matrix(struct fc_store *st, int64_t run, struct plan_measured *m, char *why,
		       size_t len)
{
	struct rail_figs f = { 0 };
	int rc = fc_store_links(st, run, add_link, &f);

	m->rails = f.nrails;
	for (int i = 0; i < f.nrails; i++) {
		double med = fc_median(f.v[i], f.n[i]);

		if (!m->rail_gbps || med < m->rail_gbps) {
			m->rail_gbps = med;
			snprintf(m->slowest, sizeof(m->slowest), "%s", f.name[i]);
		}
		free(f.v[i]);
	}
	if (rc)
		snprintf(why, len, "%s: cannot read the links of matrix run %lld", fc_store_path(st),
			 (long long)run);
	else if (!f.nrails)
		snprintf(why, len, "%s: matrix run %lld has no bandwidth figure (was it a latency "
			 "run, or did every pair fail?)", fc_store_path(st), (long long)run);
	return rc ? rc : f.nrails ? 0 : -ENOENT;
}

/* The peak busbw nccl run recorded with its run (params of kind "nccl"). */
static int from_nccl(const struct fc_store_run *r, struct plan_measured *m, char *why,
		     size_t len, const char *path)
{
	m->busbw_gbytes = fc_jnum(r->params, "peak_busbw_gbytes_s", 0);
	m->nodes = (int)fc_jnum(r->params, "nodes", 0);
	m->gpus_per_node = (int)fc_jnum(r->params, "gpus_per_node", 0);
	if (m->busbw_gbytes > 0 && m->nodes > 1)
		return 0;
	snprintf(why, len, "%s: nccl run %lld %s", path, (long long)r->id,
		 m->nodes > 1 ? "has no busbw figure" :
				"ran on one node: its busbw is not the network's");
	return -ENOENT;
}

int plan_db_fabric(const char *path, struct plan_measured *m, char *why, size_t len)
{
	struct fc_store *st = fc_store_open_ro(path);
	struct fc_store_run r = { 0 };
	int64_t mx, nc, id;
	int rc;

	memset(m, 0, sizeof(*m));
	if (!st) {
		snprintf(why, len, "--db %s: cannot open the store (see above)", path);
		return -EIO;
	}
	mx = fc_store_run_latest(st, "matrix");
	nc = fc_store_run_latest(st, "nccl");
	id = mx > nc ? mx : nc;
	if (id <= 0) {
		snprintf(why, len, "--db %s: no matrix run and no nccl run in the store; run "
			 "fabcheck matrix --db %s (or nccl run --db %s) first", path, path, path);
		fc_store_close(st);
		return -ENOENT;
	}
	rc = fc_store_run_get(st, id, &r);
	if (!rc) {
		m->run = id;
		m->started = r.started;
		m->source = id == mx ? "matrix" : "nccl";
		rc = id == mx ? from_matrix(st, id, m, why, len) : from_nccl(&r, m, why, len, path);
	} else {
		snprintf(why, len, "--db %s: cannot read run %lld", path, (long long)id);
	}
	fc_store_run_release(&r);
	fc_store_close(st);
	return rc;
}

double plan_measured_busbw(const struct plan_measured *m, int gpus_per_node, int nodes)
{
	if (!strcmp(m->source, "nccl"))
		return m->busbw_gbytes;
	/* A matrix figure is the payload one rail carries (ib_write_bw's
	 * figure, already past the headers): no payload share on top. */
	return busbw_payload(BUSBW_ALGO_RING, m->rails, m->rail_gbps / 8, gpus_per_node, nodes,
			     NULL);
}
