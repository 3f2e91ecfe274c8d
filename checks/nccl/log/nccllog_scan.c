/*
 * Extractors for one NCCL record: version, network selection, IB device
 * lists, interfaces, plugins, environment echoes, warnings and error
 * propagation. Channel, communicator and GPUDirect lines are in
 * nccllog_chan.c, version wording in nccllog_era.c.
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checks/nccl/log/nccllog_int.h"

static void add_version(struct ncl_log *lg, const char *s, int host)
{
	char buf[32];
	int v;

	if (ncl_parse_version(s, &v))
		return;
	ncl_fmt_version(v, buf, sizeof(buf));
	ncl_item_add(lg->versions, &lg->nversions, buf, NULL, host);
}

void ncl_bare_version(struct ncl_log *lg, const char *s)
{
	add_version(lg, s, -1);
}

/*
 * Splits "IF:ADDR<n>" (interface aliases have colons, IPv6 addresses too)
 * into "IF ADDR" in @out. The address is found from the right: the longest
 * tail that parses as IPv4 or IPv6; otherwise the text after the last colon.
 */
static void split_ifaddr(const char *s, size_t n, char *out, size_t len, char *ifname,
			 size_t iflen)
{
	char tmp[NCL_TEXT], addr[NCL_TEXT];
	unsigned char bin[16];
	size_t cut = 0;

	ncl_copy(tmp, sizeof(tmp), s, n);
	n = strlen(tmp);
	if (n && tmp[n - 1] == '>') { /* drop "<0>" */
		char *lt = strrchr(tmp, '<');

		if (lt)
			*lt = '\0';
	}
	for (size_t i = 0; tmp[i]; i++) {
		char *pct;

		if (tmp[i] != ':')
			continue;
		ncl_copy(addr, sizeof(addr), tmp + i + 1, strlen(tmp + i + 1));
		pct = strchr(addr, '%');
		if (pct)
			*pct = '\0';
		if (inet_pton(AF_INET, addr, bin) == 1 || inet_pton(AF_INET6, addr, bin) == 1) {
			cut = i;
			break;
		}
		cut = i; /* fallback: the last colon */
	}
	if (!cut) {
		ncl_copy(out, len, tmp, strlen(tmp));
		if (ifname)
			ncl_copy(ifname, iflen, tmp, strlen(tmp));
		return;
	}
	tmp[cut] = '\0';
	snprintf(out, len, "%s %s", tmp, tmp + cut + 1);
	if (ifname)
		ncl_copy(ifname, iflen, tmp, cut);
}

/* "[0]IF:ADDR<0> [1]IF:ADDR<0>" or "IF:ADDR<0>": adds each to @items. */
static void if_list(struct ncl_log *lg, const char *p, struct ncl_item *items, int *n,
		    int host)
{
	char out[NCL_TEXT], ifname[NCL_NAME];
	long idx;

	for (;;) {
		const char *w;
		size_t len;

		ncl_ws(&p);
		if (*p == '[' && (p++, ncl_num(&p, &idx)) && *p == ']')
			p++;
		w = p;
		len = ncl_word(&p, NULL, 0, "");
		if (!len)
			return;
		split_ifaddr(w, len, out, sizeof(out), ifname, sizeof(ifname));
		ncl_item_add(items, n, out, NULL, host);
		if (ncl_is_ipoib(ifname))
			lg->ipoib_if = 1;
	}
}

/* Parses "name:port/LINK" (also "name:port:rail:plane/LINK") into @c; 0 when it is not one. */
static int parse_entry(const char **p, struct ncl_hca *c, int idx, int merged)
{
	char word[NCL_TEXT], *colon, *slash;
	long port;

	ncl_word(p, word, sizeof(word), ",}");
	colon = strchr(word, ':');
	slash = strchr(word, '/');
	if (!colon || !slash || slash < colon)
		return 0;
	memset(c, 0, sizeof(*c));
	c->index = idx;
	c->ibv_index = c->slot = -1;
	c->merged = merged;
	c->gdr = -1;
	ncl_copy(c->name, sizeof(c->name), word, (size_t)(colon - word));
	port = strtol(colon + 1, NULL, 10);
	c->port = port > 0 && port < 256 ? (int)port : 0;
	if (ncl_starts(slash + 1, "RoCE"))
		snprintf(c->link, sizeof(c->link), "RoCE");
	else if (ncl_starts(slash + 1, "IB"))
		snprintf(c->link, sizeof(c->link), "IB");
	c->sharp = strstr(slash, "SHARP") != NULL;
	return 1;
}

