/* The verdict of a pair test from its finished JSON document (see pairv.h). */
#include "core/pairv.h"

#include <stdio.h>
#include <string.h>

#include "core/ctrcheck.h"
#include "core/hostloss.h"
#include "core/out.h"
#include "core/stats.h"
#include "core/util.h"

int fc_counter_is_error(const char *name)
{
	static const char *const bad[] = {
		"err", "discard", "drop", "seq", "retry", "retrans", "timeout",
		"duplicate", "downed", "out_of_buffer", "recovery", "nak", "lifespan",
		"cnp", "ecn", "dup",
	};
	/* ECN marks and CNPs are congestion control at work, judged with the
	 * traffic class by verbs/qos.c, not errors. */
	static const char *const fine[] = { "rdma_sends", "rdma_recvs", "ack_deferred",
					    "np_ecn_marked_roce_packets", "np_cnp_sent",
					    "rp_cnp_handled", "rp_cnp_ignored" };

	for (size_t i = 0; i < sizeof(fine) / sizeof(fine[0]); i++)
		if (!strcmp(name, fine[i]))
			return 0;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (strstr(name, bad[i]))
			return 1;
	return 0;
}

int fc_counter_is_rnr(const char *name)
{
	/* mlx5 (NVIDIA, "Understanding mlx5 Linux counters"): out_of_buffer,
	 * drops for lack of a receive WQE (answered by an RNR NAK on RC);
	 * rnr_nak_retry_err, RNR NAKs received within the QP's retry limit.
	 * rxe (rxe_hw_counters.c): rcvd_rnr_err and send_rnr_err, RNR NAKs
	 * received and sent. Not rnr_retry_exceeded (rxe's
	 * retry_rnr_exceeded_err): a QP that gave up is an error. */
	static const char *const rnr[] = { "out_of_buffer", "rnr_nak_retry_err", "rcvd_rnr_err",
					   "send_rnr_err" };

	for (size_t i = 0; i < sizeof(rnr) / sizeof(rnr[0]); i++)
		if (!strcmp(name, rnr[i]))
			return 1;
	return 0;
}

int fc_doc_validated(const json_t *doc)
{
	return json_is_true(json_object_get(json_object_get(doc, "options"), "validate"));
}

static void check_mtu(json_t *doc, const json_t *a, const json_t *b)
{
	int ma = (int)fc_jnum(a, "mtu", 0), mb = (int)fc_jnum(b, "mtu", 0);

	if (ma && mb && ma != mb)
		fc_finding(doc, FC_WARN,
			   "active MTU differs: %s %s %d B, %s %s %d B, so the path runs at %d B: set the same MTU on both fabric interfaces (e.g. ip link set DEV mtu 9000 on RoCE, or the subnet manager's MTU on InfiniBand)",
			   fc_jstr(a, "node", "A"), fc_jstr(a, "device", "?"), ma,
			   fc_jstr(b, "node", "B"), fc_jstr(b, "device", "?"), mb,
			   ma < mb ? ma : mb);
}

/* Largest size among bandwidth results, smallest among latency ones. */
static void size_range(const json_t *results, double *bw_max, double *lat_min)
{
	size_t i;
	json_t *r;

	*bw_max = 0;
	*lat_min = 0;
	json_array_foreach(results, i, r) {
		double s = fc_jnum(r, "size_bytes", 0);

		if (!strcmp(fc_jstr(r, "metric", ""), "bw")) {
			if (s > *bw_max)
				*bw_max = s;
		} else if (!*lat_min || s < *lat_min) {
			*lat_min = s;
		}
	}
}

