/*
 * What NCCL makes of a variable's value: renamed names, accepted values.
 * Facts from shared/design/nccl-rules.md §6 and NCCL's parsers
 * (misc/param.cc: integers through strtoll base 0, else "Invalid value ...
 * using default"; graph/paths.cc ncclGetLevel; graph/tuning.cc ALGO/PROTO;
 * misc/utils.cc parseStringList for NCCL_IB_HCA / NCCL_SOCKET_IFNAME).
 */
#include "checks/nccl/env/ncclenv.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const struct ncclenv_deprecated deprecated[] = {
	{ "NCCL_MIN_NRINGS", "NCCL_MIN_NCHANNELS",
	  "renamed NCCL_MIN_NCHANNELS in 2.5 (still read as an alias; NCCL_MIN_NCHANNELS wins, and both give way to NCCL_MIN_CTAS since 2.17)" },
	{ "NCCL_MAX_NRINGS", "NCCL_MAX_NCHANNELS",
	  "renamed NCCL_MAX_NCHANNELS in 2.5 (still read as an alias; NCCL_MAX_NCHANNELS wins, and both give way to NCCL_MAX_CTAS since 2.17)" },
	{ "NCCL_MIN_NCHANNELS", "NCCL_MIN_CTAS",
	  "deprecated since 2.17 in favour of NCCL_MIN_CTAS (still read)" },
	{ "NCCL_MAX_NCHANNELS", "NCCL_MAX_CTAS",
	  "deprecated since 2.17 in favour of NCCL_MAX_CTAS (still read)" },
	{ "NCCL_IB_GDR_LEVEL", "NCCL_NET_GDR_LEVEL",
	  "renamed NCCL_NET_GDR_LEVEL in 2.4; NCCL no longer reads it" },
	{ "NCCL_IB_CUDA_SUPPORT", "NCCL_NET_GDR_LEVEL",
	  "removed in 2.4; GPUDirect RDMA is chosen by NCCL_NET_GDR_LEVEL" },
	{ "NCCL_LL_THRESHOLD", "NCCL_PROTO",
	  "removed in 2.5; choose protocols with NCCL_PROTO" },
	{ "NCCL_TREE_THRESHOLD", "NCCL_ALGO",
	  "removed in 2.5; choose algorithms with NCCL_ALGO" },
	{ "NCCL_SINGLE_RING_THRESHOLD", "NCCL_ALGO",
	  "removed in 2.5; NCCL no longer reads it" },
	{ "NCCL_RINGS", "NCCL_GRAPH_FILE",
	  "removed in 2.4; fixed rings come from an XML graph in NCCL_GRAPH_FILE" },
	{ "NCCL_WORK_FIFO_DEPTH", "NCCL_WORK_FIFO_BYTES",
	  "replaced by NCCL_WORK_FIFO_BYTES in 2.20; NCCL no longer reads it" },
	{ "NCCL_CHECKS_DISABLE", "NCCL_CHECK_POINTERS",
	  "removed in 2.2.12; argument checks are always on and NCCL_CHECK_POINTERS=1 adds pointer checks" },
	{ "NCCL_ASYNC_ERROR_HANDLING", "TORCH_NCCL_ASYNC_ERROR_HANDLING",
	  "read by PyTorch, not by NCCL; PyTorch 2.2+ reads TORCH_NCCL_ASYNC_ERROR_HANDLING" },
	{ "NCCL_BLOCKING_WAIT", "TORCH_NCCL_BLOCKING_WAIT",
	  "read by PyTorch, not by NCCL; PyTorch 2.2+ reads TORCH_NCCL_BLOCKING_WAIT" },
	{ "NCCL_DESYNC_DEBUG", "TORCH_NCCL_DESYNC_DEBUG",
	  "read by PyTorch, not by NCCL; PyTorch 2.2+ reads TORCH_NCCL_DESYNC_DEBUG" },
};

const struct ncclenv_deprecated *ncclenv_deprecated_find(const char *name)
{
	for (size_t i = 0; i < FC_ARRAY_SIZE(deprecated); i++)
		if (!strcmp(deprecated[i].name, name))
			return &deprecated[i];
	return NULL;
}

