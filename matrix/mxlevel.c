/* Culprit levels of a matrix with rails (see mxlevel.h). */
#include "matrix/mxlevel.h"
#include "core/stats.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char *fc_mxl_level_name(enum fc_mxl_level level)
{
	switch (level) {
	case FC_MXL_LINK: return "link";
	case FC_MXL_PORT: return "port";
	case FC_MXL_NODE: return "node";
	case FC_MXL_RAIL: return "rail";
	}
	return "?";
}

static int add_suspect(struct fc_mxl_analysis *an, int *cap, struct fc_mxl_suspect s)
{
	if (an->nsuspects == *cap) {
		int ncap = *cap ? 2 * *cap : 8;
		struct fc_mxl_suspect *p = realloc(an->suspects, (size_t)ncap * sizeof(*p));

		if (!p)
			return -ENOMEM;
		an->suspects = p;
		*cap = ncap;
	}
	an->suspects[an->nsuspects++] = s;
	return 0;
}

/* The cells of each rail in their order: @order lists the cells of rail 0,
 * then rail 1...; @start[r] .. @start[r + 1] are rail r's. One pass over
 * the cells (a counting sort), not one per rail. */
static int group_by_rail(const struct fc_mxl_cell *cells, size_t ncells, int nrails,
			 size_t *order, size_t *start)
{
	memset(start, 0, ((size_t)nrails + 1) * sizeof(*start));
	for (size_t i = 0; i < ncells; i++) {
		if (cells[i].rail < 0 || cells[i].rail >= nrails)
			return -EINVAL;
		start[cells[i].rail + 1]++;
	}
	for (int r = 0; r < nrails; r++)
		start[r + 1] += start[r];
	for (size_t i = 0, *next = start; i < ncells; i++)
		order[next[cells[i].rail]++] = i;
	/* next[] was start[]: shift it back. */
	memmove(start + 1, start, (size_t)nrails * sizeof(*start));
	start[0] = 0;
	return 0;
}

/* The rails one thread analyses: rails first, first + step, ... */
struct rail_job {
	struct fc_mxl_analysis *an;
	const struct fc_mxl_cell *cells;
	const size_t *order, *start;
	const struct fc_mx_opts *opts;
	struct fc_mx_result *res; /* room for the largest rail's cells */
	int first, step, rc;
};

static void *rail_job_run(void *arg)
{
	struct rail_job *j = arg;

	for (int r = j->first; r < j->an->nrails && !j->rc; r += j->step) {
		size_t k = 0;

		for (size_t i = j->start[r]; i < j->start[r + 1]; i++) {
			const struct fc_mxl_cell *c = &j->cells[j->order[i]];

			j->res[k++] = (struct fc_mx_result){ .a = c->a, .b = c->b, .gbps = c->gbps,
							     .lat_us = c->lat_us, .state = c->state,
							     .retest = c->retest, .fault = c->fault };
		}
		j->rc = fc_mx_reanalyze(j->an->n, j->res, k, j->opts, &j->an->rails[r]);
	}
	return NULL;
}

/* How many threads analyse the rails: one per CPU, up to RAIL_THREADS_MAX
 * and the rails' count; one for a small rack, where a thread costs more
 * than it saves. */
#define RAIL_THREADS_MAX 4
static int rail_threads(const struct fc_mxl_analysis *an)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	int t = cpus > 1 ? (int)(cpus < RAIL_THREADS_MAX ? cpus : RAIL_THREADS_MAX) : 1;

	if (an->n < 128)
		return 1;
	return t < an->nrails ? t : an->nrails;
}

/* Each rail alone, through the one-rail analysis; the rails are
 * independent, so threads share them out (the result does not depend on
 * how many). */
