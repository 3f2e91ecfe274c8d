/*
 * Channel lines (the transport each connection uses: the outcome),
 * communicator lines (rank, host, CUDA device, bus id, init state) and
 * GPUDirect RDMA lines (per HCA and per GPU/NIC pair).
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checks/nccl/log/nccllog_int.h"

/* "[4f000]" or "[7]": a bus id (hex, 4+ digits) or a device index. */
static void bracket(const char **p, int64_t *bus, int *dev)
{
	const char *s = *p, *e;
	int64_t v;

	*bus = -1;
	*dev = -1;
	if (*s != '[')
		return;
	s++;
	e = s;
	if (!ncl_hex(&e, &v) || *e != ']')
		return;
	const char *af = strpbrk(s, "abcdefABCDEF");

	if (e - s >= 4 || (af && af < e))
		*bus = v;
	else
		*dev = atoi(s);
	*p = e + 1;
}

static void parse_via(struct ncl_chan *c, const char *via)
{
	char buf[80], *tok, *save = NULL;
	int name_done = 0;
	size_t used = 0;

	ncl_copy(c->via, sizeof(c->via), via, strlen(via));
	c->net_dev = c->proxy = -1;
	if (ncl_starts(via, "P2P")) {
		c->t = NCL_T_P2P;
		return;
	}
	if (ncl_starts(via, "SHM") || strstr(via, "shared memory")) {
		c->t = NCL_T_SHM;
		return;
	}
	if (ncl_starts(via, "COLLNET") || ncl_starts(via, "CollNet")) {
		c->t = NCL_T_COLLNET;
		return;
	}
	if (!ncl_starts(via, "NET/")) {
		c->t = NCL_T_OTHER;
		return;
	}
	c->t = NCL_T_NET;
	ncl_copy(buf, sizeof(buf), via + 4, strlen(via + 4));
	for (tok = strtok_r(buf, "/", &save); tok; tok = strtok_r(NULL, "/", &save)) {
		if (!name_done && isdigit((unsigned char)tok[0])) {
			char *paren = strchr(tok, '(');

			name_done = 1;
			c->net_dev = atoi(tok);
			if (paren)
				c->proxy = atoi(paren + 1);
			continue;
		}
		if (!name_done) {
			used += (size_t)snprintf(c->net + used,
						 used < sizeof(c->net) ? sizeof(c->net) - used : 0,
						 "%s%s", used ? "/" : "", tok);
			if (used >= sizeof(c->net))
				used = sizeof(c->net) - 1;
			continue;
		}
		if (ncl_starts(tok, "GDR")) /* GDRDMA, possibly cut */
			c->gdr = 1;
		else if (ncl_starts(tok, "Shared"))
			c->shared = 1;
	}
}

static void note_rank(struct ncl_log *lg, int rank, int host, int cuda_dev, int64_t bus,
		      int nvml)
{
	struct ncl_rank *r = ncl_rank(lg, rank);

	if (!r)
		return;
	if (r->host < 0 && host >= 0)
		r->host = host;
	if (r->cuda_dev < 0 && cuda_dev >= 0)
		r->cuda_dev = cuda_dev;
	if (r->bus_id < 0 && bus >= 0)
		r->bus_id = bus;
	if (r->nvml_dev < 0 && nvml >= 0)
		r->nvml_dev = nvml;
}

/* "SEP RANK[BRACKET]" at *@p, after blanks: the rank in *@rank_p, the bus id
 * or device of the bracket in *@bus_p and *@dev_p (-1 when it has none); 0
 * when it is not there. */
static int end_point(const char **p, const char *sep, long *rank_p, int64_t *bus_p, int *dev_p)
{
	ncl_ws(p);
	if (!ncl_skip(p, sep))
		return 0;
	ncl_ws(p);
	if (!ncl_num(p, rank_p))
		return 0;
	bracket(p, bus_p, dev_p);
	return 1;
}

/*
 * "Channel 03/0 : 15[7] -> 6[6] [send] via NET/Socket/3", "Ring 00 : 15[4f000]
 * -> 0[18000] [receive] via NET/IB/0", 2.3 "Ring 00 : 0 -> 1 via P2P/IPC".
 * The local rank is the sender, except on [receive] lines and 2.3's NET lines.
 */