/* ---- levels ---- */

/* NCCL's path types in today's order (graph.h since 2.27.5). */
static const char *const level_names[] = { "LOC", "NVL", "NVB", "C2C", "PIX", "PXB",
					   "P2C", "PXN", "PHB", "SYS", "NET", "DIS" };
enum { L_LOC, L_NVL, L_NVB, L_C2C, L_PIX, L_PXB, L_P2C, L_PXN, L_PHB, L_SYS };

const char *ncclenv_level_name(int level)
{
	if (level < 0 || level >= (int)FC_ARRAY_SIZE(level_names))
		return "?";
	return level_names[level];
}

int ncclenv_level_parse(const char *value)
{
	static const int old_to_new[] = { L_LOC, L_PIX, L_PXB, L_PHB, L_SYS };
	long old;

	for (size_t i = 0; i < FC_ARRAY_SIZE(level_names); i++)
		if (!strcmp(value, level_names[i]))
			return (int)i;
	/* Old numbering: strtol of a leading digit, clamped to SYS. */
	if (value[0] >= '0' && value[0] <= '9') {
		old = strtol(value, NULL, 0);
		if (old < 0 || old >= (long)FC_ARRAY_SIZE(old_to_new))
			old = FC_ARRAY_SIZE(old_to_new) - 1;
		return old_to_new[old];
	}
	return -1;
}

int ncclenv_topo_dist(const char *type)
{
	if (!type)
		return -1;
	if (!strcmp(type, "X"))
		return L_LOC;
	if (!strncmp(type, "NV", 2) && isdigit((unsigned char)type[2]))
		return L_NVL;
	if (!strcmp(type, "NODE")) /* NCCL has no NODE: another root port is PHB */
		return L_PHB;
	for (size_t i = 0; i < FC_ARRAY_SIZE(level_names); i++)
		if (!strcmp(type, level_names[i]))
			return (int)i;
	return -1;
}

/* ---- value rules ---- */

enum kind { K_BOOL, K_INT, K_SIZE, K_LEVEL, K_ALGO, K_PROTO, K_HCA, K_IFLIST,
	    K_ENUM, K_SUBSYS, K_CIDR, K_POLICY, K_NTHREADS };

struct rule {
	const char *name;
	enum kind kind;
	long long min, max;
	const char *words; /* K_ENUM: accepted words, '|' separated */
};

