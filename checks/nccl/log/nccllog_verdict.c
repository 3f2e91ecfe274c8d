/*
 * Findings and verdict of check-log: each finding says what is wrong and
 * what to do. Fail: init stopped by an error, a socket fallback where IB/RoCE
 * exists or was expected, a network or HCA other than expected, GPUDirect off
 * where it was expected. Warn: sockets, GPUDirect off or partial, mixed IB and
 * RoCE lists, one NIC for many GPUs, NCCL WARN lines, mixed NCCL builds, a GPU
 * using an HCA that is not its nearest (--topo), settings that defeat intent.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/out.h"
#include "core/util.h"
#include "checks/nccl/log/nccllog_int.h"

#define MAX_LISTED 6

#define host_name ncl_host_name

static const char *result_name(const char *code)
{
	static const char *const names[] = { "success", "unhandled CUDA error",
					     "system error", "internal error",
					     "invalid argument", "invalid usage",
					     "remote error", "in progress" };
	int c = code[0] >= '0' && code[0] <= '7' && !code[1] ? code[0] - '0' : -1;

	return c >= 0 ? names[c] : "error";
}

static const char *warn_rule(const char *msg, const char *src);

/* The communicator's error: at init (a top-level file, "[Async thread]"),
 * or after it, in the proxy thread that drives a collective's network
 * transfers (nccllog_scan.c); with the first WARN and what to do about it. */
static void find_fatal(const struct ncl_log *lg, json_t *doc)
{
	const char *advice = lg->nwarns ? warn_rule(lg->warns[0].text, lg->warns[0].extra) : NULL;
	char chain[512] = "";
	size_t used = 0;

	if (!lg->fatal)
		return;
	for (int i = 0; i < lg->nerrs && i < 5; i++)
		used += (size_t)snprintf(chain + used, used < sizeof(chain) ? sizeof(chain) - used : 0,
					 "%s%s", i ? " -> " : "", lg->errs[i].text);
	if (used >= sizeof(chain))
		chain[sizeof(chain) - 1] = '\0';
	fc_finding(doc, FC_FAIL,
		   "%s on %s: %s (%s) propagated through %s; %s%s%s%s%s%s",
		   lg->fatal_proxy ? "NCCL failed after init, in the proxy thread that drives "
				     "the network transfers of collectives" :
				     "NCCL initialisation failed",
		   host_name(lg, lg->errs[0].host), lg->errs[0].extra,
		   result_name(lg->errs[0].extra), chain,
		   lg->nwarns ? "the first NCCL WARN says \"" : "no NCCL WARN names the cause; rerun "
							   "with NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=ALL",
		   lg->nwarns ? lg->warns[0].text : "", lg->nwarns ? "\"" : "",
		   advice ? "; " : "", advice ? advice : "", " — fix that cause and rerun");
}

/* Why NCCL is on sockets, as a clause. */
static void socket_reason(const struct ncl_log *lg, const struct ncl_facts *f, char *buf,
			  size_t len)
{
	const struct ncl_env *net = ncl_env_get(lg, "NCCL_NET");

	if (f->ib_disabled)
		snprintf(buf, len, "NCCL_IB_DISABLE=1 turns the IB/RoCE transport off: unset it");
	else if (f->net_forced && net)
		snprintf(buf, len, "NCCL_NET=%s forces the network: unset it or set NCCL_NET=IB",
			 net->value);
	else if (lg->fabric_plugin_fail)
		snprintf(buf, len, "the network plugin failed to initialise (see its NCCL WARN): "
				   "fix the plugin's setup (libfabric/EFA provider, devices in the "
				   "container)");
	else if (lg->plugin_rejected)
		snprintf(buf, len, "NCCL rejected the net plugin (\"ncclNetPlugin symbols v4 and "
				   "lower are not supported\")%s: install a plugin built for this "
				   "NCCL version (NCCL_NET_PLUGIN names it)",
			 lg->ib_none ? " and its internal IB transport found no device" :
			 lg->ib_fail ? " and its internal IB transport could not start" : "");
	else if (lg->ib_fail == 2)
		snprintf(buf, len, "NCCL could not load the verbs library (\"Failed to open "
				   "libibverbs\"): install rdma-core/libibverbs1 where NCCL runs "
				   "(inside the container too)");
	else if (lg->ib_fail)
		snprintf(buf, len, "libibverbs could not be loaded or the IB transport failed to "
				   "initialise: install rdma-core/libibverbs1 where NCCL runs "
				   "(inside the container too)");
	else if (lg->p2p_plugin[0] || lg->plugin[0])
		snprintf(buf, len, "the %.40s net plugin was loaded but NCCL did not use it: its "
				   "devices were unusable; check the port state (ibv_devinfo), "
				   "NCCL_IB_HCA and the plugin's libibverbs",
			 lg->p2p_plugin[0] ? lg->p2p_plugin : lg->plugin);
	else if (lg->ib_none)
		snprintf(buf, len, "NET/IB found no usable device: check that the HCA ports are "
				   "ACTIVE (ibv_devinfo), that /dev/infiniband is visible in the "
				   "container, and NCCL_IB_HCA");
	else
		snprintf(buf, len, "the log does not show why: check NCCL_IB_DISABLE, NCCL_NET, "
				   "and that the HCAs are visible (ibv_devinfo)");
}