/* One "[n]name:port/LINK" entry of a device list, the @slot-th of it. */
static const char *ib_entry(const char *p, struct ncl_host *h, int idx, int merged, int slot)
{
	struct ncl_hca c;

	if (!parse_entry(&p, &c, idx, merged) || h->nhcas >= NCL_MAX_HCAS)
		return p;
	for (int i = 0; i < h->nhcas; i++) /* the same list printed again */
		if (h->hcas[i].index == idx)
			return p;
	c.slot = slot;
	h->hcas[h->nhcas++] = c;
	return p;
}

/*
 * 2.3's one line per port, "NET/IB: [d] name:port/LINK", where d is the verbs
 * device index: NCCL numbers the ports in (d, port) order, whatever order the
 * ranks' lines were interleaved in.
 */
static void ib_port_line(const char *p, struct ncl_host *h, int d)
{
	struct ncl_hca c;
	int at;

	if (!parse_entry(&p, &c, 0, -1) || h->nhcas >= NCL_MAX_HCAS)
		return;
	c.ibv_index = d;
	for (at = 0; at < h->nhcas; at++) {
		const struct ncl_hca *o = &h->hcas[at];

		if (o->ibv_index == d && o->port == c.port)
			return; /* printed by another rank */
		if (o->ibv_index > d || (o->ibv_index == d && o->port > c.port))
			break;
	}
	memmove(&h->hcas[at + 1], &h->hcas[at], (size_t)(h->nhcas - at) * sizeof(c));
	h->hcas[at] = c;
	h->nhcas++;
	for (int i = 0; i < h->nhcas; i++)
		h->hcas[i].index = i;
}

/*
 * "NET/IB : Using [0]mlx5_0:1/IB [1]={[1] a:1/RoCE, [2] b:1/RoCE} [RO]; OOB IF:ADDR<0>".
 * 2.20.3-2.23.4 (src/transport/net_ib.cc ncclIbInit, at the tags) print a
 * merged group under its merged index d and a single port under its own
 * verbs index, though NCCL numbers it by its place among the merged
 * devices (ncclIbGetProperties takes the merged index): "[0]a [1]={[1] b,
 * [2] c} [3]d" makes d NET device 2. Each entry's place is kept (slot).
 */
static void on_ib_list(struct ncl_log *lg, int hi, const char *p)
{
	struct ncl_host *h = &lg->hosts[hi];
	int first = !h->have_list || h->list_from_gdr, slot = 0;
	long idx, inner;

	if (h->list_from_gdr) /* the real list replaces the one taken from GPUDirect lines */
		h->nhcas = h->list_from_gdr = 0;

	for (;;) {
		ncl_ws(&p);
		if (!*p || *p == ';' || ncl_starts(p, "OOB"))
			break;
		if (ncl_skip(&p, "[RO]"))
			continue;
		if (!(*p == '[' && (p++, ncl_num(&p, &idx)) && ncl_skip(&p, "]"))) {
			ncl_word(&p, NULL, 0, ";");
			continue;
		}
		if (ncl_skip(&p, "={")) { /* merged ports */
			while (*p && *p != '}') {
				ncl_ws(&p);
				if (*p == '[' && (p++, ncl_num(&p, &inner)) && ncl_skip(&p, "]")) {
					ncl_ws(&p);
					if (first)
						p = ib_entry(p, h, (int)inner, (int)idx, slot);
				}
				while (*p && *p != ',' && *p != '}' && *p != '[')
					p++;
				ncl_skip(&p, ",");
			}
			ncl_skip(&p, "}");
			if (first && idx + 1 > h->nmerged)
				h->nmerged = (int)idx + 1;
			slot++;
			continue;
		}
		if (first)
			p = ib_entry(p, h, (int)idx, -1, slot++);
		else
			ncl_word(&p, NULL, 0, "");
	}
	h->have_list = 1;
	ncl_skip(&p, ";");
	ncl_ws(&p);
	if (ncl_skip(&p, "OOB")) {
		h->have_oob = 1;
		ncl_ws(&p);
		ncl_skip(&p, ":");
		ncl_ws(&p);
		if (!*p) {
			h->oob_empty = 1;
		} else {
			char ifname[NCL_NAME];
			const char *w = p;
			size_t n = ncl_word(&p, NULL, 0, "");

			split_ifaddr(w, n, h->oob, sizeof(h->oob), ifname, sizeof(ifname));
			if (ncl_is_ipoib(ifname))
				lg->ipoib_if = 1;
		}
	}
}

