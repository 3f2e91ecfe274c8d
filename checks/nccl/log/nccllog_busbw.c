/*
 * The busbw to expect and the judgement of a measured one (see
 * ncl_busbw_judge in nccllog.h): for nccl run and nccl check-log, with the
 * one model of core/busbw.h.
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checks/nccl/env/ncclenv.h"
#include "checks/nccl/log/nccllog.h"
#include "checks/nccl/log/nccllog_int.h"
#include "core/busbw.h"
#include "core/out.h"

/*
 * The NICs NCCL makes of the log's HCA list: its NET devices, each HCA
 * under the index its channel lines name (its "net_dev": a port alone, the
 * 2.20.3-2.23.4 IB plugin's merged device or a 2.24+ virtual NIC of two
 * ports, checks/nccl/log/nccllog_vnic.c). A merged or fused NIC is one
 * device of its ports' summed speed (net_ib.cc ncclIbInit at v2.20.3-1:
 * ncclIbMergedDevs[..].speed += ..., and its
 * ncclIbMakeVDeviceInternal at v2.24.3-1, mDev->speed += dev->speed), so it counts once at that rate, never
 * as one rail per port at a port's rate (doc/nccl-versions.md).
 */
#define NCL_BUSBW_NICS 64
struct ncl_nic {
	int net_dev, ports, used;
	double gbps;	  /* summed, -1 when a port's rate is unknown */
	double port_min;  /* its slowest port (Gb/s), 0 unknown */
	char name[96];	  /* "mlx5_0+mlx5_1" */
};

static struct ncl_nic *nic_at(struct ncl_nic *nics, int *n, int net_dev)
{
	for (int i = 0; i < *n; i++)
		if (nics[i].net_dev == net_dev)
			return &nics[i];
	if (*n >= NCL_BUSBW_NICS)
		return NULL;
	nics[*n] = (struct ncl_nic){ .net_dev = net_dev };
	return &nics[(*n)++];
}

/* The log's NICs into @nics, each port at @port_gbps (0: its logged rate),
 * marked used when a channel line names it; their count. */
static int log_nics(const struct ncl_busbw_in *in, double port_gbps, struct ncl_nic *nics)
{
	int n = 0;
	size_t i;
	json_t *h, *c;

	json_array_foreach(in->hcas, i, h) {
		int dev = (int)fc_jnum(h, "net_dev", fc_jnum(h, "index", -1));
		double r = port_gbps > 0 ? port_gbps : fc_jnum(h, "speed_mbps", 0) / 1000;
		struct ncl_nic *k = nic_at(nics, &n, dev);
		size_t len;

		if (!k)
			continue;
		len = strlen(k->name);
		snprintf(k->name + len, sizeof(k->name) - len, "%s%s", k->ports ? "+" : "",
			 fc_jstr(h, "name", "?"));
		k->ports++;
		k->gbps = !(r > 0) || k->gbps < 0 ? -1 : k->gbps + r;
		if (r > 0 && (!k->port_min || r < k->port_min))
			k->port_min = r;
	}
	json_array_foreach(in->channels, i, c)
		for (int k = 0; k < n; k++)
			nics[k].used |= (int)fc_jnum(c, "net_dev", -1) == nics[k].net_dev;
	return n;
}

static int any_net_channel(const json_t *channels)
{
	size_t i;
	json_t *c;

	json_array_foreach(channels, i, c)
		if (fc_jnum(c, "net_dev", -1) >= 0)
			return 1;
	return 0;
}

/*
 * The NICs the GPUs use, out of the log's: those its channel lines name;
 * without channel lines, the fastest listed, as NCCL ranks a GPU's NICs by
 * path bandwidth, which counts the NIC's speed (src/graph/topo.cc
 * ncclTopoGetLocal; ncclTopoAddNet: bw = speed / 8000), so a 200G storage
 * port is no candidate beside a 400G one. Marked in @nics (used), their
 * count into *n_p, how they were chosen into *how_p, the slowest of their
 * ports into *port_p; their slowest rate (Gb/s, 0 unknown) returned.
 */
static double nics_rate(const struct ncl_busbw_in *in, struct ncl_nic *nics, int nn,
			int *n_p, const char **how_p, double *port_p)
{
	int by_chan = any_net_channel(in->channels), n = 0, unknown = 0;
	double top = 0, rate = 0;

	for (int k = 0; k < nn; k++) {
		unknown |= !(nics[k].gbps > 0);
		top = nics[k].gbps > top ? nics[k].gbps : top;
	}
	*how_p = by_chan ? "the HCAs its channel lines use" :
		 unknown ? "every HCA listed" : "the fastest HCAs listed (NCCL ranks by path bandwidth)";
	*port_p = 0;
	for (int k = 0; k < nn; k++) {
		struct ncl_nic *c = &nics[k];

		if (!by_chan)
			c->used = unknown || !(c->gbps < top);
		if (!c->used)
			continue;
		n++;
		if (!(c->gbps > 0))
			rate = -1; /* one unknown: the slowest is unknown */
		else if (rate >= 0 && (!rate || c->gbps < rate))
			rate = c->gbps;
		if (c->port_min > 0 && (!*port_p || c->port_min < *port_p))
			*port_p = c->port_min;
	}
	*n_p = n;
	return rate > 0 ? rate : 0;
}

