/*
 * The words of a matrix with rails (mxlevel.h): one line per suspect. The
 * evidence is worded as the single-port analysis words the same results
 * (mxan_text.c fc_mx_node_why, fc_mx_link_why, fc_mx_floor_why): a port
 * bad on its rail says what a node bad on a one-port fabric says.
 */
#include "matrix/mxlevel.h"
#include "core/util.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static const char *rail_name(const char *const *rails, int r, char *buf, size_t len)
{
	if (rails && rails[r])
		snprintf(buf, len, "rail %d (%s)", r, rails[r]);
	else
		snprintf(buf, len, "rail %d", r);
	return buf;
}

/* ", median 0.03 Gb/s against 0.1 Gb/s[ on the best rail]" when the two
 * figures differ as printed and the first is the lower ("median 0.0988
 * Gb/s against 0.0988 Gb/s" says nothing: a node bad by latency or by
 * pair's own verdict has its median at the reference), else "". */
static const char *median_vs(double v, double ref, const char *tail, char *buf, size_t len)
{
	char a[32], b[32];

	buf[0] = 0;
	snprintf(a, sizeof(a), "%.3g", v);
	snprintf(b, sizeof(b), "%.3g", ref);
	if (isfinite(v) && isfinite(ref) && v < ref && strcmp(a, b))
		snprintf(buf, len, ", median %s Gb/s against %s Gb/s%s", a, b, tail);
	return buf;
}

/* Node @s's evidence on rail @r, in the words of the single-port analysis
 * (fc_mx_node_why): "bad with 2 of 3 peers (below ...)". */
static void port_why(const struct fc_mxl_analysis *an, int node, int r, const char *const *nodes,
		     char *buf, size_t len)
{
	const struct fc_mx_finding *f = fc_mx_finding_of(&an->rails[r], FC_MX_SUSPECT_NODE, node);

	if (f)
		fc_mx_node_why(&an->rails[r], f, nodes, buf, len);
	else
		snprintf(buf, len, "bad with most of its peers");
}

/* The rails other than @r on which node @i passes against its peers. */
static int rails_passed(const struct fc_mxl_analysis *an, int i, int r)
{
	int n = 0;

	for (int k = 0; k < an->nrails; k++)
		n += k != r && an->rails[k].nodes[i].state == FC_MX_NODE_OK;
	return n;
}

static void rail_text(const struct fc_mxl_analysis *an, const struct fc_mxl_suspect *s,
		      const char *rl, char *buf, size_t len)
{
	const struct fc_mx_analysis *ra = &an->rails[s->rail];
	const struct fc_mx_finding *fl = fc_mx_finding_of(ra, FC_MX_FLOOR, -1),
				   *rw = fc_mx_finding_of(ra, FC_MX_RACK_WIDE, -1);
	char why[256], med[96];

	median_vs(s->gbps, s->ref_gbps, " on the best rail", med, sizeof(med));
	if (fl) { /* below the floor on this rail, not on another (an->floor) */
		fc_mx_floor_why(why, sizeof(why), ra->opts.min_gbps, fl->a, fl->b, 0, fl->v2);
		snprintf(buf, len,
			 "%s: %s, while another rail's pairs are above it: that rail's switch or "
			 "its configuration",
			 rl, why);
	} else if (rw) {
		fc_mx_rack_wide_why(why, sizeof(why), rw);
		snprintf(buf, len, "%s: %s on that rail%s: that rail's switch or its configuration",
			 rl, why, med);
	} else if (!isfinite(s->gbps))
		snprintf(buf, len,
			 "%s: its pairs failed for most nodes, with no figure, while other "
			 "rails ran: that rail's switch or its configuration",
			 rl);
	else if (*med)
		snprintf(buf, len,
			 "%s: bad for every node%s: that rail's switch or its configuration", rl,
			 med);
	else /* the best rail itself: its pairs are bad with each other */
		snprintf(buf, len,
			 "%s: bad for every node, median %.3g Gb/s (the best rail's): its "
			 "pairs are bad with each other: that rail's switch or its "
			 "configuration",
			 rl, s->gbps);
}

/* "every rail (3)", or "every rail it was judged on (3 of 4)" where a
 * rail of the run did not judge the node (mxlevel.c find_nodes_and_ports:
 * its port there could not be checked, or that rail was bad as a whole):
 * "every rail (3)" of a 4-rail run said the run had 3. */
static const char *every_rail(const struct fc_mxl_analysis *an, int bad, char *buf, size_t len)
{
	if (bad >= an->nrails)
		snprintf(buf, len, "every rail (%d)", bad);
	else
		snprintf(buf, len, "every rail it was judged on (%d of %d)", bad, an->nrails);
	return buf;
}

/* A node bad on every rail: the figures across the rails where they say
 * something, then each rail's evidence as the single-port analysis words
 * it, as many rails as fit in a line's worth. */