/* 2.3 "NET/IB: [0] mlx5_1:1/IB" and 2.27+ "NET/IB: [0] mlx5_0:0:1/IB provider=.. speed=..". */
static void on_ib_dev(struct ncl_log *lg, int hi, const char *p)
{
	struct ncl_host *h = &lg->hosts[hi];
	const char *speed = strstr(p, "speed=");
	long idx;

	if (!(ncl_num(&p, &idx) && ncl_skip(&p, "]")))
		return;
	ncl_ws(&p);
	if (speed) { /* detail line: the device is known from the list */
		size_t n = strcspn(p, ": ");
		int by_name = 0;

		/* [d] is the verbs device's index, not the list's where NCCL_IB_HCA
		 * or a down port left a device out (net_ib/init.cc at v2.30.7-1:
		 * "NET/IB: [%d] %s:%s:%d", d, devices[d]->name): the name decides */
		for (int i = 0; i < h->nhcas; i++)
			by_name |= strlen(h->hcas[i].name) == n && !strncmp(h->hcas[i].name, p, n);
		for (int i = 0; i < h->nhcas; i++)
			if (by_name ? strlen(h->hcas[i].name) == n && !strncmp(h->hcas[i].name, p, n) :
				      h->hcas[i].index == idx)
				h->hcas[i].speed_mbps = strtol(speed + 6, NULL, 10);
		return;
	}
	ib_port_line(p, h, (int)idx);
	h->have_list = 1;
}

static void on_network(struct ncl_log *lg, int hi, const char *p)
{
	char name[NCL_NAME];
	size_t n = strlen(p);

	while (n && (p[n - 1] == ' ' || p[n - 1] == '.'))
		n--;
	ncl_copy(name, sizeof(name), p, n);
	if (name[0])
		ncl_item_add(lg->networks, &lg->nnetworks, name, NULL, hi);
}

/* "NCCL_X set by environment to V." / "NCCL_X set to V" / 2.6 "set from environment". */
static void on_env(struct ncl_log *lg, int hi, const char *p)
{
	static const char *const forms[] = { " set by environment to ",
					     " set from environment to ", " set to " };
	char name[NCL_NAME], value[NCL_TEXT];
	const char *v = NULL;
	size_t n;

	for (size_t i = 0; i < sizeof(forms) / sizeof(forms[0]) && !v; i++) {
		const char *f = strstr(p, forms[i]);

		if (f && f - p < NCL_NAME) {
			ncl_copy(name, sizeof(name), p, (size_t)(f - p));
			v = f + strlen(forms[i]);
		}
	}
	if (!v || strchr(name, ' '))
		return;
	n = strlen(v);
	while (n && v[n - 1] == ' ')
		n--;
	/* integer parameters end with a dot: "to 1." */
	if (n > 1 && v[n - 1] == '.' && isdigit((unsigned char)v[n - 2]))
		n--;
	ncl_copy(value, sizeof(value), v, n);
	ncl_env_set(lg, name, value, hi, 0);
}

/* "Invalid value X for NCCL_Y, using default Z." */
static void on_env_invalid(struct ncl_log *lg, int hi, const char *p)
{
	const char *f = strstr(p, " for NCCL_");
	char value[NCL_TEXT], name[NCL_NAME];
	const char *q;

	if (!f)
		return;
	ncl_copy(value, sizeof(value), p, (size_t)(f - p));
	q = f + 5;
	ncl_word(&q, name, sizeof(name), ",");
	ncl_env_set(lg, name, value, hi, 1);
}

static void on_plugin(struct ncl_log *lg, const char *p)
{
	const char *l = strstr(p, "Loaded net plugin ");

	/* "NET/Plugin: Failed to find ncclNetPlugin symbol (>= v5). ncclNetPlugin
	 * symbols v4 and lower are not supported." (2.19 - 2.2x): rejected */
	if (strstr(p, "ncclNetPlugin symbols") && strstr(p, "not supported"))
		lg->plugin_rejected = 1;

	if (l) {
		lg->plugin_loaded = 1;
		ncl_copy(lg->plugin, sizeof(lg->plugin), l + 18, strlen(l + 18));
	}
}