static void check_bw_value(json_t *doc, const json_t *r, const char *dir, double gbps,
			   double floor, const char *why)
{
	char sz[32];

	if (gbps >= floor)
		return;
	fc_finding(doc, FC_FAIL,
		   "%s bandwidth at %s %s: %.3f Gb/s is below %.3f Gb/s (%s): the diagnosis names the likely part (port speed, PCIe link, errors); or give the fabric's expected figure with --min-gbps",
		   fc_jstr(r, "test", "?"), fc_fmt_size((uint64_t)fc_jnum(r, "size_bytes", 0), sz, sizeof(sz)),
		   dir, gbps, floor, why);
}

/* The dips of a summary over the whole run (core/bwlog.c), with times. */
static void check_dip_summary(json_t *doc, const json_t *r, const json_t *iv, const char *dir)
{
	const json_t *dips = json_object_get(iv, "dips"), *d;
	char list[400] = "";
	size_t i, off = 0;

	if (fc_jnum(iv, "n", 0) < 5 || fc_jnum(iv, "dips_total", 0) < 1)
		return;
	json_array_foreach(dips, i, d) {
		if (i == 5 || off >= sizeof(list))
			break;
		off += (size_t)snprintf(list + off, sizeof(list) - off, "%s%.3f Gb/s at %.1f s",
					i ? ", " : "", fc_jnum(d, "gbps", 0), fc_jnum(d, "t_s", 0));
	}
	fc_finding(doc, FC_WARN,
		   "%s bandwidth %s dipped below half its median of %.3f Gb/s in %.0f of %.0f intervals of %.0f ms (%s%s): a flapping link or congestion; check link_downed and the switch logs, then rerun with -D for longer",
		   fc_jstr(r, "test", "?"), dir, fc_jnum(iv, "median_gbps", 0),
		   fc_jnum(iv, "dips_total", 0), fc_jnum(iv, "n", 0),
		   fc_jnum(r, "interval_s", 0) * 1e3, list,
		   json_array_size(dips) > 5 || fc_jnum(iv, "dips_total", 0) > json_array_size(dips) ?
			   ", ..." : "");
}

/* Older documents: the first intervals only, as a list. */
static void check_dip_samples(json_t *doc, const json_t *r, const json_t *s, const char *dir)
{
	double v[1024], med, lo = 0;
	size_t n = 0, i;
	json_t *x;

	json_array_foreach(s, i, x) {
		if (n == sizeof(v) / sizeof(v[0]))
			break;
		v[n] = json_number_value(x);
		if (!n || v[n] < lo)
			lo = v[n];
		n++;
	}
	if (n < 5)
		return;
	med = fc_median(v, n);
	if (med > 0 && lo < 0.5 * med)
		fc_finding(doc, FC_WARN,
			   "%s bandwidth %s dipped to %.3f Gb/s in one %.0f ms interval against a median of %.3f Gb/s: a flapping link or congestion; check link_downed and the switch logs, then rerun with -D for longer",
			   fc_jstr(r, "test", "?"), dir, lo, fc_jnum(r, "interval_s", 0) * 1e3, med);
}

static void check_dips(json_t *doc, const json_t *r, const char *key, const char *dir)
{
	const json_t *iv = json_object_get(r, strstr(key, "a_to_b") ? "intervals_a_to_b" :
									 "intervals_b_to_a");

	if (iv)
		check_dip_summary(doc, r, iv, dir);
	else
		check_dip_samples(doc, r, json_object_get(r, key), dir);
}

/* The side whose PCIe ceiling (from its evidence, pair/pair_ev.c) is the
 * smallest on the path, or NULL when neither side read one. */
static const json_t *pcie_limit(const json_t *a, const json_t *b)
{
	const json_t *ca = json_object_get(a, "pcie_ceiling"), *cb = json_object_get(b, "pcie_ceiling");
	double ga = fc_jnum(ca, "gbps", 0), gb = fc_jnum(cb, "gbps", 0);

	if (ga > 0 && (gb <= 0 || ga <= gb))
		return a;
	return gb > 0 ? b : NULL;
}

/* "mlx5_2 (PCIe 0000:3b:00.0) trained to 16 GT/s x8 (capable of 32 GT/s
 * x16): at most about 110 Gb/s" for the element of @side that limits. */
