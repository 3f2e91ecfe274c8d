/*
 * Rails: a port of another rate than its node's others (see rail.h).
 *
 * Most of a node's ports run at the rails' rate. A port at another rate is
 * either a storage or front-end NIC, on a network of its own (NVIDIA's DGX
 * SuperPOD reference architecture keeps the storage fabric and the in-band
 * management network apart from the compute fabric's rails), and is left
 * out; or a rail port whose link trained below its rate, which stays on its
 * rail and is failed, named with its rate and the rate expected. A port
 * below the rails' rate is a rail port when
 *
 *   reach  it reaches what another node's port at the rate it falls short
 *          of reaches: the same InfiniBand switch (node GUID), the same
 *          LLDP neighbour, or the same subnet where that subnet names one
 *          rail (no node has two ports on it); a storage NIC reaches its
 *          own network;
 *   lanes  it runs on fewer lanes than the same port (device and port
 *          number) of another node at the rate it falls short of, at that
 *          port's lane rate: its link lost lanes. The width is the active
 *          one sysfs prints (drivers/infiniband/core/sysfs.c rate_show,
 *          "400 Gb/sec (4X NDR)"); mlx5 reports a 200GAUI-2 link as
 *          IB_WIDTH_2X (drivers/infiniband/hw/mlx5/main.c,
 *          translate_eth_ext_proto_oper).
 *
 * A port faster than the rails, or slower with as many lanes as its peers'
 * and reaching nothing of the rails' (another part at its full rate), is
 * left out as before. A devices list holds no supported link modes
 * (ibv_query_port gives the active width and speed only), so the lanes the
 * same port runs on its peers stand for the part's capability.
 */
#include "core/rail_int.h"
#include "core/util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int same_rate(double a, double b)
{
	return fabs(a - b) <= 0.01 * b;
}

/* The rate more than half of node @i's eligible ports have (the whole
 * fabric's when @i < 0); 0 when none has. */
static double major_rate(const struct match *x, int i)
{
	int lo = i < 0 ? 0 : i, hi = i < 0 ? x->n : i + 1, total = 0;

	for (int pass = 0; pass < 2; pass++)
		for (int a = lo; a < hi; a++)
			for (int j = 0; j < x->nodes[a].nports; j++) {
				double r = x->nodes[a].ports[j].rate;
				int same = 0;

				if (!rail_eligible(x, a, j) || !(r > 0))
					continue;
				if (!pass) {
					total++;
					continue;
				}
				for (int b = lo; b < hi; b++)
					for (int k = 0; k < x->nodes[b].nports; k++)
						same += rail_eligible(x, b, k) &&
							same_rate(x->nodes[b].ports[k].rate, r);
				if (2 * same > total)
					return r;
			}
	return 0;
}

/* Whether subnet @s names one rail: no node has two eligible ports on it
 * (one InfiniBand subnet manager for every rail gives them all one). */
static int subnet_one_rail(const struct match *x, const char *s)
{
	for (int i = 0; i < x->n; i++) {
		int c = 0;

		for (int j = 0; j < x->nodes[i].nports; j++)
			c += rail_eligible(x, i, j) && !strcmp(x->nodes[i].ports[j].subnet, s);
		if (c > 1)
			return 0;
	}
	return 1;
}

/* Why port @p of a node, below its rails' rate, is a rail port: what it
 * shares with port @o of node @name, which runs at its rails' rate. */
static int shares_rail(const struct match *x, const struct fc_rail_port *p,
		       const struct fc_rail_port *o, const char *name, char *how, size_t len)
{
	if (p->peer[0] && !strcmp(p->peer, o->peer))
		snprintf(how, len, "it reaches switch %s, as %s's %s does", p->peer, name, o->dev);
	else if (p->lldp[0] && !strcmp(p->lldp, o->lldp))
		snprintf(how, len, "it reaches leaf %s, as %s's %s does", p->lldp, name, o->dev);
	else if (p->subnet[0] && !strcmp(p->subnet, o->subnet) && subnet_one_rail(x, p->subnet))
		snprintf(how, len, "it is on subnet %s, as %s's %s is", p->subnet, name, o->dev);
	else if (p->width > 0 && o->width > p->width && !strcmp(p->dev, o->dev) &&
		 p->port == o->port && same_rate(p->rate / p->width * o->width, o->rate))
		snprintf(how, len, "it runs on %d lane%s where %s's runs on %d", p->width,
			 fc_s(p->width), name, o->width);
	else
		return 0;
	return 1;
}

/* Whether port @j of node @i, below @want[i], is a rail port (@how says
 * why): its peer runs at @want[i] itself (a node whose own rail port fell
 * to its storage NIC's rate has that rate for its majority, and its storage
 * NIC is no rail port of the others). */
static int rail_port_below(const struct match *x, int i, int j, const double *want, char *how,
			   size_t len)
{
	const struct fc_rail_port *p = &x->nodes[i].ports[j];

	if (!(p->rate < want[i]))
		return 0;
	for (int k = 0; k < x->n; k++)
		for (int q = 0; k != i && q < x->nodes[k].nports; q++) {
			const struct fc_rail_port *o = &x->nodes[k].ports[q];

			if (rail_eligible(x, k, q) && same_rate(o->rate, want[i]) &&
			    shares_rail(x, p, o, x->nodes[k].name, how, len))
				return 1;
		}
	return 0;
}

/* Port @j of node @i, a rail port below the rails' rate @want: failed. */
static void below_rate(struct match *x, int i, int j, double want, const char *how)
{
	const struct fc_rail_port *p = &x->nodes[i].ports[j];
	char lanes[24] = "";

	if (p->width > 0)
		snprintf(lanes, sizeof(lanes), " on %d lane%s", p->width, p->width > 1 ? "s" : "");
	if (rail_add_finding(x->map, FC_RAIL_FAIL, i,
			     "%s of %s runs at %g Gb/s%s, below the %g Gb/s of the rails: %s, so it "
			     "stays on its rail as a port trained below its rate, not a storage or "
			     "front-end NIC: reseat or replace its cable or transceiver (ethtool -m: a "
			     "lane's Tx fault), check the switch port's speed",
			     p->dev, x->nodes[i].name, p->rate, lanes, want, how))
		return;
	snprintf(x->map->findings[x->map->nfindings - 1].dev, sizeof(p->dev), "%s", p->dev);
	x->map->findings[x->map->nfindings - 1].port = p->port;
}

void rail_other_rate(struct match *x)
{
	double fabric = major_rate(x, -1), *want = calloc((size_t)x->n + 1, sizeof(*want));
	char why[200], how[160];

	if (!want)
		return;
	for (int i = 0; i < x->n; i++) {
		want[i] = major_rate(x, i);
		if (!(want[i] > 0))
			want[i] = fabric;
	}
	for (int i = 0; i < x->n; i++)
		for (int j = 0; j < x->nodes[i].nports; j++) {
			double r = x->nodes[i].ports[j].rate;

			if (!rail_eligible(x, i, j) || !(r > 0) || !(want[i] > 0) ||
			    same_rate(r, want[i]))
				continue;
			if (rail_port_below(x, i, j, want, how, sizeof(how))) {
				below_rate(x, i, j, want[i], how);
				continue;
			}
			snprintf(why, sizeof(why), "its rate %g Gb/s differs from the %g Gb/s of "
				 "the node's other ports (a storage or front-end NIC)", r, want[i]);
			rail_left_add(x, i, j, why);
		}
	free(want);
}
