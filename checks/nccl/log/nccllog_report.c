/* The check-log document: facts of the model as JSON (architecture.md). */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "core/out.h"
#include "checks/nccl/log/nccllog_int.h"

const char *ncl_fmt_bus(int64_t bus, char *buf, size_t len)
{
	if (bus < 0) {
		buf[0] = '\0';
		return buf;
	}
	snprintf(buf, len, "%04x:%02x:%02x.%x", (unsigned)(bus >> 20) & 0xffff,
		 (unsigned)(bus >> 12) & 0xff, (unsigned)(bus >> 4) & 0xff, (unsigned)bus & 0xf);
	return buf;
}

int64_t ncl_parse_bus(const char *s)
{
	int64_t v = 0;
	int n = 0, colons = 0, dots = 0;

	for (; *s; s++) {
		if (isxdigit((unsigned char)*s)) {
			int d = isdigit((unsigned char)*s) ? *s - '0' : tolower(*s) - 'a' + 10;

			if (++n > 12)
				return -1;
			v = v * 16 + d;
		} else if (*s == ':') {
			colons++;
		} else if (*s == '.') {
			dots++;
		} else {
			return -1;
		}
	}
	if (!n)
		return -1;
	if (colons && !dots) /* "0000:21:00": function 0 */
		v <<= 4;
	return v;
}

static const char *gdr_word(long on, long off)
{
	if (on && off)
		return "partial";
	if (on)
		return "on";
	if (off)
		return "off";
	return "unknown";
}

static void pick_network(const struct ncl_log *lg, struct ncl_facts *f)
{
	const struct ncl_env *ib = ncl_env_get(lg, "NCCL_IB_DISABLE");
	int v = 0;
	int late;

	if (lg->nversions)
		ncl_parse_version(lg->versions[0].text, &v);
	late = f->era_lo >= NCL_V(2, 4, 8) || v >= NCL_V(2, 4, 8);

	f->ib_disabled = ib && !strcmp(ib->value, "1");
	f->net_forced = ncl_env_get(lg, "NCCL_NET") != NULL;
	if (lg->nnetworks) {
		ncl_copy(f->network, sizeof(f->network), lg->networks[0].text,
			 strlen(lg->networks[0].text));
		f->net_source = 1;
	} else if (lg->chan_net[0]) {
		ncl_copy(f->network, sizeof(f->network), lg->chan_net, strlen(lg->chan_net));
		f->net_source = 2;
	} else if (f->list_host >= 0 && !lg->ib_none && !lg->ib_fail) {
		const char *n = lg->p2p_plugin[0] ? lg->p2p_plugin : "IB";

		ncl_copy(f->network, sizeof(f->network), n, strlen(n));
		f->net_source = 3;
	} else if (lg->socket_data &&
		   (lg->ib_none || lg->ib_fail || f->ib_disabled || lg->fabric_plugin_fail ||
		    lg->plugin_rejected ||
		    (late && f->list_host < 0))) {
		snprintf(f->network, sizeof(f->network), "Socket");
		f->net_source = 3;
	}
}

/*
 * One node: NCCL says so (nNodes 1, or a one-rank communicator), or the only
 * host, named, shows no NET channel and as many GPUs as the communicator has
 * ranks. An excerpt of one node of a bigger job stays "not known".
 */
static int single_node(const struct ncl_log *lg, const struct ncl_facts *f)
{
	if (lg->nnodes_max == 1 || lg->nranks_max == 1)
		return 1;
	if (lg->nnodes_max > 1 || lg->nhosts != 1 || !lg->hosts[0].name[0] || f->net_chans)
		return 0;
	return lg->nranks_max > 0 && lg->nranks_max <= ncl_host_gpus(lg, 0);
}

