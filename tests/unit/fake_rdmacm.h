/*
 * A fake librdmacm at link level, for the tests of verbs/cm.c (--cm), in
 * the way of fake_verbs.h (include that first: the device rdma_cm binds
 * to is its fv.dev, the QPs are its ibv_create_qp's). The test binary that
 * includes this header defines the rdma_cm calls cm.c makes, so they are
 * linked in place of librdmacm's; rdma_event_str stays librdmacm's own.
 *
 * The event channel is a pipe: an event posted writes a byte, so that
 * cm.c's poll sees it, and rdma_get_cm_event hands the events out in
 * order. rdma_resolve_addr, rdma_resolve_route and rdma_connect post the
 * event that answers them (ADDR_RESOLVED, ROUTE_RESOLVED, ESTABLISHED);
 * the test makes one answer another: the Nth event posted (fr.swap_at)
 * becomes fr.swap_type with fr.swap_status, or no event at all (fr.silent:
 * the peer never answers). rdma_set_option fails with fr.fail_tos (an
 * errno value); rdma_create_qp fails where fake_verbs.h's ibv_create_qp
 * does (fv.fail_qp). fr_request() posts a connection request from a peer
 * with a QP index in its private data, as cm.c's client sends it.
 */
#ifndef FC_TEST_FAKE_RDMACM_H
#define FC_TEST_FAKE_RDMACM_H

#include <arpa/inet.h>
#include <errno.h>
#include <rdma/rdma_cma.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define FR_MAX_EVENTS 16

static struct {
	int pipe[2];
	struct rdma_event_channel *ch;
	struct rdma_cm_event ev[FR_MAX_EVENTS];
	int nev, next;		/* queued, handed out */
	int posted;		/* events posted so far (swap_at counts them) */
	int swap_at, swap_status, silent, fail_tos;
	enum rdma_cm_event_type swap_type;
	struct ibv_context *verbs; /* the device's context, one for all ids */
	struct rdma_cm_id *req_id; /* the id of fr_request's request */
	uint32_t req_idx;
} fr;

static void fr_reset(void)
{
	memset(&fr, 0, sizeof(fr));
	fr.pipe[0] = fr.pipe[1] = -1;
}

static void fr_post(struct rdma_cm_id *id, enum rdma_cm_event_type type, int status)
{
	struct rdma_cm_event *e;

	if (++fr.posted == fr.swap_at) {
		type = fr.swap_type;
		status = fr.swap_status;
	}
	if (fr.silent || fr.nev >= FR_MAX_EVENTS)
		return;
	e = &fr.ev[fr.nev++];
	memset(e, 0, sizeof(*e));
	e->id = id;
	e->event = type;
	e->status = status;
	if (write(fr.pipe[1], "e", 1) != 1)
		fr.nev--;
}

struct rdma_event_channel *rdma_create_event_channel(void)
{
	if (pipe(fr.pipe))
		return NULL;
	fr.ch = calloc(1, sizeof(*fr.ch));
	if (fr.ch)
		fr.ch->fd = fr.pipe[0];
	fr.verbs = ibv_open_device(&fv.dev);
	return fr.ch;
}

void rdma_destroy_event_channel(struct rdma_event_channel *ch)
{
	close(fr.pipe[0]);
	close(fr.pipe[1]);
	fr.pipe[0] = fr.pipe[1] = -1;
	ibv_close_device(fr.verbs);
	fr.verbs = NULL;
	free(ch);
	fr.ch = NULL;
}

int rdma_create_id(struct rdma_event_channel *ch, struct rdma_cm_id **id, void *ctx,
		   enum rdma_port_space ps)
{
	*id = calloc(1, sizeof(**id));
	if (!*id) {
		errno = ENOMEM;
		return -1;
	}
	(*id)->channel = ch;
	(*id)->context = ctx;
	(*id)->ps = ps;
	return 0;
}

int rdma_destroy_id(struct rdma_cm_id *id)
{
	free(id);
	return 0;
}

int rdma_set_option(struct rdma_cm_id *id, int level, int optname, void *val, size_t len)
{
	(void)id;
	(void)level;
	(void)optname;
	(void)val;
	(void)len;
	if (fr.fail_tos) {
		errno = fr.fail_tos;
		return -1;
	}
	return 0;
}