int ncl_on_channel(struct ncl_log *lg, const struct ncl_rec *r, int h)
{
	const char *p = r->msg;
	struct ncl_chan c = { .conn = -1, .host = -1 };
	int64_t fbus, tbus;
	int fdev, tdev;
	long ch, conn, from, to;
	int local_is_to, hostidx = r->host[0] ? h : -1, ring = ncl_starts(p, "Ring ");

	if (!ncl_skip(&p, "Channel ") && !ncl_skip(&p, "Ring "))
		return 0;
	if (!ncl_num(&p, &ch))
		return 0;
	if (ncl_skip(&p, "/") && ncl_num(&p, &conn))
		c.conn = (int)conn;
	if (!end_point(&p, ":", &from, &fbus, &fdev) || !end_point(&p, "->", &to, &tbus, &tdev))
		return 0;
	ncl_ws(&p);
	if (ncl_skip(&p, "[send]"))
		c.dir = 1;
	else if (ncl_skip(&p, "[receive]"))
		c.dir = 2;
	ncl_ws(&p);
	if (!ncl_skip(&p, "via "))
		return 0;
	if (from < 0 || to < 0 || from > NCL_MAX_RANK || to > NCL_MAX_RANK)
		return 1;
	c.channel = (int)(ch < 0 || ch > 1 << 20 ? -1 : ch);
	c.from = (int)from;
	c.to = (int)to;
	c.host = hostidx;
	parse_via(&c, p);
	if (c.t == NCL_T_NET && c.net_dev < 0)
		return 1; /* cut before the device index */
	if (c.t == NCL_T_NET && ring && !c.dir)
		c.dir = 2; /* 2.3 prints the NET ring line on the receiving rank only */
	local_is_to = c.dir == 2;
	note_rank(lg, c.from, local_is_to ? -1 : hostidx, local_is_to ? -1 : r->dev, fbus,
		  fdev);
	note_rank(lg, c.to, local_is_to ? hostidx : -1, local_is_to ? r->dev : -1, tbus, tdev);
	if (c.t == NCL_T_NET && !lg->chan_net[0])
		ncl_copy(lg->chan_net, sizeof(lg->chan_net), c.net, strlen(c.net));
	ncl_chan_add(lg, &c);
	return 1;
}

static void note_comm_id(struct ncl_log *lg, int64_t id)
{
	for (int i = 0; i < lg->comms; i++)
		if (lg->comm_ids[i] == (uint64_t)id)
			return;
	if (lg->comms < NCL_MAX_LIST)
		lg->comm_ids[lg->comms++] = (uint64_t)id;
}

/*
 * "[api ]comm 0xPTR rank R nranks N cudaDev D [nvmlDev M] busId B [commId 0xID]
 * - Init START|COMPLETE", "comm 0xPTR rank R nRanks N nNodes M localRanks ...",
 * 2.3 "rank R nranks N".
 */
int ncl_on_comm(struct ncl_log *lg, const struct ncl_rec *r, int h)
{
	const char *p = r->msg;
	long rank = -1, nranks = -1, cuda = -1, nvml = -1, nnodes = -1, v;
	int64_t bus = -1, id;
	char w[32];
	struct ncl_rank *rk;

	if (ncl_starts(p, "nccl")) { /* API name first (2.21+) */
		ncl_word(&p, NULL, 0, "");
		ncl_ws(&p);
	}
	if (!ncl_starts(p, "comm 0x") && !ncl_starts(p, "rank "))
		return 0;
	while (*p) {
		ncl_ws(&p);
		if (!ncl_word(&p, w, sizeof(w), ""))
			break;
		ncl_ws(&p);
		if (!strcmp(w, "busId") && ncl_hex(&p, &bus))
			continue;
		if (!strcmp(w, "commId") && ncl_hex(&p, &id)) {
			note_comm_id(lg, id);
			continue;
		}
		if (!ncl_num(&p, &v))
			continue;
		if (!strcmp(w, "rank"))
			rank = v;
		else if (!strcmp(w, "nranks") || !strcmp(w, "nRanks"))
			nranks = v;
		else if (!strcmp(w, "cudaDev"))
			cuda = v;
		else if (!strcmp(w, "nvmlDev"))
			nvml = v;
		else if (!strcmp(w, "nNodes"))
			nnodes = v;
	}
	if (rank < 0 || rank > NCL_MAX_RANK)
		return 1;
	if (nranks > lg->nranks_max)
		lg->nranks_max = nranks;
	if (nnodes > lg->nnodes_max)
		lg->nnodes_max = (int)(nnodes > 1 << 20 ? 1 << 20 : nnodes);
	if (cuda < 0)
		cuda = r->dev; /* the [dev] of the thread is the rank's device */
	note_rank(lg, (int)rank, r->host[0] ? h : -1, cuda >= 0 ? (int)cuda : -1, bus,
		  nvml >= 0 ? (int)nvml : -1);
	rk = ncl_rank(lg, (int)rank);
	if (!rk)
		return 1;
	if (strstr(r->msg, "Init COMPLETE")) {
		rk->init = 2;
		lg->init_complete++;
	} else if (strstr(r->msg, "Init START") && rk->init < 1) {
		rk->init = 1;
	}
	return 1;
}

