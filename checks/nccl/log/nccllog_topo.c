/*
 * Topology check: with the document of `fabcheck topo --json` from a node of
 * the job ({"gpus": [{"name", "bus_id", "nearest_nics": [...]}], "nics": [...]}),
 * a GPU whose NET channels use an HCA that is not among its nearest gets a
 * warning. Nodes of a job are assumed alike: the same file serves every host.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "core/out.h"
#include "core/util.h"
#include "checks/nccl/log/nccllog_int.h"

#define MAX_LISTED 6

int ncl_topo_check(const json_t *topo, const char **why_p)
{
	const json_t *gpus = json_object_get(topo, "gpus");
	size_t i;
	json_t *g;

	if (!json_is_object(topo) || !json_is_array(gpus)) {
		*why_p = "it has no \"gpus\" list (expected the output of 'fabcheck topo --json')";
		return -EINVAL;
	}
	json_array_foreach(gpus, i, g) {
		if (!json_is_object(g) || !json_is_array(json_object_get(g, "nearest_nics"))) {
			*why_p = "a GPU entry lacks its \"nearest_nics\" list";
			return -EINVAL;
		}
	}
	return 0;
}

/* The topo GPU of a rank: by bus id, else by "GPU<nvml index>". */
const json_t *ncl_topo_gpu(const json_t *topo, const struct ncl_rank *r)
{
	const json_t *gpus = json_object_get(topo, "gpus");
	char name[24];
	size_t i;
	json_t *g;

	if (r->bus_id >= 0)
		json_array_foreach(gpus, i, g) {
			const char *b = fc_jstr(g, "bus_id", "");

			if (*b && ncl_parse_bus(b) == r->bus_id)
				return g;
		}
	if (r->nvml_dev < 0)
		return NULL;
	snprintf(name, sizeof(name), "GPU%d", r->nvml_dev);
	return fc_jnamed(gpus, name);
}

/* True when every part of "a+b" is among the nearest NICs. */
int ncl_topo_nearest(const json_t *gpu, const char *hca)
{
	const json_t *near = json_object_get(gpu, "nearest_nics");
	char buf[NCL_TEXT], *tok, *save = NULL;

	if (!json_array_size(near))
		return 1; /* topo knows no NIC for it: nothing to compare */
	ncl_copy(buf, sizeof(buf), hca, strlen(hca));
	for (tok = strtok_r(buf, "+", &save); tok; tok = strtok_r(NULL, "+", &save)) {
		size_t i;
		json_t *n;
		int hit = 0;

		json_array_foreach(near, i, n)
			hit |= json_is_string(n) &&
			       ncl_hca_same(tok, json_string_value(n), strlen(json_string_value(n)));
		if (!hit)
			return 0;
	}
	return 1;
}

/* Whether @part is an element of the '+' list @list ("mlx5_0+mlx5_1"). */
static int in_plus(const char *list, const char *part)
{
	for (const char *p = list; p && *p; p = strchr(p, '+') ? strchr(p, '+') + 1 : NULL)
		if (ncl_hca_same(part, p, strcspn(p, "+")))
			return 1;
	return 0;
}

/*
 * Whether every part of @hca is a NIC NCCL's ranking gives @gpu in the
 * `topo --json` document (topo/pcitopo_nccl.c, the model topo, gpu-check
 * and --use-cuda use: path bandwidth counting each NIC's speed, only NICs
 * with an active port, the release's fused NICs and spreading): the GPU's
 * "nccl_name" or "nccl_nic", or a NIC whose "nccl_gpu" it is (a tie NCCL
 * spreads). -1 when the document holds no such model (an older or a
 * hand-written one): then the nearest NICs decide.
 */
static int model_gives(const json_t *topo, const json_t *gpu, const char *hca)
{
	const char *pick = fc_jstr(gpu, "nccl_name", fc_jstr(gpu, "nccl_nic", NULL));
	char buf[NCL_TEXT], *tok, *save = NULL;

	if (!pick)
		return -1;
	ncl_copy(buf, sizeof(buf), hca, strlen(hca));
	for (tok = strtok_r(buf, "+", &save); tok; tok = strtok_r(NULL, "+", &save)) {
		size_t i;
		json_t *n;
		int hit = in_plus(pick, tok);

		json_array_foreach(json_object_get(topo, "nics"), i, n)
			hit |= ncl_hca_same(tok, fc_jstr(n, "name", ""), strlen(fc_jstr(n, "name", ""))) &&
			       !strcmp(fc_jstr(n, "nccl_gpu", ""), fc_jstr(gpu, "name", "?"));
		if (!hit)
			return 0;
	}
	return 1;
}

