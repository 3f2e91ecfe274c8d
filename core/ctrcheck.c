/* The bytes a pair reports moved against the port counters (see ctrcheck.h). */
#include "core/ctrcheck.h"

#include <stdio.h>
#include <string.h>

#include "core/out.h"
#include "core/pairv.h"
#include "core/util.h"

/* The counters of one unit: transmit and receive, and how to read them. */
struct ctr_src {
	const char *tx, *rx, *unit, *name;
	int scale;
};

static const struct ctr_src SRC_BYTES = { "port_xmit_data", "port_rcv_data", "bytes",
					  "port_xmit_data/port_rcv_data (4-byte words)", 4 };
static const struct ctr_src SRC_PKTS = { "sent_pkts", "rcvd_pkts", "packets",
					 "sent_pkts/rcvd_pkts (packets)", 1 };

int fc_is_traffic_counter(const char *name)
{
	return !strcmp(name, SRC_BYTES.tx) || !strcmp(name, SRC_BYTES.rx) ||
	       !strcmp(name, SRC_PKTS.tx) || !strcmp(name, SRC_PKTS.rx);
}

static uint64_t side_num(const json_t *arr, int i)
{
	const json_t *v = json_array_get(arr, (size_t)i);

	return json_is_integer(v) && json_integer_value(v) > 0 ? (uint64_t)json_integer_value(v) :
								    0;
}

/* One result's messages into the two directions. */
static void account_one(const json_t *r, int mtu, struct fc_ctr_dir dir[2])
{
	uint64_t size = (uint64_t)fc_jnum(r, "size_bytes", 0);
	uint64_t pk = size > (uint64_t)mtu ? (size + (uint64_t)mtu - 1) / (uint64_t)mtu : 1;
	int read = !strcmp(fc_jstr(r, "test", ""), "read");

	for (int i = 0; i < 2; i++) {
		uint64_t n = side_num(json_object_get(r, "posted"), i);
		/* Data flows from the writer or sender, toward the reader. */
		struct fc_ctr_dir *d = &dir[read ? 1 - i : i];

		d->moved_bytes += n * size;
		d->timed_bytes += side_num(json_object_get(r, "timed_bytes"), i);
		d->messages += n;
		d->data_pkts += n * pk;
		if (read)
			dir[i].req_pkts += n;
		else
			dir[1 - i].ack_pkts += n * pk;
	}
	for (int i = 0; i < 2; i++) {
		/* Out of and into side i's port: its transmit and receive counters. */
		uint64_t loop = 2 * (uint64_t)fc_jnum(json_object_get(r, i ? "validate_b" : "validate_a"),
						       "loopback_reads", 0);

		dir[0].loop_pkts += loop;
		dir[1].loop_pkts += loop;
	}
}

int fc_ctr_account(const json_t *results, int path_mtu, struct fc_ctr_dir dir[2])
{
	int missing = 0;
	size_t i;
	json_t *r;

	memset(dir, 0, 2 * sizeof(*dir));
	json_array_foreach(results, i, r) {
		if (!json_is_array(json_object_get(r, "posted"))) {
			missing++;
			continue;
		}
		account_one(r, path_mtu > 0 ? path_mtu : 1, dir);
	}
	return missing;
}

void fc_ctr_bounds(struct fc_ctr_dir *d, int bytes, int hdr, uint64_t control)
{
	uint64_t pkts = d->data_pkts + d->req_pkts + d->ack_pkts + d->loop_pkts;

	if (bytes) {
		d->least = (double)d->moved_bytes;
		d->most = (double)d->moved_bytes + (double)pkts * (hdr + CTR_HDR_SLACK) +
			  (double)control * CTR_CM_BYTES;
	} else {
		d->least = (double)(d->data_pkts + d->req_pkts);
		d->most = (double)(pkts + control);
	}
}

/* The node's delta of counter @name, or -1 when it has none. */
static double counter(const json_t *set, const char *name)
{
	const json_t *v = json_object_get(set, name);

	return json_is_integer(v) ? (double)json_integer_value(v) : -1;
}

static const struct ctr_src *pick_source(const json_t *ca, const json_t *cb)
{
	const struct ctr_src *s[2] = { &SRC_BYTES, &SRC_PKTS };

	for (int k = 0; k < 2; k++)
		if (counter(ca, s[k]->tx) >= 0 && counter(ca, s[k]->rx) >= 0 &&
		    counter(cb, s[k]->tx) >= 0 && counter(cb, s[k]->rx) >= 0)
			return s[k];
	return NULL;
}