static void pcie_words(const json_t *side, char *out, size_t len)
{
	const json_t *c = json_object_get(side, "pcie_ceiling");
	int gpu = !strcmp(fc_jstr(c, "role", ""), "gpu");

	snprintf(out, len, "%s %s (PCIe %s) %s %g GT/s x%d%s, max payload %d B: at most about %.0f Gb/s",
		 fc_jstr(side, "node", "?"), gpu ? "GPU" : fc_jstr(side, "device", "?"),
		 fc_jstr(c, "bdf", "?"), gpu ? "at" : "trained to", fc_jnum(c, "gts", 0),
		 (int)fc_jnum(c, "width", 0),
		 json_is_true(json_object_get(c, "downtrained")) ? " (trained down)" : "",
		 (int)fc_jnum(c, "max_payload_bytes", 0), fc_jnum(c, "gbps", 0));
}

/* The PCIe link below the port's payload ceiling: said once, with the
 * element; a link trained below its capability is the host's fault. */
static void check_pcie(json_t *doc, const json_t *a, const json_t *b)
{
	const json_t *lim = pcie_limit(a, b), *c = json_object_get(lim, "pcie_ceiling");
	double pa = fc_jnum(a, "payload_gbps", 0), pb = fc_jnum(b, "payload_gbps", 0);
	double port = pa && pb ? (pa < pb ? pa : pb) : 0;
	char what[320];

	if (!lim || port <= 0 || fc_jnum(c, "gbps", 0) >= port)
		return;
	pcie_words(lim, what, sizeof(what));
	fc_finding(doc, FC_WARN,
		   "%s, below the port's payload ceiling of %.3f Gb/s: bandwidth is judged against the PCIe ceiling; %s",
		   what, port,
		   json_is_true(json_object_get(c, "downtrained")) ?
			   "the link trained below its capability: compare 'lspci -vv' LnkSta with LnkCap, reseat the card or move it to a full-width slot" :
			   "the slot's design limits the port: move the card to a faster or wider slot to reach the port rate");
}

/* Appends @text to the document's "notes" (rendered with the report). */
static void doc_note(json_t *doc, const char *text)
{
	json_t *notes = json_object_get(doc, "notes");

	if (!json_is_array(notes)) {
		notes = json_array();
		json_object_set_new(doc, "notes", notes);
	}
	json_array_append_new(notes, json_string(text));
}

/* --validate's ceiling @val in words: the CRC alone (host memory), or
 * with GPU memory the copy through the driver and the CRC one after the
 * other, naming the lower (pair_val_ceiling). */
static void val_words(const json_t *r, double pct, double val, char *why, size_t len)
{
	double crc = fc_jnum(r, "validate_crc_gbps", 0), copy = fc_jnum(r, "validate_copy_gbps", 0);

	if (copy <= 0) {
		snprintf(why, len, "%g%% of %.3f Gb/s, --validate's own ceiling (the checking side's CRC32C rate on its cores, measured; not the link's)",
			 pct, val);
		return;
	}
	snprintf(why, len, "%g%% of %.3f Gb/s, --validate's own ceiling: the checking side copies each message out of GPU memory and writes its poison back (%.3f Gb/s measured), then checks its CRC32C (%.3f Gb/s measured), one after the other; the %s is the lower (not the link's)",
		 pct, val, copy, crc, strcmp(fc_jstr(r, "validate_ceiling_from", ""), "copy") ? "CRC" : "copy");
}

/* The floor of bandwidth at @size and the words of why, from the smallest
 * ceiling on the path: the ports' payload ceilings at the path MTU, the
 * PCIe links of the HCAs (and GPUs) as their evidence read them. */