static int per_rail(struct fc_mxl_analysis *an, const struct fc_mxl_cell *cells, size_t ncells,
		    const struct fc_mx_opts *opts_in)
{
	struct fc_mx_opts own = FC_MX_OPTS_DEFAULT, *opts = &own;

	struct rail_job jobs[RAIL_THREADS_MAX] = { { 0 } };
	pthread_t tid[RAIL_THREADS_MAX];
	int nt = rail_threads(an), started[RAIL_THREADS_MAX] = { 0 }, rc = -ENOMEM;
	size_t *order = malloc((ncells + 1) * sizeof(*order)), *start, most = 0;

	start = calloc((size_t)an->nrails + 1, sizeof(*start));
	if (!order || !start)
		goto out_free;
	if (opts_in)
		own = *opts_in;
	/* A device that worked on any rail of the run tells a node's own
	 * fault on another from the run's options (mxan.h, FC_MX_BAD_OWN). */
	for (size_t i = 0; i < ncells && !own.own_contrast; i++)
		own.own_contrast = cells[i].state == FC_MX_OK ||
				   (cells[i].state == FC_MX_FAIL && !cells[i].fault);
	rc = group_by_rail(cells, ncells, an->nrails, order, start);
	for (int r = 0; r < an->nrails; r++)
		most = start[r + 1] - start[r] > most ? start[r + 1] - start[r] : most;
	for (int t = 0; t < nt && !rc; t++) {
		jobs[t] = (struct rail_job){ .an = an, .cells = cells, .order = order,
					     .start = start, .opts = opts, .first = t, .step = nt,
					     .res = malloc((most + 1) * sizeof(*jobs[t].res)) };
		if (!jobs[t].res)
			rc = -ENOMEM;
	}
	/* A thread that cannot start leaves its rails to this one. */
	for (int t = 1; t < nt && !rc; t++)
		started[t] = !pthread_create(&tid[t], NULL, rail_job_run, &jobs[t]);
	if (!rc)
		rail_job_run(&jobs[0]);
	for (int t = 1; t < nt && !rc; t++) {
		if (started[t])
			pthread_join(tid[t], NULL);
		else
			rail_job_run(&jobs[t]);
	}
	for (int t = 0; t < nt && !rc; t++)
		rc = jobs[t].rc;
	for (int r = 0; r < an->nrails && !rc; r++)
		if (isfinite(an->rails[r].rack_median_gbps) &&
		    (isnan(an->best_rail_gbps) || an->rails[r].rack_median_gbps > an->best_rail_gbps))
			an->best_rail_gbps = an->rails[r].rack_median_gbps;
out_free:
	for (int t = 0; t < nt; t++)
		free(jobs[t].res);
	free(start);
	free(order);
	return rc;
}

static int has_kind(const struct fc_mx_analysis *ra, enum fc_mx_kind k)
{
	for (int i = 0; i < ra->nfindings; i++)
		if (ra->findings[i].kind == k)
			return 1;
	return 0;
}

static int rail_ran(const struct fc_mx_analysis *ra)
{
	return ra->nmeasured > 0;
}

/* A rail bad for every node: below the best rail, or most nodes suspect
 * on it. RAIL_WHOLE: its own analysis cannot tell its nodes apart (most
 * nodes suspect, its floor); RAIL_SLOW: its median alone is below the best
 * rail's, and its own analysis still holds each node against its peers on
 * that rail (the same switch): a node it names is that node's port,
 * whatever the rail's speed. RAIL_UNRUN: no pair could run on it (every
 * pair FC_MX_ERROR: ssh, the launcher, a worker that crashed or timed
 * out) while another rail ran: "could not check" that rail (issue 38 item
 * 2), no suspect; a pair a worker failed for a fault of its own node
 * (kind "node": FC_MX_FAIL, pair_msg.c) ran and is judged. */
enum { RAIL_OK, RAIL_WHOLE, RAIL_SLOW, RAIL_UNRUN };

/* Most of the rail's tested nodes (3 or more) bad with most of their
 * peers on it: nodes all bad with each other by as much have no contrast
 * (mxan.c has_contrast), so the rail's own analysis names none, nor its
 * rack-wide finding (which counts suspects): every pair failed on a rail
 * whose switch is down (each port not active: the worker's kind "node",
 * a fail) is this. */
static int rail_mostly_bad(const struct fc_mx_analysis *ra)
{
	int tested = 0, bad = 0;

	for (int i = 0; i < ra->n; i++) {
		if (!ra->nodes[i].peers)
			continue;
		tested++;
		bad += 2 * ra->nodes[i].bad > ra->nodes[i].peers;
	}
	return tested >= 3 && 2 * bad > tested;
}

