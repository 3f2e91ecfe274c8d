/*
 * A fake libibverbs at link level, for the tests of verbs/res.c and
 * verbs/qp.c (device choice, resource creation, QP bring-up): the test
 * binary that includes this header (one .c file, one binary) defines the
 * verbs calls those files make, so its own definitions are linked in place
 * of libibverbs's. Other test binaries do not see them.
 *
 * One device (fv.name) with two ports whose attributes the test sets
 * (fv.port[1], fv.port[2]) and fv.ngids[p] GIDs on each (IPv4-mapped RoCE
 * v2 GIDs on an Ethernet port, after fv.ll_gids[p] link-local fe80:: ones,
 * and fe80:: ones on InfiniBand); its limits
 * (fv.da) are ibv_query_device's. The test makes one call fail: the Nth
 * ibv_create_cq (fail_cq), every ibv_create_qp of the Nth QP (fail_qp,
 * with and without inline data, as a device that refuses the QP),
 * ibv_reg_mr (fail_mr), a transition to a state (fail_state: IBV_QPS_INIT,
 * RTR or RTS), ibv_query_qp (fail_query_qp), or ibv_post_recv (errno
 * value fail_post_recv). Contexts take the compat path of verbs.h's
 * inline calls (abi_compat not the extended mark), so ibv_query_port is
 * the exported function defined here. QP numbers count from 0x120 (their
 * hex has no letters up to 0x129: a figure a test can match as digits).
 */
#ifndef FC_TEST_FAKE_VERBS_H
#define FC_TEST_FAKE_VERBS_H

#include <errno.h>
#include <infiniband/verbs.h>
#include <stdlib.h>
#include <string.h>

static struct {
	const char *name;
	struct ibv_port_attr port[3];
	int ngids[3];
	int ll_gids[3];	/* Ethernet: GIDs below this index are fe80:: (link-local) */
	struct ibv_device_attr da;
	int fail_cq, fail_qp, fail_mr, fail_state, fail_query_qp, fail_post_recv;
	int cqs, qps;		/* made so far */
	struct ibv_device dev;
} fv;

static void fv_reset(const char *name)
{
	memset(&fv, 0, sizeof(fv));
	fv.name = name;
	fv.fail_state = -1;
	fv.da.phys_port_cnt = 2;
}

/* Port @p active with @lid (0: none) and @ngids GIDs on @link_layer. */
static void fv_port(int p, enum ibv_port_state st, uint8_t link_layer, uint16_t lid, int ngids)
{
	fv.port[p] = (struct ibv_port_attr){ .state = st, .max_mtu = IBV_MTU_4096,
					     .active_mtu = IBV_MTU_4096, .gid_tbl_len = 8,
					     .lid = lid, .active_width = 2, .active_speed = 32,
					     .link_layer = link_layer };
	fv.ngids[p] = ngids;
}

/* Device @name with both ports active RoCE, 2 GIDs each, roomy limits. */
static inline void fv_roomy(const char *name)
{
	fv_reset(name);
	fv_port(1, IBV_PORT_ACTIVE, IBV_LINK_LAYER_ETHERNET, 0, 2);
	fv_port(2, IBV_PORT_ACTIVE, IBV_LINK_LAYER_ETHERNET, 0, 2);
	fv.da.max_qp_wr = 16384;
	fv.da.max_cqe = 1 << 22;
	fv.da.max_qp_rd_atom = 16;
	fv.da.max_qp_init_rd_atom = 16;
}

struct ibv_device **(ibv_get_device_list)(int *n)
{
	struct ibv_device **l = calloc(2, sizeof(*l));

	if (l)
		l[0] = &fv.dev;
	if (n)
		*n = l ? 1 : 0;
	return l;
}

void ibv_free_device_list(struct ibv_device **l)
{
	free(l);
}

const char *ibv_get_device_name(struct ibv_device *d)
{
	(void)d;
	return fv.name;
}

static int fv_post_recv(struct ibv_qp *qp, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad)
{
	(void)qp;
	*bad = fv.fail_post_recv ? wr : NULL;
	return fv.fail_post_recv;
}

struct ibv_context *ibv_open_device(struct ibv_device *d)
{
	struct ibv_context *c = calloc(1, sizeof(*c));

	if (c) {
		c->device = d;
		c->ops.post_recv = fv_post_recv;
	}
	return c;
}

int ibv_close_device(struct ibv_context *c)
{
	free(c);
	return 0;
}

int ibv_query_device(struct ibv_context *c, struct ibv_device_attr *da)
{
	(void)c;
	*da = fv.da;
	return 0;
}

/* verbs.h's inline ___ibv_query_port passes a whole struct ibv_port_attr. */
int (ibv_query_port)(struct ibv_context *c, uint8_t p, struct _compat_ibv_port_attr *out)
{
	(void)c;
	if (p < 1 || p > 2)
		return EINVAL;
	memcpy(out, &fv.port[p], sizeof(fv.port[p]));
	return 0;
}

