/*
 * Judges each NCCL_* setting: ok, unknown, deprecated, invalid, conflict.
 * Name and value first (ncclenv_kb.c), then the settings against each
 * other, this node (interfaces, HCAs, peermem) and its topology.
 */
#include "checks/nccl/env/ncclenv.h"
#include "core/out.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

enum status { ST_OK, ST_UNKNOWN, ST_DEPRECATED, ST_INVALID, ST_CONFLICT };
static const char *const status_names[] = { "ok", "unknown", "deprecated", "invalid",
					    "conflict" };

struct judge {
	enum status st;
	enum fc_verdict level; /* of its finding */
	int quiet;	       /* covered by a grouped finding */
	char why[768];
	char suggestion[96];
};

struct run {
	const struct ncclenv_opts *o;
	const struct ncclenv_vars *vs;
	struct judge *j;
	json_t *doc;
};

static int known(const struct ncclenv_opts *o, const char *name)
{
	for (size_t i = 0; i < o->n_known; i++)
		if (!strcmp(o->known[i], name))
			return 1;
	return 0;
}

static const char *nearest(const struct ncclenv_opts *o, const char *name)
{
	const char *best = NULL;
	int bd = 1 << 20;

	for (size_t i = 0; i < o->n_known; i++) {
		int d = ncclenv_edit_distance(name, o->known[i]);

		if (d < bd)
			bd = d, best = o->known[i];
	}
	if (best && (bd <= 3 || (size_t)bd * 3 <= strlen(name)))
		return best;
	return NULL;
}

/* Index of the setting NCCL will see for @name (the last one), or -1. */
static int eff(const struct run *r, const char *name)
{
	for (size_t i = r->vs->n; i-- > 0;)
		if (!strcmp(r->vs->v[i].name, name))
			return (int)i;
	return -1;
}

