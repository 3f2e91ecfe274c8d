/*
 * The rows over a whole pair test (see the table in diag/rules.c):
 * configuration mismatches, loss with and without flow control at work,
 * a slow path without errors; every rail of a node slow in
 * diag/rules_rails.c.
 */
#include <stdio.h>
#include <string.h>

#include "core/hostloss.h"
#include "core/out.h"
#include "core/pairv.h"
#include "core/softdev.h"
#include "diag/rules.h"

/* Loss events per packet above which drops are "likely" (1 in 1,000). */
#define DROP_LIKELY_RATIO 1e-3

static const json_t *side_of(const struct diag_ctx *c, const char *node, int other)
{
	const json_t *a = json_object_get(c->test, "a"), *b = json_object_get(c->test, "b");

	if (!a || !b)
		return NULL;
	if (!strcmp(fc_jstr(a, "node", ""), node))
		return other ? b : a;
	if (!strcmp(fc_jstr(b, "node", ""), node))
		return other ? a : b;
	return NULL;
}

const char *diag_ctx_peer(const struct diag_ctx *c, const struct diag_port *p)
{
	const json_t *o = side_of(c, p->node, 1);

	return o ? fc_jstr(o, "node", NULL) : NULL;
}

const char *diag_ctx_peer_dev(const struct diag_ctx *c, const struct diag_port *p)
{
	const json_t *o = side_of(c, p->node, 1);

	return o ? fc_jstr(o, "device", "") : "";
}

/* "A DEV <-> B DEV" from the test, else from the first two ports. */
static void pair_subject(const struct diag_ctx *c, char *buf, size_t len)
{
	const json_t *a = json_object_get(c->test, "a"), *b = json_object_get(c->test, "b");
	const struct diag_set *s = c->set;

	if (!a && s->nports >= 2)
		snprintf(buf, len, "%s %s <-> %s %s", s->ports[0].node, s->ports[0].dev,
			 s->ports[1].node, s->ports[1].dev);
	else if (!a && s->nports == 1)
		snprintf(buf, len, "%s %s port %d", s->ports[0].node, s->ports[0].dev,
			 s->ports[0].port);
	else
		snprintf(buf, len, "%s %s <-> %s %s", fc_jstr(a, "node", "?"),
			 fc_jstr(a, "device", "?"), fc_jstr(b, "node", "?"), fc_jstr(b, "device", "?"));
}

/* One mismatch of a/b key @key: appends "key: A x, B y" to @why. */
static int mismatch(const struct diag_ctx *c, const char *key, const char *what, char *why,
		    size_t len)
{
	const json_t *a = json_object_get(c->test, "a"), *b = json_object_get(c->test, "b");
	const json_t *va = json_object_get(a, key), *vb = json_object_get(b, key);
	char sa[64], sb[64];
	size_t used = strlen(why);

	if (!va || !vb || json_equal((json_t *)va, (json_t *)vb))
		return 0;
	snprintf(sa, sizeof(sa), "%s", json_is_string(va) ? json_string_value(va) : "");
	snprintf(sb, sizeof(sb), "%s", json_is_string(vb) ? json_string_value(vb) : "");
	if (json_is_number(va))
		snprintf(sa, sizeof(sa), "%g", json_number_value(va));
	if (json_is_number(vb))
		snprintf(sb, sizeof(sb), "%g", json_number_value(vb));
	snprintf(why + used, len - used, "%s%s: %s %s, %s %s", used ? "; " : "", what,
		 fc_jstr(a, "node", "A"), sa, fc_jstr(b, "node", "B"), sb);
	return 1;
}

/* The evidence files of the two ends that differ (netdev MTU, GID type,
 * trust, PFC):
 * the ports of other nodes against the first one. Appends to @why and
 * @part; returns the count of kinds named. @mtu_said: the test's MTU row
 * named the MTU already (the netdev figures are then its detail). */
