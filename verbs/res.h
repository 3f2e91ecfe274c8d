/*
 * The resources of one side of a pair test: device context, PD, CQs, one
 * registered buffer and RC QPs, plus what the peer told us. The buffer has
 * two halves (tx then rx) of nslots slots of stride bytes each; tests cycle
 * through the slots so that they span many pages.
 */
#ifndef FC_VERBS_RES_H
#define FC_VERBS_RES_H

#include <infiniband/verbs.h>
#include <jansson.h>
#include <sched.h>
#include <stdint.h>

#include "verbs/dev.h"

#define VB_MAX_QPS 64
#define VB_BUF_TARGET (4u << 20) /* bytes per half: 1024 pages, cycled through */
/* Inline data asked for at QP creation: perftest's largest RC default
 * (236 B for send latency; 220 B for write latency). */
#define VB_QP_INLINE 236

struct rdma_cm_id;
struct vb_loop;
struct rdma_event_channel;

struct vb_opts {
	char dev[64];	  /* "" = first active port */
	int port;	  /* 0 = first active port of dev */
	int gid_index;	  /* -1 = scored choice */
	int nqps;
	uint64_t max_size; /* largest message of the run */
	int tx_depth;
	int rx_depth;	  /* receives per QP; 0: twice tx_depth */
	double timeout;	  /* seconds without progress before giving up */
	int tclass;	  /* RoCE GRH traffic class (DSCP << 2 | ECN), -1 = default */
	int sl;		  /* InfiniBand service level, -1 = default (0) */
	int nthreads;	  /* threads that will drive the QPs: one CQ pair each */
};

#define VB_MAX_CQSETS 16

struct vb_peer {
	int nqps;
	uint32_t qpn[VB_MAX_QPS];
	uint32_t psn[VB_MAX_QPS];
	int lid;
	uint8_t gid[16];
	int mtu; /* active MTU in bytes */
	uint32_t rkey;
	uint64_t addr;
	uint64_t stride;
	uint32_t nslots;
	int rd_atom; /* how many reads it accepts at once (max_dest_rd_atomic) */
};

struct vb_res {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *scq, *rcq;    /* CQ set 0 */
	/* With several threads, QP q completes on CQ set q % ncqsets (set 0
	 * is scq/rcq): each thread polls its own. */
	int ncqsets;
	struct ibv_cq *set_scq[VB_MAX_CQSETS], *set_rcq[VB_MAX_CQSETS];
	struct ibv_mr *mr;
	uint8_t *buf;
	size_t buf_len;
	uint64_t stride;
	uint32_t nslots;
	int nqps;
	struct ibv_qp *qp[VB_MAX_QPS];
	uint32_t psn[VB_MAX_QPS];
	int rq_posted[VB_MAX_QPS];   /* receives outstanding per QP */
	/* Receives posted per QP so far: receive k of QP q goes to rx slot
	 * q * (nslots / nqps) + k % (nslots / nqps), so the receives
	 * outstanding on a QP hold distinct slots, apart from other QPs'. */
	uint64_t rq_next[VB_MAX_QPS];
	int rx_cap;		     /* receives kept posted per QP (0: rx_depth) */
	struct vb_loop *loop;	     /* vb_loop_read's QP, NULL until used */
	struct vb_port_info *pi;
	int gid_index;		     /* -1 on InfiniBand without a GID */
	int tx_depth, rx_depth;
	int max_inline;		     /* what the QPs accept */
	uint32_t vendor_id;	     /* ibv_device_attr.vendor_id */
	uint32_t part_id;	     /* ibv_device_attr.vendor_part_id: the HCA model (4129: ConnectX-7) */
	int soft;		     /* a software provider (rxe, siw): its data path is kernel threads */
	/* perftest's receive buffers (VB_CYCLE_PAGE; recv_region 0: the
	 * slots): receive k of QP q at rx + (q % recv_nregions) * recv_region
	 * + (k % recv_nsteps) * recv_step (vb_test_offset). */
	uint64_t recv_region, recv_step;
	uint32_t recv_nregions, recv_nsteps;
	int rd_atom;		     /* reads this side accepts at once */
	int init_rd_atom;	     /* reads this side issues at once */
	int rd_atomic;		     /* agreed with the peer */
	int path_mtu;		     /* bytes, after connect */
	double timeout;
	int tclass, sl;		     /* asked for (vb_opts), -1 = default */
	struct vb_peer peer;
	/* rdma_cm (--cm): the device context and the QPs belong to rdma_cm */
	int cm;
	struct rdma_event_channel *ec;
	struct rdma_cm_id *listen_id;
	struct rdma_cm_id *cm_id[VB_MAX_QPS];
	/* Called often in data loops: non-zero stops the test (controller gone). */
	int (*abort_cb)(void *arg);
	/* Called about once a second in data loops. */
	void (*progress_cb)(void *arg, uint64_t done);
	void *cb_arg;
	/* Where the buffer comes from (gdr/: host or GPU memory): when set,
	 * called with buf_len decided to set buf and mr; NULL: host memory
	 * here. mem_free undoes it. */
	int (*mem_alloc)(struct vb_res *r, int access);
	void (*mem_free)(struct vb_res *r);
	void *mem_arg;
	/* CPUs the data path's threads are pinned to, one each (pin = 1; set
	 * by whoever placed the buffer: ctl/worker_gdr.c). */
	cpu_set_t cpus;
	int pin;
};