/* The NICs of more than one port (merged or fused) as rails.nics. */
static void nics_json(json_t *rails, const struct ncl_nic *nics, int nn)
{
	json_t *a = json_array();

	for (int k = 0; k < nn; k++)
		if (nics[k].ports > 1)
			json_array_append_new(
				a, json_pack("{s:i, s:s, s:i, s:o, s:b}", "net_dev", nics[k].net_dev,
					     "name", nics[k].name, "ports", nics[k].ports,
					     "rate_gbit_s", nics[k].gbps > 0 ? json_real(nics[k].gbps) :
									      json_null(),
					     "used", nics[k].used));
	json_object_set_new(rails, "nics", a);
}

/* The rate used and where it came from: --rail-gbps (each port's), else
 * the log; the NICs into @nics (their count into *nn_p). */
static double rail_rate(json_t *doc, const struct ncl_busbw_in *in, struct ncl_nic *nics,
			int *nn_p, const char **src_p, int *n_p, const char **how_p)
{
	double opt = in->rail_gbps, port = 0, rate;

	*nn_p = log_nics(in, 0, nics);
	rate = nics_rate(in, nics, *nn_p, n_p, how_p, &port);
	*src_p = opt > 0 ? "--rail-gbps" : rate > 0 ? "NCCL log" : NULL;
	if (opt > 0 && port > 0 && fabs(port - opt) > 0.01 * opt)
		fc_finding(doc, FC_WARN,
			   "the NCCL log gives %g Gb/s for its slowest HCA where --rail-gbps says "
			   "%g: the expectation uses --rail-gbps; check the HCAs' rates "
			   "(fabcheck devices) or the option", port, opt);
	if (opt > 0) {
		*nn_p = log_nics(in, opt, nics);
		rate = nics_rate(in, nics, *nn_p, n_p, how_p, &port);
	}
	return rate;
}

/* Why nothing is expected (NULL: something is). */
static const char *why_none(const struct ncl_busbw_in *in, int nrails, double rate,
			    unsigned which)
{
	if (in->nnodes == 1)
		return "one node: the network is not on the path";
	if (in->nnodes < 1 || in->gpus_per_node < 1)
		return "the log does not give the nodes and GPUs per node; give them with "
		       "--nodes and --gpus-per-node";
	if (!nrails)
		return "the NCCL log shows no HCA list";
	if (!(rate > 0))
		return "the NCCL log gives no link rate (NCCL 2.27 and later print it with NET); "
		       "give it with --rail-gbps";
	if (!which)
		return "NCCL_ALGO allows no algorithm modelled here (ring, tree, NVLS tree): "
		       "CollNet (IB SHARP) is not";
	return NULL;
}

/* The algorithms NCCL_ALGO allows; one NCCL ignores (a word it does not
 * know: the log's check of the settings names it) allows all. */
static unsigned allowed_algos(const char *v, char *why, size_t len)
{
	why[0] = '\0';
	if (v && ncclenv_value_check("NCCL_ALGO", v, why, len))
		return BUSBW_ALGO_ALL;
	why[0] = '\0';
	return busbw_algo_parse(v);
}