static int file_mismatch(const struct diag_ctx *c, char *why, size_t len, char *part,
			 size_t plen, int n, int mtu_said)
{
	const struct diag_set *s = c->set;
	const struct diag_port *p = s->nports ? &s->ports[0] : NULL;
	int mtu = 0, trust = 0, pfc = 0, gid = 0;

	for (int i = 1; i < s->nports; i++) {
		const struct diag_port *q = &s->ports[i];
		size_t used = strlen(why);

		if (!strcmp(p->node, q->node))
			continue;
		if (!mtu && p->mtu_after && q->mtu_after && p->mtu_after != q->mtu_after) {
			mtu = 1;
			snprintf(why + used, len - used, "%snetdev MTU: %s %s %d B, %s %s %d B%s",
				 mtu_said ? " (" : used ? "; " : "", p->node, p->netdev, p->mtu_after,
				 q->node, q->netdev, q->mtu_after, mtu_said ? ")" : "");
			used = strlen(why);
		}
		if (!gid && *p->gid_type && *q->gid_type && strcmp(p->gid_type, q->gid_type)) {
			gid = 1;
			snprintf(why + used, len - used, "%sGID type: %s %s, %s %s", used ? "; " : "",
				 p->node, p->gid_type, q->node, q->gid_type);
			used = strlen(why);
		}
		if (!trust && *p->trust && *q->trust && strcmp(p->trust, q->trust)) {
			trust = 1;
			snprintf(why + used, len - used, "%strust mode: %s %s, %s %s", used ? "; " : "",
				 p->node, p->trust, q->node, q->trust);
			used = strlen(why);
		}
		if (!pfc && p->pfc >= 0 && q->pfc >= 0 && p->pfc != q->pfc) {
			pfc = 1;
			snprintf(why + used, len - used, "%sPFC on priorities (bit per priority): %s 0x%02x, %s 0x%02x",
				 used ? "; " : "", p->node, p->pfc, q->node, q->pfc);
		}
	}
	if (mtu && !mtu_said)
		snprintf(part + strlen(part), plen - strlen(part), "%sMTU", n++ ? ", " : "");
	if (gid && !strstr(part, "GID type"))
		snprintf(part + strlen(part), plen - strlen(part), "%sGID type", n++ ? ", " : "");
	if (trust && !strstr(part, "trust"))
		snprintf(part + strlen(part), plen - strlen(part), "%strust", n++ ? ", " : "");
	if (pfc && !strstr(part, "PFC"))
		snprintf(part + strlen(part), plen - strlen(part), "%sPFC", n++ ? ", " : "");
	return n;
}

/* The step for the settings @part names, each only when it differs: a
 * GID type mismatch is not fixed by an MTU. The GID's type per index is
 * sysfs gid_attrs/types (kernel Documentation/ABI/stable/sysfs-class-infiniband). */
static void config_next(const char *part, char *next, size_t len)
{
	int mtu = strstr(part, "MTU") != NULL, gid = strstr(part, "GID type") != NULL,
	    qos = strstr(part, "trust") || strstr(part, "PFC");

	snprintf(next, len, "set the same value on both ends (%s%s%s%s%s) and re-run",
		 mtu ? "MTU: 'ip link set DEV mtu 9000' on a RoCE fabric interface, the subnet "
		       "manager's MTU on InfiniBand" : "",
		 mtu && (gid || qos) ? "; " : "",
		 gid ? "GID type: a RoCE v2 GID on both ends, its index from "
		       "/sys/class/infiniband/DEV/ports/PORT/gid_attrs/types/ ('fabcheck pair -x N', "
		       "NCCL_IB_GID_INDEX)" : "",
		 gid && qos ? "; " : "",
		 qos ? "trust and PFC: 'mlnx_qos -i DEV --trust dscp --pfc 0,0,0,1,0,0,0,0' or dcb" :
		       "");
}

static void r_config(struct diag_ctx *c)
{
	char why[768] = "", subj[300], part[96] = "configuration (", next[512];
	int n = 0, mtu;

	if ((mtu = mismatch(c, "mtu", "active MTU in bytes", why, sizeof(why))))
		n++, strcat(part, "MTU");
	if (mismatch(c, "gid_type", "GID type", why, sizeof(why)))
		strcat(part, n++ ? ", GID type" : "GID type");
	if (mismatch(c, "trust", "trust mode", why, sizeof(why)))
		strcat(part, n++ ? ", trust" : "trust");
	if (mismatch(c, "pfc", "PFC priorities", why, sizeof(why)))
		strcat(part, n++ ? ", PFC" : "PFC");
	n = file_mismatch(c, why, sizeof(why), part, sizeof(part), n, mtu);
	if (!n)
		return;
	strcat(part, ")");
	pair_subject(c, subj, sizeof(subj));
	config_next(part, next, sizeof(next));
	diag_emit(c, "config", subj, part, 1, next, why);
}

