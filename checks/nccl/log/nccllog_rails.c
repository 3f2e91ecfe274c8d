/*
 * Rails with the node's topology (--topo): per GPU (local rank of a NET
 * channel), the HCAs its NET channels use and whether they are its rail-local
 * ones (among the GPU's nearest NICs in the topology), and the HCAs that carry
 * its traffic by PXN: "via NET/IB/3(1)" on a send line means rank 1, an NVLink
 * peer on the same node, sends the data on HCA 3; that is right when HCA 3 is
 * rank 1's own rail-local HCA. The document gets "gpu_rails":
 *   [{ rank, host, gpu, nearest: [..], hcas: [..], rail_local: true|false|null,
 *      pxn: [{ proxy_rank, proxy_gpu, hca, proxy_local: true|false|null }] }]
 * and a warning for PXN traffic on an HCA that is local to neither GPU. The
 * GPU's direct HCAs not being its nearest is warned in nccllog_topo.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/out.h"
#include "core/util.h"
#include "checks/nccl/log/nccllog_int.h"

#define MAX_LISTED 6

static const json_t *rank_gpu(const struct ncl_log *lg, const json_t *topo, int rank)
{
	if (rank < 0 || rank > lg->max_rank || !lg->ranks[rank].present)
		return NULL;
	return ncl_topo_gpu(topo, &lg->ranks[rank]);
}

/* The row of @rank, made on first use. */
static json_t *row_of(json_t **rows, const struct ncl_log *lg, const json_t *gpu, int rank)
{
	const struct ncl_rank *r = &lg->ranks[rank];
	json_t *near = json_object_get(gpu, "nearest_nics");

	if (rows[rank])
		return rows[rank];
	rows[rank] = json_pack("{s:i, s:s?, s:s, s:O, s:[], s:n, s:[]}", "rank", rank, "host",
			       r->host >= 0 && lg->hosts[r->host].name[0] ?
				       lg->hosts[r->host].name : NULL,
			       "gpu", fc_jstr(gpu, "name", "?"), "nearest", near ? near : json_null(),
			       "hcas", "rail_local", "pxn");
	return rows[rank];
}

static void add_direct(json_t *row, const json_t *gpu, const char *hca)
{
	json_t *hcas = json_object_get(row, "hcas");
	const json_t *rl = json_object_get(row, "rail_local");

	if (fc_jhas_str(hcas, hca))
		return;
	json_array_append_new(hcas, json_string(hca));
	if (json_array_size(json_object_get(gpu, "nearest_nics"))) /* else: not known */
		json_object_set_new(row, "rail_local",
				    json_boolean(ncl_topo_nearest(gpu, hca) && !json_is_false(rl)));
}

/* Adds a PXN entry; returns 1 when it is new and on an HCA local to neither GPU. */
static int add_pxn(json_t *row, const json_t *gpu, const json_t *pgpu, int proxy,
		   const char *hca)
{
	json_t *pxn = json_object_get(row, "pxn"), *e;
	size_t i;
	int local;

	json_array_foreach(pxn, i, e)
		if (json_integer_value(json_object_get(e, "proxy_rank")) == proxy &&
		    !strcmp(fc_jstr(e, "hca", ""), hca))
			return 0;
	local = pgpu ? ncl_topo_nearest(pgpu, hca) : -1;
	json_array_append_new(pxn, json_pack("{s:i, s:s?, s:s, s:o}", "proxy_rank", proxy,
					     "proxy_gpu", pgpu ? fc_jstr(pgpu, "name", "?") : NULL,
					     "hca", hca,
					     "proxy_local", local < 0 ? json_null() :
							    json_boolean(local)));
	return local == 0 && !ncl_topo_nearest(gpu, hca);
}

void ncl_rails(const struct ncl_log *lg, const json_t *topo, json_t *doc)
{
	json_t **rows, *out = json_array();
	int shown = 0, more = 0;
	char hca[NCL_TEXT];

	rows = lg->max_rank >= 0 ? calloc((size_t)lg->max_rank + 1, sizeof(*rows)) : NULL;
	for (size_t i = 0; rows && i < lg->nchans; i++) {
		const struct ncl_chan *c = &lg->chans[i];
		int local = c->dir == 2 ? c->to : c->from;
		const json_t *gpu = rank_gpu(lg, topo, local);
		json_t *row;

		if (c->t != NCL_T_NET || !gpu || !*ncl_hca_of(lg, c->host, c->net_dev, hca,
							      sizeof(hca)))
			continue;
		row = row_of(rows, lg, gpu, local);
		if (c->proxy < 0) {
			add_direct(row, gpu, hca);
		} else if (add_pxn(row, gpu, rank_gpu(lg, topo, c->proxy), c->proxy, hca)) {
			if (shown++ >= MAX_LISTED) {
				more++;
				continue;
			}
			fc_finding(doc, FC_WARN,
				   "rank %d (%s) sends by PXN through rank %d, whose HCA %s is not "
				   "rail-local to either GPU (--topo): check NCCL_IB_HCA and the "
				   "HCA and GPU order of the nodes",
				   local, fc_jstr(gpu, "name", "GPU"), c->proxy, hca);
		}
	}
	if (more)
		fc_finding(doc, FC_WARN, "%d more PXN route%s on HCAs local to neither GPU", more,
			   fc_s(more));
	for (int r = 0; rows && r <= lg->max_rank; r++)
		if (rows[r])
			json_array_append_new(out, rows[r]);
	free(rows);
	json_object_set_new(doc, "gpu_rails", out);
}
