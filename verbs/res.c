/* The resources of one side of a pair test: context, PD, CQs, QPs, memory (see res.h). */
#include "verbs/res.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/log.h"
#include "core/softdev.h"
#include "core/util.h"

void vb_slot_layout(uint64_t max_size, uint64_t *stride_p, uint32_t *nslots_p)
{
	uint64_t stride = (max_size + 4095) & ~4095ULL, n;

	if (!stride)
		stride = 4096;
	n = VB_BUF_TARGET / stride;
	if (n < 2)
		n = 2;
	if (n > 256)
		n = 256;
	*stride_p = stride;
	*nslots_p = (uint32_t)n;
}

static int first_active_port(struct ibv_context *ctx, int want_port)
{
	struct ibv_device_attr da;
	struct ibv_port_attr pa;

	if (ibv_query_device(ctx, &da))
		return 0;
	for (int p = 1; p <= da.phys_port_cnt; p++) {
		if (want_port && p != want_port)
			continue;
		if (!ibv_query_port(ctx, (uint8_t)p, &pa) && pa.state == IBV_PORT_ACTIVE)
			return p;
	}
	return 0;
}

/* Finds DEV (or the first device with an active port) and its port. */
static int pick_device(struct vb_opts *o)
{
	struct ibv_device **list;
	int n, found = 0, any_dev = 0;

	list = ibv_get_device_list(&n);
	if (!list || n == 0) {
		fc_err("no RDMA device found: load the HCA driver (e.g. modprobe mlx5_ib) or add a Soft-RoCE device (rdma link add rxe0 type rxe netdev eth0)");
		if (list)
			ibv_free_device_list(list);
		return -ENODEV;
	}
	for (int i = 0; i < n && !found; i++) {
		const char *name = ibv_get_device_name(list[i]);
		struct ibv_context *ctx;
		int p;

		if (o->dev[0] && strcmp(o->dev, name))
			continue;
		any_dev = 1;
		ctx = ibv_open_device(list[i]);
		if (!ctx)
			continue;
		p = first_active_port(ctx, o->port);
		ibv_close_device(ctx);
		if (p) {
			snprintf(o->dev, sizeof(o->dev), "%s", name);
			o->port = p;
			found = 1;
		}
	}
	if (!found) {
		char names[256] = "";

		for (int i = 0; i < n; i++) {
			strncat(names, i ? ", " : "", sizeof(names) - strlen(names) - 1);
			strncat(names, ibv_get_device_name(list[i]), sizeof(names) - strlen(names) - 1);
		}
		if (o->dev[0] && !any_dev)
			fc_err("no RDMA device '%s' here (devices: %s): pass one of them with -d",
			       o->dev, names);
		else if (o->dev[0] && o->port)
			fc_err("%s port %d is not active (or does not exist): check the cable and link (ibstat, ip link), or choose another with -d DEV:PORT",
			       o->dev, o->port);
		else
			fc_err("no active port on %s (devices: %s): check cables and links (ibstat, ip link) or bring the fabric interface up",
			       o->dev[0] ? o->dev : "any RDMA device", names);
	}
	ibv_free_device_list(list);
	return found ? 0 : o->dev[0] && !any_dev ? -ENODEV : -ENETDOWN;
}