struct loss {
	long long sent_lost[2]; /* what port 0, 1 sent: its NAKs and duplicates
				 * received, the other's gaps */
	long long seq, drop, pause, ecn, pkts;
	int phys, phys_exposed;
	char detail[320];
};

/* @val: a --validate run, whose receive cap causes the receive-not-ready
 * events (fc_doc_validated): those are not loss there. */
static void add_loss_detail(struct loss *l, const struct diag_port *p, int val)
{
	static const enum diag_class cls[] = { DIAG_C_SEQ_IN, DIAG_C_SEQ_OUT, DIAG_C_SEQ,
					       DIAG_C_DROP, DIAG_C_RNR };
	size_t used;

	for (size_t k = 0; k < sizeof(cls) / sizeof(cls[0]); k++) {
		if (!*p->detail[cls[k]] || (val && cls[k] == DIAG_C_RNR))
			continue;
		used = strlen(l->detail);
		snprintf(l->detail + used, sizeof(l->detail) - used, "%s%s: %s", used ? "; " : "",
			 p->node, p->detail[cls[k]]);
	}
}

static void gather(const struct diag_ctx *c, struct loss *l)
{
	const struct diag_set *s = c->set;
	int val = fc_doc_validated(c->test);

	memset(l, 0, sizeof(*l));
	for (int i = 0; i < s->nports; i++) {
		const struct diag_port *p = &s->ports[i];
		int me = i > 0;

		l->sent_lost[me] += p->sum[DIAG_C_SEQ_OUT];
		l->sent_lost[!me] += p->sum[DIAG_C_SEQ_IN];
		l->seq += p->sum[DIAG_C_SEQ];
		l->drop += p->sum[DIAG_C_DROP] + (val ? 0 : p->sum[DIAG_C_RNR]);
		if (p->have_far && p->far_sum[DIAG_C_DROP] > 0) { /* the switch port's (perfquery) */
			size_t used = strlen(l->detail);

			l->drop += p->far_sum[DIAG_C_DROP];
			snprintf(l->detail + used, sizeof(l->detail) - used, "%sthe switch port at %s's cable: %s",
				 used ? "; " : "", p->node, p->far_detail[DIAG_C_DROP]);
		}
		l->pause += p->sum[DIAG_C_PAUSE];
		l->ecn += p->sum[DIAG_C_ECN];
		l->pkts += p->pkts;
		l->phys += diag_port_errors(p);
		l->phys_exposed += p->have_ib || p->have_phy;
		add_loss_detail(l, p, val);
	}
}

/*
 * Where the counter that moved says packets were dropped on their way into
 * a port (the first site found names the part; every one is said):
 *   the switch   PortXmitDiscards of the switch port at the other end of
 *                the cable (perfquery): "outbound packets discarded by the
 *                port because the port is down or congested" (IBA
 *                PortCounters), here what it had to send to this port;
 *   the NIC      rx_discards_phy, rx_prioN_buf_discard: "received packets
 *                dropped due to lack of buffers on a physical port ... the
 *                adapter is congested" (kernel mlx5 counters.rst);
 *   the host     rx_out_of_buffer: "receive queue had no software buffers
 *                allocated for the adapter's incoming traffic" (same);
 *   the application's posting  receive not ready: the responder had no
 *                receive work request posted for what arrived, so it sent
 *                an RNR NAK (IBA 9.7.5.2.8) and the requester waits and
 *                sends again. At the receiving port: mlx5 out_of_buffer,
 *                "Number of drops occurred due to lack of WQE for the
 *                associated QPs/RQs" (kernel commit 0ad17a8f7fa0, IB/mlx5:
 *                Add port protocol stats), rxe send_rnr_err (RNR NAKs sent:
 *                drivers/infiniband/sw/rxe/rxe_resp.c, RXE_CNT_SND_RNR); at
 *                the sending port, what it received: mlx5 rnr_nak_retry_err
 *                (RNR NAKs received, the retry limit not exceeded:
 *                drivers/infiniband/hw/mlx5/counters.c retrans_q_cnts), rxe
 *                rcvd_rnr_err (rxe_comp.c, RXE_CNT_RCV_RNR), which names the
 *                other end's posting. It names the part only when the RNR
 *                events are at least half of what was lost (a path that
 *                loses packets makes retries of its own); in a --validate
 *                run they are the receive cap's, not loss (fc_doc_validated).
 * Each is loss of what the other end sent to that port.
 */
