/* Internal model of the NCCL log parser (shared by checks/nccllog_*.c). */
#ifndef FC_NCCLLOG_INT_H
#define FC_NCCLLOG_INT_H

#include <stddef.h>
#include <stdint.h>

#include "checks/nccl/log/nccllog.h"

/* Bounds that keep memory finite on hostile input. */
#define NCL_MAX_LINE (1u << 20)
#define NCL_MAX_HOSTS 16384 /* past it: lines counted in cut_host_lines, said */
#define NCL_MAX_PROCS 65536 /* past it: cut_proc_lines */
#define NCL_MAX_RANK 65535
#define NCL_MAX_CHANNELS (1u << 20)
#define NCL_MAX_HCAS 64
#define NCL_MAX_LIST 32 /* distinct items kept in small lists */
#define NCL_MAX_ENV 256
#define NCL_MAX_FILES 1024 /* past it: cut_files */
#define NCL_MAX_PIDS 64 /* processes counted per host */

#define NCL_NAME 64
#define NCL_HOST 128
#define NCL_TEXT 256

/* Version numbers as a*10000 + b*100 + c (2.19.3 = 21903). */
#define NCL_V(a, b, c) ((a) * 10000 + (b) * 100 + (c))
#define NCL_V_MAX 999999

enum ncl_level { NCL_INFO, NCL_WARN, NCL_TRACE };

/* One NCCL record: the parts of "host:pid:tid [dev] src NCCL LEVEL msg". */
struct ncl_rec {
	const char *host; /* "" when the line has no host prefix */
	long pid, tid;	  /* -1 when unknown */
	int dev;	  /* the thread's CUDA device, -1 when unknown */
	enum ncl_level level;
	const char *src;  /* "file.cc:123" of WARN/TRACE lines, or "" */
	char *msg;	  /* the message, writable */
};

struct ncl_hca {
	int index;	    /* [n] of the list (physical device) */
	int ibv_index;	    /* 2.3 per-port lines: the verbs device index printed, else -1 */
	int merged;	    /* index of the merged (virtual) device, or -1 */
	int slot;	    /* its entry's place in the list (a merged group counts
			     * once), the NET device a single port of a 2.20-2.23
			     * merged list is; -1 unknown */
	char name[NCL_NAME];
	int port;
	char link[8];	    /* "IB", "RoCE" or "" */
	int sharp;	    /* "/IB/SHARP" */
	int gdr;	    /* per-HCA GPUDirect line: -1 none, 0 disabled, 1 enabled */
	long speed_mbps;    /* per-device detail lines (2.27+), 0 unknown */
	int fused;	    /* 2.24+: 1 + the virtual device NCCL fused it into, 0 none
			     * known (nccllog_vnic.c) */
};

struct ncl_host {
	char name[NCL_HOST];
	struct ncl_hca hcas[NCL_MAX_HCAS];
	int nhcas;
	int have_list;	    /* an IB device list was printed */
	int list_from_gdr;  /* ... or only per-HCA GPUDirect lines named the devices */
	int nmerged;	    /* number of merged virtual devices */
	int net_devs;	    /* "Rank R: K Net devices" (2.24+: physical + virtual), 0 unknown */
	char oob[NCL_TEXT]; /* "IF ADDR" of the IB list, "" when empty */
	int have_oob, oob_empty;
	uint64_t devs;	    /* CUDA devices 0..63 of its records ("[dev]") */
	long pids[NCL_MAX_PIDS]; /* distinct processes seen (each drives a GPU) */
	int npids;
};

struct ncl_proc {
	int host;	    /* index in hosts */
	long pid;
	int lo, hi;	    /* NCCL versions its wording fits */
	int conflict;	    /* wording fits no single version */
	char why_lo[80], why_hi[80]; /* the wording that set each bound */
};

struct ncl_rank {
	int present;
	int host;	    /* -1 unknown */
	int cuda_dev, nvml_dev;
	int64_t bus_id;	    /* NCCL's integer form (0x7000 = 0000:00:07.0... */
	int init;	    /* 0 none, 1 started, 2 complete */
};

enum ncl_transport { NCL_T_NET, NCL_T_P2P, NCL_T_SHM, NCL_T_COLLNET, NCL_T_OTHER };