static void set(struct judge *j, enum status st, enum fc_verdict level, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void set(struct judge *j, enum status st, enum fc_verdict level, const char *fmt, ...)
{
	va_list ap;

	j->st = st;
	j->level = level;
	va_start(ap, fmt);
	vsnprintf(j->why, sizeof(j->why), fmt, ap);
	va_end(ap);
}

/* Valid UTF-8 text (what JSON can carry as it is)? */
static int utf8_text(const char *s)
{
	json_t *t = json_string(s);

	json_decref(t);
	return t != NULL;
}

static void judge_name_value(const struct run *r, size_t i)
{
	const struct ncclenv_var *v = &r->vs->v[i];
	const struct ncclenv_deprecated *d = ncclenv_deprecated_find(v->name);
	struct judge *j = &r->j[i];
	const char *near;

	if (d) {
		set(j, ST_DEPRECATED, FC_WARN, "%s%s%s", d->why,
		    d->replacement ? "; use " : "", d->replacement ? d->replacement : "");
		return;
	}
	if (!known(r->o, v->name)) {
		for (int part = 0; part < 2 && r->o->known_from; part++) {
			size_t np;
			const char *const *names = ncclenv_shipped_part(part, &np);

			for (size_t k = 0; k < np; k++) {
				if (strcmp(names[k], v->name))
					continue;
				set(j, ST_UNKNOWN, FC_WARN,
				    "the installed NCCL (%s) does not read it; NCCL %s does: upgrade NCCL or drop it",
				    r->o->known_from,
				    part ? ncclenv_shipped_version : ncclenv_base_version);
				return;
			}
		}
		near = nearest(r->o, v->name);
		if (near)
			snprintf(j->suggestion, sizeof(j->suggestion), "%s", near);
		set(j, ST_UNKNOWN, FC_WARN, "no NCCL reads %s, so NCCL ignores it%s%s%s", v->name,
		    near ? "; did you mean " : "", near ? near : "", near ? "?" : "");
		return;
	}
	if (v->dynamic) {
		set(j, ST_OK, FC_PASS, "value comes from a shell expansion; not checked");
		return;
	}
	if (!utf8_text(v->value)) {
		set(j, ST_INVALID, FC_FAIL,
		    "the value is not valid UTF-8 (each byte above 0x7f is shown as '?'): NCCL reads "
		    "plain text here; retype it (pasted from another encoding?)");
		return;
	}
	if (ncclenv_value_check(v->name, v->value, j->why, sizeof(j->why)))
		j->st = ST_INVALID, j->level = FC_FAIL;
}

/* Can a conflict be stated for setting @i (it is the one NCCL sees and its
 * name and value are fine)? */
static int checkable(const struct run *r, int i)
{
	return i >= 0 && r->j[i].st == ST_OK && !r->vs->v[i].dynamic;
}

static long long int_value(const char *s)
{
	char *end;
	long long v = strtoll(s, &end, 0);

	return end != s && !*end ? v : 0;
}

/* NCCL_IB_DISABLE=1 / NCCL_NET=Socket against RDMA tuning. */
static void check_sockets(struct run *r)
{
	int dis = eff(r, "NCCL_IB_DISABLE"), net = eff(r, "NCCL_NET");
	int why_i = -1;
	char list[512] = "", cause[160];
	size_t off = 0;
	int count = 0;

	if (checkable(r, dis) && int_value(r->vs->v[dis].value) != 0)
		why_i = dis;
	else if (checkable(r, net) && !strcasecmp(r->vs->v[net].value, "Socket"))
		why_i = net;
	if (why_i < 0)
		return;
	snprintf(cause, sizeof(cause), "%s=%s", r->vs->v[why_i].name, r->vs->v[why_i].value);
	for (size_t i = 0; i < r->vs->n; i++) {
		const char *n = r->vs->v[i].name;

		if ((int)i == why_i || r->j[i].st != ST_OK || (int)i != eff(r, n))
			continue;
		if (strncmp(n, "NCCL_IB_", 8) && strncmp(n, "NCCL_NET_GDR_", 13) &&
		    strcmp(n, "NCCL_DMABUF_ENABLE") && strcmp(n, "NCCL_GDR_FLUSH_DISABLE"))
			continue;
		set(&r->j[i], ST_CONFLICT, FC_FAIL,
		    "has no effect: %s makes NCCL use TCP sockets, for RoCE as much as for InfiniBand",
		    cause);
		r->j[i].quiet = 1;
		if (off < sizeof(list))
			off += (size_t)snprintf(list + off, sizeof(list) - off, "%s%s",
						count ? ", " : "", n);
		count++;
	}
	if (count) {
		set(&r->j[why_i], ST_CONFLICT, FC_FAIL,
		    "makes NCCL use TCP sockets, for RoCE as much as for InfiniBand, so %s %s no effect: drop %s to use RDMA, or drop the RDMA settings",
		    list, count > 1 ? "have" : "has", cause);
	} else {
		size_t nd = 0;
		const char *first = NULL;
		const json_t *nics = json_object_get(r->o->topo, "nics");

		if (json_array_size(nics))
			nd = json_array_size(nics),
			first = fc_jstr(json_array_get(nics, 0), "name", "?");
		else if (r->o->host && r->o->host->n_rdma)
			nd = r->o->host->n_rdma, first = r->o->host->rdma[0];
		if (nd)
			set(&r->j[why_i], ST_CONFLICT, FC_FAIL,
			    "this node has %zu RDMA device%s (%s%s) but %s makes NCCL send over TCP sockets: drop it unless that is the point",
			    nd, nd > 1 ? "s" : "", first, nd > 1 ? ", ..." : "", cause);
	}
}

static void check_p2p(struct run *r)
{
	int dis = eff(r, "NCCL_P2P_DISABLE"), lvl = eff(r, "NCCL_P2P_LEVEL");

	if (checkable(r, dis) && checkable(r, lvl) && int_value(r->vs->v[dis].value) != 0)
		set(&r->j[lvl], ST_CONFLICT, FC_FAIL,
		    "has no effect: NCCL_P2P_DISABLE=1 turns GPU peer-to-peer off (level LOC); drop one of the two");
}

/* Device/interface matching as NCCL's matchIfList: prefix unless '='. */
static int matches(const char *dev, const char *want, int exact)
{
	return exact ? !strcmp(dev, want) : !strncmp(dev, want, strlen(want));
}

struct list_result {
	char absent[256];  /* entries matching nothing */
	char multi[256];   /* prefix entries matching several devices */
	size_t selected;   /* devices NCCL would use */
	int exclude, exact;
};

static void match_list(const char *value, char *const *devs, size_t ndev, int ports,
		       struct list_result *res)
{
	const char *p = value;
	char *copy, *save = NULL, *tok;
	size_t aoff = 0, moff = 0;
	char *hit = calloc(ndev ? ndev : 1, 1);

	memset(res, 0, sizeof(*res));
	res->exclude = *p == '^';
	p += res->exclude;
	res->exact = *p == '=';
	p += res->exact;
	copy = strdup(p);
	if (!copy || !hit)
		goto out;
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		size_t n = 0;
		char *colon = ports ? strchr(tok, ':') : NULL;

		if (colon)
			*colon = '\0';
		for (size_t d = 0; d < ndev; d++)
			if (matches(devs[d], tok, res->exact))
				hit[d] = 1, n++;
		if (n == 0 && aoff < sizeof(res->absent))
			aoff += (size_t)snprintf(res->absent + aoff, sizeof(res->absent) - aoff,
						 "%s%s", aoff ? ", " : "", tok);
		if (n > 1 && !res->exclude && moff < sizeof(res->multi))
			moff += (size_t)snprintf(res->multi + moff, sizeof(res->multi) - moff,
						 "%s%s", moff ? ", " : "", tok);
	}
	for (size_t d = 0; d < ndev; d++)
		res->selected += res->exclude ? !hit[d] : hit[d];
out:
	free(copy);
	free(hit);
}