struct drop_site {
	int port;	  /* the port whose ingress it is; -1 none */
	const char *part; /* the part the first site names */
	char text[400];
};

static void site_add(struct drop_site *d, const struct diag_port *p, int i, const char *part,
		     const char *what)
{
	size_t used = strlen(d->text);

	if (d->port < 0)
		d->port = i, d->part = part;
	snprintf(d->text + used, sizeof(d->text) - used, "%s%s %s", used ? "; " : "", p->node, what);
}

/* The receive-not-ready site: the port whose application did not post
 * receives in time (see above), when RNR events are at least half of
 * @lost; a --validate run's are not loss. */
static void rnr_site(const struct diag_ctx *c, long long lost, struct drop_site *d)
{
	long long rnr = 0;

	for (int i = 0; i < c->set->nports; i++)
		rnr += c->set->ports[i].sum[DIAG_C_RNR];
	if (fc_doc_validated(c->test) || rnr <= 0 || 2 * rnr < lost)
		return;
	for (int i = 0; i < c->set->nports; i++) {
		const struct diag_port *p = &c->set->ports[i];
		const char *rnr_d = p->detail[DIAG_C_RNR];

		if (strstr(rnr_d, "out_of_buffer") || strstr(rnr_d, "send_rnr_err"))
			site_add(d, p, i, "receiver's application (its receive posting)",
				 "(no receive was posted for what arrived, so it answered RNR NAKs: out_of_buffer, send_rnr_err)");
		if (c->set->nports == 2 && (strstr(rnr_d, "rnr_nak_retry_err") || strstr(rnr_d, "rcvd_rnr_err"))) {
			char why[160];

			snprintf(why, sizeof(why), "(%.64s received RNR NAKs from it: no receive was posted for what arrived)",
				 p->node);
			site_add(d, &c->set->ports[!i], !i, "receiver's application (its receive posting)", why);
		}
	}
}

static void drop_sites(const struct diag_ctx *c, long long lost, struct drop_site *d)
{
	d->port = -1, d->part = NULL, d->text[0] = 0;
	for (int i = 0; i < c->set->nports; i++) {
		const struct diag_port *p = &c->set->ports[i];
		const char *rx = p->detail[DIAG_C_DROP];

		if (p->have_far && strstr(p->far_detail[DIAG_C_DROP], "port_xmit_discards"))
			site_add(d, p, i, "the switch (its port toward this node)",
				 "(the switch port at the other end discarded what it had to send there: PortXmitDiscards, perfquery)");
		if (strstr(rx, "rx_discards_phy") || strstr(rx, "_buf_discard"))
			site_add(d, p, i, "receiver (its NIC's port buffer)",
				 "(its NIC dropped what arrived for lack of port buffer: rx_discards_phy)");
		if (strstr(rx, "rx_out_of_buffer"))
			site_add(d, p, i, "receiver (its receive queues)",
				 "(its receive queues had no buffer posted for what arrived: rx_out_of_buffer)");
	}
	rnr_site(c, lost, d);
}

/* "packets nodeB sent to nodeA were dropped" when one direction dominates,
 * or when the counter that moved is at one port's ingress. */
static void direction(const struct diag_ctx *c, const struct loss *l, const struct drop_site *d,
		      char *subj, size_t len, char *where, size_t wlen)
{
	const struct diag_set *s = c->set;
	const long long *sl = l->sent_lost;
	int from = sl[0] > 4 * sl[1] ? 0 : sl[1] > 4 * sl[0] ? 1 : -1;

	if (from < 0 && s->nports == 2 && d->port >= 0)
		from = !d->port;
	if (s->nports != 2 || from < 0) {
		pair_subject(c, subj, len);
		snprintf(where, wlen, "lost between the two ports, in a direction these counters do not tell");
		return;
	}
	const struct diag_port *src = &s->ports[from], *dst = &s->ports[!from];

	snprintf(subj, len, "%s %s -> %s %s", src->node, src->dev, dst->node, dst->dev);
	if (d->port == !from)
		snprintf(where, wlen, "what %s sent to %s was lost at %s's side: %s", src->node,
			 dst->node, dst->node, d->text);
	else
		snprintf(where, wlen,
			 "what %s sent to %s was lost (%lld sequence gaps, NAKs and duplicates, %lld the other way): at %s's egress, in the switch, or at %s's ingress",
			 src->node, dst->node, sl[from], sl[!from], src->node, dst->node);
}