int rdma_bind_addr(struct rdma_cm_id *id, struct sockaddr *addr)
{
	id->verbs = fr.verbs;
	memcpy(&id->route.addr.src_addr, addr,
	       addr->sa_family == AF_INET ? sizeof(struct sockaddr_in) : sizeof(struct sockaddr_in6));
	return 0;
}

int rdma_listen(struct rdma_cm_id *id, int backlog)
{
	(void)id;
	(void)backlog;
	return 0;
}

/* The peer's address: 10.1.2.9, whatever the name. */
int rdma_getaddrinfo(const char *node, const char *service, const struct rdma_addrinfo *hints,
		     struct rdma_addrinfo **res)
{
	struct rdma_addrinfo *ai = calloc(1, sizeof(*ai));
	struct sockaddr_in *in = calloc(1, sizeof(*in));

	(void)node;
	(void)service;
	(void)hints;
	if (!ai || !in) {
		free(ai);
		free(in);
		return -1;
	}
	in->sin_family = AF_INET;
	in->sin_addr.s_addr = htonl(0x0a010209);
	ai->ai_dst_addr = (struct sockaddr *)in;
	ai->ai_dst_len = sizeof(*in);
	*res = ai;
	return 0;
}

void rdma_freeaddrinfo(struct rdma_addrinfo *ai)
{
	free(ai->ai_dst_addr);
	free(ai);
}

int rdma_resolve_addr(struct rdma_cm_id *id, struct sockaddr *src, struct sockaddr *dst,
		      int timeout_ms)
{
	(void)src;
	(void)dst;
	(void)timeout_ms;
	id->verbs = fr.verbs;
	fr_post(id, RDMA_CM_EVENT_ADDR_RESOLVED, 0);
	return 0;
}

int rdma_resolve_route(struct rdma_cm_id *id, int timeout_ms)
{
	(void)timeout_ms;
	fr_post(id, RDMA_CM_EVENT_ROUTE_RESOLVED, 0);
	return 0;
}

int rdma_get_cm_event(struct rdma_event_channel *ch, struct rdma_cm_event **ev)
{
	char b;

	(void)ch;
	if (fr.next >= fr.nev || read(fr.pipe[0], &b, 1) != 1) {
		errno = EAGAIN;
		return -1;
	}
	*ev = &fr.ev[fr.next++];
	return 0;
}

int rdma_ack_cm_event(struct rdma_cm_event *ev)
{
	(void)ev;
	return 0;
}

int rdma_create_qp(struct rdma_cm_id *id, struct ibv_pd *pd, struct ibv_qp_init_attr *ia)
{
	id->qp = ibv_create_qp(pd, ia);
	return id->qp ? 0 : -1;
}

void rdma_destroy_qp(struct rdma_cm_id *id)
{
	ibv_destroy_qp(id->qp);
	id->qp = NULL;
}

int rdma_connect(struct rdma_cm_id *id, struct rdma_conn_param *cp)
{
	(void)cp;
	fr_post(id, RDMA_CM_EVENT_ESTABLISHED, 0);
	return 0;
}

int rdma_accept(struct rdma_cm_id *id, struct rdma_conn_param *cp)
{
	(void)cp;
	fr_post(id, RDMA_CM_EVENT_ESTABLISHED, 0);
	return 0;
}

int rdma_reject(struct rdma_cm_id *id, const void *data, uint8_t len)
{
	(void)id;
	(void)data;
	(void)len;
	return 0;
}

__be16 rdma_get_src_port(struct rdma_cm_id *id)
{
	(void)id;
	return htons(18515);
}

/* A peer's connection request for QP index @idx (network order in the
 * private data, as cm.c's client sends it); @with_idx 0: none at all. */
static void fr_request(uint32_t idx, int with_idx)
{
	struct rdma_cm_event *e;

	if (rdma_create_id(fr.ch, &fr.req_id, NULL, RDMA_PS_TCP))
		return;
	fr.req_id->verbs = fr.verbs;
	fr.req_idx = htonl(idx);
	fr_post(fr.req_id, RDMA_CM_EVENT_CONNECT_REQUEST, 0);
	e = &fr.ev[fr.nev - 1];
	if (with_idx) {
		e->param.conn.private_data = &fr.req_idx;
		e->param.conn.private_data_len = sizeof(fr.req_idx);
	}
}

#endif