static double bw_floor(json_t *doc, const json_t *r, const json_t *a, const json_t *b,
		       const struct fc_pair_limits *lim, char *why, size_t len)
{
	double size = fc_jnum(r, "size_bytes", 0);
	double ra = fc_jnum(a, "rate_gbps", 0), rb = fc_jnum(b, "rate_gbps", 0);
	double pa = fc_jnum(a, "payload_gbps", 0), pb = fc_jnum(b, "payload_gbps", 0);
	const json_t *slow = pa && pb ? (pa < pb ? a : b) : (ra < rb ? a : b);
	const json_t *pl = pcie_limit(a, b);
	double rate = ra < rb ? ra : rb, ceiling = pa && pb ? (pa < pb ? pa : pb) : 0;
	double pcie = fc_jnum(json_object_get(pl, "pcie_ceiling"), "gbps", 0);
	double val = fc_jnum(r, "validate_ceiling_gbps", 0), other;
	char what[320];

	if (lim->min_gbps > 0) {
		snprintf(why, len, "--min-gbps");
		return lim->min_gbps;
	}
	if (lim->min_link_pct <= 0 || size < FC_LINK_PCT_MIN_SIZE)
		return 0;
	/* --validate: the receiver checks every message's CRC32C in its poll
	 * loop; what its cores check per second bounds what it can confirm */
	other = ceiling > 0 ? ceiling : rate;
	if (pl && pcie > 0 && (other <= 0 || pcie < other))
		other = pcie;
	if (val > 0 && (other <= 0 || val < other)) {
		char note[700];

		val_words(r, lim->min_link_pct, val, why, len);
		snprintf(note, sizeof(note), "%s bandwidth judged against %s", fc_jstr(r, "test", "?"), why);
		doc_note(doc, note);
		return lim->min_link_pct / 100.0 * val;
	}
	if (pl && (ceiling > 0 || rate > 0) && pcie < (ceiling > 0 ? ceiling : rate)) {
		pcie_words(pl, what, sizeof(what));
		snprintf(why, len, "%g%% of %.3f Gb/s, the PCIe ceiling of %s", lim->min_link_pct,
			 pcie, what);
		return lim->min_link_pct / 100.0 * pcie;
	}
	if (ceiling > 0) {
		const json_t *p = json_object_get(slow, "payload");

		snprintf(why, len,
			 "%g%% of %.3f Gb/s, the payload ceiling of the slower port's %g Gb/s at path MTU %d B with %d B of headers a packet",
			 lim->min_link_pct, ceiling, fc_jnum(slow, "rate_gbps", 0),
			 (int)fc_jnum(p, "mtu", 0), (int)fc_jnum(p, "header_bytes", 0));
		return lim->min_link_pct / 100.0 * ceiling;
	}
	if (rate > 0) {
		snprintf(why, len, "%g%% of the slower port's %g Gb/s", lim->min_link_pct, rate);
		return lim->min_link_pct / 100.0 * rate;
	}
	fc_finding(doc, FC_WARN,
		   "%s bandwidth is not judged: the port rate of %s %s is unknown (width or speed code not known to fabcheck); give the expected figure with --min-gbps",
		   fc_jstr(r, "test", "?"), fc_jstr(slow, "node", "?"), fc_jstr(slow, "device", "?"));
	return 0;
}

static void check_bw(json_t *doc, const json_t *r, const json_t *a, const json_t *b,
		     const struct fc_pair_limits *lim, json_t *thr)
{
	const char *dirs[] = { "a_to_b_gbps", "b_to_a_gbps" };
	char why[512], dir[160];
	double floor = bw_floor(doc, r, a, b, lim, why, sizeof(why));

	if (floor <= 0)
		return;
	json_object_set_new(thr, "min_gbps", json_real(floor));
	json_object_set_new(thr, "min_gbps_from", json_string(why));
	for (int d = 0; d < 2; d++) {
		const json_t *v = json_object_get(r, dirs[d]);
		const json_t *from = d ? b : a, *to = d ? a : b;

		if (!json_is_number(v))
			continue;
		snprintf(dir, sizeof(dir), "%s->%s", fc_jstr(from, "node", "A"),
			 fc_jstr(to, "node", "B"));
		check_bw_value(doc, r, dir, json_number_value(v), floor, why);
	}
}

