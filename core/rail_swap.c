/*
 * Rails: swapped cables, where the rails were matched by what each port
 * reaches (subnet, switch, LLDP neighbour). Position does not assign a port
 * there; it only says whether a node's ports sit on the rails in the order
 * its peers' ports do.
 *
 * A node's ports on the rails, in position order (NUMA node, PCI address,
 * device name: rail_port_cmp in core/rail_rules.c), give that node's order of
 * the rails. Nodes of one build order them alike: a rail-optimized fabric
 * cables the NIC in position N of every server to the leaf of rail N
 * (Juniper JVD "AI data center with Apstra, NVIDIA and WEKA", Rail Optimized
 * Fabric: "rail N connects GPUs in position N in all the servers across leaf
 * switch N", juniper.net/documentation/us/en/software/jvd/
 * jvd-ai-dc-apstra-nvidia-weka/rail_optimized_fabric.html; NVIDIA DGX
 * SuperPOD B300 reference architecture, Network Fabrics: each scalable unit
 * "rail-aligned", docs.nvidia.com/dgx-superpod/reference-architecture/
 * scalable-infrastructure-b300/latest/network-fabrics.html). The order most
 * nodes follow is the reference; a node that orders
 * two rails the other way has those cables swapped. Names do not count (a
 * server of another model names its HCAs mlx5_2..mlx5_9 in the same slot
 * order), nor a DOWN port (its slot is counted, the others keep theirs).
 *
 * The reference is one node's order, not the mean of the nodes' ranks: on a
 * pair of nodes the mean of a swapped rail pair ties and says nothing,
 * while one node's order tells which ports differ. When as many nodes follow
 * one order as another (two nodes, one swapped) the earliest node's order is
 * taken and the finding says the swap may be on that node instead.
 */
#include <string.h>

#include "core/rail_int.h"

#define ORDERS_MAX 16 /* distinct orders weighed; the rest follow none */

/* @rank[r]: node @i's place of its port on rail r among its slots, -1
 * where it has no port on r. Returns how many rails it has a port on. */
static int node_ranks(const struct match *x, int i, int *rank)
{
	int n = 0;

	for (int r = 0; r < x->map->nrails; r++) {
		int p = x->map->port[i * x->map->nrails + r];

		rank[r] = p < 0 ? -1 : rail_port_rank(x, i, p);
		n += p >= 0;
	}
	return n;
}

/* Whether @a and @b order every two rails they both have alike. */
static int same_order(const int *a, const int *b, int nr)
{
	for (int r = 0; r < nr; r++)
		for (int s = r + 1; s < nr; s++)
			if (a[r] >= 0 && a[s] >= 0 && b[r] >= 0 && b[s] >= 0 &&
			    (a[r] < a[s]) != (b[r] < b[s]))
				return 0;
	return 1;
}

/* Nodes whose order agrees with @ref's. */
static int votes(const struct match *x, const int *ref)
{
	int rank[FC_RAIL_MAX], v = 0;

	for (int i = 0; i < x->n; i++) {
		node_ranks(x, i, rank);
		v += same_order(ref, rank, x->map->nrails);
	}
	return v;
}

/* Candidates: the first node of each distinct order among the nodes with a
 * port on the most rails (a node with a port down follows the order of the
 * others only on its remaining rails). */
static int candidates(const struct match *x, int *cand)
{
	int most = 0, nc = 0, rank[FC_RAIL_MAX], other[FC_RAIL_MAX];

	for (int i = 0; i < x->n; i++) {
		int k = node_ranks(x, i, rank);

		most = k > most ? k : most;
	}
	for (int i = 0; i < x->n && nc < ORDERS_MAX; i++) {
		int seen = 0;

		if (node_ranks(x, i, rank) != most || !most)
			continue;
		for (int c = 0; c < nc && !seen; c++) {
			node_ranks(x, cand[c], other);
			seen = same_order(rank, other, x->map->nrails);
		}
		if (!seen)
			cand[nc++] = i;
	}
	return nc;
}

void rail_order_ref(const struct match *x, struct rail_ref *out)
{
	int cand[ORDERS_MAX], nc = candidates(x, cand), best = -1, rank[FC_RAIL_MAX];

	out->node = -1;
	out->tied = -1;
	for (int c = 0; c < nc; c++) {
		int v;

		node_ranks(x, cand[c], rank);
		v = votes(x, rank);
		if (v > best) {
			best = v;
			out->node = cand[c];
			out->tied = -1;
		} else if (v == best && out->tied < 0) {
			out->tied = cand[c];
		}
	}
	for (int r = 0; r < x->map->nrails; r++)
		out->rank[r] = r;
	if (out->node >= 0)
		node_ranks(x, out->node, out->rank);
}

void rail_misplaced(const struct match *x, const struct rail_ref *ref, int i, unsigned char *bad)
{
	int rails[FC_RAIL_MAX], ports[FC_RAIL_MAX], n = 0;

	for (int r = 0; r < x->map->nrails; r++) {
		int p = x->map->port[i * x->map->nrails + r], k = n, q = n;

		bad[r] = 0;
		/* a rail the reference node has no port on is not judged */
		if (p < 0 || ref->rank[r] < 0)
			continue;
		while (k > 0 && ref->rank[rails[k - 1]] > ref->rank[r]) {
			rails[k] = rails[k - 1];
			k--;
		}
		rails[k] = r;
		while (q > 0 && rail_port_cmp(x, i, ports[q - 1], p) > 0) {
			ports[q] = ports[q - 1];
			q--;
		}
		ports[q] = p;
		n++;
	}
	for (int k = 0; k < n; k++)
		bad[rails[k]] = x->map->port[i * x->map->nrails + rails[k]] != ports[k];
}