/* Whether an end of the test is a software device (core/softdev.h): by the
 * test's sides, else by the evidence's ports. */
static int soft_ends(const struct diag_ctx *c)
{
	const json_t *a = json_object_get(c->test, "a");

	if (a)
		return fc_rdma_soft_side(a) || fc_rdma_soft_side(json_object_get(c->test, "b"));
	for (int i = 0; c->set && i < c->set->nports; i++)
		if (fc_rdma_soft(c->set->ports[i].dev, -1))
			return 1;
	return 0;
}

static void r_loss(struct diag_ctx *c)
{
	char subj[512], where[1024], ev[1600], next[400];
	struct drop_site site;
	struct loss l;
	int cong;

	gather(c, &l);
	if (l.phys || l.sent_lost[0] + l.sent_lost[1] + l.seq + l.drop <= 0)
		return;
	/* Loss that the run measured outside the nodes at both ports (a lab
	 * rack's own fabric, core/hostloss.h), now or as the recorded run
	 * says (an evidence folder: the same answer offline), names no part. */
	if (c->test && (fc_host_loss_recorded(c->test) ||
			(fc_host_loss_side(json_object_get(c->test, "a"), ev, sizeof(ev)) > 0 &&
			 fc_host_loss_side(json_object_get(c->test, "b"), ev, sizeof(ev)) > 0)))
		return;
	cong = l.pause + l.ecn > 0;
	drop_sites(c, l.sent_lost[0] + l.sent_lost[1] + l.seq + l.drop, &site);
	direction(c, &l, &site, subj, sizeof(subj), where, sizeof(where));
	snprintf(ev, sizeof(ev), "retries or drops with no physical-layer error%s, %s: %s; %s",
		 l.phys_exposed ? "" : " (none exposed here)",
		 cong ? "while pause/ECN/CNP counters moved" : "with no pause, ECN or CNP counter moving",
		 where, l.detail);
	if (cong) {
		snprintf(next, sizeof(next),
			 "not the cable: check the switch's buffer and ECN/PFC counters for this traffic class, run the pair alone ('fabcheck pair' outside the job) and compare");
		diag_emit(c, "congestion", subj, "congestion or flow control", 1, next, ev);
	} else {
		/* A software device's packets pass its node's network stack
		 * (rxe: UDP port 4791 over the netdev; siw: TCP), on the
		 * node's CPU: what that stack drops when the CPU falls behind
		 * (its receive backlog, the socket's buffer) or its qdisc
		 * drops is lost before any switch (drivers/infiniband/sw
		 * Kconfig; the kernel's Documentation/networking/scaling.rst
		 * for the backlog, /proc/net/softnet_stat's second column). */
		snprintf(next, sizeof(next), "%s", soft_ends(c) ?
			 "not the cable: a software device (rxe, siw) sends and receives through its node's network stack, on the node's CPU: check each node's drops there (nstat -az UdpRcvbufErrors, /proc/net/softnet_stat, tc -s qdisc, ip -s link) and its CPU load during the test, then the switch ports" :
			 "not the cable: check drops on the switch ports and the NICs (ethtool -S, tc -s qdisc), buffer sizes and the QoS/PFC settings of the fabric class; re-run with --tclass on a lossless class");
		long long lost = l.sent_lost[0] + l.sent_lost[1] + l.seq + l.drop;

		if (site.part)
			snprintf(next, sizeof(next), "%s",
				 strstr(site.part, "switch") ? "not the cable: read the switch port's discards and its buffer and PFC settings for this traffic class; run the pair alone and compare"
				 : strstr(site.part, "application") ? "not the cable: the receiving application did not post receives ahead of what arrived (RNR NAKs): post more receives or use a shared receive queue, raise the QP's min_rnr_timer and rnr_retry, and check the receiving process's CPU and NUMA placement"
				 : strstr(site.part, "queues") ? "not the cable: the receiver's host did not post receive buffers in time (CPU, IRQ and NUMA placement of the receiving process, its queue depth); re-run with a deeper receive queue"
				 : "not the cable: the receiving NIC could not absorb the traffic (PFC on the fabric class, the NIC's buffer settings, PCIe of the receiver: lspci LnkSta); re-run with --tclass on a lossless class");
		diag_emit(c, "drops", subj, site.part ? site.part : "buffers or QoS configuration",
			  l.pkts ? lost >= DROP_LIKELY_RATIO * (double)l.pkts : lost >= 100, next, ev);
	}
}