static int net_matches(const char *want, const char *have)
{
	if (!strcasecmp(want, have))
		return 1;
	/* the HPC-X plugin (IBext, IBext_v6, IBext_v8) drives the same verbs */
	return !strcasecmp(want, "IB") && !strncasecmp(have, "IBext", 5);
}

static void find_network(const struct ncl_log *lg, const struct ncl_facts *f,
			 const struct ncl_expect *exp, json_t *doc)
{
	int sock = !strcmp(f->network, "Socket");
	char why[320];

	if (lg->nnetworks > 1)
		fc_finding(doc, FC_FAIL,
			   "processes selected different networks: %s on %s, %s on %s; give every "
			   "node the same HCAs, drivers and NCCL settings",
			   lg->networks[0].text, host_name(lg, lg->networks[0].host),
			   lg->networks[1].text, host_name(lg, lg->networks[1].host));
	if (!f->network[0]) {
		if ((lg->ib_fail || lg->ib_none) && !f->ib_disabled) {
			socket_reason(lg, f, why, sizeof(why));
			fc_finding(doc, FC_WARN,
				   "RDMA is unavailable to NCCL's IB transport (the excerpt does "
				   "not show which network NCCL chose; without a network plugin "
				   "it is TCP sockets): %s",
				   why);
		}
		if (exp->net)
			fc_finding(doc, FC_WARN,
				   "the log does not show which network NCCL selected (--expect-net "
				   "%s); capture the init lines with NCCL_DEBUG=INFO "
				   "NCCL_DEBUG_SUBSYS=INIT,NET",
				   exp->net);
		return;
	}
	if (exp->net && !net_matches(exp->net, f->network) && !sock) {
		fc_finding(doc, FC_FAIL,
			   "NCCL uses the %s network but %s was expected; check NCCL_NET, the net "
			   "plugin (NCCL_NET_PLUGIN) and NCCL_IB_DISABLE",
			   f->network, exp->net);
		return;
	}
	if (!sock || (f->single_node && !exp->net && !exp->nhcas))
		return; /* one node: NCCL's network carries nothing */
	socket_reason(lg, f, why, sizeof(why));
	if (exp->net && strcasecmp(exp->net, "Socket"))
		fc_finding(doc, FC_FAIL, "NCCL uses TCP sockets (NET/Socket) but %s was expected; %s",
			   exp->net, why);
	else if (exp->nhcas)
		fc_finding(doc, FC_FAIL,
			   "NCCL uses TCP sockets (NET/Socket) although HCAs were expected "
			   "(--expect-hca); %s",
			   why);
	else if (f->socket_fallback && f->ib_evident)
		fc_finding(doc, FC_FAIL,
			   "NCCL fell back to TCP sockets (NET/Socket) although %s; %s",
			   lg->fabric_plugin_fail || lg->plugin_rejected ?
				   "a fabric network plugin is installed" :
			   f->list_host >= 0    ? "IB/RoCE HCAs are listed" :
						  "the node has an IPoIB interface (IB is present)",
			   why);
	else if (!exp->net)
		fc_finding(doc, FC_WARN,
			   "inter-node traffic uses TCP sockets (NET/Socket), far slower than "
			   "RDMA; %s",
			   why);
}