/* Chooses device, port and GID (logged errors say which and what to do). */
int vb_res_pick(struct vb_res *r, const struct vb_opts *o);
/* Receives per QP: @asked (vb_opts.rx_depth), else twice @tx_depth; at
 * most the device's max_qp_wr @max. */
static inline int vb_rx_depth(int asked, int tx_depth, int max)
{
	int d = asked > 0 ? asked : 2 * tx_depth;

	return d < max ? d : max;
}
/* Opens the device and creates PD, CQs, MR and QPs (in INIT). When @ctx is
 * given (rdma_cm), uses it and creates no QPs. */
int vb_res_open(struct vb_res *r, const struct vb_opts *o, struct ibv_context *ctx);
int vb_res_create_qps(struct vb_res *r);
void vb_res_close(struct vb_res *r);

/* The setup report: device, port, link layer, GID, LID, MTU, rate, QPNs... */
json_t *vb_res_json(const struct vb_res *r);
/* Reads the peer's setup report. Returns 0 or -EPROTO with @why set. */
int vb_peer_from_json(const json_t *j, struct vb_peer *p, char *why, size_t len);

/* RESET->INIT of @qp on the port (local write, remote read and write). */
int vb_qp_to_init(struct vb_res *r, struct ibv_qp *qp);
/* RESET->INIT->RTR->RTS of @qp toward itself (a loopback QP). */
int vb_qp_self(struct vb_res *r, struct ibv_qp *qp, uint32_t psn);

/*
 * A loopback QP that reads one byte of the buffer into host memory, as
 * NCCL flushes GPUDirect writes where the driver has no
 * cuFlushGPUDirectRDMAWrites: the read cannot pass the HCA's earlier
 * writes to that memory on PCIe, so once it completed they are visible.
 * vb_loop_read opens it on first use; safe from several threads.
 * 0 or -errno (logged).
 */
int vb_loop_read(struct vb_res *r, const void *addr);
/*
 * Waits for one completion on @cq (the loopback read's), up to r->timeout.
 * On a hardware HCA it busy-polls: the read takes a few microseconds, and
 * a sched_yield could hand the core to another task for a scheduler tick
 * (milliseconds). Only on a software provider (r->soft: rxe, siw, decided
 * from the device's vendor id in verbs/res.c res_limits) does it yield between polls,
 * because that provider's data path runs in kernel threads that need the
 * CPU (drivers/infiniband/sw/rxe rxe_comp.c/rxe_req.c run as tasklets or
 * work items; siw's siw_qp_tx.c in a kernel thread per CPU).
 * 0, -ETIMEDOUT or -EIO (logged).
 */
int vb_flush_wait(struct vb_res *r, struct ibv_cq *cq);
/* Loopback reads done so far. */
uint64_t vb_loop_reads(const struct vb_res *r);
void vb_loop_close(struct vb_res *r);

/* INIT->RTR->RTS of every QP toward the peer, at @path_mtu bytes. */
int vb_res_connect(struct vb_res *r, const struct vb_peer *p, int path_mtu);

/* What QP 0 carries after connect (ibv_query_qp): the GRH traffic class
 * and the service level. Returns 0 or -errno (logged). */
int vb_qp_qos(const struct vb_res *r, int *tclass_p, int *sl_p);

/* Buffer helpers: slot @i of the tx or rx half. */
static inline uint8_t *vb_tx(const struct vb_res *r, uint64_t i)
{
	return r->buf + (i % r->nslots) * r->stride;
}
static inline uint8_t *vb_rx(const struct vb_res *r, uint64_t i)
{
	return r->buf + (uint64_t)r->nslots * r->stride + (i % r->nslots) * r->stride;
}
static inline uint64_t vb_peer_tx(const struct vb_res *r, uint64_t i)
{
	return r->peer.addr + (i % r->peer.nslots) * r->peer.stride;
}
static inline uint64_t vb_peer_rx(const struct vb_res *r, uint64_t i)
{
	return r->peer.addr + (uint64_t)r->peer.nslots * r->peer.stride +
	       (i % r->peer.nslots) * r->peer.stride;
}

/* Slot layout for a run whose largest message is @max_size. */
void vb_slot_layout(uint64_t max_size, uint64_t *stride_p, uint32_t *nslots_p);

/* The QP attributes every RC QP of the test gets (inline: VB_QP_INLINE). */
void vb_qp_init_attr(const struct vb_res *r, struct ibv_qp_init_attr *ia);
/* Posts receives on QP @q until rx_depth (or rx_cap) are outstanding; a
 * receive's wr_id is q | slot << 8. */
int vb_post_recvs(struct vb_res *r, int q);
/* Index of the QP with number @qpn, or -1. */
int vb_qp_index(const struct vb_res *r, uint32_t qpn);
/* Logs a failed work completion: status, vendor error, opcode, QP. */
void vb_wc_error(const struct vb_res *r, const struct ibv_wc *wc);

#endif