struct ncl_chan {
	int channel, conn;  /* conn -1 when not printed */
	int from, to;	    /* ranks */
	int dir;	    /* 0 none, 1 send, 2 receive */
	int host;	    /* host that printed it, -1 unknown */
	enum ncl_transport t;
	char via[80];
	char net[NCL_NAME]; /* network name of a NET channel */
	int net_dev;	    /* -1 when not a NET channel */
	int proxy;	    /* PXN proxy rank, -1 none */
	int gdr, shared;
	uint64_t key;
};

struct ncl_item {	    /* a distinct text with a count and first host */
	char text[NCL_TEXT];
	char extra[NCL_NAME]; /* WARN source, error code... */
	int host;
	long count;
};

struct ncl_env {
	char name[NCL_NAME];
	char value[NCL_TEXT];
	char other[NCL_TEXT]; /* a different value seen elsewhere, or "" */
	int host, other_host;
	int invalid;
};

struct ncl_gpu_gdr {	    /* per GPU/NIC GPUDirect decision lines */
	long enabled, disabled;
	long far;	    /* disabled with "(distance D > L)": the reason NCCL prints */
	long nomod;	    /* disabled with "(no module...)" */
	int far_d, far_l, far_host; /* the first such line's numbers and host */
	char far_msg[NCL_TEXT]; /* and its text */
};

struct ncl_dist {	    /* 2.4.x "CUDA Dev c[n], <net> NIC distance : X [Y...]" */
	int host, cuda_dev;
	char net[NCL_NAME]; /* "IB", "Socket" or the plugin's name ("AWS Libfabric") */
	char type[8];	    /* the nearest of the NICs listed */
	int nnics;	    /* distances printed: one per NET device */
};

struct ncl_log {
	/* line assembly */
	char *cur;
	size_t cur_len, cur_cap;
	int cur_cut;
	size_t lines, nccl_lines, file_nccl_lines;

	/* nccl-tests' result rows (nccllog_busbw.c) */
	int tests_rows;
	double tests_peak_busbw; /* GB/s, the best of out-of-place and in-place */
	double tests_avg_busbw;	 /* "# Avg bus bandwidth" */
	char tests_coll[32];	 /* "all_reduce" of "Collective test starting: all_reduce_perf" */
	char tests_gpu[64];	 /* the first "Rank ... device N [bus] NAME" GPU name */

	struct ncl_host *hosts;
	int nhosts, hosts_cap;
	long cut_host_lines, cut_proc_lines, cut_files; /* input past a limit, said */
	struct ncl_proc *procs;
	int nprocs, procs_cap;
	struct ncl_rank *ranks;
	int ranks_cap, max_rank;
	int64_t nranks_max;
	int nnodes_max;
	struct ncl_chan *chans;
	size_t nchans, chans_cap;
	uint32_t *chan_hash; /* open addressing on key: index+1, 0 empty */
	size_t hash_cap;

	/* versions and selection */
	struct ncl_item versions[NCL_MAX_LIST];
	int nversions;
	struct ncl_item networks[NCL_MAX_LIST];
	int nnetworks;
	char chan_net[NCL_NAME]; /* network named by the first NET channel */
	char p2p_plugin[NCL_NAME];
	char plugin[NCL_TEXT];
	int ib_none, ib_fail, ib_plugin_fail, fabric_plugin_fail, plugin_loaded;
	int plugin_rejected; /* the net plugin's interface version is too old */
	/* ib_fail: 1 the IB transport failed to start, 2 libibverbs did not load */
	int socket_data;     /* "NET/Socket : Using" (data path from 2.4.8) */
	int socket_early;    /* the same line as bootstrap (2.4.2 - 2.4.7) */
	int gdr_text_off;    /* a line says "GDR disabled" */
	struct ncl_item boot[NCL_MAX_LIST];
	int nboot;
	struct ncl_item sock[NCL_MAX_LIST];
	int nsock;
	int ipoib_if;	     /* an interface named like IPoIB (ib0, ibp26s0) */

	struct ncl_item warns[NCL_MAX_LIST];
	int nwarns;
	long warn_lines;
	struct ncl_item errs[NCL_MAX_LIST];
	int nerrs;
	int fatal;	     /* an error reached the communicator (init.cc, group.cc...) */
	int fatal_proxy;     /* ... from the proxy thread, after init (see on_error) */
	struct ncl_env env[NCL_MAX_ENV];
	int nenv;
	struct ncl_dist dist[NCL_MAX_LIST];
	int ndist;
	struct ncl_gpu_gdr gpu_gdr;
	long hca_gdr_on, hca_gdr_off; /* per-HCA lines ("for HCA n 'name'") */
	long dmabuf_lines;
	int comms;	     /* Init START/COMPLETE lines with distinct comm ids */
	uint64_t comm_ids[NCL_MAX_LIST];
	long init_complete;