static void join(char *buf, size_t len, char *const *l, size_t n)
{
	size_t off = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < n && off < len; i++)
		off += (size_t)snprintf(buf + off, len - off, "%s%s", i ? ", " : "", l[i]);
}

static void check_hca(struct run *r)
{
	int i = eff(r, "NCCL_IB_HCA");
	const json_t *nics = json_object_get(r->o->topo, "nics");
	char **devs = NULL, all[256];
	size_t n = 0;
	const char *where;
	struct list_result res;
	struct judge *j;
	int owned = 0;

	if (!checkable(r, i))
		return;
	j = &r->j[i];
	if (json_array_size(nics)) {
		devs = calloc(json_array_size(nics), sizeof(*devs));
		if (!devs)
			return;
		owned = 1;
		for (size_t k = 0; k < json_array_size(nics); k++)
			devs[n++] = (char *)fc_jstr(json_array_get(nics, k), "name", "");
		where = "the topology";
	} else if (r->o->host && r->o->host->n_rdma) {
		devs = r->o->host->rdma;
		n = r->o->host->n_rdma;
		where = "this node";
	} else {
		return;
	}
	join(all, sizeof(all), devs, n);
	match_list(r->vs->v[i].value, devs, n, 1, &res);
	if (res.selected == 0)
		set(j, ST_CONFLICT, FC_FAIL,
		    "selects no HCA of %s (%s): NCCL finds no IB device and falls back to TCP sockets; name devices that exist",
		    where, all);
	else if (res.absent[0] && !res.exclude)
		set(j, ST_CONFLICT, FC_FAIL,
		    "names %s, which %s does not have (HCAs: %s): fix the list, or NCCL runs on fewer HCAs than meant",
		    res.absent, where, all);
	else if (res.absent[0])
		set(j, ST_OK, FC_WARN, "excludes %s, which %s does not have (HCAs: %s)",
		    res.absent, where, all);
	else if (res.multi[0])
		set(j, ST_OK, FC_WARN,
		    "%s matches several HCAs by prefix (HCAs: %s): write '=%s' for exact names",
		    res.multi, all, r->vs->v[i].value + res.exclude);
	if (owned)
		free(devs);
}

static void check_ifname(struct run *r)
{
	int i = eff(r, "NCCL_SOCKET_IFNAME");
	const struct ncclenv_host *h = r->o->host;
	struct list_result res;
	char all[256];

	if (!checkable(r, i) || !h || !h->n_if)
		return;
	join(all, sizeof(all), h->ifnames, h->n_if);
	match_list(r->vs->v[i].value, h->ifnames, h->n_if, 0, &res);
	if (res.selected == 0)
		set(&r->j[i], ST_CONFLICT, FC_FAIL,
		    "matches no interface of this node (%s): NCCL cannot bootstrap (\"no socket interface found\"); name one that exists",
		    all);
}

/* Best (smallest) GPU-to-NIC path type of @gpu in the topology matrix. */
static int gpu_best_dist(const json_t *topo, const char *gpu, const char **type)
{
	const json_t *row = json_object_get(json_object_get(topo, "matrix"), gpu);
	const json_t *nics = json_object_get(topo, "nics");
	const char *key;
	json_t *val;
	int best = -1;

	json_object_foreach((json_t *)row, key, val) {
		int is_nic = !strncmp(key, "NIC", 3) && isdigit((unsigned char)key[3]);
		int d;

		for (size_t k = 0; !is_nic && k < json_array_size(nics); k++)
			is_nic = !strcmp(key, fc_jstr(json_array_get(nics, k), "name", ""));
		d = is_nic ? ncclenv_topo_dist(json_string_value(val)) : -1;
		if (d >= 0 && (best < 0 || d < best))
			best = d, *type = json_string_value(val);
	}
	return best;
}