/* The error counters that rose on either node, "name +n, ..." in @out;
 * returns how many. */
static int retries(const json_t *counters, char *out, size_t len)
{
	const char *node, *name;
	json_t *set, *v;
	size_t off = 0;
	int n = 0;

	out[0] = '\0';
	json_object_foreach((json_t *)counters, node, set)
		json_object_foreach(set, name, v) {
			if (!json_is_integer(v) || json_integer_value(v) <= 0 ||
			    !fc_counter_is_error(name))
				continue;
			if (off < len)
				off += (size_t)snprintf(out + off, len - off, "%s%s %s +%lld",
							n ? ", " : "", node, name,
							(long long)json_integer_value(v));
			n++;
		}
	return n;
}

struct ctr_judge {
	json_t *doc, *out;
	const struct ctr_src *src;
	int mtu, above;
	const char *from, *to;
};

static void finding_fewer(const struct ctr_judge *j, const struct fc_ctr_dir *d, double sent,
			  double rcvd)
{
	char moved[32];

	fc_finding(j->doc, FC_WARN,
		   "port counters: %s->%s the results need at least %.0f %s (%s of payload, warm-up included) but %s's %s counted %.0f and %s's %s %.0f, %.1f%% of it (the tolerance is %.0f%% below): the pair reports more than the ports carried; compare its figures with pair --perftest, and check that no counter was reset or stopped at its maximum (a 32-bit port_xmit_data)",
		   j->from, j->to, d->least, j->src->unit,
		   fc_fmt_size(d->moved_bytes, moved, sizeof(moved)), j->from, j->src->tx, sent,
		   j->to, j->src->rx, rcvd, (sent < rcvd ? sent : rcvd) / d->least * 100,
		   CTR_TOL_BELOW * 100);
}

static void finding_more(const struct ctr_judge *j, const struct fc_ctr_dir *d, double hi)
{
	fc_finding(j->doc, FC_WARN,
		   "port counters: %s->%s the ports counted %.0f %s, more than the %.0f the results explain (payload, every packet's headers, an ACK a data packet%s) by over %.0f%%: other traffic on the port (another job on the node), or the pair counts fewer messages than it sent; rerun on an idle port",
		   j->from, j->to, hi, j->src->unit, d->most,
		   json_is_true(json_object_get(j->out, "rdma_cm")) ? ", rdma_cm's packets" : "",
		   CTR_TOL_ABOVE * 100);
}

/* One direction against its two counters; returns 1 when it disagrees. */
static int judge_dir(const struct ctr_judge *j, const struct fc_ctr_dir *d, double sent,
		     double rcvd)
{
	double lo = sent < rcvd ? sent : rcvd, hi = sent > rcvd ? sent : rcvd;
	const char *v = "agree";
	json_t *o;

	if (lo < d->least * (1 - CTR_TOL_BELOW))
		v = "fewer";
	else if (j->above && hi > d->most * (1 + CTR_TOL_ABOVE))
		v = "more";
	o = json_pack("{s:s, s:s, s:I, s:I, s:I, s:f, s:f, s:f, s:f, s:f, s:s}", "from", j->from,
		      "to", j->to, "moved_bytes", (json_int_t)d->moved_bytes, "timed_bytes",
		      (json_int_t)d->timed_bytes, "messages", (json_int_t)d->messages, "least",
		      d->least, "most", d->most, "sent", sent, "received", rcvd, "counted_bytes",
		      j->src->scale == 1 ? rcvd * j->mtu : rcvd, "verdict", v);
	json_object_set_new(o, "ratio", d->least > 0 ? json_real(lo / d->least) : json_null());
	json_array_append_new(json_object_get(j->out, "directions"), o);
	if (!strcmp(v, "fewer"))
		finding_fewer(j, d, sent, rcvd);
	else if (!strcmp(v, "more"))
		finding_more(j, d, hi);
	return strcmp(v, "agree") != 0;
}

static json_t *not_judged(const char *why)
{
	return json_pack("{s:s, s:s}", "verdict", "not_judged", "why", why);
}