int vb_res_pick(struct vb_res *r, const struct vb_opts *o_in)
{
	struct vb_opts o = *o_in;
	struct vb_port_info *pi;
	int err;

	err = pick_device(&o);
	if (err)
		return err;
	pi = calloc(1, sizeof(*pi));
	if (!pi)
		return -ENOMEM;
	err = vb_port_query(o.dev, o.port, pi);
	if (err) {
		free(pi);
		return err;
	}
	r->pi = pi;
	r->tclass = o.tclass;
	r->sl = o.sl;
	r->gid_index = -1;
	if (o.gid_index >= 0) {
		for (int i = 0; i < pi->ngids; i++)
			if (pi->gids[i].index == o.gid_index)
				r->gid_index = o.gid_index;
		if (r->gid_index < 0) {
			fc_err("%s port %d has no GID at index %d (-x): run 'fabcheck devices' to see the GID table, or drop -x for the scored choice",
			       pi->dev, pi->port, o.gid_index);
			return -ENOENT;
		}
	} else if (pi->chosen_gid >= 0) {
		r->gid_index = pi->gids[pi->chosen_gid].index;
	} else if (pi->is_ethernet) {
		fc_err("%s port %d has no usable GID: give its network interface%s%s an IP address (RoCE needs one)",
		       pi->dev, pi->port, pi->netdev[0] ? " " : "", pi->netdev);
		return -ENOENT;
	}
	if (!pi->is_ethernet && !pi->lid) {
		fc_err("%s port %d has no LID: is a subnet manager running on the fabric (opensm, or the switch's)?",
		       pi->dev, pi->port);
		return -ENETDOWN;
	}
	return 0;
}

static const struct fc_gid *chosen_gid(const struct vb_res *r)
{
	for (int i = 0; i < r->pi->ngids; i++)
		if (r->pi->gids[i].index == r->gid_index)
			return &r->pi->gids[i];
	return NULL;
}

static int open_ctx(struct vb_res *r)
{
	struct ibv_device **list;
	int n;

	list = ibv_get_device_list(&n);
	for (int i = 0; list && i < n; i++)
		if (!strcmp(ibv_get_device_name(list[i]), r->pi->dev))
			r->ctx = ibv_open_device(list[i]);
	if (list)
		ibv_free_device_list(list);
	if (!r->ctx) {
		fc_err("%s: cannot open the device: %s", r->pi->dev, strerror(errno ? errno : ENODEV));
		return -ENODEV;
	}
	return 0;
}

/* The entries of a send (@rx 0) or receive CQ: a completion per request
 * of every QP, and one more. */
static int cq_entries(const struct vb_res *r, int rx)
{
	return (rx ? r->rx_depth : r->tx_depth) * r->nqps + 1;
}

static int res_limits(struct vb_res *r, const struct vb_opts *o)
{
	struct ibv_device_attr da;
	int err = ibv_query_device(r->ctx, &da), rx;

	if (err) {
		fc_err("%s: ibv_query_device failed: %s", r->pi->dev, strerror(err));
		return -err;
	}
	r->tx_depth = o->tx_depth < da.max_qp_wr - 1 ? o->tx_depth : da.max_qp_wr - 1;
	r->rx_depth = vb_rx_depth(o->rx_depth, r->tx_depth, da.max_qp_wr);
	/* max_cqe bounds each CQ (man ibv_query_device: "Maximum number of
	 * entries in each CQ"): the larger of the send and receive CQs
	 * (cq_set) must fit, not their sum. */
	rx = r->rx_depth > r->tx_depth;
	if (cq_entries(r, rx) > da.max_cqe) {
		fc_err("%s: %d QPs of %d %s each need a completion queue of %d entries, the device allows %d per queue (max_cqe): lower -q or -t",
		       r->pi->dev, r->nqps, rx ? r->rx_depth : r->tx_depth, rx ? "receives" : "sends",
		       cq_entries(r, rx), da.max_cqe);
		return -EINVAL;
	}
	r->vendor_id = da.vendor_id;
	r->part_id = da.vendor_part_id;
	r->soft = fc_rdma_soft(r->pi->dev, da.vendor_id); /* rxe, siw (core/softdev.h) */
	/* The device's own limits (the QP attributes hold 8 bits); the two
	 * sides settle on the smaller in vb_res_connect. */
	r->rd_atom = da.max_qp_rd_atom < 255 ? da.max_qp_rd_atom : 255;
	r->init_rd_atom = da.max_qp_init_rd_atom < 255 ? da.max_qp_init_rd_atom : 255;
	if (r->rd_atom < 1)
		r->rd_atom = 1;
	if (r->init_rd_atom < 1)
		r->init_rd_atom = 1;
	return 0;
}

