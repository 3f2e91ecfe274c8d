/*
 * Culprit levels of a matrix with rails: which link, port, node or rail to
 * blame. Pure: cells in, suspects out.
 *
 * A cell is one directed result a -> b on one rail. Each rail is analysed
 * alone first (fc_mx_analyze: its own median, suspect nodes, suspect links),
 * then the levels are drawn across the rails:
 *
 *   rail  a rail whose median is below min_rack_pct of the best rail's, or
 *         on which most nodes are suspects or bad with most of their peers
 *         (every pair failed, no figure): that rail's switch or its
 *         configuration. It names no node; a rail only slower than the best
 *         still holds each node against its peers on it, so one node's slow
 *         port there is a port suspect beside the rail's finding. A rail on
 *         which no pair could run while other rails did is none: that rail
 *         could not be checked ("unchecked_rails", and each node's port on
 *         it "unchecked"), never a suspect;
 *   node  a node suspect on every rail it was measured on, two rails or
 *         more: the host (PCIe switch, NUMA, CPU, firmware); a node
 *         unreachable on every rail is none: it could not be checked (ssh,
 *         the launcher, its power), never a suspect;
 *   port  a node suspect on some of its rails: that node's HCA, cable or
 *         switch port on that rail (one suspect per rail). A node
 *         unreachable on one rail (no pair of it there could run: the
 *         worker's own faults of the node arrive as fails, ctl/worker.c,
 *         so these are ssh, the launcher, a crash, a deadline) while its
 *         other rails ran is no suspect: that port could not be checked
 *         ("unchecked"), listed apart and never drained;
 *   link  a suspect link of one rail (a bad cell whose two nodes pass with
 *         their other peers on that rail): the link between those two ports.
 *
 * With one rail a suspect node is level node (the rail cannot tell port
 * from host). The rails' own analyses stay in `rails` for their other
 * findings (pair errors, asymmetry).
 */
#ifndef FC_MXLEVEL_H
#define FC_MXLEVEL_H

#include <stddef.h>

#include "matrix/mxan.h"

#define FC_MXL_RAILS_MAX 64

enum fc_mxl_level { FC_MXL_LINK, FC_MXL_PORT, FC_MXL_NODE, FC_MXL_RAIL };

struct fc_mxl_cell {
	int a, b;	     /* node indices, a -> b */
	int rail;	     /* 0 .. nrails-1 */
	double gbps, lat_us; /* NAN when not measured */
	enum fc_mx_state state;
	int retest;	     /* measured again by --retest: its round, 0 none */
	unsigned char fault; /* FC_MX_FAULT_*: whose own device failed (mxan.h) */
};

struct fc_mxl_suspect {
	enum fc_mxl_level level;
	int node;	 /* link: one end; rail: -1 */
	int peer;	 /* link: the other end; else -1 */
	int rail;	 /* -1 for a whole node */
	double gbps;	 /* its median (port, node, rail) or the pair's slower direction */
	double ref_gbps; /* what it was held against */
	int nrails_bad;	 /* node: the rails it is bad on */
	/* rail: only slower than the best rail, its own analysis still held
	 * each node against its peers on it (a node in line there was seen);
	 * 0: its nodes could not be told apart (most nodes suspect, its
	 * floor) */
	int nodes_judged;
	/* node, port: named for its own device, which its worker could not
	 * set up or connect (mxan.h FC_MX_BAD_OWN), not by a comparison */
	int own;
};

/* A node's port on one rail that could not be checked: none of its pairs
 * on that rail could run (FC_MX_ERROR: ssh, the launcher, a worker that
 * failed or timed out; a fault the worker found on the node arrives as
 * FC_MX_FAIL, judged), while its pairs on another rail ran. */
struct fc_mxl_unchecked {
	int node, rail;
};

struct fc_mxl_analysis {
	int n, nrails;
	struct fc_mx_analysis *rails; /* nrails: each rail alone */
	double best_rail_gbps;	      /* the highest rail median, NAN when none ran */
	struct fc_mxl_suspect *suspects;
	int nsuspects;
	struct fc_mxl_unchecked *unchecked; /* never suspects, never drained */
	int nunchecked;
	/* Bit r: no pair could run on rail r while another rail ran (each
	 * pair FC_MX_ERROR, two nodes or more tried): that rail could not be
	 * checked, no suspect; each node's port on it is in @unchecked. */
	unsigned long long unchecked_rails;
	/* Every rail that ran has every pair below --min-gbps (each rail's
	 * FC_MX_FLOOR; one rail that ran while the others could not, too):
	 * one finding about the floor (fc_mx_floor_text), no rail named for
	 * it; its rails, pairs, nodes and best figure over the rails. */
	int floor, floor_pairs, floor_nodes;
	double floor_best_gbps;
};

/* Analyses @ncells cells among @n nodes and @nrails rails (1 to
 * FC_MXL_RAILS_MAX); a later cell for the same a -> b and rail replaces an
 * earlier one. Returns 0, -EINVAL
 * (an index out of range) or -ENOMEM; release @out with fc_mxl_release,
 * which is also safe after an error. */
int fc_mxl_analyze(int n, int nrails, const struct fc_mxl_cell *cells, size_t ncells,
		   const struct fc_mx_opts *opts, struct fc_mxl_analysis *out);
void fc_mxl_release(struct fc_mxl_analysis *an);
/* The same into @an, which holds an earlier analysis (or is zeroed): the
 * rails' memory is used again when @n and @nrails are the same
 * (fc_mx_reanalyze). After an error @an is released. */
int fc_mxl_reanalyze(int n, int nrails, const struct fc_mxl_cell *cells, size_t ncells,
		     const struct fc_mx_opts *opts, struct fc_mxl_analysis *an);

/* "link", "port", "node", "rail" (the JSON `level`). */
const char *fc_mxl_level_name(enum fc_mxl_level level);

/* One line for @s: where and why, and what to look at (mxlevel_text.c).
 * The evidence is said in the single-port analysis's words for the same
 * results (a port: fc_mx_node_why of its rail; a link: fc_mx_link_why; a
 * rail below --min-gbps alone: fc_mx_floor_why), "still bad on retest"
 * included; a median beside its reference only where it is the lower.
 * @rails names the rails (NULL: "rail N"). */
void fc_mxl_suspect_text(const struct fc_mxl_analysis *an, const struct fc_mxl_suspect *s,
			 const char *const *nodes, const char *const *rails, char *buf,
			 size_t len);

/* The cells --retest runs again: per rail, each bad pair of a suspect port
 * with a node that passes on that rail, and each suspect link. Fills @out
 * (room for @max) with a, b, rail and returns the count (-ENOMEM). Rails
 * bad as a whole are left out: no node passes on them. */
int fc_mxl_retest_plan(const struct fc_mxl_analysis *an, struct fc_mxl_cell *out, int max);
/* The second round's cells (FC_MX_RETEST_ROUNDS): per rail,
 * fc_mx_retest_plan_new of that rail against its analysis in @first (the
 * first pass's, before any retest). -EINVAL when @first is of another
 * rack (node or rail count). */
int fc_mxl_retest_plan_new(const struct fc_mxl_analysis *an, const struct fc_mxl_analysis *first,
			   struct fc_mxl_cell *out, int max);

#endif
