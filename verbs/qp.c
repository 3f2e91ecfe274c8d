/* RC QP bring-up toward the peer: INIT->RTR->RTS, RoCE (GRH) or IB (LID). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "core/gid.h"
#include "core/log.h"
#include "verbs/res.h"

static void mask_names(int mask, char *buf, size_t len)
{
	static const struct { int bit; const char *name; } bits[] = {
		{ IBV_QP_STATE, "STATE" }, { IBV_QP_AV, "AV" }, { IBV_QP_PATH_MTU, "PATH_MTU" },
		{ IBV_QP_DEST_QPN, "DEST_QPN" }, { IBV_QP_RQ_PSN, "RQ_PSN" },
		{ IBV_QP_MAX_DEST_RD_ATOMIC, "MAX_DEST_RD_ATOMIC" },
		{ IBV_QP_MIN_RNR_TIMER, "MIN_RNR_TIMER" }, { IBV_QP_TIMEOUT, "TIMEOUT" },
		{ IBV_QP_RETRY_CNT, "RETRY_CNT" }, { IBV_QP_RNR_RETRY, "RNR_RETRY" },
		{ IBV_QP_SQ_PSN, "SQ_PSN" }, { IBV_QP_MAX_QP_RD_ATOMIC, "MAX_QP_RD_ATOMIC" },
	};

	buf[0] = '\0';
	for (size_t i = 0; i < sizeof(bits) / sizeof(bits[0]); i++)
		if (mask & bits[i].bit) {
			if (buf[0])
				strncat(buf, "|", len - strlen(buf) - 1);
			strncat(buf, bits[i].name, len - strlen(buf) - 1);
		}
}

/* Where a QP sends to: the peer's QP (or, for a loopback QP, its own). */
struct qp_dest {
	uint32_t qpn, psn;
	const uint8_t *gid;
	int lid;
};

static int qp_rtr(struct vb_res *r, struct ibv_qp *qp, const struct qp_dest *p, int mtu_enum)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_RTR,
		.path_mtu = (enum ibv_mtu)mtu_enum,
		.dest_qp_num = p->qpn,
		.rq_psn = p->psn,
		.max_dest_rd_atomic = (uint8_t)r->rd_atom,
		.min_rnr_timer = 12,
		.ah_attr = { .port_num = (uint8_t)r->pi->port, .sl = 0, .src_path_bits = 0 },
	};
	int mask = IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
		   IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER;
	char names[256], gid[64];
	int err;

	if (r->pi->is_ethernet) {
		a.ah_attr.is_global = 1;
		memcpy(a.ah_attr.grh.dgid.raw, p->gid, 16);
		a.ah_attr.grh.sgid_index = (uint8_t)r->gid_index;
		a.ah_attr.grh.hop_limit = 64;
		/* RoCE: the traffic class becomes the IP header's DSCP and ECN;
		 * the SL the VLAN priority (PCP) of tagged frames on mlx5. */
		if (r->tclass >= 0)
			a.ah_attr.grh.traffic_class = (uint8_t)r->tclass;
	} else {
		a.ah_attr.dlid = (uint16_t)p->lid;
	}
	if (r->sl >= 0)
		a.ah_attr.sl = (uint8_t)r->sl;
	err = ibv_modify_qp(qp, &a, mask);
	if (err) {
		mask_names(mask, names, sizeof(names));
		fc_err("%s qp 0x%x: INIT->RTR refused: %s (attribute mask 0x%x: %s; peer qp 0x%x, %s %s, path MTU %d B, GID index %d, traffic class %d, SL %d): check -x, --tclass, --sl and that both ports share a subnet or VLAN",
		       r->pi->dev, qp->qp_num, strerror(err), mask, names, p->qpn,
		       r->pi->is_ethernet ? "GID" : "LID",
		       r->pi->is_ethernet ? fc_gid_fmt(p->gid, gid, sizeof(gid)) :
					    (snprintf(gid, sizeof(gid), "%d", p->lid), gid),
		       fc_mtu_bytes(mtu_enum), r->gid_index, a.ah_attr.grh.traffic_class,
		       a.ah_attr.sl);
		return -err;
	}
	return 0;
}