/* "file.cc:123", "path/file.cu:45": a source location of an error line. */
static int is_error_src(const char *w, size_t n)
{
	static const char *const exts[] = { ".cc:", ".cu:", ".c:", ".cpp:", ".h:" };
	const char *colon = w + n;

	while (colon > w && isdigit((unsigned char)colon[-1]))
		colon--;
	if (colon == w + n || colon == w || colon[-1] != ':')
		return 0;
	for (size_t i = 0; i < sizeof(exts) / sizeof(exts[0]); i++) {
		size_t k = strlen(exts[i]);

		if ((size_t)(colon - w) >= k && !strncmp(colon - k, exts[i], k))
			return 1;
	}
	return 0;
}

/* "<path/file>.cc:<line> -> <code>[ [Async thread]]" */
static int on_error(struct ncl_log *lg, int hi, const char *msg)
{
	const char *p = msg, *file = msg;
	char loc[NCL_TEXT], code[16];
	long rc;
	size_t n = ncl_word(&p, NULL, 0, "");

	if (!n || !is_error_src(file, n))
		return 0;
	ncl_ws(&p);
	if (!ncl_skip(&p, "-> ") || !ncl_num(&p, &rc))
		return 0;
	ncl_copy(loc, sizeof(loc), file, n);
	snprintf(code, sizeof(code), "%ld", rc);
	ncl_item_add(lg->errs, &lg->nerrs, loc, code, hi);
	/* a top-level file (no directory) means the error reached the
	 * communicator: init, group launch, bootstrap, enqueue... */
	if (!memchr(file, '/', n) || strstr(p, "[Async thread]"))
		lg->fatal = 1;
	/* "-> N [Proxy Thread]": the proxy thread's progressOps failed, the
	 * network transfers of a collective after init; NCCL sets the
	 * communicator's async error and the thread ends (src/proxy.cc,
	 * ncclProxyProgress, 2.8 to 2.2x) */
	if (strstr(p, "[Proxy Thread]"))
		lg->fatal = lg->fatal_proxy = 1;
	return 1;
}

static void on_warn(struct ncl_log *lg, int hi, const struct ncl_rec *r)
{
	lg->warn_lines++;
	ncl_item_add(lg->warns, &lg->nwarns, r->msg[0] ? r->msg : "(message cut off)", r->src,
		     hi);
	if (strstr(r->msg, "NET/OFI") &&
	    (strstr(r->msg, "initialization failed") || strstr(r->msg, "Initializing plugin failed")))
		lg->fabric_plugin_fail = 1;
	if (ncl_starts(r->msg, "Failed to open libibverbs")) /* a WARN in 2.3 - 2.4 */
		lg->ib_fail = 2;
}

/* 2.4 distance names, nearest first (SOC is 2.4.2's NODE). */
static int dist_rank(const char *t)
{
	static const char *const order[] = { "PIX", "PXB", "PHB", "NODE", "SOC", "SYS" };

	for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++)
		if (!strcmp(t, order[i]))
			return i >= 4 ? (int)i - 1 : (int)i;
	return 99;
}

/* 2.4.x "CUDA Dev 3[3], IB NIC distance :  PHB SYS": one distance per NET device. */
static void on_distance(struct ncl_log *lg, int hi, const char *p)
{
	struct ncl_dist d = { .host = hi };
	const char *c, *comma;
	char w[8];
	long dev;

	if (!ncl_num(&p, &dev) || !(c = strstr(p, " NIC distance :")))
		return;
	d.cuda_dev = (int)dev;
	comma = strstr(p, ", ");
	if (comma && comma < c)
		ncl_copy(d.net, sizeof(d.net), comma + 2, (size_t)(c - comma - 2));
	for (c += 15; ncl_ws(&c), ncl_word(&c, w, sizeof(w), "");)
		if (!d.nnics++ || dist_rank(w) < dist_rank(d.type))
			memcpy(d.type, w, sizeof(d.type));
	if (!d.nnics)
		return;
	for (int i = 0; i < lg->ndist; i++)
		if (lg->dist[i].host == hi && lg->dist[i].cuda_dev == d.cuda_dev &&
		    !strcmp(lg->dist[i].net, d.net))
			return; /* the same GPU printed again */
	if (lg->ndist < NCL_MAX_LIST)
		lg->dist[lg->ndist++] = d;
}