static int res_mem(struct vb_res *r, uint64_t max_size)
{
	int access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ;
	void *p;
	int err;

	vb_slot_layout(max_size, &r->stride, &r->nslots);
	r->buf_len = 2 * (size_t)r->stride * r->nslots;
	if (r->mem_alloc)
		return r->mem_alloc(r, access);
	err = posix_memalign(&p, (size_t)sysconf(_SC_PAGESIZE), r->buf_len);
	if (err) {
		fc_err("cannot allocate %zu bytes of host memory: %s", r->buf_len, strerror(err));
		return -err;
	}
	memset(p, 0, r->buf_len);
	r->buf = p;
	r->mr = ibv_reg_mr(r->pd, r->buf, r->buf_len, access);
	if (!r->mr) {
		err = -errno;
		fc_err("%s: cannot register %zu bytes of host memory: %s (raise 'ulimit -l', the locked-memory limit)",
		       r->pi->dev, r->buf_len, strerror(errno));
		return err;
	}
	return 0;
}

/* CQ set @k of @nsets (a thread's): its send CQ, then its receive CQ. */
static int cq_set(struct vb_res *r, int k, int nsets)
{
	struct ibv_cq **cq[2] = { &r->set_scq[k], &r->set_rcq[k] };
	char thread[48] = "";

	if (nsets > 1)
		snprintf(thread, sizeof(thread), " for thread %d of %d", k + 1, nsets);
	for (int rx = 0; rx < 2; rx++) {
		*cq[rx] = ibv_create_cq(r->ctx, cq_entries(r, rx), NULL, NULL, 0);
		if (!*cq[rx]) {
			fc_err("%s: cannot create the %s completion queue of %d entries%s: %s",
			       r->pi->dev, rx ? "receive" : "send", cq_entries(r, rx), thread,
			       strerror(errno));
			return -ENOMEM;
		}
		if (k == 0) /* set 0 is scq/rcq (vb_res_close frees them) */
			*(rx ? &r->rcq : &r->scq) = *cq[rx];
	}
	return 0;
}

int vb_res_open(struct vb_res *r, const struct vb_opts *o, struct ibv_context *ctx)
{
	int nsets, err;

	r->nqps = o->nqps;
	r->timeout = o->timeout;
	if (ctx)
		r->ctx = ctx;
	else if ((err = open_ctx(r)))
		return err;
	err = res_limits(r, o);
	if (err)
		return err;
	r->pd = ibv_alloc_pd(r->ctx);
	if (!r->pd) {
		fc_err("%s: cannot allocate a protection domain: %s", r->pi->dev, strerror(errno));
		return -ENOMEM;
	}
	/* rdma_cm (@ctx) makes its QPs on set 0: one thread there. */
	nsets = ctx ? 1 : o->nthreads < 1 ? 1 : o->nthreads < VB_MAX_CQSETS ? o->nthreads :
									       VB_MAX_CQSETS;
	for (int k = 0; k < nsets; k++) {
		err = cq_set(r, k, nsets);
		if (err)
			return err;
		r->ncqsets = k + 1;
	}
	err = res_mem(r, o->max_size);
	if (err)
		return err;
	if (!ctx)
		return vb_res_create_qps(r);
	return 0;
}

void vb_qp_init_attr(const struct vb_res *r, struct ibv_qp_init_attr *ia)
{
	*ia = (struct ibv_qp_init_attr){
		.send_cq = r->scq,
		.recv_cq = r->rcq,
		.cap = { .max_send_wr = (uint32_t)r->tx_depth + 1,
			 .max_recv_wr = (uint32_t)r->rx_depth,
			 .max_send_sge = 1, .max_recv_sge = 1, .max_inline_data = VB_QP_INLINE },
		.qp_type = IBV_QPT_RC,
	};
}

static struct ibv_qp *qp_create(struct vb_res *r, int q)
{
	struct ibv_qp_init_attr ia;
	struct ibv_qp *qp;

	vb_qp_init_attr(r, &ia);
	ia.send_cq = r->set_scq[q % r->ncqsets];
	ia.recv_cq = r->set_rcq[q % r->ncqsets];
	qp = ibv_create_qp(r->pd, &ia);