void ncl_facts(const struct ncl_log *lg, struct ncl_facts *f)
{
	long on = 0, off = 0;

	memset(f, 0, sizeof(*f));
	f->list_host = -1;
	for (int i = 0; i < lg->nhosts && f->list_host < 0; i++)
		if (lg->hosts[i].have_list && lg->hosts[i].nhcas)
			f->list_host = i;
	f->mixed_builds = ncl_era_summary(lg, &f->era_lo, &f->era_hi, f->mixed_why,
					  sizeof(f->mixed_why));
	pick_network(lg, f);
	if (f->list_host >= 0)
		for (int i = 0; i < lg->hosts[f->list_host].nhcas; i++) {
			const char *l = lg->hosts[f->list_host].hcas[i].link;

			f->nlinks_ib += !strcmp(l, "IB");
			f->nlinks_roce += !strcmp(l, "RoCE");
		}
	f->ib_attempted = f->list_host >= 0 || lg->ib_none || lg->ib_fail ||
			  lg->plugin_loaded || lg->fabric_plugin_fail || lg->plugin_rejected;
	f->ib_evident = f->list_host >= 0 || lg->ipoib_if || lg->fabric_plugin_fail ||
			lg->plugin_rejected;
	f->socket_fallback = !strcmp(f->network, "Socket") && f->ib_attempted &&
			     !f->ib_disabled && !f->net_forced;
	for (size_t i = 0; i < lg->nchans; i++) {
		if (lg->chans[i].t != NCL_T_NET)
			continue;
		f->net_chans++;
		f->net_gdr_chans += lg->chans[i].gdr;
	}
	f->single_node = single_node(lg, f);
	if (f->net_chans) {
		f->gdr = gdr_word(f->net_gdr_chans, f->net_chans - f->net_gdr_chans);
		return;
	}
	on = lg->hca_gdr_on + lg->gpu_gdr.enabled;
	off = lg->hca_gdr_off + lg->gpu_gdr.disabled;
	f->gdr = gdr_word(on, off);
	if (!on && !off && lg->gdr_text_off)
		f->gdr = "off";
}

static json_t *jstr_or_null(const char *s)
{
	return s && *s ? json_string(s) : json_null();
}

static json_t *hcas_json(const struct ncl_log *lg, const struct ncl_facts *f)
{
	json_t *a = json_array();
	const struct ncl_host *h;

	if (f->list_host < 0)
		return a;
	h = &lg->hosts[f->list_host];
	for (int i = 0; i < h->nhcas; i++) {
		const struct ncl_hca *c = &h->hcas[i];
		json_t *o = json_pack("{s:i, s:s, s:i, s:s}", "index", c->index, "name", c->name,
				      "port", c->port, "link", c->link);

		if (c->merged >= 0)
			json_object_set_new(o, "merged_into", json_integer(c->merged));
		if (ncl_hca_vdev(h, c) >= 0)
			json_object_set_new(o, "fused_into", json_integer(ncl_hca_vdev(h, c)));
		json_object_set_new(o, "net_dev", json_integer(ncl_hca_netdev(h, c)));
		if (c->ibv_index >= 0)
			json_object_set_new(o, "ibv_index", json_integer(c->ibv_index));
		if (c->sharp)
			json_object_set_new(o, "sharp", json_true());
		if (strlen(c->name) > 4 && !strcmp(c->name + strlen(c->name) - 4, "_dma"))
			json_object_set_new(o, "data_direct", json_true()); /* mlx5 Data Direct */
		if (c->speed_mbps > 0)
			json_object_set_new(o, "speed_mbps", json_integer(c->speed_mbps));
		json_object_set_new(o, "gdr", c->gdr < 0 ? json_null() :
					    json_string(c->gdr ? "on" : "off"));
		json_array_append_new(a, o);
	}
	return a;
}

static json_t *ranks_json(const struct ncl_log *lg)
{
	static const char *const init[] = { "unknown", "started", "complete" };
	json_t *a = json_array();
	char bus[32];

	for (int i = 0; i <= lg->max_rank && i < lg->ranks_cap; i++) {
		const struct ncl_rank *r = &lg->ranks[i];
		json_t *o;

		if (!r->present)
			continue;
		o = json_pack("{s:i}", "rank", i);
		json_object_set_new(o, "host", jstr_or_null(r->host >= 0 ?
								lg->hosts[r->host].name : NULL));
		json_object_set_new(o, "cuda_dev", r->cuda_dev >= 0 ? json_integer(r->cuda_dev) :
								      json_null());
		json_object_set_new(o, "nvml_dev", r->nvml_dev >= 0 ? json_integer(r->nvml_dev) :
								      json_null());
		json_object_set_new(o, "bus_id", jstr_or_null(ncl_fmt_bus(r->bus_id, bus,
									   sizeof(bus))));
		json_object_set_new(o, "init", json_string(init[r->init]));
		json_array_append_new(a, o);
	}
	return a;
}

static const char *transport_name(enum ncl_transport t)
{
	static const char *const n[] = { [NCL_T_NET] = "NET", [NCL_T_P2P] = "P2P",
					  [NCL_T_SHM] = "SHM", [NCL_T_COLLNET] = "COLLNET",
					  [NCL_T_OTHER] = "other" };
	return n[t];
}

