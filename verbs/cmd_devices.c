/* fabcheck devices: the RDMA devices and ports of this host. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "core/bundle.h"
#include "core/opts.h"
#include "core/log.h"
#include "core/out.h"
#include "verbs/dev.h"
#include "src/cmds.h"

void (*vb_devices_peer_hook)(json_t *devices, json_t *doc);
json_t *(*vb_devices_from_hook)(struct fc_bundle *b, char *why, size_t whylen);

const char usage_devices[] =
	"usage: fabcheck devices [--from BUNDLE] [--json]\n"
	"\n"
	"Lists this host's RDMA devices: for each port its state, link layer,\n"
	"active MTU, active rate in Gb/s (from width and speed), the GID table with\n"
	"types (IB, RoCE v1, RoCE v2) and the GID a test would use. On InfiniBand,\n"
	"where smpquery (infiniband-diags) has umad access, the switch each port\n"
	"reaches (its node GUID), by which rails are matched.\n"
	"\n"
	"  --from BUNDLE  the devices a node capture recorded (fabcheck capture; a\n"
	"                 folder or .tar.gz) instead of this host's\n"
	"  -j, --json     one JSON document on stdout\n"
	"  -h, --help     this text\n"
	"\n"
	"A table wider than the terminal (COLUMNS, else 100) is folded, never\n"
	"cut: the columns that do not fit go on the next line of each port.\n"
	"\n"
	"Exit: 0 every port active, 1 a port not active, 3 no RDMA device.\n";

static void render_devices(FILE *f, const json_t *doc)
{
	const json_t *devs = json_object_get(doc, "devices");
	struct fc_table *t;
	size_t i, j, k;
	json_t *d, *p, *g;

	fprintf(f, "host %s\n\n", fc_jstr(doc, "host", "?"));
	t = fc_table_new(10, "DEVICE", "PORT", "STATE", "LINK", "MTU", "RATE", "NETDEV",
			 "GID IDX", "GID", "PAYLOAD CEILING");
	fc_table_whole(t); /* a rate, a GID, a ceiling: never cut in half */
	json_array_foreach(devs, i, d) {
		json_array_foreach(json_object_get(d, "ports"), j, p) {
			fc_table_row(t);
			fc_table_addf(t, 0, "%s", fc_jstr(d, "name", "?"));
			fc_table_addf(t, 1, "%d", (int)fc_jnum(p, "port", 0));
			fc_table_addf(t, 2, "%s", fc_jstr(p, "state", "?"));
			fc_table_addf(t, 3, "%s", fc_jstr(p, "link_layer", "?"));
			fc_table_addf(t, 4, "%d B", (int)fc_jnum(p, "active_mtu", 0));
			fc_table_addf(t, 5, "%g Gb/s (%s %s)", fc_jnum(p, "rate_gbps", 0),
				      fc_jstr(p, "width", "?"), fc_jstr(p, "speed", "?"));
			fc_table_addf(t, 6, "%s", *fc_jstr(p, "netdev", "") ?
							  fc_jstr(p, "netdev", "") : "-");
			fc_table_addgid(t, 7, p, "none usable");
			if (json_is_number(json_object_get(p, "payload_gbps")))
				fc_table_addf(t, 9, "%.3f Gb/s at %d B", fc_jnum(p, "payload_gbps", 0),
					      (int)fc_jnum(p, "active_mtu", 0));
			else
				fc_table_addf(t, 9, "-");
		}
	}
	fc_table_print(t, f, "");
	fc_table_free(t);
	json_array_foreach(devs, i, d) {
		json_array_foreach(json_object_get(d, "ports"), j, p) {
			fprintf(f, "\n%s port %d GID table:\n", fc_jstr(d, "name", "?"),
				(int)fc_jnum(p, "port", 0));
			t = fc_table_new(4, "IDX", "GID", "TYPE", "NETDEV");
			fc_table_whole(t);
			json_array_foreach(json_object_get(p, "gids"), k, g) {
				fc_table_row(t);
				fc_table_addf(t, 0, "%d", (int)fc_jnum(g, "index", 0));
				fc_table_addf(t, 1, "%s", fc_jstr(g, "gid", ""));
				fc_table_addf(t, 2, "%s", fc_jstr(g, "type", ""));
				fc_table_addf(t, 3, "%s", *fc_jstr(g, "netdev", "") ?
								  fc_jstr(g, "netdev", "") : "-");
			}
			fc_table_print(t, f, "  ");
			fc_table_free(t);
		}
	}
}