void ncl_busbw_judge(json_t *doc, const struct ncl_busbw_in *in)
{
	struct ncl_nic nics[NCL_BUSBW_NICS];
	int nrails = 0, gpn = in->gpus_per_node, listed = 0;
	char ignored[512];
	unsigned algos = allowed_algos(in->nccl_algo, ignored, sizeof(ignored)), which;
	const char *src, *how;
	double rate = rail_rate(doc, in, nics, &listed, &src, &nrails, &how);
	int used = nrails < gpn ? nrails : gpn;
	double want = busbw_rails(algos, nrails, rate, gpn, in->nnodes, &which);
	double bound = busbw_rails_bound(algos, nrails, rate, gpn, in->nnodes);
	double got = in->measured, share = want > 0 && got > 0 ? got / want : 0;
	json_t *rails;

	json_object_set_new(
		doc, "rails",
		json_pack("{s:i, s:o, s:s?, s:i, s:f, s:s?, s:s?, s:s, s:o, s:o, s:o, s:s?, s:o, "
			  "s:s?, s:o, s:f}",
			  "count", nrails, "rate_gbit_s", rate > 0 ? json_real(rate) : json_null(),
			  "rate_from", src, "used_per_node", used, "payload_share",
			  BUSBW_RAIL_PAYLOAD, "nccl_algo", in->nccl_algo, "nccl_algo_ignored",
			  ignored[0] ? ignored : NULL, "algorithm",
			  which ? busbw_algo_name(which) : "none", "algorithm_factor",
			  which ? json_real(busbw_algo_factor(which, in->nnodes, gpn)) : json_null(),
			  "expected_busbw_gbytes_s", want > 0 ? json_real(want) : json_null(),
			  "network_bound_gbytes_s", bound > 0 ? json_real(bound) : json_null(),
			  "why_none", want > 0 ? NULL : why_none(in, nrails, rate, which),
			  "measured_busbw_gbytes_s", got > 0 ? json_real(got) : json_null(),
			  "measured_as", got > 0 ? in->measured_as : NULL, "share",
			  share > 0 ? json_real(share) : json_null(), "floor", NCL_BUSBW_FLOOR));
	rails = json_object_get(doc, "rails");
	json_object_set_new(rails, "listed", json_integer(listed));
	json_object_set_new(rails, "hcas_from", json_string(how));
	nics_json(rails, nics, listed);
	if (share > 0 && share < NCL_BUSBW_FLOOR)
		fc_finding(doc, FC_WARN,
			   "%s %.1f GB/s is %.0f%% of the %.1f GB/s the rails can carry "
			   "(%d of %d %s per node at %g Gb/s, %s): check every rail with "
			   "fabcheck pair --rails all, and NCCL_ALGO=Ring for comparison",
			   in->measured_as, got, 100 * share, want, used, nrails,
			   json_array_size(json_object_get(rails, "nics")) ? "NICs" : "HCAs", rate,
			   busbw_algo_name(which));
}

/* "  NCCL's NICs of two ports: mlx5_0+mlx5_1 (400 Gb/s), ...: each counted
 * once at its ports' summed rate". */
static void nics_render(FILE *f, const json_t *nics)
{
	size_t i;
	json_t *k;

	if (!json_array_size(nics))
		return;
	fputs("  NCCL's NICs of several ports:", f);
	json_array_foreach(nics, i, k) {
		fprintf(f, "%s %s", i ? "," : "", fc_jstr(k, "name", "?"));
		if (fc_jnum(k, "rate_gbit_s", 0) > 0)
			fprintf(f, " (%g Gb/s)", fc_jnum(k, "rate_gbit_s", 0));
	}
	fputs(": each counted once, at its ports' summed rate\n", f);
}

void ncl_busbw_render(FILE *f, const json_t *doc)
{
	const json_t *r = json_object_get(doc, "rails");
	double want = fc_jnum(r, "expected_busbw_gbytes_s", 0);

	if (want > 0) {
		fprintf(f, "  %d x %g Gb/s rails (%s), %s: at most ~%.0f GB/s busbw across nodes",
			(int)fc_jnum(r, "used_per_node", 0), fc_jnum(r, "rate_gbit_s", 0),
			fc_jstr(r, "rate_from", "?"), fc_jstr(r, "algorithm", "?"), want);
		if (fc_jnum(r, "share", 0) > 0)
			fprintf(f, "; measured %.0f (%s), %.0f%% (floor %.0f%%)",
				fc_jnum(r, "measured_busbw_gbytes_s", 0),
				fc_jstr(r, "measured_as", "?"), 100 * fc_jnum(r, "share", 0),
				100 * fc_jnum(r, "floor", 0));
		fputc('\n', f);
	}
	nics_render(f, json_object_get(r, "nics"));
	if (fc_jnum(r, "listed", 0) > fc_jnum(r, "count", 0))
		fprintf(f, "  %s counted: %d of the %d listed, %s\n",
			json_array_size(json_object_get(r, "nics")) ? "NICs" : "HCAs",
			(int)fc_jnum(r, "count", 0),
			(int)fc_jnum(r, "listed", 0), fc_jstr(r, "hcas_from", "?"));
	if (fc_jnum(r, "network_bound_gbytes_s", 0) > 0)
		fprintf(f, "  on two nodes a tree sends half its traffic over the network: up to "
			   "%.1f GB/s, where the path inside the node allows it\n",
			fc_jnum(r, "network_bound_gbytes_s", 0));
	else if (r && fc_jstr(r, "why_none", NULL))
		fprintf(f, "  the rails can carry: not known (%s)\n", fc_jstr(r, "why_none", ""));
	ncl_intra_render(f, doc);
}

/* ---- nccl-tests' output in a log ---- */

/* A finite number >= 0 filling @t whole. */
static int fig(const char *t, double *out)
{
	char *end;
	double v = strtod(t, &end);

	if (end == t || *end || !isfinite(v) || v < 0)
		return 0;
	*out = v;
	return 1;
}