static json_t *channels_json(const struct ncl_log *lg)
{
	static const char *const dir[] = { NULL, "send", "receive" };
	json_t *a = json_array();
	char hca[NCL_TEXT];

	for (size_t i = 0; i < lg->nchans; i++) {
		const struct ncl_chan *c = &lg->chans[i];
		int local = c->dir == 2 ? c->to : c->from;
		json_t *o = json_pack("{s:i, s:i, s:i, s:s, s:s}", "channel", c->channel,
				      "from_rank", c->from, "to_rank", c->to, "via", c->via,
				      "transport", transport_name(c->t));

		json_object_set_new(o, "conn", c->conn >= 0 ? json_integer(c->conn) : json_null());
		json_object_set_new(o, "direction", jstr_or_null(dir[c->dir]));
		json_object_set_new(o, "host", jstr_or_null(c->host >= 0 ?
								lg->hosts[c->host].name : NULL));
		json_object_set_new(o, "local_rank", json_integer(local));
		if (c->t == NCL_T_NET) {
			json_object_set_new(o, "net", json_string(c->net));
			json_object_set_new(o, "net_dev", json_integer(c->net_dev));
			json_object_set_new(o, "gdr", json_boolean(c->gdr));
			json_object_set_new(o, "hca", jstr_or_null(ncl_hca_of(lg, c->host, c->net_dev,
									      hca, sizeof(hca))));
			if (c->proxy >= 0)
				json_object_set_new(o, "proxy_rank", json_integer(c->proxy));
			if (c->shared)
				json_object_set_new(o, "shared", json_true());
		}
		json_array_append_new(a, o);
	}
	return a;
}

static json_t *items_json(const struct ncl_log *lg, const struct ncl_item *it, int n,
			  const char *tkey, const char *xkey)
{
	json_t *a = json_array();

	for (int i = 0; i < n; i++) {
		json_t *o = json_pack("{s:s, s:I}", tkey, it[i].text, "count",
				      (json_int_t)it[i].count);

		if (xkey)
			json_object_set_new(o, xkey, json_string(it[i].extra));
		json_object_set_new(o, "host", jstr_or_null(it[i].host >= 0 ?
								lg->hosts[it[i].host].name : NULL));
		json_array_append_new(a, o);
	}
	return a;
}

/* Input past the parser's limits (null when none): said, never dropped
 * without a word (the findings say it too). */
static json_t *cut_json(const struct ncl_log *lg)
{
	if (!lg->cut_host_lines && !lg->cut_proc_lines && !lg->cut_files)
		return json_null();
	return json_pack("{s:{s:i, s:I}, s:{s:i, s:I}, s:{s:i, s:I}}", "hosts", "limit",
			 NCL_MAX_HOSTS, "lines_not_read", (json_int_t)lg->cut_host_lines,
			 "processes", "limit", NCL_MAX_PROCS, "lines_not_placed",
			 (json_int_t)lg->cut_proc_lines, "files", "limit", NCL_MAX_FILES,
			 "not_listed", (json_int_t)lg->cut_files);
}

static json_t *texts_json(const struct ncl_item *it, int n)
{
	json_t *a = json_array();

	for (int i = 0; i < n; i++)
		json_array_append_new(a, json_string(it[i].text));
	return a;
}

static json_t *oob_json(const struct ncl_log *lg, const struct ncl_facts *f)
{
	const struct ncl_host *h;
	char ifname[NCL_TEXT];
	const char *sp;

	if (f->list_host < 0 || !lg->hosts[f->list_host].have_oob)
		return json_null();
	h = &lg->hosts[f->list_host];
	sp = strchr(h->oob, ' ');
	ncl_copy(ifname, sizeof(ifname), h->oob, sp ? (size_t)(sp - h->oob) : strlen(h->oob));
	return json_pack("{s:s, s:s}", "if", ifname, "addr", sp ? sp + 1 : "");
}

static json_t *env_json(const struct ncl_log *lg)
{
	json_t *o = json_object();

	for (int i = 0; i < lg->nenv; i++)
		json_object_set_new(o, lg->env[i].name, json_string(lg->env[i].value));
	return o;
}

static json_t *era_json(const struct ncl_facts *f)
{
	char lo[16], hi[16];

	if (!f->era_lo && !f->era_hi)
		return json_null();
	ncl_fmt_version(f->era_lo, lo, sizeof(lo));
	ncl_fmt_version(f->era_hi, hi, sizeof(hi));
	return json_pack("{s:s, s:s}", "from", f->era_lo ? lo : "2.3", "to", hi);
}