static void find_lists(const struct ncl_log *lg, const struct ncl_facts *f, json_t *doc)
{
	const struct ncl_host *h0;

	if (f->list_host < 0)
		return;
	h0 = &lg->hosts[f->list_host];
	if (f->nlinks_ib && f->nlinks_roce) {
		char ib[256] = "";
		size_t used = 0;

		for (int i = 0; i < h0->nhcas; i++)
			if (!strcmp(h0->hcas[i].link, "IB") && used < sizeof(ib))
				used += (size_t)snprintf(ib + used, sizeof(ib) - used, "%s%s",
							 used ? "," : "", h0->hcas[i].name);
		fc_finding(doc, FC_WARN,
			   "the IB device list mixes InfiniBand (%d) and RoCE (%d) ports; NCCL can "
			   "put channels on the odd device: choose one kind with NCCL_IB_HCA (for "
			   "example NCCL_IB_HCA==%s)",
			   f->nlinks_ib, f->nlinks_roce, ib);
	}
	for (int i = 0; i < lg->nhosts; i++) {
		const struct ncl_host *h = &lg->hosts[i];

		if (h->have_list && h->oob_empty) {
			fc_finding(doc, FC_WARN,
				   "NET/IB on %s reports an empty OOB interface (\"OOB :\"): NCCL "
				   "found no interface for its out-of-band connections; set "
				   "NCCL_SOCKET_IFNAME to the interface on the cluster network",
				   host_name(lg, i));
			break;
		}
	}
	for (int i = 0; i < lg->nhosts; i++) {
		const struct ncl_host *h = &lg->hosts[i];

		if (!h->have_list || h == h0 || h->nhcas == h0->nhcas)
			continue;
		fc_finding(doc, FC_WARN,
			   "%s lists %d HCA%s but %s lists %d: a port is down or filtered on one "
			   "node; compare ibv_devinfo on both",
			   host_name(lg, f->list_host), h0->nhcas, fc_s(h0->nhcas), host_name(lg, i),
			   h->nhcas);
		break;
	}
}

static int hca_listed(const struct ncl_host *h, const char *want)
{
	const char *colon = strchr(want, ':');
	size_t n = colon ? (size_t)(colon - want) : strlen(want);
	int port = colon ? atoi(colon + 1) : 0;

	for (int i = 0; i < h->nhcas; i++)
		if (ncl_hca_same(h->hcas[i].name, want, n) &&
		    (!port || h->hcas[i].port == port))
			return 1;
	return 0;
}

static void find_expect_hca(const struct ncl_log *lg, const struct ncl_facts *f,
			    const struct ncl_expect *exp, json_t *doc)
{
	if (!exp->nhcas || !strcmp(f->network, "Socket"))
		return;
	if (f->list_host < 0) {
		fc_finding(doc, FC_WARN,
			   "the log does not show NCCL's IB device list, so --expect-hca cannot be "
			   "confirmed; capture it with NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,NET");
		return;
	}
	for (int i = 0; i < lg->nhosts; i++) {
		const struct ncl_host *h = &lg->hosts[i];
		char miss[256] = "";
		size_t used = 0;

		if (!h->have_list)
			continue;
		for (int k = 0; k < exp->nhcas; k++)
			if (!hca_listed(h, exp->hcas[k]) && used < sizeof(miss))
				used += (size_t)snprintf(miss + used, sizeof(miss) - used, "%s%s",
							 used ? "," : "", exp->hcas[k]);
		if (used)
			fc_finding(doc, FC_FAIL,
				   "NCCL on %s lists %d HCA%s and not %s (--expect-hca): the port is "
				   "down, filtered by NCCL_IB_HCA, or not visible in the container",
				   host_name(lg, i), h->nhcas, fc_s(h->nhcas), miss);
	}
}

/* True when @name is one of the comma-separated "<hca>[:<port>...]" of @list. */
static int in_hca_list(const char *list, const char *name)
{
	size_t n = strlen(name);

	for (const char *t = list; *t;) {
		if (strcspn(t, ",:") == n && !strncmp(t, name, n))
			return 1;
		t += strcspn(t, ",");
		if (*t)
			t++;
	}
	return 0;
}

/*
 * NCCL_IB_HCA=mlx5_1 also takes mlx5_10..19 (prefix match without '='); a
 * device that is itself in the list (mlx5_1,...,mlx5_11) was meant.
 */