/* Whether the two workers measured one port (one device and GID). */
static int one_port(const json_t *a, const json_t *b)
{
	const char *ga = fc_jstr(a, "gid", ""), *gb = fc_jstr(b, "gid", "");

	return *ga && !strcmp(ga, gb) && !strcmp(fc_jstr(a, "device", "?"), fc_jstr(b, "device", ""));
}

/* The tolerances and what the above side was judged with. */
static void set_rules(struct ctr_judge *j, const json_t *counters, int missing)
{
	char list[600];
	int nret = retries(counters, list, sizeof(list));

	json_object_set_new(j->out, "tolerance",
			    json_pack("{s:f, s:f}", "below", CTR_TOL_BELOW, "above", CTR_TOL_ABOVE));
	j->above = !nret && !missing;
	json_object_set_new(j->out, "above_judged", json_boolean(j->above));
	if (nret)
		json_object_set_new(j->out, "above_not_judged",
				    json_sprintf("error counters rose (%s): retries resend packets, so only the least is judged",
						 list));
	else if (missing)
		json_object_set_new(j->out, "above_not_judged",
				    json_sprintf("%d test%s cut short moved packets the results do not count",
						 missing, fc_s(missing)));
}

static json_t *check(json_t *doc, const json_t *a, const json_t *b, const json_t *counters)
{
	const json_t *ca = json_object_get(counters, fc_jstr(a, "node", "")), *cb;
	struct ctr_judge j = { .doc = doc, .from = fc_jstr(a, "node", "A"),
			       .to = fc_jstr(b, "node", "B") };
	struct fc_ctr_dir dir[2];
	int missing, hdr, same = one_port(a, b), bad = 0;
	uint64_t control = 0;

	cb = json_object_get(counters, j.to);
	j.mtu = (int)fc_jnum(doc, "path_mtu", 0);
	if (!json_is_object(ca) || !json_is_object(cb))
		return not_judged("the counters of both nodes are not in (the run ended before its finish)");
	if (!(j.src = pick_source(ca, cb)))
		return not_judged("a node has neither port_xmit_data/port_rcv_data nor sent_pkts/rcvd_pkts");
	if (j.mtu <= 0)
		return not_judged("the path MTU is not known");
	missing = fc_ctr_account(json_object_get(doc, "results"), j.mtu, dir);
	if (!dir[0].messages && !dir[1].messages)
		return not_judged("no test finished");
	j.out = json_pack("{s:s, s:s, s:i, s:b, s:b, s:[]}", "unit", j.src->unit, "source",
			  j.src->name, "path_mtu", j.mtu, "one_port", same, "rdma_cm",
			  !strcmp(fc_jstr(json_object_get(doc, "options"), "exchange", ""), "rdma_cm"),
			  "directions");
	if (json_is_true(json_object_get(j.out, "rdma_cm")))
		control = CTR_CM_PKTS * (uint64_t)fc_jnum(json_object_get(doc, "options"), "qps", 1);
	set_rules(&j, counters, missing);
	hdr = (int)fc_jnum(json_object_get(a, "payload"), "header_bytes", CTR_HDR_DEFAULT);
	if (same) {
		/* One port: its counters hold both directions. */
		dir[0].moved_bytes += dir[1].moved_bytes;
		dir[0].timed_bytes += dir[1].timed_bytes;
		dir[0].messages += dir[1].messages;
		dir[0].data_pkts += dir[1].data_pkts;
		dir[0].req_pkts += dir[1].req_pkts;
		dir[0].ack_pkts += dir[1].ack_pkts;
		control *= 2;
	}
	for (int k = 0; k < (same ? 1 : 2); k++) {
		const json_t *tx = k ? cb : ca, *rx = k ? ca : cb;

		fc_ctr_bounds(&dir[k], j.src->scale == 4, hdr, control);
		if (k)
			j.from = fc_jstr(b, "node", "B"), j.to = fc_jstr(a, "node", "A");
		bad += judge_dir(&j, &dir[k], counter(tx, j.src->tx) * j.src->scale,
				 counter(rx, j.src->rx) * j.src->scale);
	}
	json_object_set_new(j.out, "verdict", json_string(bad ? "disagree" : "agree"));
	return j.out;
}

void fc_counters_check(json_t *doc)
{
	json_object_set_new(doc, "counters_check",
			    check(doc, json_object_get(doc, "a"), json_object_get(doc, "b"),
				  json_object_get(doc, "counters")));
}