static const struct rule rules[] = {
	{ .name = "NCCL_NET_GDR_LEVEL", .kind = K_LEVEL }, { .name = "NCCL_P2P_LEVEL", .kind = K_LEVEL },
	{ .name = "NCCL_ALGO", .kind = K_ALGO }, { .name = "NCCL_PROTO", .kind = K_PROTO },
	{ .name = "NCCL_IB_HCA", .kind = K_HCA }, { .name = "NCCL_SOCKET_IFNAME", .kind = K_IFLIST },
	{ .name = "NCCL_DEBUG_SUBSYS", .kind = K_SUBSYS }, { .name = "NCCL_IB_ADDR_RANGE", .kind = K_CIDR },
	{ .name = "NCCL_NETDEVS_POLICY", .kind = K_POLICY }, { .name = "NCCL_NTHREADS", .kind = K_NTHREADS },
	{ .name = "NCCL_LL128_NTHREADS", .kind = K_NTHREADS },
	{ .name = "NCCL_DEBUG", .kind = K_ENUM, .words = "VERSION|WARN|INFO|ABORT|TRACE" },
	{ .name = "NCCL_LAUNCH_MODE", .kind = K_ENUM, .words = "PARALLEL|GROUP" },
	{ .name = "NCCL_SOCKET_FAMILY", .kind = K_ENUM, .words = "AF_INET|AF_INET6" },
	{ .name = "NCCL_IB_ADDR_FAMILY", .kind = K_ENUM, .words = "AF_INET|AF_INET6" },
	/* booleans: NCCL reads them as integers; "true" is "Invalid value" */
	{ .name = "NCCL_IB_DISABLE", .kind = K_BOOL }, { .name = "NCCL_P2P_DISABLE", .kind = K_BOOL },
	{ .name = "NCCL_SHM_DISABLE", .kind = K_BOOL }, { .name = "NCCL_NET_GDR_READ", .kind = K_BOOL },
	{ .name = "NCCL_NET_GDR_C2C", .kind = K_BOOL }, { .name = "NCCL_DMABUF_ENABLE", .kind = K_BOOL },
	{ .name = "NCCL_PXN_DISABLE", .kind = K_BOOL }, { .name = "NCCL_IB_MERGE_VFS", .kind = K_BOOL },
	{ .name = "NCCL_IB_MERGE_NICS", .kind = K_BOOL }, { .name = "NCCL_NVB_DISABLE", .kind = K_BOOL },
	{ .name = "NCCL_CUMEM_ENABLE", .kind = K_BOOL }, { .name = "NCCL_CUMEM_HOST_ENABLE", .kind = K_BOOL },
	{ .name = "NCCL_IGNORE_CPU_AFFINITY", .kind = K_BOOL }, { .name = "NCCL_IGNORE_DISABLED_P2P", .kind = K_BOOL },
	{ .name = "NCCL_IB_USE_INLINE", .kind = K_BOOL }, { .name = "NCCL_IB_ECE_ENABLE", .kind = K_BOOL },
	{ .name = "NCCL_NET_FORCE_FLUSH", .kind = K_BOOL }, { .name = "NCCL_GDR_FLUSH_DISABLE", .kind = K_BOOL },
	{ .name = "NCCL_GDRCOPY_ENABLE", .kind = K_BOOL }, { .name = "NCCL_CHECK_POINTERS", .kind = K_BOOL },
	{ .name = "NCCL_NET_DISABLE_INTRA", .kind = K_BOOL }, { .name = "NCCL_P2P_USE_CUDA_MEMCPY", .kind = K_BOOL },
	{ .name = "NCCL_SHM_USE_CUDA_MEMCPY", .kind = K_BOOL }, { .name = "NCCL_LOCAL_REGISTER", .kind = K_BOOL },
	{ .name = "NCCL_GRAPH_REGISTER", .kind = K_BOOL }, { .name = "NCCL_RAS_ENABLE", .kind = K_BOOL },
	{ .name = "NCCL_RUNTIME_CONNECT", .kind = K_BOOL }, { .name = "NCCL_IB_DEVICE_PCI_ORDER", .kind = K_BOOL },
	{ .name = "NCCL_NET_SHARED_BUFFERS", .kind = K_BOOL }, { .name = "NCCL_NET_SHARED_COMMS", .kind = K_BOOL },
	{ .name = "NCCL_COMM_BLOCKING", .kind = K_BOOL }, { .name = "NCCL_IGNORE_NET_MISMATCH", .kind = K_BOOL },
	{ .name = "NCCL_P2P_READ_ENABLE", .kind = K_BOOL }, { .name = "NCCL_P2P_DIRECT_DISABLE", .kind = K_BOOL },
	{ .name = "NCCL_IB_SPLIT_DATA_ON_QPS", .kind = K_BOOL }, { .name = "NCCL_COLLNET_ENABLE", .kind = K_BOOL },
	{ .name = "NCCL_IB_RETURN_ASYNC_EVENTS", .kind = K_BOOL }, { .name = "NCCL_PXN_C2C", .kind = K_BOOL },
	/* integers with a range */
	{ .name = "NCCL_CROSS_NIC", .kind = K_INT, .min = 0, .max = 2 }, { .name = "NCCL_P2P_PXN_LEVEL", .kind = K_INT, .min = 0, .max = 2 },
	{ .name = "NCCL_NVLS_ENABLE", .kind = K_INT, .min = 0, .max = 2 }, { .name = "NCCL_PAT_ENABLE", .kind = K_INT, .min = 0, .max = 2 },
	{ .name = "NCCL_MNNVL_ENABLE", .kind = K_INT, .min = 0, .max = 2 }, { .name = "NCCL_IB_DATA_DIRECT", .kind = K_INT, .min = 0, .max = 2 },
	{ .name = "NCCL_IB_PCI_RELAXED_ORDERING", .kind = K_INT, .min = 0, .max = 2 },
	{ .name = "NCCL_IB_ADAPTIVE_ROUTING", .kind = K_INT, .min = 0, .max = 1 },
	{ .name = "NCCL_IB_GID_INDEX", .kind = K_INT, .min = -1, .max = 255 },
	{ .name = "NCCL_IB_ROUTABLE_FLID_GID_INDEX", .kind = K_INT, .min = 0, .max = 255 },
	{ .name = "NCCL_IB_ROCE_VERSION_NUM", .kind = K_INT, .min = 1, .max = 2 },
	{ .name = "NCCL_IB_TIMEOUT", .kind = K_INT, .min = 1, .max = 31 }, { .name = "NCCL_IB_RETRY_CNT", .kind = K_INT, .min = 0, .max = 7 },
	{ .name = "NCCL_IB_SL", .kind = K_INT, .min = -1, .max = 15 }, { .name = "NCCL_IB_TC", .kind = K_INT, .min = -1, .max = 255 },
	{ .name = "NCCL_IB_FIFO_TC", .kind = K_INT, .min = -1, .max = 255 }, { .name = "NCCL_IB_PKEY", .kind = K_INT, .min = 0, .max = 65535 },
	{ .name = "NCCL_IB_QPS_PER_CONNECTION", .kind = K_INT, .min = 1, .max = 128 },
	{ .name = "NCCL_MIN_NCHANNELS", .kind = K_INT, .min = 1, .max = 64 }, { .name = "NCCL_MAX_NCHANNELS", .kind = K_INT, .min = 1, .max = 64 },
	{ .name = "NCCL_MIN_NRINGS", .kind = K_INT, .min = 1, .max = 64 }, { .name = "NCCL_MAX_NRINGS", .kind = K_INT, .min = 1, .max = 64 },
	{ .name = "NCCL_MIN_CTAS", .kind = K_INT, .min = 1, .max = 64 }, { .name = "NCCL_MAX_CTAS", .kind = K_INT, .min = 1, .max = 64 },
	{ .name = "NCCL_MIN_P2P_NCHANNELS", .kind = K_INT, .min = 1, .max = 64 },
	{ .name = "NCCL_MAX_P2P_NCHANNELS", .kind = K_INT, .min = 1, .max = 64 },
	{ .name = "NCCL_NCHANNELS_PER_NET_PEER", .kind = K_INT, .min = 1, .max = 64 },
	{ .name = "NCCL_NVLS_NCHANNELS", .kind = K_INT, .min = 1, .max = 64 },
	{ .name = "NCCL_SOCKET_NTHREADS", .kind = K_INT, .min = 1, .max = 16 },
	{ .name = "NCCL_NSOCKS_PERTHREAD", .kind = K_INT, .min = 1, .max = 64 },
	{ .name = "NCCL_CGA_CLUSTER_SIZE", .kind = K_INT, .min = 0, .max = 8 },
	/* sizes: plain byte counts, no K/M suffix */
	{ .name = "NCCL_BUFFSIZE", .kind = K_SIZE }, { .name = "NCCL_LL_BUFFSIZE", .kind = K_SIZE },
	{ .name = "NCCL_LL128_BUFFSIZE", .kind = K_SIZE }, { .name = "NCCL_P2P_NET_CHUNKSIZE", .kind = K_SIZE },
	{ .name = "NCCL_P2P_NVL_CHUNKSIZE", .kind = K_SIZE }, { .name = "NCCL_P2P_PCI_CHUNKSIZE", .kind = K_SIZE },
	{ .name = "NCCL_CHUNK_SIZE", .kind = K_SIZE }, { .name = "NCCL_NVLS_CHUNKSIZE", .kind = K_SIZE },
	{ .name = "NCCL_WORK_FIFO_BYTES", .kind = K_SIZE }, { .name = "NCCL_IB_AR_THRESHOLD", .kind = K_SIZE },
};