	if (!qp) {
		/* Some devices have no inline data: ask again without. */
		ia.cap.max_inline_data = 0;
		qp = ibv_create_qp(r->pd, &ia);
	}
	if (qp)
		r->max_inline = (int)ia.cap.max_inline_data;
	return qp;
}

int vb_qp_to_init(struct vb_res *r, struct ibv_qp *qp)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT,
		.pkey_index = 0,
		.port_num = (uint8_t)r->pi->port,
		.qp_access_flags = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
				   IBV_ACCESS_REMOTE_READ,
	};
	int mask = IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS;
	int err = ibv_modify_qp(qp, &a, mask);

	if (err)
		fc_err("%s qp 0x%x: RESET->INIT refused: %s (attribute mask 0x%x: STATE|PKEY_INDEX|PORT|ACCESS_FLAGS, port %d)",
		       r->pi->dev, qp->qp_num, strerror(err), mask, r->pi->port);
	return -err;
}

int vb_res_create_qps(struct vb_res *r)
{
	int err;

	for (int q = 0; q < r->nqps; q++) {
		r->qp[q] = qp_create(r, q);
		if (!r->qp[q]) {
			fc_err("%s: cannot create RC QP %d of %d: %s (lower -q or -t)", r->pi->dev,
			       q + 1, r->nqps, strerror(errno));
			return -ENOMEM;
		}
		r->psn[q] = (uint32_t)(lrand48() & 0xffffff);
		err = vb_qp_to_init(r, r->qp[q]);
		if (err)
			return err;
	}
	return 0;
}

void vb_res_close(struct vb_res *r)
{
	vb_loop_close(r);
	for (int q = 0; q < VB_MAX_QPS; q++) {
		if (r->qp[q] && !r->cm)
			ibv_destroy_qp(r->qp[q]);
		r->qp[q] = NULL;
	}
	if (r->mem_free) {
		r->mem_free(r);
	} else {
		if (r->mr)
			ibv_dereg_mr(r->mr);
		free(r->buf);
	}
	for (int k = 1; k < VB_MAX_CQSETS; k++) {
		if (r->set_rcq[k])
			ibv_destroy_cq(r->set_rcq[k]);
		if (r->set_scq[k])
			ibv_destroy_cq(r->set_scq[k]);
		r->set_rcq[k] = r->set_scq[k] = NULL;
	}
	if (r->rcq)
		ibv_destroy_cq(r->rcq);
	if (r->scq)
		ibv_destroy_cq(r->scq);
	if (r->pd)
		ibv_dealloc_pd(r->pd);
	if (r->ctx && !r->cm)
		ibv_close_device(r->ctx);
	free(r->pi);
	r->mr = NULL;
	r->buf = NULL;
	r->rcq = r->scq = NULL;
	r->pd = NULL;
	r->ctx = NULL;
	r->pi = NULL;
}

