/*
 * GPUDirect RDMA findings: off, partly on, or unconfirmed, with the advice
 * taken from the reason NCCL prints (the GPU-HCA distance against
 * NCCL_NET_GDR_LEVEL, a missing peer-memory module) before any generic one.
 */
#include <stdio.h>
#include <string.h>

#include "core/out.h"
#include "checks/nccl/log/nccllog_int.h"

/* " (PXB)": the name of path type @n in the log's NCCL version, or "". */
static void path_name(const struct ncl_log *lg, const struct ncl_facts *f, int n, char *buf,
		      size_t len)
{
	int v = f->era_lo;
	const char *name;

	if (lg->nversions)
		ncl_parse_version(lg->versions[0].text, &v);
	name = ncl_path_name(v, n);
	if (*name)
		snprintf(buf, len, " (%s)", name);
	else if (len)
		buf[0] = '\0';
}

/* What to do about GPUDirect RDMA being off, from the reason NCCL prints. */
static void gdr_advice(const struct ncl_log *lg, const struct ncl_facts *f, char *buf,
		       size_t len)
{
	const struct ncl_gpu_gdr *g = &lg->gpu_gdr;
	const struct ncl_env *lvl = ncl_env_get(lg, "NCCL_NET_GDR_LEVEL");
	char dn[16], ln[16];

	if (g->far) {
		path_name(lg, f, g->far_d, dn, sizeof(dn));
		path_name(lg, f, g->far_l, ln, sizeof(ln));
		snprintf(buf, len,
			 "NCCL says why (\"%s\" on %s): the GPU-HCA distance %d%s is beyond "
			 "the GPUDirect limit %d%s (NCCL_NET_GDR_LEVEL %s%s); put each GPU's "
			 "traffic on a HCA nearer to it (NCCL_IB_HCA, fabcheck topo) or, where "
			 "the platform carries peer traffic through the CPU well, raise "
			 "NCCL_NET_GDR_LEVEL (PHB, SYS)",
			 g->far_msg, ncl_host_name(lg, g->far_host), g->far_d, dn, g->far_l, ln,
			 lvl ? "set to " : "unset: the default", lvl ? lvl->value : "");
	} else if (g->nomod) {
		snprintf(buf, len, "NCCL says the peer-memory module is missing (\"no module\"): "
				   "load nvidia_peermem (modprobe nvidia-peermem) or enable dma-buf");
	} else if (f->network[0] && strcmp(f->network, "IB") && strncmp(f->network, "IBext", 5)) {
		snprintf(buf, len,
			 "the %s plugin moved no data from GPU memory: check that this plugin "
			 "version supports GPU buffers (CUDA pointers; FI_HMEM for libfabric), "
			 "that nvidia_peermem or dma-buf is available, and NCCL_NET_GDR_LEVEL "
			 "against the GPU-NIC distance (fabcheck topo)",
			 f->network);
	} else {
		snprintf(buf, len, "load nvidia_peermem (modprobe nvidia-peermem) or enable "
				   "dma-buf, and check NCCL_NET_GDR_LEVEL against the GPU-HCA "
				   "distance (fabcheck topo)");
	}
}

void ncl_gdr_findings(const struct ncl_log *lg, const struct ncl_facts *f,
		      const struct ncl_expect *exp, json_t *doc)
{
	long send_off = 0, recv_off = 0;
	int sock = !strcmp(f->network, "Socket");

	for (size_t i = 0; i < lg->nchans; i++)
		if (lg->chans[i].t == NCL_T_NET && !lg->chans[i].gdr) {
			send_off += lg->chans[i].dir == 1;
			recv_off += lg->chans[i].dir == 2;
		}
	if (sock) {
		if (exp->gdr)
			fc_finding(doc, FC_FAIL, "GPUDirect RDMA was expected but NCCL runs over TCP "
						 "sockets, which never use it");
		return;
	}
	if (!strcmp(f->gdr, "off")) {
		char ev[96], adv[1024];

		if (f->net_chans)
			snprintf(ev, sizeof(ev), "none of %ld NET channel lines has /GDRDMA",
				 f->net_chans);
		else
			snprintf(ev, sizeof(ev), "NCCL reports GPU Direct RDMA disabled");
		gdr_advice(lg, f, adv, sizeof(adv));
		fc_finding(doc, exp->gdr ? FC_FAIL : FC_WARN,
			   "GPUDirect RDMA is off (%s): data is staged through host memory; %s", ev,
			   adv);
	} else if (!strcmp(f->gdr, "partial")) {
		fc_finding(doc, exp->gdr ? FC_FAIL : FC_WARN,
			   "GPUDirect RDMA is only partly on: %ld of %ld NET channels lack /GDRDMA "
			   "(%ld send, %ld receive side)%s",
			   f->net_chans - f->net_gdr_chans, f->net_chans, send_off, recv_off,
			   send_off && !recv_off ?
				   "; only the send side: NCCL_NET_GDR_READ=0 or a pre-Ampere GPU "
				   "without NVLink, set NCCL_NET_GDR_READ=1" :
				   "; some GPU-HCA pairs are too far apart: compare with fabcheck topo "
				   "and NCCL_NET_GDR_LEVEL");
	} else if (!strcmp(f->gdr, "unknown") && exp->gdr) {
		fc_finding(doc, FC_WARN,
			   "the log shows no GPUDirect RDMA evidence (no NET channel lines), so "
			   "--expect-gdr cannot be confirmed; capture the connection lines with "
			   "NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,NET");
	}
}