/* Bandwidth below the floor at the largest size: the worst direction. */
static int slow(const struct diag_ctx *c, char *why, size_t len)
{
	double floor = fc_jnum(json_object_get(c->test, "thresholds"), "min_gbps", 0), worst = -1;
	const json_t *r;
	size_t i;

	json_array_foreach(json_object_get(c->test, "results"), i, r) {
		static const char *const dirs[] = { "a_to_b_gbps", "b_to_a_gbps", "gbps" };

		if (strcmp(fc_jstr(r, "metric", ""), "bw"))
			continue;
		for (int d = 0; d < 3; d++) {
			double g = fc_jnum(r, dirs[d], -1);

			if (g >= 0 && (worst < 0 || g < worst))
				worst = g;
		}
	}
	if (floor <= 0 || worst < 0 || worst >= floor)
		return 0;
	snprintf(why, len, "bandwidth %.3g Gb/s is below the floor of %.3g Gb/s", worst, floor);
	return 1;
}

static void r_slow(struct diag_ctx *c)
{
	char why[200], subj[300], ev[600];
	struct loss l;
	long long lost;

	gather(c, &l);
	if (!slow(c, why, sizeof(why)) || l.phys || c->congested)
		return;
	lost = l.sent_lost[0] + l.sent_lost[1] + l.seq + l.drop;
	pair_subject(c, subj, sizeof(subj));
	snprintf(ev, sizeof(ev), "%s with no physical error or flap%s", why,
		 lost ? " (the retries and drops are in the row above)" : " and no retry or drop");
	diag_emit(c, "slow_clean", subj, "port speed or a rate limit on the path", !lost,
		  "check both ports' speed (ethtool DEV, ibstat) and the switch ports' speed and shaping; run 'fabcheck matrix' over more nodes: the slow port is the one slow with every peer",
		  ev);
}

/*
 * Flow and congestion control at work with nothing lost. No vendor or
 * standard publishes a limit for these (searched: NVIDIA's DCQCN parameter
 * pages, the mlx5 counters documentation, the ibdiagnet manual; none gives
 * a share of paused time or a CNP rate that "matters"): the figures are
 * this project's, each with its reason. Pause time as a share of the
 * window: 1% "matters" (a percent of the link's time taken from the test,
 * about the run-to-run spread of a bandwidth test), 10% is "likely" on its
 * own (a tenth of the port's rate gone: more than the margin a bandwidth
 * floor leaves). ECN: marked packets 1% of the packets received, or a CNP
 * handled every millisecond (each CNP a reaction point handles may cut the
 * flow's rate, by up to 50% in one event by default, NVIDIA DOCA "DCQCN CC
 * Parameters", rate decrease; one a millisecond keeps a flow under its
 * line rate). Pause time from the *_pause_duration counters (microseconds,
 * kernel mlx5 counters.rst), else frames x the longest pause (IEEE 802.3
 * Annex 31B, 802.1Qbb: 65535 quanta of 512 bit times), an upper bound.
 * InfiniBand: PortXmitWait as time (diag/port.c: ticks of 8 bytes at the
 * port rate, NVIDIA ibdiagnet manual "Congestion Assessment on InfiniBand
 * Links", a lower bound) is judged against the same shares: this port
 * waiting for credits (the fabric beyond it congested) or the switch port
 * at the other end waiting to send to it (its receive side slow).
 */
#define PAUSE_SHARE_MATTERS 0.01
#define PAUSE_SHARE_LIKELY 0.10
#define ECN_SHARE_MATTERS 0.01
#define CNP_PER_S_MATTERS 1000.0