int _ibv_query_gid_ex(struct ibv_context *c, uint32_t p, uint32_t i, struct ibv_gid_entry *e,
		      uint32_t flags, size_t size)
{
	(void)c;
	(void)flags;
	(void)size;
	if (p < 1 || p > 2 || (int)i >= fv.ngids[p])
		return ENODATA;
	memset(e, 0, sizeof(*e));
	e->gid_index = i;
	e->port_num = p;
	if (fv.port[p].link_layer == IBV_LINK_LAYER_ETHERNET && (int)i < fv.ll_gids[p]) {
		e->gid.raw[0] = 0xfe;
		e->gid.raw[1] = 0x80;
		e->gid.raw[15] = (uint8_t)(i + 1);
		e->gid_type = IBV_GID_TYPE_ROCE_V2;
	} else if (fv.port[p].link_layer == IBV_LINK_LAYER_ETHERNET) {
		uint8_t v4[16] = { [10] = 0xff, [11] = 0xff, [12] = 10, [13] = 1, [14] = 2,
				   [15] = (uint8_t)(i + 1) };

		memcpy(e->gid.raw, v4, 16);
		e->gid_type = IBV_GID_TYPE_ROCE_V2;
	} else {
		e->gid.raw[0] = 0xfe;
		e->gid.raw[1] = 0x80;
		e->gid.raw[15] = (uint8_t)(i + 1);
		e->gid_type = IBV_GID_TYPE_IB;
	}
	return 0;
}

struct ibv_pd *ibv_alloc_pd(struct ibv_context *c)
{
	struct ibv_pd *pd = calloc(1, sizeof(*pd));

	if (pd)
		pd->context = c;
	return pd;
}

int ibv_dealloc_pd(struct ibv_pd *pd)
{
	free(pd);
	return 0;
}

struct ibv_cq *ibv_create_cq(struct ibv_context *c, int cqe, void *user, struct ibv_comp_channel *ch,
			     int vec)
{
	struct ibv_cq *cq;

	(void)user;
	(void)ch;
	(void)vec;
	if (++fv.cqs == fv.fail_cq || cqe > fv.da.max_cqe) {
		errno = EINVAL;
		return NULL;
	}
	cq = calloc(1, sizeof(*cq));
	if (cq) {
		cq->context = c;
		cq->cqe = cqe;
	}
	return cq;
}

int ibv_destroy_cq(struct ibv_cq *cq)
{
	free(cq);
	return 0;
}

static struct ibv_mr *fv_reg(struct ibv_pd *pd, void *addr, size_t len)
{
	struct ibv_mr *mr;

	if (fv.fail_mr) {
		errno = ENOMEM;
		return NULL;
	}
	mr = calloc(1, sizeof(*mr));
	if (mr) {
		mr->pd = pd;
		mr->addr = addr;
		mr->length = len;
	}
	return mr;
}

struct ibv_mr *(ibv_reg_mr)(struct ibv_pd *pd, void *addr, size_t len, int access)
{
	(void)access;
	return fv_reg(pd, addr, len);
}

struct ibv_mr *ibv_reg_mr_iova2(struct ibv_pd *pd, void *addr, size_t len, uint64_t iova,
				unsigned int access)
{
	(void)iova;
	(void)access;
	return fv_reg(pd, addr, len);
}

int ibv_dereg_mr(struct ibv_mr *mr)
{
	free(mr);
	return 0;
}

/* QP fail_qp is refused twice (with inline data, then without). */
struct ibv_qp *ibv_create_qp(struct ibv_pd *pd, struct ibv_qp_init_attr *ia)
{
	struct ibv_qp *qp;

	if (fv.qps + 1 == fv.fail_qp) {
		errno = ENOMEM;
		return NULL;
	}
	if ((int)ia->cap.max_send_wr > fv.da.max_qp_wr || (int)ia->cap.max_recv_wr > fv.da.max_qp_wr) {
		errno = EINVAL;
		return NULL;
	}
	qp = calloc(1, sizeof(*qp));
	if (!qp)
		return NULL;
	qp->context = pd->context;
	qp->pd = pd;
	qp->qp_num = 0x120 + (uint32_t)fv.qps++;
	qp->state = IBV_QPS_RESET;
	return qp;
}

int ibv_destroy_qp(struct ibv_qp *qp)
{
	free(qp);
	return 0;
}

int ibv_modify_qp(struct ibv_qp *qp, struct ibv_qp_attr *a, int mask)
{
	if ((mask & IBV_QP_STATE) && (int)a->qp_state == fv.fail_state)
		return EINVAL;
	if (mask & IBV_QP_STATE)
		qp->state = a->qp_state;
	return 0;
}

int ibv_query_qp(struct ibv_qp *qp, struct ibv_qp_attr *a, int mask, struct ibv_qp_init_attr *ia)
{
	(void)qp;
	(void)a;
	(void)mask;
	(void)ia;
	return fv.fail_query_qp ? EOPNOTSUPP : 0;
}

#endif
