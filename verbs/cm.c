/* --cm: QPs connected by rdma_cm on the fabric addresses (see cm.h). */
#include "verbs/cm.h"

#include <arpa/inet.h>
#include <errno.h>
#include <poll.h>
#include <rdma/rdma_cma.h>
#include <stdio.h>
#include <string.h>

#include "core/gid.h"
#include "core/log.h"
#include "core/util.h"

/* The IP address of the chosen GID (IPv4-mapped or IPv6), port 0. */
static int gid_addr(const struct vb_res *r, struct sockaddr_storage *ss)
{
	const struct fc_gid *g = NULL;

	for (int i = 0; i < r->pi->ngids; i++)
		if (r->pi->gids[i].index == r->gid_index)
			g = &r->pi->gids[i];
	memset(ss, 0, sizeof(*ss));
	if (g && fc_gid_is_ipv4_mapped(g->raw)) {
		struct sockaddr_in *in = (struct sockaddr_in *)ss;

		in->sin_family = AF_INET;
		memcpy(&in->sin_addr, g->raw + 12, 4);
		return 0;
	}
	if (g && r->pi->is_ethernet && !fc_gid_is_link_local(g->raw)) {
		struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)ss;

		in6->sin6_family = AF_INET6;
		memcpy(&in6->sin6_addr, g->raw, 16);
		return 0;
	}
	/* A RoCE GID of fe80:: is an IPv6 address, but link-local: rdma_cm
	 * binds it only with its interface's scope, which the GID does not
	 * carry (and the peer's route to it is the one link). */
	fc_err("%s port %d: --cm needs an IP address on the fabric: GID index %d is %s",
	       r->pi->dev, r->pi->port, r->gid_index,
	       r->pi->is_ethernet && g ?
	       "a link-local IPv6 address, which rdma_cm cannot bind on its own (choose the GID of the port's IPv4 or global IPv6 address with -x: 'fabcheck devices' lists them)" :
	       "not IP-based (on InfiniBand, give the IPoIB interface an address and pass its GID with -x, or drop --cm)");
	return -EADDRNOTAVAIL;
}

/* --tclass: the ToS rdma_cm puts in the route (RoCE: the GRH traffic class,
 * so the IP header's DSCP and ECN). Before rdma_resolve_route. */
static int cm_set_tos(const struct vb_res *r, struct rdma_cm_id *id)
{
	uint8_t tos;

	if (r->tclass < 0)
		return 0;
	tos = (uint8_t)r->tclass;
	if (rdma_set_option(id, RDMA_OPTION_ID, RDMA_OPTION_ID_TOS, &tos, sizeof(tos))) {
		fc_err("%s: rdma_cm refused the type of service %d (--tclass): %s", r->pi->dev,
		       r->tclass, strerror(errno));
		return -errno;
	}
	return 0;
}

/* Waits for the next rdma_cm event of type @want within the timeout. */
static int cm_wait(struct vb_res *r, enum rdma_cm_event_type want,
		   struct rdma_cm_event **ev_p)
{
	double end = fc_now() + r->timeout;
	struct rdma_cm_event *ev;

	for (;;) {
		struct pollfd p = { .fd = r->ec->fd, .events = POLLIN };
		double left = end - fc_now();

		if (left <= 0) {
			fc_err("%s: rdma_cm: no '%s' event within %.0f s: is the peer's address reachable on the fabric (ping it), and its fabcheck running?",
			       r->pi->dev, rdma_event_str(want), r->timeout);
			return -ETIMEDOUT;
		}
		if (r->abort_cb && r->abort_cb(r->cb_arg))
			return -ECANCELED;
		if (poll(&p, 1, left > 0.1 ? 100 : (int)(left * 1000) + 1) <= 0)
			continue;
		if (rdma_get_cm_event(r->ec, &ev)) {
			fc_err("%s: rdma_get_cm_event failed: %s", r->pi->dev, strerror(errno));
			return -errno;
		}
		if (ev->event == want) {
			*ev_p = ev;
			return 0;
		}
		if (ev->event == RDMA_CM_EVENT_CONNECT_REQUEST && want == RDMA_CM_EVENT_ESTABLISHED) {
			*ev_p = ev; /* the server handles requests while it waits */
			return 0;
		}
		fc_err("%s: rdma_cm: got '%s' (status %d) while waiting for '%s': %s",
		       r->pi->dev, rdma_event_str(ev->event), ev->status, rdma_event_str(want),
		       ev->event == RDMA_CM_EVENT_REJECTED ? "the peer refused the connection" :
		       ev->event == RDMA_CM_EVENT_UNREACHABLE ? "the peer's address is unreachable on the fabric" :
		       "check the fabric addresses and that both ports are up");
		rdma_ack_cm_event(ev);
		return -ECONNREFUSED;
	}
}