/* The GPU's nearest NICs as "a,b"; returns 1 when NCCL lists one of them on @h. */
static int near_list(const struct ncl_log *lg, int h, const json_t *gpu, char *buf,
		     size_t len)
{
	size_t i, used = 0;
	json_t *n;
	int listed = 0;

	buf[0] = '\0';
	json_array_foreach(json_object_get(gpu, "nearest_nics"), i, n) {
		if (!json_is_string(n))
			continue;
		listed |= ncl_hca_listed(lg, h, json_string_value(n));
		if (used < len)
			used += (size_t)snprintf(buf + used, len - used, "%s%s", used ? "," : "",
						 json_string_value(n));
	}
	return listed;
}

/* A channel on an HCA NCCL's ranking of the --topo layout does not give
 * the rank's GPU: which it gives, and what is likely. */
static void model_finding(const struct ncl_log *lg, const json_t *topo, const json_t *g,
			  const struct ncl_rank *r, int rank, const char *hca, int channel,
			  json_t *doc)
{
	const json_t *rules = json_object_get(topo, "nccl_rules");
	const char *tv = fc_jstr(rules, "version", NULL);
	const char *lv = lg->nversions ? lg->versions[0].text : NULL;
	char other[96] = "";

	if (tv && lv && strncmp(lv, tv, strlen(tv)))
		snprintf(other, sizeof(other), "; the log is NCCL %.24s, whose rules may differ", lv);
	fc_finding(doc, FC_WARN,
		   "rank %d (%s, %s) moves data on %s (channel %d) but NCCL's ranking of the "
		   "--topo layout gives it %s (path bandwidth counting each NIC's speed, active "
		   "ports only; NCCL %s rules%s): %s",
		   rank, r->host >= 0 ? lg->hosts[r->host].name : "?", fc_jstr(g, "name", "GPU"),
		   hca, channel, fc_jstr(g, "nccl_name", fc_jstr(g, "nccl_nic", "?")),
		   tv ? tv : "?", other,
		   ncl_topo_nearest(g, hca) ?
			   "a slower or idle port beside it carries the traffic (a storage or DPU "
			   "port?): check the port state of the HCA NCCL should use (ibv_devinfo) "
			   "and leave the other out with NCCL_IB_HCA (fabcheck topo advises it)" :
			   "traffic crosses PCIe bridges or the CPU: check NCCL_IB_HCA, "
			   "NCCL_CROSS_NIC and the port state of the HCA NCCL should use");
}

void ncl_topo_findings(const struct ncl_log *lg, const json_t *topo, json_t *doc)
{
	int net = 0, pxn = 0, matched = 0, reported = 0, more = 0, last_rank = -1, listed, gives;
	char hca[NCL_TEXT], near[NCL_TEXT];

	for (size_t i = 0; i < lg->nchans; i++) {
		const struct ncl_chan *c = &lg->chans[i];
		int local = c->dir == 2 ? c->to : c->from;
		const struct ncl_rank *r;
		const json_t *g;

		if (c->t != NCL_T_NET)
			continue;
		if (c->proxy >= 0) { /* through another rank: ncl_rails judges it */
			pxn++;
			continue;
		}
		net++;
		if (local > lg->max_rank || !lg->ranks[local].present)
			continue;
		r = &lg->ranks[local];
		g = ncl_topo_gpu(topo, r);
		ncl_hca_of(lg, c->host, c->net_dev, hca, sizeof(hca));
		if (!g || !hca[0])
			continue;
		matched++;
		gives = model_gives(topo, g, hca);
		if ((gives < 0 ? ncl_topo_nearest(g, hca) : gives) || local == last_rank)
			continue;
		last_rank = local;
		if (reported >= MAX_LISTED) {
			more++;
			continue;
		}
		reported++;
		listed = near_list(lg, c->host, g, near, sizeof(near));
		if (gives == 0) {
			model_finding(lg, topo, g, r, local, hca, c->channel, doc);
			continue;
		}
		fc_finding(doc, FC_WARN,
			   "rank %d (%s, %s) moves data on %s (channel %d) but its nearest HCA%s %s "
			   "(--topo): traffic crosses PCIe bridges or the CPU; %s",
			   local, r->host >= 0 ? lg->hosts[r->host].name : "?",
			   fc_jstr(g, "name", "GPU"), hca, c->channel,
			   strchr(near, ',') ? "s are" : " is", near,
			   listed ? "NCCL lists it: check NCCL_CROSS_NIC and NCCL_IB_HCA's order" :
				    "NCCL does not list it: check its port state (ibv_devinfo), "
				    "NCCL_IB_HCA and the devices visible in the container");
	}
	if (more)
		fc_finding(doc, FC_WARN, "%d more rank%s an HCA that is not %s nearest", more,
			   more == 1 ? " uses" : "s use", more == 1 ? "its" : "their");
	if (!net && !pxn)
		fc_finding(doc, FC_WARN,
			   "--topo was given but the log has no NET channel lines to compare; "
			   "capture them with NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,NET");
	else if (net && !matched)
		fc_finding(doc, FC_WARN,
			   "no rank's GPU or HCA in the log could be matched with the --topo file "
			   "(bus ids, GPU indexes or the IB device list are missing or differ): "
			   "was it taken on another kind of node?");
	ncl_rails(lg, topo, doc);
}