static const struct rule *rule_find(const char *name)
{
	for (size_t i = 0; i < FC_ARRAY_SIZE(rules); i++)
		if (!strcmp(rules[i].name, name))
			return &rules[i];
	return NULL;
}

/* NCCL's integer parse (misc/param.cc): strtoll base 0, whole string. */
static int parse_ll(const char *s, long long *v)
{
	char *end;

	errno = 0;
	*v = strtoll(s, &end, 0);
	return !errno && end != s && *end == '\0';
}

/* "4M" -> 4194304, for the hint; 0 when not a suffixed size. */
static unsigned long long suffixed_size(const char *s)
{
	char *end;
	unsigned long long v = strtoull(s, &end, 10);
	int sh;

	if (end == s)
		return 0;
	switch (toupper((unsigned char)*end)) {
	case 'K': sh = 10; break;
	case 'M': sh = 20; break;
	case 'G': sh = 30; break;
	default: return 0;
	}
	return v << sh;
}

/* Checks a comma list of words (case-insensitive) after an optional '^'. */
static int check_words(const char *value, const char *const *ok, size_t nok,
		       char *bad, size_t len)
{
	char *copy = strdup(value), *save = NULL, *tok;
	int rc = 0;

	if (!copy)
		return 0;
	for (tok = strtok_r(copy + (copy[0] == '^'), ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		size_t i;

		for (i = 0; i < nok; i++)
			if (!strcasecmp(tok, ok[i]))
				break;
		if (i == nok) {
			snprintf(bad, len, "%s", tok);
			rc = 1;
			break;
		}
	}
	free(copy);
	return rc;
}

static const char *const algos[] = { "Tree", "Ring", "CollNetDirect", "CollNetChain",
				     "NVLS", "NVLSTree", "PAT", "CollNet" };
static const char *const protos[] = { "LL", "LL128", "Simple" };
static const char *const funcs[] = { "Broadcast", "Reduce", "AllGather", "ReduceScatter",
				     "AllReduce", "SendRecv", "AllToAll" };

static void join_words(const char *const *w, size_t n, char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < n && off < len; i++)
		off += (size_t)snprintf(buf + off, len - off, "%s%s", i ? ", " : "", w[i]);
}