static void find_ib_hca_prefix(const struct ncl_log *lg, const struct ncl_facts *f,
			       json_t *doc)
{
	const struct ncl_env *e = ncl_env_get(lg, "NCCL_IB_HCA");
	char list[NCL_TEXT], *tok, *save = NULL;
	const struct ncl_host *h;

	if (!e || f->list_host < 0 || e->value[0] == '=' || e->value[0] == '^')
		return;
	h = &lg->hosts[f->list_host];
	ncl_copy(list, sizeof(list), e->value, strlen(e->value));
	for (tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *colon = strchr(tok, ':');

		if (colon)
			*colon = '\0';
		for (int i = 0; i < h->nhcas; i++) {
			const char *n = h->hcas[i].name;

			if (strlen(n) > strlen(tok) && !strncmp(n, tok, strlen(tok)) &&
			    !in_hca_list(e->value, n)) {
				fc_finding(doc, FC_WARN,
					   "NCCL_IB_HCA=%s matches by prefix, so NCCL also took %s; "
					   "write NCCL_IB_HCA==%s for exact names",
					   e->value, n, e->value);
				return;
			}
		}
	}
}

/* Whether NET device @dev of host @h is fewer HCAs than the @listed ones:
 * a listed device, or a 2.24+ virtual NIC whose ports are known and leave
 * some out. A virtual NIC of all of them, or of ports the log does not
 * name (an index past the list), carries them all as far as it shows. */
static int one_of_many(const struct ncl_log *lg, int h, int dev, int listed)
{
	char hca[NCL_TEXT];
	int n = 1;

	if (!*ncl_hca_of(lg, h, dev, hca, sizeof(hca)))
		return dev >= 0 && dev < listed;
	for (const char *p = hca; (p = strchr(p, '+')); p++)
		n++;
	return n < listed;
}

/* One HCA for several GPUs of a host while several HCAs are listed. */
struct spread {
	int first_rank, first_dev;
	int ranks, devs; /* 0 none, 1 one, 2 several */
};

static void find_spread(const struct ncl_log *lg, const struct ncl_facts *f, json_t *doc)
{
	struct spread *sp;
	char hca[NCL_TEXT];

	if (f->list_host < 0 || lg->hosts[f->list_host].nhcas < 2 || !lg->nhosts)
		return;
	sp = calloc((size_t)lg->nhosts, sizeof(*sp));
	if (!sp)
		return;
	for (size_t i = 0; i < lg->nchans; i++) {
		const struct ncl_chan *c = &lg->chans[i];
		int local = c->dir == 2 ? c->to : c->from;
		struct spread *s;

		if (c->t != NCL_T_NET || c->host < 0 || c->proxy >= 0)
			continue;
		s = &sp[c->host];
		if (!s->ranks) {
			s->ranks = 1;
			s->first_rank = local;
		} else if (local != s->first_rank) {
			s->ranks = 2;
		}
		if (!s->devs) {
			s->devs = 1;
			s->first_dev = c->net_dev;
		} else if (c->net_dev != s->first_dev) {
			s->devs = 2;
		}
	}
	for (int h = 0; h < lg->nhosts; h++) {
		if (sp[h].ranks != 2 || sp[h].devs != 1 ||
		    !one_of_many(lg, h, sp[h].first_dev, lg->hosts[f->list_host].nhcas))
			continue;
		fc_finding(doc, FC_WARN,
			   "on %s every GPU's NET channels use one device (NET dev %d %s) while %d "
			   "HCAs are listed: the other HCAs carry nothing; check their port state "
			   "and NCCL_IB_HCA",
			   host_name(lg, h), sp[h].first_dev,
			   ncl_hca_of(lg, h, sp[h].first_dev, hca, sizeof(hca)),
			   lg->hosts[f->list_host].nhcas);
		break;
	}
	free(sp);
}

/* The CUDA devices of host @h whose nearest @net NIC is at @far, as a bit mask. */
static uint64_t far_gpus(const struct ncl_log *lg, int h, const char *net, const char *far,
			 int *nics)
{
	uint64_t m = 0;

	for (int i = 0; i < lg->ndist; i++) {
		const struct ncl_dist *d = &lg->dist[i];

		if (d->host == h && !strcmp(d->type, far) && !strcmp(d->net, net) &&
		    d->cuda_dev >= 0 && d->cuda_dev < 64) {
			m |= 1ULL << d->cuda_dev;
			*nics = d->nnics;
		}
	}
	return m;
}