static int cm_open(struct vb_res *r, const struct vb_opts *o, struct ibv_context *ctx)
{
	const char *name = ibv_get_device_name(ctx->device);

	if (strcmp(name, r->pi->dev)) {
		fc_err("rdma_cm bound the address to %s, not %s: choose that device with -d or drop --cm",
		       name, r->pi->dev);
		return -EINVAL;
	}
	r->cm = 1;
	return vb_res_open(r, o, ctx);
}

int vb_cm_listen(struct vb_res *r, const struct vb_opts *o)
{
	struct sockaddr_storage ss;
	int err;

	if ((err = vb_res_pick(r, o)) || (err = gid_addr(r, &ss)))
		return err;
	r->timeout = o->timeout;
	r->ec = rdma_create_event_channel();
	if (!r->ec || rdma_create_id(r->ec, &r->listen_id, NULL, RDMA_PS_TCP)) {
		fc_err("rdma_cm: cannot create an id: %s (is rdma_ucm loaded?)", strerror(errno));
		return -errno;
	}
	if ((err = cm_set_tos(r, r->listen_id)))
		return err;
	if (rdma_bind_addr(r->listen_id, (struct sockaddr *)&ss) ||
	    rdma_listen(r->listen_id, o->nqps)) {
		fc_err("%s: rdma_cm cannot listen on the port's address: %s", r->pi->dev,
		       strerror(errno));
		return -errno;
	}
	if (!r->listen_id->verbs) {
		fc_err("%s: rdma_cm bound the address to no RDMA device", r->pi->dev);
		return -ENODEV;
	}
	return cm_open(r, o, r->listen_id->verbs);
}

static int cm_create_qp(struct vb_res *r, struct rdma_cm_id *id, int q)
{
	struct ibv_qp_init_attr ia;

	vb_qp_init_attr(r, &ia);
	if (rdma_create_qp(id, r->pd, &ia)) {
		ia.cap.max_inline_data = 0;
		if (rdma_create_qp(id, r->pd, &ia)) {
			fc_err("%s: rdma_cm cannot create QP %d: %s (lower -q or -t)", r->pi->dev,
			       q + 1, strerror(errno));
			return -errno;
		}
	}
	r->max_inline = (int)ia.cap.max_inline_data;
	r->qp[q] = id->qp;
	r->cm_id[q] = id;
	return 0;
}

int vb_cm_client(struct vb_res *r, const struct vb_opts *o, const char *addr, int port)
{
	struct sockaddr_storage src, dst;
	struct rdma_addrinfo hints = { .ai_port_space = RDMA_PS_TCP }, *ai = NULL;
	struct rdma_cm_event *ev;
	char portbuf[16];
	int err;

	if ((err = vb_res_pick(r, o)) || (err = gid_addr(r, &src)))
		return err;
	r->timeout = o->timeout;
	snprintf(portbuf, sizeof(portbuf), "%d", port);
	if (rdma_getaddrinfo(addr, portbuf, &hints, &ai)) {
		fc_err("rdma_cm: the peer's address '%s' port %s does not resolve", addr, portbuf);
		return -EINVAL;
	}
	memcpy(&dst, ai->ai_dst_addr, ai->ai_dst_len);
	rdma_freeaddrinfo(ai);
	r->ec = rdma_create_event_channel();
	if (!r->ec) {
		fc_err("rdma_cm: cannot create an event channel: %s (is rdma_ucm loaded?)",
		       strerror(errno));
		return -errno;
	}
	for (int q = 0; q < o->nqps; q++) {
		struct rdma_cm_id *id;

		if (rdma_create_id(r->ec, &id, NULL, RDMA_PS_TCP)) {
			fc_err("rdma_cm: cannot create an id: %s", strerror(errno));
			return -errno;
		}
		r->cm_id[q] = id;
		if (rdma_resolve_addr(id, (struct sockaddr *)&src, (struct sockaddr *)&dst,
				      (int)(r->timeout * 1000))) {
			fc_err("%s: rdma_cm cannot resolve %s: %s", r->pi->dev, addr, strerror(errno));
			return -errno;
		}
		if ((err = cm_wait(r, RDMA_CM_EVENT_ADDR_RESOLVED, &ev)))
			return err;
		rdma_ack_cm_event(ev);
		if (q == 0 && (err = cm_open(r, o, id->verbs)))
			return err;
		if ((err = cm_set_tos(r, id)))
			return err;
		if (rdma_resolve_route(id, (int)(r->timeout * 1000))) {
			fc_err("%s: rdma_cm cannot resolve a route to %s: %s", r->pi->dev, addr,
			       strerror(errno));
			return -errno;
		}
		if ((err = cm_wait(r, RDMA_CM_EVENT_ROUTE_RESOLVED, &ev)))
			return err;
		rdma_ack_cm_event(ev);
		if ((err = cm_create_qp(r, id, q)))
			return err;
	}
	return 0;
}