static struct ncl_hca *find_hca(struct ncl_host *h, const char *name, long idx)
{
	for (int i = 0; i < h->nhcas; i++)
		if (name[0] ? !strcmp(h->hcas[i].name, name) : h->hcas[i].index == idx)
			return &h->hcas[i];
	return NULL;
}

/*
 * A plugin that prints no device list (gIB): the per-HCA GPUDirect lines
 * (2.13+, one per NET device, "for HCA <n> '<name>'") name its devices. A real
 * list, when one comes, replaces these entries.
 */
static struct ncl_hca *gdr_listed(struct ncl_host *h, const char *name, long idx)
{
	struct ncl_hca *c;

	if ((h->have_list && !h->list_from_gdr) || idx < 0 || idx >= NCL_MAX_HCAS ||
	    !name[0] || h->nhcas >= NCL_MAX_HCAS)
		return NULL;
	c = &h->hcas[h->nhcas++];
	for (; c > h->hcas && c[-1].index > idx; c--) /* kept in device order */
		c[0] = c[-1];
	memset(c, 0, sizeof(*c));
	c->index = (int)idx;
	c->ibv_index = c->merged = c->slot = -1;
	ncl_copy(c->name, sizeof(c->name), name, strlen(name));
	h->have_list = h->list_from_gdr = 1;
	return c;
}

/*
 * Per GPU/NIC: "... Disabled for GPU 0[0] / HCA 0 (distance 3 >= 2)" (2.4),
 * "... (distance 5 > 4)" (2.6+), "(..., distance 9 > 5)" (2.29),
 * 2.4 "... / HCA 0 'mlx5_0' (no module or not supported by GPU)".
 */
static void gpu_gdr(struct ncl_log *lg, const struct ncl_rec *r, int h, const char *g, int on)
{
	struct ncl_gpu_gdr *s = &lg->gpu_gdr;
	const char *d = strstr(g, "distance ");
	long dist, lvl;

	if (!d && !strstr(g, "(no module"))
		return;
	if (on) {
		s->enabled++;
		return;
	}
	s->disabled++;
	if (!d) {
		s->nomod++;
		return;
	}
	d += 9;
	if (!ncl_num(&d, &dist) || (ncl_ws(&d), !ncl_skip(&d, ">")))
		return;
	ncl_skip(&d, "=");
	ncl_ws(&d);
	if (!ncl_num(&d, &lvl))
		return;
	if (!s->far++) {
		s->far_d = (int)dist;
		s->far_l = (int)lvl;
		s->far_host = h;
		ncl_copy(s->far_msg, sizeof(s->far_msg), r->msg, strlen(r->msg));
	}
}

/*
 * Per HCA: "NET/IB : GPU Direct RDMA Disabled for HCA 0 'mlx5_0' (no module)",
 * 2.13+ "NET/<net> : GPU Direct RDMA Enabled for HCA 0 'mlx5_0'".
 * Per GPU/NIC: "GPU Direct RDMA Enabled for GPU 7000 / HCA 0 (distance 2 <= 3), read 1".
 */
int ncl_on_gdr(struct ncl_log *lg, const struct ncl_rec *r, int h)
{
	const char *g = strstr(r->msg, "GPU Direct RDMA ");
	const char *q1, *q2, *hca;
	char name[NCL_NAME] = "";
	struct ncl_hca *c;
	long idx = -1;
	int on;

	if (!g)
		return 0;
	g += 16;
	if (ncl_starts(g, "Enabled"))
		on = 1;
	else if (ncl_starts(g, "Disabled"))
		on = 0;
	else
		return 0;
	if (ncl_starts(r->msg, "NET/Socket"))
		return 1;
	q1 = strchr(g, '\'');
	q2 = q1 ? strchr(q1 + 1, '\'') : NULL;
	if (!q1 || !q2) {
		gpu_gdr(lg, r, h, g, on);
		return 1;
	}
	ncl_copy(name, sizeof(name), q1 + 1, (size_t)(q2 - q1 - 1));
	hca = strstr(g, "HCA ");
	if (hca) {
		hca += 4;
		ncl_num(&hca, &idx);
	}
	if (on)
		lg->hca_gdr_on++;
	else
		lg->hca_gdr_off++;
	if (!on && strstr(q2, "(no module"))
		lg->gpu_gdr.nomod++;
	c = find_hca(&lg->hosts[h], name, idx);
	if (!c)
		c = gdr_listed(&lg->hosts[h], name, idx);
	if (c)
		c->gdr = c->gdr == 1 && !on ? 0 : on;
	return 1;
}