static int whole(const char *t)
{
	if (*t == '-')
		t++;
	if (!*t)
		return 0;
	for (; *t; t++)
		if (!isdigit((unsigned char)*t))
			return 0;
	return 1;
}

/*
 * A result row of nccl-tests (src/common.cu):
 *   "  8589934592  2147483648  float  sum  -1  47133  182.25  364.49  0
 *    47107  182.35  364.69  0"
 * size, count, type, redop, root (not in the oldest versions), then time,
 * algbw, busbw, #wrong out of place and the same in place; #wrong may be
 * "N/A" (-c 0) or an error figure (old versions). The busbw taken is the
 * better of the two places.
 */
int ncl_tests_row(struct ncl_log *lg, const char *s)
{
	char buf[512], *tok[16], *save = NULL;
	int n = 0, base;
	double a, b;

	if (!isdigit((unsigned char)*s) || strlen(s) >= sizeof(buf))
		return 0;
	memcpy(buf, s, strlen(s) + 1);
	for (char *t = strtok_r(buf, " \t", &save); t && n < 16; t = strtok_r(NULL, " \t", &save))
		tok[n++] = t;
	if (n != 12 && n != 13)
		return 0;
	base = n == 13 ? 5 : 4;
	if (!whole(tok[0]) || !whole(tok[1]) || !isalpha((unsigned char)tok[2][0]) ||
	    !isalpha((unsigned char)tok[3][0]) || (n == 13 && !whole(tok[4])) ||
	    !fig(tok[base + 2], &a) || !fig(tok[base + 6], &b))
		return 0;
	lg->tests_rows++;
	if (a > lg->tests_peak_busbw)
		lg->tests_peak_busbw = a;
	if (b > lg->tests_peak_busbw)
		lg->tests_peak_busbw = b;
	return 1;
}

/* "# Avg bus bandwidth    : 139.652" and "# Collective test starting:
 * all_reduce_perf" (newer nccl-tests). */
void ncl_tests_comment(struct ncl_log *lg, const char *p)
{
	const char *c;
	double v;

	while (*p == ' ')
		p++;
	if (!strncmp(p, "Avg bus bandwidth", 17) && (c = strchr(p, ':'))) {
		char *end;

		v = strtod(c + 1, &end);
		if (end != c + 1 && isfinite(v) && v > 0)
			lg->tests_avg_busbw = v;
	} else if (!strncmp(p, "Collective test starting:", 25)) {
		size_t k = 0;

		for (c = p + 25; *c == ' '; c++)
			;
		while (c[k] && c[k] != ' ' && k + 1 < sizeof(lg->tests_coll))
			k++;
		memcpy(lg->tests_coll, c, k);
		lg->tests_coll[k] = '\0';
		if (k > 5 && !strcmp(lg->tests_coll + k - 5, "_perf"))
			lg->tests_coll[k - 5] = '\0';
	}
}

/* Nodes from the log (nNodes of the init lines, else the hosts seen). */
static int log_nodes(const struct ncl_log *lg)
{
	return lg->nnodes_max > 0 ? lg->nnodes_max : lg->nhosts;
}

void ncl_busbw_report(const struct ncl_log *lg, const struct ncl_expect *exp, json_t *doc)
{
	int nodes = exp->nnodes > 0 ? exp->nnodes : log_nodes(lg);
	int gpn = exp->gpus_per_node;
	const json_t *env = json_object_get(doc, "env");
	struct ncl_busbw_in in = { .hcas = json_object_get(doc, "hcas"),
				   .channels = json_object_get(doc, "channels"),
				   .rail_gbps = exp->rail_gbps, .nnodes = nodes,
				   .nccl_algo = fc_jstr(env, "NCCL_ALGO", NULL),
				   .measured = lg->tests_peak_busbw,
				   .measured_as = "nccl-tests' peak busbw" };

	if (!lg->tests_rows && !(exp->rail_gbps > 0) && !exp->nnodes && !exp->gpus_per_node)
		return; /* nothing asked, nothing measured */
	if (lg->tests_coll[0] && strcmp(lg->tests_coll, "all_reduce")) {
		json_object_set_new(doc, "rails", json_pack("{s:s, s:s}", "collective",
							    lg->tests_coll, "why_none",
							    "the model is all_reduce's"));
		return;
	}
	if (!gpn && nodes > 0 && lg->nranks_max > 0 && lg->nranks_max % nodes == 0)
		gpn = (int)(lg->nranks_max / nodes);
	in.gpus_per_node = gpn;
	ncl_intra_report(lg, nodes, gpn, doc);
	ncl_busbw_judge(doc, &in);
	if (lg->tests_avg_busbw > 0)
		json_object_set_new(json_object_get(doc, "rails"), "avg_busbw_gbytes_s",
				    json_real(lg->tests_avg_busbw));
}
