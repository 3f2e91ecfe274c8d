/*
 * A loopback QP for flushing GPUDirect writes by an RDMA READ (see
 * vb_loop_read in res.h): one RC QP connected to itself on the test's
 * port, reading one byte of the test buffer into a small host buffer.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "core/util.h"
#include "verbs/res.h"

struct vb_loop {
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_mr *mr;
	uint8_t byte[64];
	uint64_t reads;
};

/* One lock for the process: a worker has one set of resources. */
static pthread_mutex_t loop_lock = PTHREAD_MUTEX_INITIALIZER;

static int loop_open(struct vb_res *r)
{
	struct ibv_qp_init_attr ia = {
		.cap = { .max_send_wr = 1, .max_recv_wr = 1, .max_send_sge = 1, .max_recv_sge = 1 },
		.qp_type = IBV_QPT_RC,
	};
	struct vb_loop *l = calloc(1, sizeof(*l));

	if (!l) {
		fc_err("%s: no memory for the loopback QP", r->pi->dev);
		return -ENOMEM;
	}
	r->loop = l;
	l->cq = ibv_create_cq(r->ctx, 2, NULL, NULL, 0);
	ia.send_cq = ia.recv_cq = l->cq;
	l->qp = l->cq ? ibv_create_qp(r->pd, &ia) : NULL;
	l->mr = ibv_reg_mr(r->pd, l->byte, sizeof(l->byte), IBV_ACCESS_LOCAL_WRITE);
	if (!l->qp || !l->mr) {
		fc_err("%s: cannot create the loopback QP that flushes GPUDirect writes (%s failed)",
		       r->pi->dev, !l->cq ? "ibv_create_cq" : !l->qp ? "ibv_create_qp" : "ibv_reg_mr");
		return -ENOMEM;
	}
	return vb_qp_self(r, l->qp, 0x4c4f4f);
}

/* Empty polls between two readings of the clock while the flush waits. */
#define LOOP_CLOCK_SPINS 1024

int vb_flush_wait(struct vb_res *r, struct ibv_cq *cq)
{
	double end = fc_now() + r->timeout;
	struct ibv_wc wc;
	unsigned spins = 0;
	int n;

	while ((n = ibv_poll_cq(cq, 1, &wc)) == 0) {
		if (++spins % LOOP_CLOCK_SPINS == 0 && fc_now() > end) {
			fc_err("%s: the loopback RDMA READ that flushes GPUDirect writes did not complete in %.0f s",
			       r->pi->dev, r->timeout);
			return -ETIMEDOUT;
		}
		/* the CPU to a software provider's kernel threads only */
		if (r->soft)
			sched_yield();
	}
	if (n < 0 || wc.status != IBV_WC_SUCCESS) {
		if (n < 0)
			fc_err("%s: polling the loopback QP's completion queue failed", r->pi->dev);
		else
			vb_wc_error(r, &wc);
		return -EIO;
	}
	return 0;
}

int vb_loop_read(struct vb_res *r, const void *addr)
{
	struct ibv_sge sge;
	struct ibv_send_wr wr, *bad;
	int err = 0;

	pthread_mutex_lock(&loop_lock);
	if (!r->loop)
		err = loop_open(r);
	else if (!r->loop->qp || !r->loop->mr)
		err = -EIO; /* its opening failed, as said then */
	if (!err) {
		sge = (struct ibv_sge){ .addr = (uintptr_t)r->loop->byte, .length = 1,
					.lkey = r->loop->mr->lkey };
		wr = (struct ibv_send_wr){ .sg_list = &sge, .num_sge = 1,
					   .opcode = IBV_WR_RDMA_READ,
					   .send_flags = IBV_SEND_SIGNALED };
		wr.wr.rdma.remote_addr = (uintptr_t)addr;
		wr.wr.rdma.rkey = r->mr->rkey;
		if ((err = ibv_post_send(r->loop->qp, &wr, &bad))) {
			fc_err("%s qp 0x%x: cannot post the loopback RDMA READ: %s", r->pi->dev,
			       r->loop->qp->qp_num, strerror(err));
			err = -err;
		} else if (!(err = vb_flush_wait(r, r->loop->cq))) {
			r->loop->reads++;
		}
	}
	pthread_mutex_unlock(&loop_lock);
	return err;
}

uint64_t vb_loop_reads(const struct vb_res *r)
{
	return r->loop ? r->loop->reads : 0;
}

void vb_loop_close(struct vb_res *r)
{
	struct vb_loop *l = r->loop;

	if (!l)
		return;
	if (l->qp)
		ibv_destroy_qp(l->qp);
	if (l->mr)
		ibv_dereg_mr(l->mr);
	if (l->cq)
		ibv_destroy_cq(l->cq);
	free(l);
	r->loop = NULL;
}