static void check_gdr(struct run *r)
{
	int i = eff(r, "NCCL_NET_GDR_LEVEL");
	const struct ncclenv_host *h = r->o->host;
	const json_t *gpus = json_object_get(r->o->topo, "gpus");
	char off[384] = "";
	size_t o = 0;
	int level, worst = -1;
	const char *wtype = NULL;

	if (!checkable(r, i))
		return;
	level = ncclenv_level_parse(r->vs->v[i].value);
	for (size_t k = 0; k < json_array_size(gpus); k++) {
		const char *name = fc_jstr(json_array_get(gpus, k), "name", "?");
		const char *type = NULL;
		int d = gpu_best_dist(r->o->topo, name, &type);
		/* Grace: a C2C GPU's HCA through its CPU is P2C to NCCL 2.27.3+, not
		 * the PHB/NODE of the matrix (fabcheck topo's nccl_path). */
		const char *np = fc_jstr(json_array_get(gpus, k), "nccl_path", "");

		if (!strcmp(np, "P2C") && d > ncclenv_topo_dist(np))
			d = ncclenv_topo_dist(np), type = np;

		if (d < 0 || d <= level)
			continue;
		if (o < sizeof(off))
			o += (size_t)snprintf(off + o, sizeof(off) - o, "%s%s (%s)", o ? ", " : "",
					      name, type);
		if (d > worst)
			worst = d, wtype = type;
	}
	if (o) {
		set(&r->j[i], ST_CONFLICT, FC_FAIL,
		    "%s is stricter than the path from %s to the nearest HCA: GPUDirect RDMA would be off for %s; use %s or leave it unset if that path should carry GPUDirect",
		    ncclenv_level_name(level), off, o > 0 && strchr(off, ',') ? "them" : "it",
		    ncclenv_level_name(ncclenv_topo_dist(wtype)));
		return;
	}
	if (!h)
		return;
	if (!h->peermem && !h->nvidia)
		set(&r->j[i], ST_CONFLICT, FC_FAIL,
		    "no GPUDirect RDMA path on this node: no peer-memory module (nvidia_peermem) and no nvidia driver for dma-buf, so NCCL stages through host memory whatever the level; load nvidia_peermem or check the driver");
	else if (!h->peermem && !r->j[i].why[0])
		snprintf(r->j[i].why, sizeof(r->j[i].why),
			 "no nvidia_peermem here: GPUDirect RDMA depends on dma-buf (open nvidia kernel module, kernel 5.12+); confirm with a GPU memory test");
}

/* Earlier settings of a name that is set again. */
static void check_repeats(struct run *r)
{
	for (size_t i = 0; i < r->vs->n; i++) {
		int last = eff(r, r->vs->v[i].name);

		if (last == (int)i || r->j[i].st == ST_UNKNOWN)
			continue;
		set(&r->j[i], ST_CONFLICT, FC_WARN, "set again%s%.0d with '%s', which wins",
		    r->vs->v[last].line ? " on line " : "", r->vs->v[last].line,
		    r->vs->v[last].value);
	}
}

static void emit(struct run *r)
{
	json_t *list = json_array();

	for (size_t i = 0; i < r->vs->n; i++) {
		const struct ncclenv_var *v = &r->vs->v[i];
		const struct judge *j = &r->j[i];
		/* fc_json_text: a byte that is not UTF-8 shows as '?', kept */
		json_t *e = json_pack("{s:o, s:o, s:s, s:o}", "name", fc_json_text(v->name),
				      "value", fc_json_text(v->value), "status",
				      status_names[j->st], "why", fc_json_text(j->why));

		if (v->line)
			json_object_set_new(e, "line", json_integer(v->line));
		if (j->suggestion[0])
			json_object_set_new(e, "suggestion", fc_json_text(j->suggestion));
		json_array_append_new(list, e);
		if (j->quiet || j->level == FC_PASS)
			continue;
		if (v->line)
			fc_finding(r->doc, j->level, "%s=%s (line %d): %s", v->name, v->value,
				   v->line, j->why);
		else
			fc_finding(r->doc, j->level, "%s=%s: %s", v->name, v->value, j->why);
	}
	json_object_set_new(r->doc, "variables", list);
}

json_t *ncclenv_check(const struct ncclenv_opts *o, const struct ncclenv_vars *vs)
{
	struct run r = { .o = o, .vs = vs };

	r.doc = fc_doc_new();
	r.j = calloc(vs->n ? vs->n : 1, sizeof(*r.j));
	if (!r.doc || !r.j) {
		free(r.j);
		json_decref(r.doc);
		return NULL;
	}
	for (size_t i = 0; i < vs->n; i++)
		judge_name_value(&r, i);
	check_sockets(&r);
	check_p2p(&r);
	check_hca(&r);
	check_ifname(&r);
	check_gdr(&r);
	check_repeats(&r);
	emit(&r);
	free(r.j);
	return r.doc;
}

json_t *ncclenv_check_vars(const char *const *names, const char *const *values, int n,
			   const json_t *topo)
{
	struct ncclenv_vars vs = { 0 };
	struct ncclenv_opts o = { .topo = topo };
	json_t *doc = NULL;

	o.known = ncclenv_shipped_names(&o.n_known);
	for (int i = 0; i < n; i++)
		if (ncclenv_vars_add(&vs, names[i], values[i] ? values[i] : "", 0, 0))
			goto out;
	doc = ncclenv_check(&o, &vs);
out:
	ncclenv_vars_free(&vs);
	return doc;
}