/* One finding for the GPUs whose nearest @net NIC is at @far, hosts alike folded. */
static void distance_finding(const struct ncl_log *lg, const char *net, const char *far,
			     json_t *doc)
{
	int ib = !strcmp(net, "IB") || !net[0], first = -1, alike = 0, nics = 1;
	char gpus[192] = "", what[128];
	uint64_t m = 0;
	size_t used = 0;

	for (int h = 0; h < lg->nhosts; h++) {
		uint64_t g = far_gpus(lg, h, net, far, &nics);

		if (g && first < 0) {
			first = h;
			m = g;
		} else if (g) {
			alike += g == m;
		}
	}
	if (first < 0)
		return;
	for (int d = 0; d < 64 && used < sizeof(gpus); d++)
		if (m >> d & 1)
			used += (size_t)snprintf(gpus + used, sizeof(gpus) - used, "%s%d",
						 used ? "," : "", d);
	if (nics > 1)
		snprintf(what, sizeof(what), "the nearest of its %d %s %s", nics, ib ? "IB" : net,
			 ib ? "HCAs" : "NICs");
	else
		snprintf(what, sizeof(what), ib ? "the IB HCA" : "the %s NIC", net);
	fc_finding(doc, FC_WARN, "GPU%s %s on %s%s%s%s %s at distance %s from %s (%s): %s",
		   __builtin_popcountll(m) > 1 ? "s" : "", gpus, host_name(lg, first),
		   alike ? " (and " : "", alike ? (alike > 1 ? "other hosts" : "one other host") : "",
		   alike ? " alike)" : "", __builtin_popcountll(m) > 1 ? "are" : "is", far, what,
		   !strcmp(far, "SYS") ? "across the CPU interconnect" :
					 "through the CPU root complex",
		   ib ? "GPUDirect RDMA is off at this distance by default and traffic crosses "
			"the CPU; put a HCA under the GPU's PCIe switch or accept host-staged "
			"transfers" :
			"their inter-node traffic crosses the CPU, and GPUDirect RDMA, where the "
			"plugin supports it, is off at this distance by default; a NIC under the "
			"GPU's PCIe switch avoids both");
}

/*
 * 2.4.x distance lines: one finding per transport and distance class. Sockets
 * go through host memory at any distance: nothing to judge there.
 */
static void find_distance(const struct ncl_log *lg, json_t *doc)
{
	static const char *const far[] = { "SYS", "SOC", "NODE", "PHB" };

	for (size_t k = 0; k < sizeof(far) / sizeof(far[0]); k++)
		for (int i = 0; i < lg->ndist; i++) {
			const struct ncl_dist *d = &lg->dist[i];
			int first = 1;

			if (!strcmp(d->net, "Socket") || strcmp(d->type, far[k]))
				continue;
			for (int j = 0; j < i && first; j++) /* first of its transport */
				first = strcmp(lg->dist[j].net, d->net) ||
					strcmp(lg->dist[j].type, far[k]);
			if (first)
				distance_finding(lg, d->net, far[k], doc);
		}
}

/*
 * "NET/IB : Got completion from peer ADDR with error N, opcode ..., vendor
 * err ...": N is the work completion's status, enum ibv_wc_status of
 * libibverbs' verbs.h (rdma-core): what it means and where to look.
 */