static int rail_level(const struct fc_mxl_analysis *an, int r, int any_ran)
{
	const struct fc_mx_analysis *ra = &an->rails[r];
	double pct = ra->opts.min_rack_pct;

	if (an->nrails < 2)
		return 0;
	if (!rail_ran(ra)) {
		int tried = 0;

		for (int i = 0; i < an->n; i++)
			tried += ra->nodes[i].state == FC_MX_NODE_UNREACHABLE;
		return any_ran && tried > 1 ? RAIL_UNRUN : RAIL_OK;
	}
	/* below the floor on this rail alone, or most of its pairs bad; not
	 * when every rail is below the floor (an->floor): then the floor is the
	 * one problem, no rail's switch (issue 39: a healthy 2-rail rack under
	 * --min-gbps 1 blamed "that rail's switch" for each rail) */
	if (has_kind(ra, FC_MX_RACK_WIDE) ||
	    (!an->floor && (has_kind(ra, FC_MX_FLOOR) || rail_mostly_bad(ra))))
		return RAIL_WHOLE;
	if (pct > 0 && isfinite(ra->rack_median_gbps) && isfinite(an->best_rail_gbps) &&
	    ra->rack_median_gbps < an->best_rail_gbps * pct / 100)
		return RAIL_SLOW;
	return RAIL_OK;
}

/* Every rail that ran below the floor: the floor's finding, the rails'
 * sums (pairs, the most nodes, the best figure). */
static void find_floor(struct fc_mxl_analysis *an)
{
	int ran = 0;

	an->floor_best_gbps = NAN;
	for (int r = 0; r < an->nrails; r++) {
		const struct fc_mx_analysis *ra = &an->rails[r];

		if (!rail_ran(ra))
			continue;
		ran++;
		for (int i = 0; i < ra->nfindings; i++) {
			const struct fc_mx_finding *f = &ra->findings[i];

			if (f->kind != FC_MX_FLOOR)
				continue;
			an->floor++;
			an->floor_pairs += f->a;
			if (f->b > an->floor_nodes)
				an->floor_nodes = f->b;
			if (isfinite(f->v2) && !(f->v2 <= an->floor_best_gbps))
				an->floor_best_gbps = f->v2;
		}
	}
	/* One rail that ran alone (the others could not run) below the floor
	 * is the floor too, as the same pairs without rails say it
	 * (mxan_text.c): no other rail ran faster to blame that rail's switch
	 * against. */
	if (an->floor != ran || ran < 1)
		an->floor = an->floor_pairs = an->floor_nodes = 0;
}

static int find_rails(struct fc_mxl_analysis *an, int *cap, int *is_rail)
{
	int any_ran = 0, rc = 0;

	find_floor(an);
	for (int r = 0; r < an->nrails; r++)
		any_ran |= rail_ran(&an->rails[r]);
	for (int r = 0; r < an->nrails && !rc; r++) {
		is_rail[r] = rail_level(an, r, any_ran);
		if (is_rail[r] == RAIL_UNRUN)
			an->unchecked_rails |= 1ull << r;
		else if (is_rail[r])
			rc = add_suspect(an, cap,
					 (struct fc_mxl_suspect){
						 .level = FC_MXL_RAIL, .node = -1, .peer = -1,
						 .rail = r, .gbps = an->rails[r].rack_median_gbps,
						 .ref_gbps = an->best_rail_gbps,
						 .nodes_judged = is_rail[r] == RAIL_SLOW });
	}
	return rc;
}

static int node_bad_on(const struct fc_mx_analysis *ra, int i)
{
	return ra->nodes[i].state == FC_MX_NODE_SUSPECT;
}

/* @i is a suspect on rail @ra for its own device (FC_MX_BAD_OWN). */
static int own_on(const struct fc_mx_analysis *ra, int i)
{
	for (int f = 0; f < ra->nfindings; f++)
		if (ra->findings[f].kind == FC_MX_SUSPECT_NODE && ra->findings[f].a == i &&
		    (ra->findings[f].why & FC_MX_BAD_OWN))
			return 1;
	return 0;
}

/* Node @i's port on rail @r could not be checked (fc_mxl_unchecked). */
static int add_unchecked(struct fc_mxl_analysis *an, int i, int r)
{
	struct fc_mxl_unchecked *u =
		realloc(an->unchecked, ((size_t)an->nunchecked + 1) * sizeof(*u));

	if (!u)
		return -ENOMEM;
	an->unchecked = u;
	an->unchecked[an->nunchecked++] = (struct fc_mxl_unchecked){ .node = i, .rail = r };
	return 0;
}