json_t *vb_res_json(const struct vb_res *r)
{
	const struct fc_gid *g = r->gid_index >= 0 ? chosen_gid(r) : NULL;
	json_t *qpn = json_array(), *psn = json_array(), *o;
	char host[256] = "?";

	gethostname(host, sizeof(host) - 1);
	for (int q = 0; q < r->nqps; q++) {
		json_array_append_new(qpn, json_integer(r->qp[q] ? r->qp[q]->qp_num : 0));
		json_array_append_new(psn, json_integer(r->psn[q]));
	}
	o = json_pack("{s:s, s:s, s:i, s:s, s:i, s:i, s:f, s:s, s:i, s:s, s:I, s:I, s:I,"
		      " s:i, s:o, s:o, s:i, s:i, s:s}",
		      "host", host, "device", r->pi->dev, "port", r->pi->port, "link_layer",
		      r->pi->is_ethernet ? "Ethernet" : "InfiniBand", "mtu", r->pi->active_mtu,
		      "max_mtu", r->pi->max_mtu, "rate_gbps", r->pi->rate_gbps, "rate",
		      fc_port_speed_name(r->pi->speed, 0), "lid", r->pi->lid, "memory", "host",
		      "rkey", (json_int_t)(r->mr ? r->mr->rkey : 0), "addr",
		      (json_int_t)(uintptr_t)r->buf, "stride", (json_int_t)r->stride, "nslots",
		      (int)r->nslots, "qpn", qpn, "psn", psn, "rd_atom", r->rd_atom,
		      "max_inline", r->max_inline, "netdev", r->pi->netdev);
	json_object_set_new(o, "width", json_string(fc_port_width_name(r->pi->width)));
	/* The HCA model, as the fleet's baseline keys it (core/baseline.h). */
	json_object_set_new(o, "hca", json_sprintf("0x%x:%u", r->vendor_id, r->part_id));
	json_object_set_new(o, "rate", json_string(fc_port_speed_name(r->pi->speed, r->pi->speed_ex)));
	/* The link facts the controller needs for the payload ceiling at the
	 * path MTU (core/payload.h). */
	json_object_set_new(o, "link", json_pack("{s:i, s:i, s:i, s:b, s:b, s:b}", "width_code",
						 (int)r->pi->width, "speed_code", (int)r->pi->speed,
						 "speed_ex_code", (int)r->pi->speed_ex, "vlan",
						 r->pi->vlan, "rocev1",
						 g && g->type == FC_GID_ROCE_V1, "ipv6",
						 g && r->pi->is_ethernet && !fc_gid_is_ipv4_mapped(g->raw)));
	vb_gid_json(o, g);
	return o;
}

static int get_u64(const json_t *j, const char *key, uint64_t max, uint64_t *v, char *why,
		   size_t len)
{
	const json_t *x = json_object_get(j, key);

	if (!json_is_integer(x) || json_integer_value(x) < 0 ||
	    (uint64_t)json_integer_value(x) > max) {
		snprintf(why, len, "setup report has no valid \"%s\"", key);
		return -EPROTO;
	}
	*v = (uint64_t)json_integer_value(x);
	return 0;
}

int vb_peer_from_json(const json_t *j, struct vb_peer *p, char *why, size_t len)
{
	const json_t *qpn = json_object_get(j, "qpn"), *psn = json_object_get(j, "psn");
	const char *gid = json_string_value(json_object_get(j, "gid"));
	uint64_t v;

	memset(p, 0, sizeof(*p));
	if (!json_is_array(qpn) || !json_is_array(psn) || json_array_size(qpn) < 1 ||
	    json_array_size(qpn) > VB_MAX_QPS || json_array_size(psn) != json_array_size(qpn)) {
		snprintf(why, len, "setup report has no valid \"qpn\"/\"psn\" lists");
		return -EPROTO;
	}
	p->nqps = (int)json_array_size(qpn);
	for (int q = 0; q < p->nqps; q++) {
		json_t *a = json_array_get(qpn, (size_t)q), *b = json_array_get(psn, (size_t)q);

		if (!json_is_integer(a) || !json_is_integer(b) || json_integer_value(a) < 0 ||
		    json_integer_value(a) > 0xffffff || json_integer_value(b) < 0 ||
		    json_integer_value(b) > 0xffffff) {
			snprintf(why, len, "setup report has a bad QP number or PSN");
			return -EPROTO;
		}
		p->qpn[q] = (uint32_t)json_integer_value(a);
		p->psn[q] = (uint32_t)json_integer_value(b);
	}
	if (gid && fc_gid_parse(gid, p->gid)) {
		snprintf(why, len, "setup report has a bad GID '%s'", gid);
		return -EPROTO;
	}
	if (get_u64(j, "lid", 0xffff, &v, why, len))
		return -EPROTO;
	p->lid = (int)v;
	if (get_u64(j, "mtu", 4096, &v, why, len))
		return -EPROTO;
	p->mtu = (int)v;
	if (get_u64(j, "rkey", 0xffffffffULL, &v, why, len))
		return -EPROTO;
	p->rkey = (uint32_t)v;
	if (get_u64(j, "addr", INT64_MAX, &p->addr, why, len) ||
	    get_u64(j, "stride", 1ULL << 40, &p->stride, why, len))
		return -EPROTO;
	if (get_u64(j, "nslots", 1u << 20, &v, why, len) || v < 1)
		return -EPROTO;
	p->nslots = (uint32_t)v;
	if (get_u64(j, "rd_atom", 255, &v, why, len))
		return -EPROTO;
	p->rd_atom = v ? (int)v : 1;
	return 0;
}

