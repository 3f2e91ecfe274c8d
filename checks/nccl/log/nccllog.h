/*
 * Analysis of NCCL_DEBUG=INFO logs (NCCL 2.3 to today): a pure parser (libc
 * and jansson only) that turns log text into facts (version, network, HCAs,
 * ranks, channels, GPUDirect state, environment echoes, warnings, errors) and
 * a report with findings and a verdict (the `fabcheck nccl check-log`
 * document of architecture.md).
 *
 * Use: ncl_log_new(), then for each input ncl_log_feed() any number of times
 * followed by ncl_log_end_file(), then ncl_log_report().
 */
#ifndef FC_NCCLLOG_H
#define FC_NCCLLOG_H

#include <jansson.h>
#include <stddef.h>
#include <stdio.h>

struct ncl_log;

/* A new, empty log model; NULL (errno ENOMEM) when out of memory. */
struct ncl_log *ncl_log_new(void);
void ncl_log_free(struct ncl_log *lg);

/* Feeds @len bytes of text in any chunking: lines end at \n or \r; NUL bytes,
 * control characters and invalid UTF-8 are neutralised; lines longer than
 * 1 MiB are cut. Never fails: what is not understood is ignored. */
void ncl_log_feed(struct ncl_log *lg, const char *buf, size_t len);
/* Ends one input: a last line without a newline is parsed. @name (may be
 * NULL) names the input in the report; its NCCL line count is recorded. */
void ncl_log_end_file(struct ncl_log *lg, const char *name);

/* Lines seen and lines recognised as NCCL output (INFO/WARN/TRACE lines and
 * the bare "NCCL version" line). Zero NCCL lines: not an NCCL log. */
size_t ncl_log_lines(const struct ncl_log *lg);
size_t ncl_log_nccl_lines(const struct ncl_log *lg);

/* What the user expects; every field is optional. */
struct ncl_expect {
	const char *net;	  /* --expect-net: "IB", "Socket" or a plugin name */
	const char *const *hcas; /* --expect-hca: names, optionally "name:port" */
	int nhcas;
	int gdr;		  /* --expect-gdr */
	const json_t *topo;	  /* document of `fabcheck topo --json`, or NULL */
	double rail_gbps;	  /* --rail-gbps: each rail's rate; 0 from the log */
	int nnodes, gpus_per_node; /* --nodes, --gpus-per-node; 0 from the log */
};

/*
 * The report: facts, findings and verdict. Keys (see architecture.md):
 * verdict, findings, nccl_version, nccl_versions, nccl_era, network,
 * networks, plugin, hcas, hca_lists_differ, oob, bootstrap, socket_ifs,
 * ranks, channels, gdr, gdr_per_hca, socket_fallback, single_node,
 * init_complete, has_warn, warnings, errors, env, nic_distance, files, lines,
 * nccl_lines; with exp->topo also gpu_rails (checks/nccl/log/nccllog_rails.c).
 * Returns NULL only when out of memory.
 */
json_t *ncl_log_report(const struct ncl_log *lg, const struct ncl_expect *exp);

/* Text rendering of a report (tables; findings are printed by fc_emit). */
void ncl_render(FILE *f, const json_t *doc);

/*
 * The all_reduce busbw the rails can carry (core/busbw.h's model) and the
 * measured figure judged against it: doc's "rails" object {count,
 * rate_gbit_s, rate_from, used_per_node, payload_share, nccl_algo,
 * nccl_algo_ignored, algorithm, algorithm_factor, expected_busbw_gbytes_s,
 * network_bound_gbytes_s, why_none, measured_busbw_gbytes_s, measured_as,
 * share, floor, listed, hcas_from, nics}, and a warning when the share is
 * under the floor. Rails are NCCL's NICs (its NET devices): the two ports
 * of a card NCCL merges (2.20.3-2.23.4) or fuses (2.24+) are one rail of
 * their summed rate; --rail-gbps gives each port's rate.
 * NCL_BUSBW_FLOOR: 80%; the published figures sit at 94% of the line rate
 * (46-48 GB/s per NDR NIC, github.com/NVIDIA/nccl-tests/issues/290), so a
 * healthy run clears it with room for NCCL's size-to-size spread.
 */
#define NCL_BUSBW_FLOOR 0.8
struct ncl_busbw_in {
	const json_t *hcas;	 /* the log's HCA list ([{"index", "net_dev", "name",
				  * "speed_mbps"}]) */
	const json_t *channels;	 /* its channel lines ([{"net_dev"}]); NULL none */
	double rail_gbps;	 /* --rail-gbps, 0: from the log */
	int nnodes, gpus_per_node; /* 0: not known */
	const char *nccl_algo;	 /* NCCL_ALGO, NULL: unset */
	double measured;	 /* GB/s, 0: none */
	const char *measured_as; /* "peak busbw", "nccl-tests' peak busbw" */
};
void ncl_busbw_judge(json_t *doc, const struct ncl_busbw_in *in);
/* The NVLink all_reduce busbw published for 8 x @gpu (its CUDA name) inside
 * one node, stated into doc's "intra_node" (checks/nccl/log/nccllog_intra.c),
 * and @peak (GB/s, @measured_as) judged against it when @nodes is 1. */
void ncl_intra_judge(json_t *doc, const char *gpu, int nodes, int gpn, double peak,
		     const char *measured_as);
/* The text of that object (nothing without it). */
void ncl_busbw_render(FILE *f, const json_t *doc);

/* Validates the shape of a `fabcheck topo --json` document: 0, or -EINVAL
 * with *why_p set to a static explanation. */
int ncl_topo_check(const json_t *topo, const char **why_p);

#endif