struct cong {
	double share;	       /* the largest share of time a port was held back */
	char held[400];	       /* who was held back, how long, from what */
	long long marked, sent, handled, pkts;
	double seconds;
	int matters;
};

/* @p held back for @s seconds of its window (pause, credits): the longest
 * kept in @g with its text. @how: 0 told to pause, 1 waiting for credits
 * to send (PortXmitWait), 2 the switch port at the other end waiting to
 * send to it. */
static void cong_held(struct cong *g, const struct diag_port *p, double s, int how,
		      const char *detail, int upper)
{
	static const char *const lead[] = { "", "", "the switch port at the other end of " };
	static const char *const what[] = {
		"was told to pause", "waited for credits to send",
		"had data for it and no credits",
	};
	static const char *const why[] = {
		"", "the fabric beyond it was congested; ",
		"its receive side took data slowly; ",
	};
	double share = s >= 0 && p->seconds > 0 ? s / p->seconds : 0;

	if (share > 1)
		share = 1;
	if (share <= g->share || share <= 0)
		return;
	g->share = share;
	snprintf(g->held, sizeof(g->held), "%s%s %s %s %.0f%% of the %.0f s window (%s%s%s)",
		 lead[how], p->node, p->netdev[0] ? p->netdev : p->dev, what[how], 100 * share,
		 p->seconds, why[how], detail, upper ? ": at most" : "");
}

static void cong_gather(const struct diag_ctx *c, struct cong *g)
{
	memset(g, 0, sizeof(*g));
	for (int i = 0; i < c->set->nports; i++) {
		const struct diag_port *p = &c->set->ports[i];

		cong_held(g, p, p->pause_s, 0, p->pause_detail, p->pause_estimated);
		cong_held(g, p, p->wait_s, 1, p->wait_detail, 0);
		cong_held(g, p, p->far_wait_s, 2, p->far_wait_detail, 0);
		g->marked += p->ecn_marked > 0 ? p->ecn_marked : 0;
		g->sent += p->cnp_sent > 0 ? p->cnp_sent : 0;
		g->handled += p->cnp_handled > 0 ? p->cnp_handled : 0;
		g->pkts += p->pkts;
		if (p->seconds > g->seconds)
			g->seconds = p->seconds;
	}
	g->matters = g->share >= PAUSE_SHARE_MATTERS ||
		     (g->pkts > 0 && g->marked >= ECN_SHARE_MATTERS * (double)g->pkts) ||
		     (g->seconds > 0 && (double)g->handled / g->seconds >= CNP_PER_S_MATTERS);
}

static void r_congestion(struct diag_ctx *c)
{
	char subj[300], ev[1200] = "", why[200];
	struct cong g;
	struct loss l;
	size_t used;
	int slow_bw;

	gather(c, &l);
	cong_gather(c, &g);
	if (l.phys || l.sent_lost[0] + l.sent_lost[1] + l.seq + l.drop > 0 || !g.matters)
		return;
	slow_bw = slow(c, why, sizeof(why));
	snprintf(ev, sizeof(ev), "%s", g.held);
	used = strlen(ev);
	snprintf(ev + used, sizeof(ev) - used,
		 "%sECN-marked packets +%lld, CNPs sent +%lld and handled +%lld; no drop, retry or physical error%s%s",
		 used ? "; " : "", g.marked, g.sent, g.handled, slow_bw ? "; " : "",
		 slow_bw ? why : "");
	pair_subject(c, subj, sizeof(subj));
	c->congested = 1;
	diag_emit(c, "congestion", subj, "congestion or flow control",
		  g.share >= PAUSE_SHARE_LIKELY || slow_bw, 
		  "not the cable or the port: find the congested switch egress (the switch's per-priority pause and ECN counters for this class), check the traffic pattern (many-to-one incast under all-to-all) and the switch's ECN thresholds; run the pair alone ('fabcheck pair' outside the job) and compare",
		  ev);
}

void diag_test_rules(struct diag_ctx *c)
{
	if (json_object_get(c->test, "rails")) { /* each rail's own rows ran in its pair */
		diag_r_rails_slow(c);
		return;
	}
	r_config(c); /* the test's own figures, and the evidence files alone */
	r_loss(c);
	r_congestion(c);
	if (c->test && json_object_get(c->test, "a"))
		r_slow(c);
}