/* NCCL_ALGO / NCCL_PROTO: "[^]a,b" or per collective "func:[^]a,b;func:..." */
static int check_list(const char *value, const char *const *ok, size_t nok,
		      const char *what, char *why, size_t len)
{
	char *copy, *save = NULL, *part;
	char bad[64] = "", bad_list[256];
	int rc = 0;

	if (!strchr(value, ':')) {
		if (!*value || check_words(value, ok, nok, bad, sizeof(bad)))
			goto invalid;
		return 0;
	}
	copy = strdup(value);
	if (!copy)
		return 0;
	for (part = strtok_r(copy, ";", &save); part && !rc;
	     part = strtok_r(NULL, ";", &save)) {
		char *colon = strchr(part, ':');
		char fbad[64] = "";

		if (!colon) {
			snprintf(bad, sizeof(bad), "%s", part);
			rc = 1;
			break;
		}
		*colon = '\0';
		if (check_words(part, funcs, FC_ARRAY_SIZE(funcs), fbad, sizeof(fbad))) {
			snprintf(bad, sizeof(bad), "%s", fbad);
			rc = 1;
		} else if (check_words(colon + 1, ok, nok, bad, sizeof(bad))) {
			rc = 1;
		}
	}
	free(copy);
	if (!rc)
		return 0;
invalid:
	join_words(ok, nok, bad_list, sizeof(bad_list));
	snprintf(why, len,
		 "'%s' is not %s NCCL knows; NCCL ignores the whole setting. Accepted: a comma list of %s (any case), '^' first to exclude, or per collective 'allreduce:tree,ring;allgather:ring'",
		 *bad ? bad : value, what, bad_list);
	return 1;
}