int vb_qp_index(const struct vb_res *r, uint32_t qpn)
{
	for (int q = 0; q < r->nqps; q++)
		if (r->qp[q] && r->qp[q]->qp_num == qpn)
			return q;
	return -1;
}

/* Receive slots per QP: the rx half shared out (at least one each). */
static uint64_t recv_part(const struct vb_res *r)
{
	uint64_t part = r->nqps > 0 ? r->nslots / (uint32_t)r->nqps : 0;

	return part ? part : 1;
}

int vb_post_recvs(struct vb_res *r, int q)
{
	int cap = r->rx_cap > 0 && r->rx_cap < r->rx_depth ? r->rx_cap : r->rx_depth;

	while (r->rq_posted[q] < cap) {
		uint64_t part = recv_part(r);
		uint64_t slot = r->recv_region ? 0 : (uint64_t)q * part + r->rq_next[q] % part;
		struct ibv_sge sge = {
			.addr = (uintptr_t)vb_rx(r, slot),
			.length = (uint32_t)r->stride,
			.lkey = r->mr->lkey,
		};

		if (r->recv_region) { /* perftest's: the QP's own region */
			uint64_t off = (uint32_t)q % r->recv_nregions * r->recv_region +
				       r->rq_next[q] % r->recv_nsteps * r->recv_step;
			uint64_t room = (uint64_t)r->stride * r->nslots - off;

			/* to the half's end at most; never shorter than a slot
			 * where it fits (a receive left posted by an earlier,
			 * smaller size of the run must hold a larger message) */
			sge.addr += off;
			sge.length = (uint32_t)(room < r->stride ? room : r->stride);
		}
		struct ibv_recv_wr wr = { .wr_id = (uint64_t)q | (slot % r->nslots) << 8,
					  .sg_list = &sge, .num_sge = 1 };
		struct ibv_recv_wr *bad;
		int err = ibv_post_recv(r->qp[q], &wr, &bad);

		if (err) {
			fc_err("%s qp 0x%x: cannot post a receive: %s", r->pi->dev,
			       r->qp[q]->qp_num, strerror(err));
			return -err;
		}
		r->rq_posted[q]++;
		r->rq_next[q]++;
	}
	return 0;
}

void vb_wc_error(const struct vb_res *r, const struct ibv_wc *wc)
{
	static const char *const ops[] = {
		[IBV_WC_SEND] = "send", [IBV_WC_RDMA_WRITE] = "RDMA write",
		[IBV_WC_RDMA_READ] = "RDMA read",
	};
	const char *op = wc->opcode & IBV_WC_RECV ? "receive" :
			 (unsigned)wc->opcode < 4 && ops[wc->opcode] ? ops[wc->opcode] : "work request";

	fc_err("%s qp 0x%x: %s completed with error '%s' (status %d, vendor error 0x%x): %s",
	       r->pi->dev, wc->qp_num, op, ibv_wc_status_str(wc->status), wc->status,
	       wc->vendor_err,
	       wc->status == IBV_WC_RETRY_EXC_ERR ?
		       "the peer did not answer: the link or the peer's port is down, or packets are lost (check cables, counters, the peer node)" :
	       wc->status == IBV_WC_RNR_RETRY_EXC_ERR ?
		       "the peer had no receive posted: the peer process stalled or died" :
	       wc->status == IBV_WC_REM_ACCESS_ERR ?
		       "the peer refused the access: mismatched rkey or address (a fabcheck bug or version mismatch)" :
		       "check the link, the counters and dmesg on both nodes");
}