static const char *completion_advice(const char *msg)
{
	static const struct {
		long status;
		const char *advice;
	} st[] = {
		{ 4, "error 4 is IBV_WC_LOC_PROT_ERR: the local memory registration did not "
		     "cover the buffer: check the GPUDirect path (nvidia_peermem or dma-buf), "
		     "ACS and the IOMMU" },
		{ 5, "error 5 is IBV_WC_WR_FLUSH_ERR: flushed because the queue pair was "
		     "already in error: the first completion error, on this node or the peer, "
		     "is the cause" },
		{ 10, "error 10 is IBV_WC_REM_ACCESS_ERR: the peer refused the access to its "
		      "memory: check the peer's GPUDirect path (nvidia_peermem or dma-buf), "
		      "ACS and the IOMMU" },
		{ 12, "error 12 is IBV_WC_RETRY_EXC_ERR: the transport retry count ran out, "
		      "the peer's port never acknowledged: a link down or flapping, packets "
		      "lost on the path, or the peer gone; check both nodes' ports and the path "
		      "between them (fabcheck pair, the port counters)" },
		{ 13, "error 13 is IBV_WC_RNR_RETRY_EXC_ERR: the peer had no receive posted "
		      "in time: the peer process stalled or died; read its log" },
	};
	const char *e = strstr(msg, " with error ");
	long n = e ? strtol(e + 12, NULL, 10) : -1;

	for (size_t i = 0; i < sizeof(st) / sizeof(st[0]); i++)
		if (st[i].status == n)
			return st[i].advice;
	return "a transfer failed on the fabric: check port errors (fabcheck pair), the GID "
	       "index, ACS and the IOMMU";
}

/* What to do about a NCCL WARN, from words it contains or the source
 * file that printed it (@src, "ras/client_support.cc:181"); NULL when no
 * rule knows it. */
static const char *warn_rule(const char *msg, const char *src)
{
	static const struct {
		const char *word, *advice;
	} rules[] = {
		{ "nvml", "NVML cannot see this GPU: run the container with the NVIDIA runtime "
			  "and matching NVIDIA_VISIBLE_DEVICES/CUDA_VISIBLE_DEVICES" },
		{ "lib wrapper not initialized", "libibverbs is missing: install rdma-core "
						 "(libibverbs1) where NCCL runs" },
		{ "libibverbs", "install rdma-core (libibverbs1) where NCCL runs" },
		{ "NET/OFI", "check the EFA/libfabric provider (fi_info -p efa) and the devices "
			     "visible in the container" },
		{ "AF_INET", "the bootstrap address is unusable: set NCCL_SOCKET_IFNAME to an "
			     "interface with an IPv4/IPv6 address" },
		{ "ibv_", "a verbs call failed: check the HCA port state (ibv_devinfo) and "
			  "NCCL_IB_GID_INDEX on RoCE" },
		{ "Cuda failure", "a CUDA call failed: check the driver and GPU state "
				  "(nvidia-smi)" },
	};

	if (strstr(msg, "Got completion from peer"))
		return completion_advice(msg);
	/* NCCL 2.24+ RAS: its client listener (NCCL_RAS_ADDR, default
	 * localhost:28028) is one socket per node; a job of another user
	 * holding it makes the bind fail, and only RAS queries are lost (NCCL
	 * env docs, NCCL_RAS_ADDR; src/ras/client_support.cc) */
	if (src && !strncmp(src, "ras/", 4) && strstr(msg, "bind"))
		return "NCCL's RAS listener (2.24+, NCCL_RAS_ADDR, default localhost:28028) could "
		       "not take its port, held by another process (another NCCL job, or another "
		       "user's): collectives are not affected, only RAS queries (ncclras); give each "
		       "job on a shared node its own NCCL_RAS_ADDR";
	for (size_t i = 0; i < sizeof(rules) / sizeof(rules[0]); i++)
		if (strstr(msg, rules[i].word))
			return rules[i].advice;
	return NULL;
}

static const char *warn_advice(const char *msg, const char *src)
{
	const char *a = warn_rule(msg, src);

	return a ? a : "NCCL went on, but check the cause it names";
}

static void find_warns(const struct ncl_log *lg, json_t *doc)
{
	int shown = 0;

	for (int i = 0; i < lg->nwarns; i++) {
		const struct ncl_item *w = &lg->warns[i];

		if (lg->fatal && i == 0)
			continue; /* already quoted by the failure */
		if (shown++ == MAX_LISTED) {
			fc_finding(doc, FC_WARN, "%d more distinct NCCL WARN message%s (see "
						 "\"warnings\" in --json)",
				   lg->nwarns - i, fc_s(lg->nwarns - i));
			break;
		}
		fc_finding(doc, FC_WARN, "NCCL WARN on %s%s%s (%ld time%s): \"%s\"; %s",
			   host_name(lg, w->host), w->extra[0] ? " at " : "", w->extra,
			   w->count, w->count == 1 ? "" : "s", w->text, warn_advice(w->text, w->extra));
	}
}