/*
 * The plugin that carries the traffic: the network when it is neither the
 * internal IB nor the socket transport; when the network is not shown, the
 * plugin that was loaded (and did not fail); none otherwise.
 */
static const char *plugin_of(const struct ncl_log *lg, const struct ncl_facts *f)
{
	if (f->network[0])
		return strcmp(f->network, "IB") && strcmp(f->network, "Socket") ? f->network :
										    NULL;
	if (lg->ib_none || lg->fabric_plugin_fail)
		return NULL;
	return lg->plugin[0] ? lg->plugin : lg->p2p_plugin;
}

static void add_facts(json_t *doc, const struct ncl_log *lg, const struct ncl_facts *f)
{
	json_t *dist = json_array(), *files = json_array();

	json_object_set_new(doc, "nccl_version",
			    lg->nversions ? json_string(lg->versions[0].text) : json_null());
	json_object_set_new(doc, "nccl_versions", texts_json(lg->versions, lg->nversions));
	json_object_set_new(doc, "nccl_era", era_json(f));
	json_object_set_new(doc, "network", jstr_or_null(f->network));
	json_object_set_new(doc, "networks", texts_json(lg->networks, lg->nnetworks));
	json_object_set_new(doc, "plugin", jstr_or_null(plugin_of(lg, f)));
	json_object_set_new(doc, "hcas", hcas_json(lg, f));
	json_object_set_new(doc, "oob", oob_json(lg, f));
	json_object_set_new(doc, "bootstrap", texts_json(lg->boot, lg->nboot));
	json_object_set_new(doc, "socket_ifs", texts_json(lg->sock, lg->nsock));
	json_object_set_new(doc, "nranks", lg->nranks_max > 0 ? json_integer(lg->nranks_max) :
								json_null());
	json_object_set_new(doc, "ranks", ranks_json(lg));
	json_object_set_new(doc, "channels", channels_json(lg));
	json_object_set_new(doc, "gdr", json_string(f->gdr));
	json_object_set_new(doc, "socket_fallback", json_boolean(f->socket_fallback));
	json_object_set_new(doc, "single_node", json_boolean(f->single_node));
	json_object_set_new(doc, "init_complete", json_boolean(lg->init_complete > 0));
	json_object_set_new(doc, "init_failed", json_boolean(lg->fatal && !lg->fatal_proxy));
	json_object_set_new(doc, "run_failed", json_boolean(lg->fatal_proxy));
	json_object_set_new(doc, "has_warn", json_boolean(lg->warn_lines > 0));
	json_object_set_new(doc, "warnings", items_json(lg, lg->warns, lg->nwarns, "message",
							"source"));
	json_object_set_new(doc, "errors", items_json(lg, lg->errs, lg->nerrs, "location",
						      "code"));
	json_object_set_new(doc, "env", env_json(lg));
	for (int i = 0; i < lg->ndist; i++)
		json_array_append_new(dist, json_pack("{s:s?, s:i, s:s?, s:s, s:i}", "host",
			lg->dist[i].host >= 0 && lg->hosts[lg->dist[i].host].name[0] ?
				lg->hosts[lg->dist[i].host].name : NULL,
			"cuda_dev", lg->dist[i].cuda_dev, "net",
			lg->dist[i].net[0] ? lg->dist[i].net : NULL, "distance", lg->dist[i].type,
			"nics", lg->dist[i].nnics));
	json_object_set_new(doc, "nic_distance", dist);
	for (int i = 0; i < lg->nfiles; i++)
		json_array_append_new(files, json_pack("{s:s, s:I}", "name", lg->files[i].text,
						       "nccl_lines", (json_int_t)lg->files[i].count));
	json_object_set_new(doc, "files", files);
	json_object_set_new(doc, "hosts", json_integer(lg->nhosts));
	json_object_set_new(doc, "cut", cut_json(lg));
	json_object_set_new(doc, "lines", json_integer((json_int_t)lg->lines));
	json_object_set_new(doc, "nccl_lines", json_integer((json_int_t)lg->nccl_lines));
}

json_t *ncl_log_report(const struct ncl_log *lg, const struct ncl_expect *exp)
{
	static const struct ncl_expect none;
	struct ncl_facts f;
	json_t *doc = fc_doc_new();

	if (!doc)
		return NULL;
	ncl_facts(lg, &f);
	add_facts(doc, lg, &f);
	ncl_findings(lg, &f, exp ? exp : &none, doc);
	ncl_busbw_report(lg, exp ? exp : &none, doc);
	return doc;
}
