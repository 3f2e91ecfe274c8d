/*
 * The bytes a pair reports moved against the port counters: the
 * "counters_check" of a finished pair document. Pure code.
 *
 * What the results say moved, per direction X->Y: every message a side
 * posted ("posted" of each result, warm-up included) of a write or send
 * from X, or of a read by Y, is payload X->Y (moved_bytes) in
 * ceil(size / path MTU) packets, at least one; a read posted by X is one
 * request packet X->Y. The other side may acknowledge every write or send
 * packet, so at most one ACK a packet goes back (rxe acknowledges each
 * message and every 64th packet of a long one; hardware coalesces more).
 * --validate on GPU memory without a driver flush reads one byte over a
 * loopback QP before each check ("loopback_reads"): two packets out of and
 * into that side's port each.
 *
 * What the ports counted: port_xmit_data / port_rcv_data (4-byte words:
 * bytes on the wire, headers included) where both nodes have them, else
 * the packet counters sent_pkts / rcvd_pkts (rxe has no counters/ folder).
 * X's transmit and Y's receive counter each count the direction.
 *
 * Below: neither counter may show less than the results need: in bytes the
 * payload (headers only add to it), in packets the data and request
 * packets, within CTR_TOL_BELOW. A pair that reports more than the ports
 * carried disagrees.
 *
 * Above: neither counter may show more than the results explain: in bytes
 * the payload plus CTR_HDR_SLACK more than the path's headers for every
 * packet, an ACK for every data packet, the requests and the loopback
 * reads; in packets the data, requests, ACKs and loopback reads; with rdma_cm CTR_CM_PKTS connection packets
 * (of at most CTR_CM_BYTES) a QP; then CTR_TOL_ABOVE on top. Judged only
 * when no error counter rose on either node: a retry resends the whole
 * window from the lost packet (on the virtual rack's rxe up to 1.6 times
 * the data). The counters are the port's: another job's traffic on it is
 * counted too, which the finding says.
 *
 * Both workers on one port (--launcher local on one device): the port's
 * counters hold both directions, so the two are checked as one.
 */
#ifndef FC_CTRCHECK_H
#define FC_CTRCHECK_H

#include <jansson.h>
#include <stdint.h>

#define CTR_TOL_BELOW 0.01
#define CTR_TOL_ABOVE 0.10
#define CTR_HDR_SLACK 32   /* bytes a packet beyond the path's headers: RETH, AETH */
#define CTR_HDR_DEFAULT 96 /* headers a packet when the document does not say */
#define CTR_CM_PKTS 8	   /* rdma_cm: REQ, REP, RTU, DREQ, DREP and retries, a QP */
#define CTR_CM_BYTES 400   /* a CM MAD (256 B) with its headers */

/* The counters a worker keeps even when they did not move (zero there is
 * itself a reading): port_xmit_data, port_rcv_data, sent_pkts, rcvd_pkts. */
int fc_is_traffic_counter(const char *name);

/* What one direction needs and the most it can explain, in the check's
 * unit (bytes or packets). */
struct fc_ctr_dir {
	uint64_t moved_bytes, timed_bytes, messages;
	/* packets this way: data, read requests, and the most ACKs the
	 * sending side returns for the other way's data */
	uint64_t data_pkts, req_pkts, ack_pkts;
	uint64_t loop_pkts; /* loopback flush reads on the ports of this way */
	double least, most;
};

/*
 * Sums the results of @doc into @dir[0] (a->b) and @dir[1] (b->a) at
 * @path_mtu. Returns the number of results that could not be accounted
 * (no "posted": cut short, or an older document).
 */
int fc_ctr_account(const json_t *results, int path_mtu, struct fc_ctr_dir dir[2]);

/* Fills least and most of @d for @bytes (else packets), with @hdr bytes of
 * headers a packet and @control connection packets. */
void fc_ctr_bounds(struct fc_ctr_dir *d, int bytes, int hdr, uint64_t control);

/*
 * Sets "counters_check" in @doc (which holds "a", "b", "path_mtu",
 * "options", "results", "counters") and adds a finding (warning) for each
 * direction that disagrees.
 */
void fc_counters_check(json_t *doc);

#endif