/*
 * nccl-tests lines after '#': "  Rank  0 Group  0 Pid  58543 on   tarn1 device  0
 * [0x18] NAME" (Group since 2.x tests; "[0000:21:00]" in the newest).
 */
void ncl_tests_line(struct ncl_log *lg, const char *p)
{
	char host[NCL_HOST];
	long rank, dev, v;
	int64_t bus = -1, dom = 0, b = 0, d = 0;
	struct ncl_rank *r;

	ncl_ws(&p);
	if (!ncl_skip(&p, "Rank") || (ncl_ws(&p), !ncl_num(&p, &rank)))
		return;
	ncl_ws(&p);
	if (ncl_skip(&p, "Group"))
		ncl_ws(&p), ncl_num(&p, &v), ncl_ws(&p);
	if (!ncl_skip(&p, "Pid") || (ncl_ws(&p), !ncl_num(&p, &v)))
		return;
	ncl_ws(&p);
	if (!ncl_skip(&p, "on"))
		return;
	ncl_ws(&p);
	ncl_word(&p, host, sizeof(host), "");
	ncl_ws(&p);
	if (!ncl_skip(&p, "device") || (ncl_ws(&p), !ncl_num(&p, &dev)))
		return;
	ncl_ws(&p);
	/* A PCI bus is one byte and a domain at most 32 bits (Linux's
	 * pci_domain_nr): anything bigger is no bus, and would not fit the
	 * shifts below (the fuzzer found [0x<15 hex digits>]). */
	if (ncl_skip(&p, "[0x") && ncl_hex(&p, &b)) {
		if (b <= 0xff)
			bus = b << 12;
	} else if (ncl_skip(&p, "[") && ncl_hex(&p, &dom) && ncl_skip(&p, ":") &&
		   ncl_hex(&p, &b) && ncl_skip(&p, ":") && ncl_hex(&p, &d)) {
		if (dom <= 0xffffffffLL)
			bus = (dom << 20) | ((b & 0xff) << 12) | ((d & 0xff) << 4);
	}
	if (!lg->tests_gpu[0] && (p = strchr(p, ']'))) {
		size_t n;

		for (p++; *p == ' ' || *p == '\t'; p++)
			;
		snprintf(lg->tests_gpu, sizeof(lg->tests_gpu), "%s", p);
		for (n = strlen(lg->tests_gpu); n && isspace((unsigned char)lg->tests_gpu[n - 1]); n--)
			lg->tests_gpu[n - 1] = '\0';
	}
	r = ncl_rank(lg, (int)rank);
	if (!r)
		return;
	if (r->host < 0)
		r->host = ncl_host(lg, host);
	if (r->cuda_dev < 0)
		r->cuda_dev = (int)dev;
	if (r->bus_id < 0)
		r->bus_id = bus;
}

typedef void (*ncl_text_fn)(struct ncl_log *lg, int hi, const char *rest);

static void on_boot(struct ncl_log *lg, int hi, const char *p)
{
	if_list(lg, p, lg->boot, &lg->nboot, hi);
}

static void on_socket(struct ncl_log *lg, int hi, const char *p)
{
	lg->socket_data = 1;
	if_list(lg, p, lg->sock, &lg->nsock, hi);
}

static void on_ib_none(struct ncl_log *lg, int hi, const char *p)
{
	(void)hi, (void)p;
	lg->ib_none = 1;
}

static void on_verbs_fail(struct ncl_log *lg, int hi, const char *p)
{
	(void)hi, (void)p;
	lg->ib_fail = 2;
}

/* "Failed to initialize NET plugin IB" (2.28+) */
static void on_ib_fail(struct ncl_log *lg, int hi, const char *p)
{
	(void)hi;
	if (ncl_starts(p, "IB") && !lg->ib_fail)
		lg->ib_fail = 1;
}

static void on_assigned(struct ncl_log *lg, int hi, const char *p)
{
	char name[NCL_NAME];
	const char *to = strstr(p, " to comm");

	if (!to)
		return;
	ncl_copy(name, sizeof(name), p, (size_t)(to - p));
	ncl_item_add(lg->networks, &lg->nnetworks, name, NULL, hi);
}

static void on_p2p_plugin(struct ncl_log *lg, int hi, const char *p)
{
	(void)hi;
	lg->plugin_loaded = 1;
	ncl_word(&p, lg->p2p_plugin, sizeof(lg->p2p_plugin), "");
}