	struct ncl_item files[NCL_MAX_FILES];
	int nfiles;
};

/* nccllog_line.c: one raw line (NUL-terminated, writable) */
void ncl_line(struct ncl_log *lg, char *s);

/* nccllog_scan.c: per-record extractors */
void ncl_dispatch(struct ncl_log *lg, const struct ncl_rec *r);
/* NCCL 2.24+ virtual NICs (nccllog_vnic.c): a "Made virtual device" line,
 * a "Rank R: K Net devices" line (1 when @msg was one), and the virtual
 * device @c of @host's list is fused into (-1 none or unknown). */
void ncl_on_vnic(struct ncl_log *lg, int h, const char *p);
int ncl_on_net_count(struct ncl_log *lg, int h, const char *msg);
int ncl_hca_vdev(const struct ncl_host *host, const struct ncl_hca *c);
/* The NET device @c is part of, the index a channel line's NET/<net>/<n>
 * names: its merged device (2.20-2.23), its virtual NIC (2.24+), else its
 * own index (nccllog_vnic.c). */
int ncl_hca_netdev(const struct ncl_host *host, const struct ncl_hca *c);
void ncl_bare_version(struct ncl_log *lg, const char *s);
void ncl_tests_line(struct ncl_log *lg, const char *s);
/* nccl-tests' "#" lines with figures, and its result rows (nccllog_busbw.c):
 * a row returns 1 when taken. */
void ncl_tests_comment(struct ncl_log *lg, const char *p);
int ncl_tests_row(struct ncl_log *lg, const char *s);
/* The NVLink busbw to expect inside one node (nccllog_intra.c), into
 * doc's "intra_node", judged against nccl-tests' peak when the job is one
 * node. */
void ncl_intra_report(const struct ncl_log *lg, int nodes, int gpn, json_t *doc);
void ncl_intra_render(FILE *f, const json_t *doc);
/* The busbw judgement of a check-log report (nccllog_busbw.c). */
void ncl_busbw_report(const struct ncl_log *lg, const struct ncl_expect *exp, json_t *doc);

/* nccllog_chan.c */
int ncl_on_channel(struct ncl_log *lg, const struct ncl_rec *r, int h);
int ncl_on_comm(struct ncl_log *lg, const struct ncl_rec *r, int h);
int ncl_on_gdr(struct ncl_log *lg, const struct ncl_rec *r, int h);

/* nccllog_era.c */
void ncl_era_note(struct ncl_log *lg, const struct ncl_rec *r, int h);
void ncl_era_version(struct ncl_log *lg, const struct ncl_rec *r, int h, int v);
int ncl_parse_version(const char *s, int *v_p);
/* The path type name NCCL version @v prints as number @n ("PXB"), "" when unknown. */
const char *ncl_path_name(int v, int n);
void ncl_fmt_version(int v, char *buf, size_t len);
/* The union of the process ranges: *lo_p..*hi_p, 0 when nothing is known.
 * Fills @why with a mixed-build explanation and returns 1 when two processes
 * (or a process and the printed version) cannot run the same NCCL. */
int ncl_era_summary(const struct ncl_log *lg, int *lo_p, int *hi_p, char *why,
		    size_t len);

/* nccllog_model.c */
int ncl_host(struct ncl_log *lg, const char *name);
/* The host's name for findings: "(no host prefix)" when it has none. */
const char *ncl_host_name(const struct ncl_log *lg, int h);
struct ncl_proc *ncl_proc(struct ncl_log *lg, int host, long pid);
struct ncl_rank *ncl_rank(struct ncl_log *lg, int rank);
void ncl_chan_add(struct ncl_log *lg, const struct ncl_chan *c);
void ncl_item_add(struct ncl_item *items, int *n, const char *text, const char *extra,
		  int host);
void ncl_env_set(struct ncl_log *lg, const char *name, const char *value, int host,
		 int invalid);