/* --validate: the RNR counters that rose, as a note (not loss). */
static void note_rnr(json_t *doc, const char *list)
{
	char text[600];

	if (!*list)
		return;
	snprintf(text, sizeof(text),
		 "receive-not-ready counters rose (%s): --validate posts a receive again only once its slot's message was checked, so the sender can find none posted and retries after an RNR NAK; not counted as loss (the verdict and the diagnosis leave them out)",
		 list);
	doc_note(doc, text);
}

int fc_ctr_why_said(const json_t *doc)
{
	const json_t *f;
	size_t i;

	json_array_foreach(json_object_get(doc, "findings"), i, f)
		if (json_is_string(f) && strstr(json_string_value(f), FC_CTR_WHY))
			return 1;
	return 0;
}

/* The loss a cause outside the nodes that this run measured explains at a
 * pair's ports (core/hostloss.h: a lab rack's own fabric), asked once per
 * port: frames and reason of "a" [0] and "b" [1]; both 0 unless it
 * explains both ends (a fault at one port shows as retransmissions at its
 * peer, so the pair is the unit). */
struct host_ends {
	double frames[2];
	char why[2][512];
};

static void host_ends(const json_t *a, const json_t *b, struct host_ends *h)
{
	h->frames[0] = fc_host_loss_side(a, h->why[0], sizeof(h->why[0]));
	h->frames[1] = h->frames[0] > 0 ? fc_host_loss_side(b, h->why[1], sizeof(h->why[1])) : 0;
	if (h->frames[0] <= 0 || h->frames[1] <= 0)
		h->frames[0] = h->frames[1] = 0;
}

/* Keeps @side's error counters (@list) under "host_loss" with the frames
 * and the reason @h gives for end @k: then they are not judged. */
static int host_loss(json_t *doc, const json_t *side, const char *node, const char *list,
		     const struct host_ends *h, int k)
{
	json_t *arr;

	if (h->frames[k] <= 0)
		return 0;
	arr = json_object_get(doc, "host_loss");
	if (!arr) {
		arr = json_array();
		json_object_set_new(doc, "host_loss", arr);
	}
	json_array_append_new(arr, json_pack("{s:s, s:s, s:I, s:s, s:f, s:s}", "node", node,
					     "device", fc_jstr(side, "device", "?"), "port",
					     (json_int_t)fc_jnum(side, "port", 0), "errors", list,
					     "frames_dropped", h->frames[k], "why", h->why[k]));
	return 1;
}

/*
 * One finding per node's port (the phase is the document's): the error
 * counters that rose, each with its delta ("completer_retry_err +219,
 * rcvd_seq_err +69"), the explanation once. "counters" keeps every counter.
 */
static void check_counters(json_t *doc, const json_t *counters, const json_t *a,
			   const json_t *b)
{
	int val = fc_doc_validated(doc), said;
	char rnr[400] = "", list[700];
	struct host_ends h;
	size_t off = 0, loff;
	const char *node;
	json_t *set, *v;
	const char *name;

	host_ends(a, b, &h);
	json_object_foreach((json_t *)counters, node, set) {
		int k = !strcmp(node, fc_jstr(b, "node", ""));
		const json_t *side = k ? b : a;

		loff = 0;
		list[0] = 0;
		json_object_foreach(set, name, v) {
			if (!json_is_integer(v) || json_integer_value(v) <= 0 ||
			    !fc_counter_is_error(name))
				continue;
			if (val && fc_counter_is_rnr(name)) {
				if (off < sizeof(rnr))
					off += (size_t)snprintf(rnr + off, sizeof(rnr) - off, "%s%s %s +%lld",
								off ? ", " : "", node, name,
								(long long)json_integer_value(v));
				continue;
			}
			if (loff < sizeof(list))
				loff += (size_t)snprintf(list + loff, sizeof(list) - loff, "%s%s +%lld",
							 loff ? ", " : "", name,
							 (long long)json_integer_value(v));
		}
		if (!loff)
			continue;
		if (host_loss(doc, side, node, list, &h, k))
			continue;
		said = fc_ctr_why_said(doc);
		fc_finding(doc, FC_WARN, "%s %s port %d: error counters rose during the test: %s%s%s",
			   node, fc_jstr(side, "device", "?"), (int)fc_jnum(side, "port", 0), list,
			   said ? "" : ": ", said ? "" : FC_CTR_WHY);
	}
	note_rnr(doc, rnr);
}