/* Node @i's rails on which none of its pairs could run, when it was
 * measured on another (@measured): each port could not be checked. */
static int find_unchecked(struct fc_mxl_analysis *an, int i, int measured, const int *is_rail)
{
	int rc = 0;

	for (int r = 0; r < an->nrails && measured && !rc; r++)
		if (is_rail[r] != RAIL_WHOLE &&
		    an->rails[r].nodes[i].state == FC_MX_NODE_UNREACHABLE)
			rc = add_unchecked(an, i, r);
	return rc;
}

/* A node bad on every rail it was measured on is the host; on some, its
 * ports on those rails. Rails whose nodes cannot be told apart
 * (RAIL_WHOLE) do not count; a rail slow as a whole (RAIL_SLOW) names no
 * node by its speed, only by a node's own figures against its peers on
 * that rail: a whole rail slow on every node is its switch's finding and
 * drains no node, one node's slow port on it still is that port. */
static int find_nodes_and_ports(struct fc_mxl_analysis *an, int *cap, const int *is_rail)
{
	double *med = malloc(2 * ((size_t)an->nrails + 1) * sizeof(*med)), *ref = med + an->nrails + 1;
	int rc = 0;

	if (!med)
		return -ENOMEM;
	for (int i = 0; i < an->n && !rc; i++) {
		int measured = 0, bad = 0, own = 0;
		size_t nm = 0;

		/* A rail on which none of its pairs could run is not measured:
		 * unreachable on every rail, no rail could be checked (the
		 * launcher, ssh or the host's power, which the matrix cannot
		 * tell apart); on some, those ports could not be checked
		 * (find_unchecked). "Could not check", never a suspect: a drain
		 * is for a fault the run saw. */
		for (int r = 0; r < an->nrails; r++) {
			const struct fc_mx_analysis *ra = &an->rails[r];

			if (is_rail[r] == RAIL_WHOLE || ra->nodes[i].state == FC_MX_NODE_UNTESTED ||
			    ra->nodes[i].state == FC_MX_NODE_UNREACHABLE)
				continue;
			measured++;
			bad += node_bad_on(ra, i);
			own += own_on(ra, i);
			if (node_bad_on(ra, i) && isfinite(ra->nodes[i].median_gbps))
				med[nm++] = ra->nodes[i].median_gbps;
		}
		rc = find_unchecked(an, i, measured, is_rail);
		if (!bad || rc)
			continue;
		if (bad == measured && (measured >= 2 || an->nrails == 1)) {
			size_t nr = 0;

			for (int r = 0; r < an->nrails; r++)
				if (is_rail[r] == RAIL_OK && isfinite(an->rails[r].rack_median_gbps))
					ref[nr++] = an->rails[r].rack_median_gbps;
			rc = add_suspect(an, cap,
					 (struct fc_mxl_suspect){
						 .level = FC_MXL_NODE, .node = i, .peer = -1,
						 .rail = -1, .gbps = fc_median(med, nm),
						 .ref_gbps = fc_median(ref, nr), .nrails_bad = bad,
						 .own = own == bad });
			continue;
		}
		for (int r = 0; r < an->nrails && !rc; r++) {
			const struct fc_mx_analysis *ra = &an->rails[r];

			if (is_rail[r] == RAIL_WHOLE || !node_bad_on(ra, i))
				continue;
			rc = add_suspect(an, cap,
					 (struct fc_mxl_suspect){
						 .level = FC_MXL_PORT, .node = i, .peer = -1,
						 .rail = r, .gbps = ra->nodes[i].median_gbps,
						 .ref_gbps = ra->rack_median_gbps,
						 .own = own_on(ra, i) });
		}
	}
	free(med);
	return rc;
}

static int find_links(struct fc_mxl_analysis *an, int *cap)
{
	int rc = 0;

	for (int r = 0; r < an->nrails && !rc; r++) {
		const struct fc_mx_analysis *ra = &an->rails[r];

		for (int f = 0; f < ra->nfindings && !rc; f++) {
			const struct fc_mx_finding *fd = &ra->findings[f];

			if (fd->kind == FC_MX_SUSPECT_LINK)
				rc = add_suspect(an, cap,
						 (struct fc_mxl_suspect){
							 .level = FC_MXL_LINK, .node = fd->a,
							 .peer = fd->b, .rail = r, .gbps = fd->v1,
							 .ref_gbps = fd->v2 });
		}
	}
	return rc;
}