static void on_ib_list_fn(struct ncl_log *lg, int hi, const char *p)
{
	if (ncl_starts(p, "interface ")) { /* 2.3 sideband: "Using interface IF for ..." */
		struct ncl_host *h = &lg->hosts[hi];

		p += 10;
		h->have_oob = 1;
		ncl_word(&p, h->oob, sizeof(h->oob), "");
		if (ncl_is_ipoib(h->oob))
			lg->ipoib_if = 1;
		return;
	}
	on_ib_list(lg, hi, p);
}

static void on_ib_dev_fn(struct ncl_log *lg, int hi, const char *p)
{
	on_ib_dev(lg, hi, p);
}

static void on_dmabuf(struct ncl_log *lg, int hi, const char *p)
{
	(void)hi, (void)p;
	lg->dmabuf_lines++;
}

static void on_network_fn(struct ncl_log *lg, int hi, const char *p)
{
	on_network(lg, hi, p);
}

static void on_distance_fn(struct ncl_log *lg, int hi, const char *p)
{
	on_distance(lg, hi, p);
}

static void on_env_invalid_fn(struct ncl_log *lg, int hi, const char *p)
{
	on_env_invalid(lg, hi, p);
}

static const struct {
	const char *prefix;
	ncl_text_fn fn;
} text_rules[] = {
	{ "NET/IB : Made virtual device ", ncl_on_vnic },
	{ "NET/IB : Using ", on_ib_list_fn },
	{ "NET/IB: Using ", on_ib_list_fn },
	{ "NET/IB: [", on_ib_dev_fn },
	{ "NET/IB : No device found", on_ib_none },
	{ "Net/IB: call to devices() returned 0 devices", on_ib_none },
	{ "NET/IB: No device found", on_ib_none },
	{ "NET/Socket : Using ", on_socket },
	{ "NET/Socket: Using ", on_socket },
	{ "Bootstrap : Using ", on_boot },
	{ "Bootstrap: Using ", on_boot },
	{ "NET : Using interface ", on_boot },
	{ "Using network ", on_network_fn },
	{ "Using internal Network ", on_network_fn },
	{ "Assigned NET plugin ", on_assigned },
	{ "Failed to open libibverbs", on_verbs_fail },
	{ "Failed to initialize NET plugin ", on_ib_fail },
	{ "P2P plugin ", on_p2p_plugin },
	{ "CUDA Dev ", on_distance_fn },
	{ "DMA-BUF is available on GPU device", on_dmabuf },
	{ "Invalid value ", on_env_invalid_fn },
};

void ncl_dispatch(struct ncl_log *lg, const struct ncl_rec *r)
{
	const char *msg = r->msg;
	int hi = ncl_host(lg, r->host);

	if (hi < 0)
		return;
	ncl_note_gpu(lg, hi, r);
	ncl_era_note(lg, r, hi);
	if (r->level == NCL_WARN) {
		on_warn(lg, hi, r);
		if (strstr(msg, "GDR disabled") || strstr(msg, "GDR is disabled"))
			lg->gdr_text_off = 1;
		return;
	}
	if (r->level != NCL_INFO)
		return;
	if (ncl_starts(msg, "NCCL version ")) {
		int v;

		add_version(lg, msg + 13, hi);
		if (!ncl_parse_version(msg + 13, &v))
			ncl_era_version(lg, r, hi, v);
		return;
	}
	if (ncl_starts(msg, "NCCL_")) {
		on_env(lg, hi, msg);
		return;
	}
	if (ncl_starts(msg, "NET/Plugin")) {
		on_plugin(lg, msg);
		return;
	}
	if (strstr(msg, "GPU Direct RDMA ") && ncl_on_gdr(lg, r, hi))
		return;
	if (ncl_starts(msg, "Channel ") || ncl_starts(msg, "Ring ")) {
		ncl_on_channel(lg, r, hi);
		return;
	}
	for (size_t i = 0; i < sizeof(text_rules) / sizeof(text_rules[0]); i++)
		if (ncl_starts(msg, text_rules[i].prefix)) {
			text_rules[i].fn(lg, hi, msg + strlen(text_rules[i].prefix));
			return;
		}
	if (strstr(msg, "GDR disabled"))
		lg->gdr_text_off = 1;
	if (ncl_on_net_count(lg, hi, msg) || ncl_on_comm(lg, r, hi))
		return;
	on_error(lg, hi, msg);
}