const struct ncl_env *ncl_env_get(const struct ncl_log *lg, const char *name);
void ncl_copy(char *dst, size_t len, const char *src, size_t n);
int ncl_is_ipoib(const char *ifname);
/* Looks up the HCA a NET device index names on host @h (or any host): the
 * name (merged devices, and the ports of a 2.24+ virtual NIC, joined with
 * '+') into @buf; "" when unknown. */
const char *ncl_hca_of(const struct ncl_log *lg, int h, int net_dev, char *buf,
		       size_t len);
/* True when @logname (NCCL's name for a device) is the HCA @name (its first
 * @n bytes): the same name, or the name with "_dma", the mlx5 Data Direct
 * device NCCL 2.27.3+ lists for that HCA (nccl-rules.md section 4). */
int ncl_hca_same(const char *logname, const char *name, size_t n);
/* True when NCCL's device list of host @h (or any host's) names @name. */
int ncl_hca_listed(const struct ncl_log *lg, int h, const char *name);

/* Cursor helpers for the extractors (nccllog_model.c). */
int ncl_skip(const char **p, const char *lit);		/* literal */
int ncl_num(const char **p, long *v);			/* decimal */
int ncl_hex(const char **p, int64_t *v);		/* hex digits, optional 0x */
void ncl_ws(const char **p);				/* spaces and tabs */
size_t ncl_word(const char **p, char *buf, size_t len, const char *stop);
int ncl_starts(const char *s, const char *prefix);

/* Conclusions drawn from the whole model (nccllog_report.c). */
struct ncl_facts {
	char network[NCL_NAME];	 /* "" when the log does not show it */
	int net_source;		 /* 1 selection line, 2 channels, 3 device lists */
	int ib_disabled;	 /* NCCL_IB_DISABLE=1 */
	int net_forced;		 /* NCCL_NET set */
	int ib_attempted;	 /* NCCL tried IB (list, no device, failure, plugin) */
	int ib_evident;		 /* IB/RoCE/EFA hardware shows in the log */
	int socket_fallback;
	const char *gdr;	 /* "on", "off", "partial", "unknown" */
	long net_chans, net_gdr_chans;
	int list_host;		 /* first host with an IB list, -1 none */
	int nlinks_ib, nlinks_roce;
	int era_lo, era_hi, mixed_builds;
	char mixed_why[512];
	int single_node;	 /* every rank is on one host, or one rank */
};
void ncl_facts(const struct ncl_log *lg, struct ncl_facts *f);
/* NCCL's integer bus id as "0000:07:00.0"; "" when unknown. */
const char *ncl_fmt_bus(int64_t bus, char *buf, size_t len);
/* Parses a bus id in any form ("0000:07:00.0", "07:00.0", "7000") into
 * NCCL's integer form; -1 when it is not one. */
int64_t ncl_parse_bus(const char *s);

/* nccllog_share.c: the GPUs of a host seen in the log (a lower bound). */
void ncl_note_gpu(struct ncl_log *lg, int h, const struct ncl_rec *r);
int ncl_host_gpus(const struct ncl_log *lg, int h);
/* One listed HCA for more than two local GPUs (and topology HCAs NCCL does not list). */
void ncl_share_findings(const struct ncl_log *lg, const struct ncl_facts *f,
			const json_t *topo, json_t *doc);

/* nccllog_topo.c: GPUs whose NET channels use an HCA that is not their nearest */
void ncl_topo_findings(const struct ncl_log *lg, const json_t *topo, json_t *doc);
const json_t *ncl_topo_gpu(const json_t *topo, const struct ncl_rank *r);
int ncl_topo_nearest(const json_t *gpu, const char *hca);
/* nccllog_rails.c: "gpu_rails", per GPU the HCAs it uses and whether they are
 * its rail-local ones, directly or by PXN through another GPU */
void ncl_rails(const struct ncl_log *lg, const json_t *topo, json_t *doc);

/* nccllog_gdr.c: GPUDirect RDMA findings */
void ncl_gdr_findings(const struct ncl_log *lg, const struct ncl_facts *f,
		      const struct ncl_expect *exp, json_t *doc);

/* nccllog_verdict.c: findings and verdict into @doc */
/* "env_status" and findings for the NCCL_* settings echoed (nccllog_env.c). */
void ncl_env_findings(const struct ncl_log *lg, const json_t *topo, json_t *doc);
void ncl_findings(const struct ncl_log *lg, const struct ncl_facts *f,
		  const struct ncl_expect *exp, json_t *doc);

#endif