/* NCCL_IB_HCA: [^][=]name[:port[:rail[:plane]]],... */
static int check_hca(const char *value, char *why, size_t len)
{
	const char *p = value;
	char *copy, *save = NULL, *tok;
	int n = 0, rc = 0;

	if (*p == '^')
		p++;
	if (*p == '=')
		p++;
	if (!*p) {
		snprintf(why, len, "empty device list; accepted: mlx5_0,mlx5_1 or mlx5_0:1, '^' first to exclude, then '=' for exact names (e.g. =mlx5_0:1,mlx5_1:1)");
		return 1;
	}
	copy = strdup(p);
	if (!copy)
		return 0;
	for (tok = strtok_r(copy, ",", &save); tok && !rc; tok = strtok_r(NULL, ",", &save)) {
		char *field = strchr(tok, ':');
		size_t nlen = field ? (size_t)(field - tok) : strlen(tok);

		n++;
		if (nlen == 0 || strspn(tok, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-") != nlen) {
			snprintf(why, len, "'%s' is not an HCA name: NCCL compares names character for character (no spaces, no '^' or '=' after the start); accepted: mlx5_0,mlx5_1:1 with '^' then '=' only at the front",
				 tok);
			rc = 1;
			break;
		}
		while (field) {
			char *end;
			long v = strtol(field + 1, &end, 10);

			if (end == field + 1 || (*end && *end != ':') || v < 0 || v > 255) {
				snprintf(why, len, "'%s': the part after ':' must be a port number (e.g. mlx5_0:1)", tok);
				rc = 1;
				break;
			}
			field = *end ? end : NULL;
		}
	}
	free(copy);
	if (!rc && n > 32) {
		snprintf(why, len, "%d devices listed; NCCL reads at most 32 (16 before 2.18.5)", n);
		rc = 1;
	}
	return rc;
}

static int check_iflist(const char *value, char *why, size_t len)
{
	const char *p = value + (value[0] == '^');

	p += (*p == '=');
	if (!*p || strpbrk(p, " \t") || p[strlen(p) - 1] == ',') {
		snprintf(why, len, "'%s' is not an interface list; accepted: eth0,ib0 (prefixes), '^' first to exclude (^docker,lo), '=' for exact names (=eth0)",
			 value);
		return 1;
	}
	return 0;
}

static int check_subsys(const char *value, char *why, size_t len)
{
	static const char *const subsys[] = { "INIT", "COLL", "P2P", "SHM", "NET", "GRAPH",
					      "TUNING", "ENV", "ALLOC", "CALL", "PROXY",
					      "NVLS", "BOOTSTRAP", "REG", "PROFILE", "RAS",
					      "ALL" };
	char bad[64];

	if (!check_words(value, subsys, FC_ARRAY_SIZE(subsys), bad, sizeof(bad)))
		return 0;
	snprintf(why, len, "'%s' is not a debug subsystem; NCCL skips it. Accepted: INIT, COLL, P2P, SHM, NET, GRAPH, TUNING, ENV, ALLOC, CALL, PROXY, NVLS, BOOTSTRAP, REG, PROFILE, RAS, ALL ('^' first to exclude)",
		 bad);
	return 1;
}

static int check_cidr(const char *value, char *why, size_t len)
{
	char addr[64];
	const char *slash = strchr(value, '/');
	unsigned char buf[16];
	long bits;
	char *end;

	if (slash && (size_t)(slash - value) < sizeof(addr)) {
		memcpy(addr, value, (size_t)(slash - value));
		addr[slash - value] = '\0';
		bits = strtol(slash + 1, &end, 10);
		if (end != slash + 1 && !*end &&
		    ((inet_pton(AF_INET, addr, buf) == 1 && bits >= 0 && bits <= 32) ||
		     (inet_pton(AF_INET6, addr, buf) == 1 && bits >= 0 && bits <= 128)))
			return 0;
	}
	snprintf(why, len, "'%s' is not an address range; accepted: CIDR such as 10.0.0.0/16 or fd00::/64", value);
	return 1;
}

static int check_level(const char *name, const char *value, char *why, size_t len)
{
	int l = ncclenv_level_parse(value);

	if (l >= 0) {
		if (isdigit((unsigned char)value[0]))
			snprintf(why, len, "old numbering: NCCL reads %s as %s", value,
				 ncclenv_level_name(l));
		return 0;
	}
	if (!strcasecmp(value, "NODE"))
		snprintf(why, len, "NCCL has no level NODE (nvidia-smi's name for another root port of the same socket): use PHB; %s NCCL ignores it and keeps its default",
			 name);
	else
		snprintf(why, len, "'%s' is not a level; NCCL (2.6+) ignores it silently and keeps its default. Accepted (exact case): LOC, NVL, NVB, PIX, PXB, PXN, PHB, SYS (C2C, P2C on Grace), or 0 LOC, 1 PIX, 2 PXB, 3 PHB, 4 SYS",
			 value);
	return 1;
}

int ncclenv_value_check(const char *name, const char *value, char *why, size_t len)
{
	const struct rule *r = rule_find(name);
	long long v;
	unsigned long long sz;

	why[0] = '\0';
	if (!r)
		return 0;
	switch (r->kind) {
	case K_LEVEL:
		return check_level(name, value, why, len);
	case K_ALGO:
		return check_list(value, algos, FC_ARRAY_SIZE(algos), "an algorithm", why, len);
	case K_PROTO:
		return check_list(value, protos, FC_ARRAY_SIZE(protos), "a protocol", why, len);
	case K_HCA:
		return check_hca(value, why, len);
	case K_IFLIST:
		return check_iflist(value, why, len);
	case K_SUBSYS:
		return check_subsys(value, why, len);
	case K_CIDR:
		return check_cidr(value, why, len);
	case K_ENUM: {
		char copy[256];

		snprintf(copy, sizeof(copy), "%s", r->words);
		for (char *s = NULL, *w = strtok_r(copy, "|", &s); w; w = strtok_r(NULL, "|", &s))
			if (!strcasecmp(w, value))
				return 0;
		snprintf(why, len, "'%s' is not a value NCCL reads; accepted: %s", value, r->words);
		return 1;
	}
	case K_POLICY:
		if (!strcasecmp(value, "AUTO") || !strcasecmp(value, "ALL"))
			return 0;
		if (!strncasecmp(value, "MAX:", 4) && parse_ll(value + 4, &v) && v >= 1)
			return 0;
		snprintf(why, len, "'%s' is not a policy; accepted: AUTO, ALL, MAX:<n>", value);
		return 1;
	case K_NTHREADS:
		if (parse_ll(value, &v) && (v == 64 || v == 128 || v == 256 || v == 512))
			return 0;
		snprintf(why, len, "'%s': NCCL accepts 64, 128, 256 or 512 threads and uses its default otherwise", value);
		return 1;
	case K_BOOL:
		if (parse_ll(value, &v) && (v == 0 || v == 1))
			return 0;
		if (parse_ll(value, &v))
			return 0; /* NCCL tests != 0: any integer works as "on" */
		snprintf(why, len, "'%s' is not an integer: NCCL logs \"Invalid value\" and uses its default; write 1 or 0",
			 value);
		return 1;
	case K_INT:
		if (!parse_ll(value, &v)) {
			snprintf(why, len, "'%s' is not an integer: NCCL logs \"Invalid value\" and uses its default; accepted: %lld to %lld",
				 value, r->min, r->max);
			return 1;
		}
		if (v < r->min || v > r->max) {
			snprintf(why, len, "%lld is out of range; accepted: %lld to %lld", v, r->min,
				 r->max);
			return 1;
		}
		return 0;
	case K_SIZE:
		if (parse_ll(value, &v) && v > 0)
			return 0;
		sz = suffixed_size(value);
		if (sz)
			snprintf(why, len, "'%s': NCCL reads sizes as plain byte counts and uses its default for this; write %llu",
				 value, sz);
		else
			snprintf(why, len, "'%s' is not a size: write a positive byte count (e.g. 4194304)",
				 value);
		return 1;
	}
	return 0;
}

int ncclenv_edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	int *row, d;

	row = calloc(lb + 1, sizeof(*row));
	if (!row)
		return 1 << 20;
	for (size_t j = 0; j <= lb; j++)
		row[j] = (int)j;
	for (size_t i = 1; i <= la; i++) {
		int diag = row[0];

		row[0] = (int)i;
		for (size_t j = 1; j <= lb; j++) {
			int up = row[j], best = diag + (a[i - 1] != b[j - 1]);

			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			diag = up;
			row[j] = best;
		}
	}
	d = row[lb];
	free(row);
	return d;
}