struct devices_opts {
	const char *from;
};

#define FC_OPT_T struct devices_opts
static const struct fc_opts devices_spec = {
	.opt = (const struct fc_opt[]){
		FCO_STR("from", 0, from),
		FCO_JSON,
		{ 0 },
	},
	.cmd = "devices", .usage = usage_devices, .no_args = "it takes no arguments",
};

/* The devices the capture @from recorded, its host into @host. */
static json_t *devices_from(const char *from, char *host, size_t hlen, char *why, size_t wlen)
{
	struct fc_bundle *b = fc_bundle_open(from, why, wlen);
	json_t *devs;

	if (!b)
		return NULL;
	snprintf(host, hlen, "%s", fc_bundle_str(b, "host", "?"));
	devs = vb_devices_from_hook ? vb_devices_from_hook(b, why, wlen) : NULL;
	fc_bundle_close(b);
	return devs;
}

int cmd_devices(struct fc_ctx *ctx, int argc, char **argv)
{
	struct devices_opts o = { 0 };
	char host[256] = "?", from_why[1024] = "";
	const char *why = NULL;
	json_t *doc, *devs;
	size_t i, j;
	json_t *d, *p;

	if (fc_opts_parse(ctx, &devices_spec, &o, argc, argv))
		return FC_EXIT_USAGE;
	if (o.from) {
		devs = devices_from(o.from, host, sizeof(host), from_why, sizeof(from_why));
		why = from_why;
	} else {
		gethostname(host, sizeof(host) - 1);
		devs = vb_devices_json(&why);
	}
	if (!devs && o.from) {
		fc_err("--from %s", why);
		return FC_EXIT_CANT;
	}
	if (!devs) {
		fc_err("%s on %s: load the HCA driver (for example modprobe mlx5_ib), "
		       "or add a Soft-RoCE device (rdma link add rxe0 type rxe netdev eth0), "
		       "or run on a node of the rack (fabcheck lab up)", why, host);
		if (ctx->json) {
			doc = fc_doc_new();
			json_object_set_new(doc, "host", json_string(host));
			json_object_set_new(doc, "devices", json_array());
			fc_finding(doc, FC_FAIL, "%s on %s", why, host);
			fc_emit(ctx, doc, NULL);
		}
		return FC_EXIT_CANT;
	}
	doc = fc_doc_new();
	json_object_set_new(doc, "host", json_string(host));
	json_object_set_new(doc, "devices", devs);
	if (vb_devices_peer_hook && !o.from)
		vb_devices_peer_hook(devs, doc);
	json_array_foreach(devs, i, d) {
		json_array_foreach(json_object_get(d, "ports"), j, p) {
			const char *dev = fc_jstr(d, "name", "?");
			int port = (int)fc_jnum(p, "port", 0);

			if (strcmp(fc_jstr(p, "state", ""), "ACTIVE"))
				fc_finding(doc, FC_FAIL,
					   "%s port %d on %s is %s: check the cable and the switch port, then 'ip link' for RoCE netdevs",
					   dev, port, host, fc_jstr(p, "state", "?"));
			else if (!json_is_integer(json_object_get(p, "gid_index")))
				fc_finding(doc, FC_FAIL,
					   "%s port %d on %s has no usable GID: give its netdev an IP address",
					   dev, port, host);
			else if (!strcmp(fc_jstr(p, "link_layer", ""), "Ethernet") &&
				 strcmp(fc_jstr(p, "gid_type", ""), "RoCE v2"))
				fc_finding(doc, FC_WARN,
					   "%s port %d on %s has no RoCE v2 GID: RoCE v1 is not routable; enable RoCE v2 on the HCA",
					   dev, port, host);
		}
	}
	return fc_emit(ctx, doc, render_devices);
}