static int qp_rts(struct vb_res *r, struct ibv_qp *qp, uint32_t sq_psn)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_RTS,
		.timeout = 14,	 /* 4.096 us * 2^14 = 67 ms per try */
		.retry_cnt = 7,
		.rnr_retry = 7, /* receiver not ready: retry without limit */
		.sq_psn = sq_psn,
		.max_rd_atomic = (uint8_t)r->rd_atomic,
	};
	int mask = IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
		   IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC;
	char names[256];
	int err = ibv_modify_qp(qp, &a, mask);

	if (err) {
		mask_names(mask, names, sizeof(names));
		fc_err("%s qp 0x%x: RTR->RTS refused: %s (attribute mask 0x%x: %s, max_rd_atomic %d)",
		       r->pi->dev, qp->qp_num, strerror(err), mask, names, r->rd_atomic);
	}
	return -err;
}

int vb_res_connect(struct vb_res *r, const struct vb_peer *p, int path_mtu)
{
	int mtu_enum = fc_mtu_enum(path_mtu), err;

	if (!mtu_enum) {
		fc_err("%s: path MTU %d B is not one of 256..4096", r->pi->dev, path_mtu);
		return -EINVAL;
	}
	if (p->nqps != r->nqps) {
		fc_err("%s: the peer has %d QPs, this side %d", r->pi->dev, p->nqps, r->nqps);
		return -EPROTO;
	}
	r->peer = *p;
	r->path_mtu = path_mtu;
	r->rd_atomic = r->init_rd_atom < p->rd_atom ? r->init_rd_atom : p->rd_atom;
	for (int q = 0; q < r->nqps; q++) {
		struct qp_dest d = { .qpn = p->qpn[q], .psn = p->psn[q], .gid = p->gid,
				     .lid = p->lid };

		err = qp_rtr(r, r->qp[q], &d, mtu_enum);
		if (!err)
			err = qp_rts(r, r->qp[q], r->psn[q]);
		if (err)
			return err;
	}
	return 0;
}

int vb_qp_self(struct vb_res *r, struct ibv_qp *qp, uint32_t psn)
{
	struct qp_dest d = { .qpn = qp->qp_num, .psn = psn, .lid = r->pi->lid };
	int mtu_enum = fc_mtu_enum(r->path_mtu ? r->path_mtu : r->pi->active_mtu), err;

	if (r->pi->chosen_gid >= 0)
		d.gid = r->pi->gids[r->pi->chosen_gid].raw;
	if (!mtu_enum || (r->pi->is_ethernet && !d.gid)) {
		fc_err("%s: a loopback QP needs the port's MTU and GID", r->pi->dev);
		return -EINVAL;
	}
	err = vb_qp_to_init(r, qp);
	if (!err)
		err = qp_rtr(r, qp, &d, mtu_enum);
	return err ? err : qp_rts(r, qp, psn);
}

int vb_qp_qos(const struct vb_res *r, int *tclass_p, int *sl_p)
{
	struct ibv_qp_attr a;
	struct ibv_qp_init_attr ia;
	int err;

	if (!r->nqps || !r->qp[0])
		return -ENOTCONN;
	memset(&a, 0, sizeof(a));
	err = ibv_query_qp(r->qp[0], &a, IBV_QP_AV, &ia);
	if (err) {
		fc_warn("%s qp 0x%x: cannot read back its address vector: %s; the traffic class and SL reported are the ones asked for",
			r->pi->dev, r->qp[0]->qp_num, strerror(err));
		return -err;
	}
	*tclass_p = a.ah_attr.is_global ? a.ah_attr.grh.traffic_class : -1;
	*sl_p = a.ah_attr.sl;
	return 0;
}