void fc_pair_verdict(json_t *doc, const struct fc_pair_limits *lim)
{
	const json_t *a = json_object_get(doc, "a"), *b = json_object_get(doc, "b");
	const json_t *results = json_object_get(doc, "results");
	json_t *thr = json_object(), *r;
	double bw_max, lat_min;
	size_t i;

	check_mtu(doc, a, b);
	check_pcie(doc, a, b);
	size_range(results, &bw_max, &lat_min);
	json_array_foreach(results, i, r) {
		const char *metric = fc_jstr(r, "metric", "");
		double size = fc_jnum(r, "size_bytes", 0);

		if (!strcmp(metric, "bw")) {
			char dir[160];

			snprintf(dir, sizeof(dir), "%s->%s", fc_jstr(a, "node", "A"),
				 fc_jstr(b, "node", "B"));
			if (json_is_number(json_object_get(r, "a_to_b_gbps")))
				check_dips(doc, r, "samples_a_to_b_gbps", dir);
			snprintf(dir, sizeof(dir), "%s->%s", fc_jstr(b, "node", "B"),
				 fc_jstr(a, "node", "A"));
			if (json_is_number(json_object_get(r, "b_to_a_gbps")))
				check_dips(doc, r, "samples_b_to_a_gbps", dir);
			if (size == bw_max)
				check_bw(doc, r, a, b, lim, thr);
		} else if (!strcmp(metric, "lat") && size == lat_min && lim->max_lat_us > 0) {
			double p50 = fc_jnum(r, "p50_us", 0);
			char sz[32];

			json_object_set_new(thr, "max_lat_us", json_real(lim->max_lat_us));
			if (!json_is_number(json_object_get(r, "p50_us")))
				fc_finding(doc, FC_WARN,
					   "%s latency at %s: --max-lat-us is not judged: the run had too few rounds for a median (it needs 20); raise -n",
					   fc_jstr(r, "test", "?"),
					   fc_fmt_size((uint64_t)size, sz, sizeof(sz)));
			else if (p50 > lim->max_lat_us)
				fc_finding(doc, FC_FAIL,
					   "%s latency at %s: p50 %.2f us is above --max-lat-us %.2f us: check for congestion, a far NUMA node (taskset), or power saving on the HCA's PCIe link",
					   fc_jstr(r, "test", "?"),
					   fc_fmt_size((uint64_t)size, sz, sizeof(sz)), p50,
					   lim->max_lat_us);
		}
	}
	check_counters(doc, json_object_get(doc, "counters"), a, b);
	fc_counters_check(doc);
	json_object_set_new(doc, "thresholds", thr);
}

json_t *fc_counters_delta(const json_t *before, const json_t *after)
{
	json_t *out = json_object(), *v;
	const char *name;

	json_object_foreach((json_t *)after, name, v) {
		const json_t *b = json_object_get(before, name);

		if (json_is_integer(v) && json_is_integer(b) &&
		    json_integer_value(v) != json_integer_value(b))
			json_object_set_new(out, name,
					    json_integer(json_integer_value(v) -
							 json_integer_value(b)));
	}
	return out;
}