static void conn_param(const struct vb_res *r, struct rdma_conn_param *cp, const uint32_t *idx)
{
	memset(cp, 0, sizeof(*cp));
	cp->responder_resources = (uint8_t)r->rd_atom;
	cp->initiator_depth = (uint8_t)r->rd_atomic;
	cp->retry_count = 7;
	cp->rnr_retry_count = 7;
	if (idx) {
		cp->private_data = idx;
		cp->private_data_len = sizeof(*idx);
	}
}

/* The QP a connection request is for (the client sends its index q, from
 * 0, in the private data: vb_cm_connect), or -1 when it is refused (logged,
 * 1-based as cm_create_qp says "QP %d"). */
static int cm_request_qp(const struct vb_res *r, const struct rdma_cm_event *ev)
{
	uint32_t idx;

	if (!ev->param.conn.private_data || ev->param.conn.private_data_len < sizeof(idx)) {
		fc_err("rdma_cm: a connection request that names no QP (not from fabcheck's --cm): refused");
		return -1;
	}
	memcpy(&idx, ev->param.conn.private_data, sizeof(idx));
	idx = ntohl(idx);
	if (idx >= (uint32_t)r->nqps)
		fc_err("rdma_cm: a connection request for QP %llu, but this side has %d QP%s: refused",
		       (unsigned long long)idx + 1, r->nqps, fc_s(r->nqps));
	else if (r->cm_id[idx])
		fc_err("rdma_cm: a second connection request for QP %u: refused", idx + 1);
	else
		return (int)idx;
	return -1;
}

static int cm_accept_one(struct vb_res *r, struct rdma_cm_event *ev)
{
	struct rdma_conn_param cp;
	int idx = cm_request_qp(r, ev), err;

	if (idx < 0) {
		rdma_reject(ev->id, NULL, 0);
		return -EPROTO;
	}
	if ((err = cm_create_qp(r, ev->id, idx)))
		return err;
	conn_param(r, &cp, NULL);
	if (rdma_accept(ev->id, &cp)) {
		fc_err("%s: rdma_accept failed: %s", r->pi->dev, strerror(errno));
		return -errno;
	}
	return 0;
}

int vb_cm_connect(struct vb_res *r, const struct vb_peer *p, int path_mtu)
{
	struct rdma_cm_event *ev;
	struct ibv_qp_attr qa;
	struct ibv_qp_init_attr qia;
	int established = 0, err;

	(void)path_mtu; /* rdma_cm takes the path MTU from the route */
	r->peer = *p;
	r->rd_atomic = r->init_rd_atom < p->rd_atom ? r->init_rd_atom : p->rd_atom;
	if (!r->listen_id) {
		for (int q = 0; q < r->nqps; q++) {
			struct rdma_conn_param cp;
			uint32_t idx = htonl((uint32_t)q);

			conn_param(r, &cp, &idx);
			if (rdma_connect(r->cm_id[q], &cp)) {
				fc_err("%s: rdma_connect failed: %s", r->pi->dev, strerror(errno));
				return -errno;
			}
		}
	}
	while (established < r->nqps) {
		if ((err = cm_wait(r, RDMA_CM_EVENT_ESTABLISHED, &ev)))
			return err;
		if (ev->event == RDMA_CM_EVENT_CONNECT_REQUEST)
			err = cm_accept_one(r, ev);
		else
			established++;
		rdma_ack_cm_event(ev);
		if (err)
			return err;
	}
	if (ibv_query_qp(r->qp[0], &qa, IBV_QP_PATH_MTU, &qia) == 0)
		r->path_mtu = fc_mtu_bytes(qa.path_mtu);
	return 0;
}

void vb_cm_json(const struct vb_res *r, json_t *o)
{
	char buf[INET6_ADDRSTRLEN];
	struct sockaddr *sa;

	if (!r->listen_id)
		return;
	sa = rdma_get_local_addr(r->listen_id);
	if (sa->sa_family == AF_INET)
		inet_ntop(AF_INET, &((struct sockaddr_in *)sa)->sin_addr, buf, sizeof(buf));
	else
		inet_ntop(AF_INET6, &((struct sockaddr_in6 *)sa)->sin6_addr, buf, sizeof(buf));
	json_object_set_new(o, "cm_addr", json_string(buf));
	json_object_set_new(o, "cm_port", json_integer(ntohs(rdma_get_src_port(r->listen_id))));
}

void vb_cm_close(struct vb_res *r)
{
	for (int q = 0; q < VB_MAX_QPS; q++) {
		if (!r->cm_id[q])
			continue;
		if (r->cm_id[q]->qp)
			rdma_destroy_qp(r->cm_id[q]);
		rdma_destroy_id(r->cm_id[q]);
		r->cm_id[q] = NULL;
		r->qp[q] = NULL;
	}
	if (r->listen_id)
		rdma_destroy_id(r->listen_id);
	r->listen_id = NULL;
	if (r->ec)
		rdma_destroy_event_channel(r->ec);
	r->ec = NULL;
}