static void node_text(const struct fc_mxl_analysis *an, const struct fc_mxl_suspect *s,
		      const char *const *nodes, const char *const *rails, char *buf, size_t len)
{
	char med[96], rl[96], why[512], every[64];
	size_t off;
	int more = 0;

	every_rail(an, s->nrails_bad, every, sizeof(every));
	if (s->own) { /* its worker named its own device on every rail */
		/* the pairs counted are one rail's: that rail named ("2 of
		 * its 3 pairs" after "on every rail (4)" read as the node's
		 * whole count) */
		for (int r = 0; r < an->nrails; r++)
			if (an->rails[r].nodes[s->node].state == FC_MX_NODE_SUSPECT) {
				port_why(an, s->node, r, nodes, why, sizeof(why));
				snprintf(buf, len, "%s: on %s; %s: %s: that node's HCAs, ports or "
					 "RDMA setup", nodes[s->node], every,
					 rail_name(rails, r, rl, sizeof(rl)), why);
				return;
			}
		snprintf(buf, len, "%s: on %s: that node's HCAs, ports or RDMA setup",
			 nodes[s->node], every);
		return;
	}
	median_vs(s->gbps, s->ref_gbps, "", med, sizeof(med));
	off = (size_t)snprintf(buf, len, "%s: bad on %s%s", nodes[s->node], every, med);
	for (int r = 0; r < an->nrails && off < len; r++) {
		if (an->rails[r].nodes[s->node].state != FC_MX_NODE_SUSPECT)
			continue;
		port_why(an, s->node, r, nodes, why, sizeof(why));
		if (off + strlen(why) > 400) {
			more++;
			continue;
		}
		off += (size_t)snprintf(buf + off, len - off, "; %s: %s",
					rail_name(rails, r, rl, sizeof(rl)), why);
	}
	if (more && off < len)
		off += (size_t)snprintf(buf + off, len - off, "; and on %d more rail%s", more,
					fc_s(more));
	if (off < len)
		snprintf(buf + off, len - off,
			 ": the host (PCIe switch, NUMA, CPU or firmware), not one link");
}

/* @a and @b have no other peer on the rail (a matrix of two): the one
 * pair cannot tell its link from either end. */
static int two_alone(const struct fc_mx_analysis *ra, int a, int b)
{
	return ra->nodes[a].peers == 1 && ra->nodes[b].peers == 1;
}

static const struct fc_mx_finding *link_of(const struct fc_mx_analysis *ra, int a, int b)
{
	for (int i = 0; i < ra->nfindings; i++)
		if (ra->findings[i].kind == FC_MX_SUSPECT_LINK && ra->findings[i].a == a &&
		    ra->findings[i].b == b)
			return &ra->findings[i];
	return NULL;
}

void fc_mxl_suspect_text(const struct fc_mxl_analysis *an, const struct fc_mxl_suspect *s,
			 const char *const *nodes, const char *const *rails, char *buf,
			 size_t len)
{
	const struct fc_mx_finding *f;
	char rl[96], why[512], others[64];
	int pass;

	switch (s->level) {
	case FC_MXL_RAIL:
		rail_text(an, s, rail_name(rails, s->rail, rl, sizeof(rl)), buf, len);
		return;
	case FC_MXL_NODE:
		if (an->nrails > 1) {
			node_text(an, s, nodes, rails, buf, len);
			return;
		}
		port_why(an, s->node, 0, nodes, why, sizeof(why));
		snprintf(buf, len, "%s: %s: that node's HCA, %s", nodes[s->node], why,
			 s->own ? "port, cable or RDMA setup" : "cable, switch port or host");
		return;
	case FC_MXL_PORT:
		rail_name(rails, s->rail, rl, sizeof(rl));
		port_why(an, s->node, s->rail, nodes, why, sizeof(why));
		pass = rails_passed(an, s->node, s->rail);
		if (pass == an->nrails - 1)
			snprintf(others, sizeof(others), "while its other rails pass");
		else if (pass)
			snprintf(others, sizeof(others), "while it passes on %d other rail%s", pass,
				 fc_s(pass));
		else
			snprintf(others, sizeof(others), "while no other rail of it was judged");
		snprintf(buf, len, "%s on %s: %s, %s: that node's HCA, %s on that rail",
			 nodes[s->node], rl, why, others,
			 s->own ? "port or cable" : "cable or switch port");
		return;
	case FC_MXL_LINK:
		rail_name(rails, s->rail, rl, sizeof(rl));
		f = link_of(&an->rails[s->rail], s->node, s->peer);
		if (f && two_alone(&an->rails[s->rail], s->node, s->peer)) {
			int retest = fc_mx_link_why(&an->rails[s->rail], f, why, sizeof(why));

			snprintf(buf, len,
				 "%s - %s on %s: %s%s, their only pair on that rail: two nodes alone "
				 "cannot tell the link between those two ports from either port; "
				 "test each against a third node",
				 nodes[s->node], nodes[s->peer], rl, why,
				 retest ? ", still bad on retest" : "");
		} else if (f) {
			int retest = fc_mx_link_why(&an->rails[s->rail], f, why, sizeof(why));

			snprintf(buf, len,
				 "%s - %s on %s: %s%s, while both pass with their other peers: the "
				 "link between those two ports",
				 nodes[s->node], nodes[s->peer], rl, why,
				 retest ? ", still bad on retest" : "");
		} else
			snprintf(buf, len,
				 "%s - %s on %s: %.3g Gb/s against %.3g Gb/s, while both pass with "
				 "their other peers: the link between those two ports",
				 nodes[s->node], nodes[s->peer], rl, s->gbps, s->ref_gbps);
		return;
	}
	snprintf(buf, len, "?");
}
