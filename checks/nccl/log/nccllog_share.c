/*
 * One HCA for many GPUs: every local GPU sends between nodes through the HCAs
 * NCCL lists, so G GPUs on H HCAs get H/G of one HCA's bandwidth each when
 * they all send at once (a collective does). More than two GPUs per listed HCA
 * is a warning; with the node's topology (--topo), the HCAs it has that NCCL
 * does not list are named (down, filtered by NCCL_IB_HCA, or not visible).
 *
 * The GPUs of a host are counted from what the log shows: the distinct CUDA
 * devices ("[dev]" of each record), the distinct processes (each NCCL process
 * drives at least one GPU) and nRanks/nNodes when a communicator line prints
 * both. Each is a lower bound on the host's GPUs in the job.
 */
#include <stdio.h>
#include <string.h>

#include "core/out.h"
#include "checks/nccl/log/nccllog_int.h"

void ncl_note_gpu(struct ncl_log *lg, int h, const struct ncl_rec *r)
{
	struct ncl_host *host = &lg->hosts[h];

	if (r->dev >= 0 && r->dev < 64)
		host->devs |= 1ULL << r->dev;
	if (r->pid < 0 || host->npids >= NCL_MAX_PIDS)
		return;
	for (int i = 0; i < host->npids; i++)
		if (host->pids[i] == r->pid)
			return;
	host->pids[host->npids++] = r->pid;
}

int ncl_host_gpus(const struct ncl_log *lg, int h)
{
	const struct ncl_host *host = &lg->hosts[h];
	int n = __builtin_popcountll(host->devs);

	if (host->npids > n)
		n = host->npids;
	if (lg->nnodes_max > 0 && lg->nranks_max >= lg->nnodes_max &&
	    lg->nranks_max % lg->nnodes_max == 0 && lg->nranks_max / lg->nnodes_max > n)
		n = (int)(lg->nranks_max / lg->nnodes_max);
	return n;
}

/* "1/4 (25%)" of one HCA for @gpus GPUs on @hcas HCAs. */
static void share_text(int gpus, int hcas, char *buf, size_t len)
{
	int pct = (100 * hcas + gpus / 2) / gpus;

	if (gpus % hcas == 0)
		snprintf(buf, len, "1/%d (%d%%)", gpus / hcas, pct);
	else
		snprintf(buf, len, "%d/%d (%d%%)", hcas, gpus, pct);
}

static void hca_names(const struct ncl_host *h, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (int i = 0; i < h->nhcas && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used, "%s%s", i ? "," : "",
					 h->hcas[i].name);
}

/* ", and the node's topology (--topo) has N more HCAs ...": "" when none. */
static void unused_text(const struct ncl_log *lg, int h, const json_t *topo, char *buf,
			size_t len)
{
	const json_t *nics = topo ? json_object_get(topo, "nics") : NULL;
	char names[NCL_TEXT] = "";
	size_t used = 0, i;
	int n = 0;
	json_t *nic;

	buf[0] = '\0';
	json_array_foreach(nics, i, nic) {
		const char *name = fc_jstr(nic, "name", "");

		if (!*name || ncl_hca_listed(lg, h, name))
			continue;
		n++;
		if (used < sizeof(names))
			used += (size_t)snprintf(names + used, sizeof(names) - used, "%s%s",
						 used ? "," : "", name);
	}
	if (n)
		snprintf(buf, len,
			 "; the node's topology (--topo) has %d more HCA%s (%s) that NCCL does "
			 "not list, so NCCL is not using %s: check %s port state "
			 "(ibv_devinfo), NCCL_IB_HCA and the devices visible in the container",
			 n, n > 1 ? "s" : "", names, n > 1 ? "them" : "it", n > 1 ? "their" : "its");
}

/* NICs of host @h: its IB list, else the count of a 2.4 distance line (plugins). */
static int host_nics(const struct ncl_log *lg, int h, const char **net)
{
	int n = 0;

	*net = "";
	if (lg->hosts[h].have_list)
		return lg->hosts[h].nhcas;
	for (int i = 0; i < lg->ndist; i++)
		if (lg->dist[i].host == h && strcmp(lg->dist[i].net, "Socket") &&
		    lg->dist[i].nnics > n) {
			n = lg->dist[i].nnics;
			*net = lg->dist[i].net;
		}
	return n;
}

void ncl_share_findings(const struct ncl_log *lg, const struct ncl_facts *f,
			const json_t *topo, json_t *doc)
{
	int worst = -1, wg = 0, wn = 0, others = 0;
	char share[32], names[NCL_TEXT], what[NCL_TEXT + 80], unused[NCL_TEXT * 2], more[48];
	const char *net = "", *wnet = "", *unit;

	if (!strcmp(f->network, "Socket") || f->single_node)
		return;
	for (int i = 0; i < lg->nhosts; i++) {
		int g = ncl_host_gpus(lg, i), n = host_nics(lg, i, &net);

		if (!n || g <= 2 * n)
			continue;
		if (worst >= 0)
			others++;
		if (worst < 0 || g * wn > wg * n) {
			worst = i;
			wg = g;
			wn = n;
			wnet = net;
		}
	}
	if (worst < 0)
		return;
	unit = wnet[0] ? "NIC" : "HCA";
	share_text(wg, wn, share, sizeof(share));
	hca_names(&lg->hosts[worst], names, sizeof(names));
	snprintf(what, sizeof(what), wnet[0] ? "%d %s NIC%s" : "%d listed HCA%s (%s)", wn,
		 wnet[0] ? wnet : (wn > 1 ? "s" : ""), wnet[0] ? (wn > 1 ? "s" : "") : names);
	unused_text(lg, worst, wnet[0] ? NULL : topo, unused, sizeof(unused));
	snprintf(more, sizeof(more), " (%d other host%s alike)", others, others > 1 ? "s" : "");
	fc_finding(doc, FC_WARN,
		   "on %s%s at least %d GPUs share %s: %s%d GPUs per %s, so "
		   "each GPU gets %s of one %s's bandwidth between nodes when all send at "
		   "once%s",
		   ncl_host_name(lg, worst), others ? more : "", wg, what, wg % wn ? "up to " : "",
		   (wg + wn - 1) / wn, unit, share, unit,
		   unused[0] ? unused : "; give each GPU a NIC of its own (one per PCIe switch) "
				       "or accept the lower inter-node bandwidth");
}