static void find_env(const struct ncl_log *lg, json_t *doc)
{
	const struct ncl_env *p2p = ncl_env_get(lg, "NCCL_P2P_DISABLE");
	const struct ncl_env *lvl = ncl_env_get(lg, "NCCL_P2P_LEVEL");
	const struct ncl_env *shm = ncl_env_get(lg, "NCCL_SHM_DISABLE");
	int p2p_off = (p2p && !strcmp(p2p->value, "1")) ||
		      (lvl && (!strcmp(lvl->value, "LOC") || !strcmp(lvl->value, "0")));

	if (p2p_off)
		fc_finding(doc, FC_WARN,
			   "%s turns GPU peer-to-peer off, so intra-node traffic goes through %s; "
			   "unset it unless you are debugging",
			   p2p && !strcmp(p2p->value, "1") ? "NCCL_P2P_DISABLE=1" : "NCCL_P2P_LEVEL=LOC",
			   shm && !strcmp(shm->value, "1") ?
				   "the network (NCCL_SHM_DISABLE=1 too)" : "host shared memory");
	for (int i = 0; i < lg->nenv; i++) {
		const struct ncl_env *e = &lg->env[i];

		if (e->invalid)
			fc_finding(doc, FC_WARN, "NCCL rejected %s=%s and used its default; fix the "
						 "value", e->name, e->value);
		else if (e->other[0])
			fc_finding(doc, FC_WARN,
				   "%s differs between processes: %s on %s, %s on %s; set it the same "
				   "for every rank",
				   e->name, e->value, host_name(lg, e->host), e->other,
				   host_name(lg, e->other_host));
	}
}

static void find_builds(const struct ncl_log *lg, const struct ncl_facts *f, json_t *doc)
{
	if (lg->nversions > 1)
		fc_finding(doc, FC_WARN,
			   "the log prints several NCCL versions (%s and %s): ranks run different "
			   "NCCL builds; install one version everywhere (containers, pip wheels)",
			   lg->versions[0].text, lg->versions[1].text);
	else if (f->mixed_builds)
		fc_finding(doc, FC_WARN,
			   "mixed NCCL builds: %s; install one NCCL version on every node", f->mixed_why);
}

static void find_files(const struct ncl_log *lg, json_t *doc)
{
	if (lg->nfiles < 2)
		return;
	for (int i = 0; i < lg->nfiles; i++)
		if (!lg->files[i].count)
			fc_finding(doc, FC_WARN,
				   "%s holds no NCCL lines: the rank did not reach NCCL init or ran "
				   "without NCCL_DEBUG=INFO",
				   lg->files[i].text);
}

/* What was past a limit is said, never dropped without a word. */
static void find_cut(const struct ncl_log *lg, json_t *doc)
{
	if (lg->cut_host_lines)
		fc_finding(doc, FC_WARN,
			   "the log names more than %d hosts: %ld NCCL lines of the hosts past "
			   "that were not read; check the log per job or per group of nodes",
			   NCL_MAX_HOSTS, lg->cut_host_lines);
	if (lg->cut_proc_lines)
		fc_finding(doc, FC_WARN,
			   "the log holds more than %d NCCL processes: %ld lines of the ones past "
			   "that were not placed in a build era", NCL_MAX_PROCS, lg->cut_proc_lines);
	if (lg->cut_files)
		fc_finding(doc, FC_WARN,
			   "%ld files past the first %d were read but are not listed one by one",
			   lg->cut_files, NCL_MAX_FILES);
}

void ncl_findings(const struct ncl_log *lg, const struct ncl_facts *f,
		  const struct ncl_expect *exp, json_t *doc)
{
	find_fatal(lg, doc);
	find_network(lg, f, exp, doc);
	find_expect_hca(lg, f, exp, doc);
	find_lists(lg, f, doc);
	find_ib_hca_prefix(lg, f, doc);
	ncl_gdr_findings(lg, f, exp, doc);
	find_spread(lg, f, doc);
	ncl_share_findings(lg, f, exp->topo, doc);
	find_distance(lg, doc);
	if (exp->topo)
		ncl_topo_findings(lg, exp->topo, doc);
	find_builds(lg, f, doc);
	find_env(lg, doc);
	ncl_env_findings(lg, exp->topo, doc);
	find_warns(lg, doc);
	find_files(lg, doc);
	find_cut(lg, doc);
}