int fc_mxl_analyze(int n, int nrails, const struct fc_mxl_cell *cells, size_t ncells,
		   const struct fc_mx_opts *opts, struct fc_mxl_analysis *out)
{
	memset(out, 0, sizeof(*out));
	return fc_mxl_reanalyze(n, nrails, cells, ncells, opts, out);
}

int fc_mxl_reanalyze(int n, int nrails, const struct fc_mxl_cell *cells, size_t ncells,
		     const struct fc_mx_opts *opts, struct fc_mxl_analysis *an)
{
	struct fc_mx_analysis *rails;
	int cap = 0, rc, *is_rail;

	if (n < 0 || nrails < 1 || nrails > FC_MXL_RAILS_MAX || an->n != n ||
	    an->nrails != nrails)
		fc_mxl_release(an);
	if (n < 0 || nrails < 1 || nrails > FC_MXL_RAILS_MAX)
		return -EINVAL;
	rails = an->rails;
	free(an->suspects);
	free(an->unchecked);
	memset(an, 0, sizeof(*an));
	an->n = n;
	an->nrails = nrails;
	an->best_rail_gbps = NAN;
	/* Each rail's analysis keeps its memory from the last time. */
	an->rails = rails ? rails : calloc((size_t)nrails, sizeof(*an->rails));
	is_rail = calloc((size_t)nrails, sizeof(*is_rail));
	rc = an->rails && is_rail ? per_rail(an, cells, ncells, opts) : -ENOMEM;
	if (!rc)
		rc = find_rails(an, &cap, is_rail);
	if (!rc)
		rc = find_nodes_and_ports(an, &cap, is_rail);
	if (!rc)
		rc = find_links(an, &cap);
	free(is_rail);
	if (rc)
		fc_mxl_release(an);
	return rc;
}

void fc_mxl_release(struct fc_mxl_analysis *an)
{
	for (int r = 0; an->rails && r < an->nrails; r++)
		fc_mx_release(&an->rails[r]);
	free(an->rails);
	free(an->suspects);
	free(an->unchecked);
	memset(an, 0, sizeof(*an));
}

static int rail_suspect(const struct fc_mxl_analysis *an, int r)
{
	for (int i = 0; i < an->nsuspects; i++)
		if (an->suspects[i].level == FC_MXL_RAIL && an->suspects[i].rail == r)
			return 1;
	return 0;
}

/* Each rail's plan: fc_mx_retest_plan, or with @first its second round's. */
static int rails_plan(const struct fc_mxl_analysis *an, const struct fc_mxl_analysis *first,
		      struct fc_mxl_cell *out, int max)
{
	int cnt = 0, *ia = malloc(2 * ((size_t)max + 1) * sizeof(*ia)), *ib = ia + max + 1;

	if (!ia)
		return -ENOMEM;
	for (int r = 0; r < an->nrails && cnt < max; r++) {
		int k;

		if (rail_suspect(an, r))
			continue; /* no node passes on that rail to retest against */
		k = first ? fc_mx_retest_plan_new(&an->rails[r], &first->rails[r], ia, ib,
						  max - cnt) :
			    fc_mx_retest_plan(&an->rails[r], ia, ib, max - cnt);
		for (int i = 0; i < k; i++)
			out[cnt++] = (struct fc_mxl_cell){ .a = ia[i], .b = ib[i], .rail = r,
							   .gbps = NAN, .lat_us = NAN };
	}
	free(ia);
	return cnt;
}

int fc_mxl_retest_plan(const struct fc_mxl_analysis *an, struct fc_mxl_cell *out, int max)
{
	return rails_plan(an, NULL, out, max);
}

int fc_mxl_retest_plan_new(const struct fc_mxl_analysis *an, const struct fc_mxl_analysis *first,
			   struct fc_mxl_cell *out, int max)
{
	if (first->n != an->n || first->nrails != an->nrails)
		return -EINVAL;
	return rails_plan(an, first, out, max);
}
