/*
 * fabcheck preflight-probe: the node side of `preflight`. Gathers what the
 * controller compares across nodes into one JSON document on stdout: the
 * RDMA devices and ports (as `devices --json`), per device its firmware,
 * driver and driver version, per RoCE netdev its MTU and carrier changes,
 * the kernel, rdma-core (from libibverbs' file name), GPU modules, the
 * `topo --json` document, `mlnx_qos` output where the tool exists, per
 * HCA its firmware state and health reporters (`devlink dev info`,
 * `devlink health show`), and per netdev its module (`ethtool -m`).
 * Judging is the controller's (checks/preflight/preflight.c).
 */
#include <dlfcn.h>
#include <errno.h>
#include <infiniband/verbs.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "checks/preflight/preflight.h"
#include "core/opts.h"
#include "core/log.h"
#include "core/names.h"
#include "core/iplink.h"
#include "core/out.h"
#include "ctl/ibpeer.h"
#include "core/util.h"
#include "verbs/dev.h"
#include "src/cmds.h"
#include "ctl/child.h"
#include "ctl/nodesrc.h"
#include "diag/diag.h"

const char usage_preflight_probe[] =
	"usage: fabcheck preflight-probe [--json] [--no-topo] [--timeout T]\n"
	"\n"
	"The node side of 'fabcheck preflight' (started through the launcher):\n"
	"prints one JSON document describing this node's RDMA ports, versions,\n"
	"MTUs, GPU modules, topology and QoS settings. It judges nothing.\n";

/* Modules whose presence and version preflight reports. */
static const char *const probe_modules[] = {
	"ib_core", "ib_uverbs", "mlx5_core", "mlx5_ib", "rdma_rxe", "nvidia",
	"nvidia_peermem", "nv_peer_mem", "irdma", "bnxt_re",
};

/* The text of a sysfs file, or NULL when it cannot be read. */
static json_t *sysfs_str(const char *root, const char *fmt, const char *a, const char *b)
{
	char path[PATH_MAX], rel[512], val[256];

	snprintf(rel, sizeof(rel), fmt, a, b);
	snprintf(path, sizeof(path), "%s/%s", root, rel);
	if (fc_read_file(path, val, sizeof(val)) < 0)
		return json_null();
	return json_string(val);
}

static json_t *probe_modules_json(const char *root)
{
	json_t *o = json_object();

	for (size_t i = 0; i < FC_ARRAY_SIZE(probe_modules); i++) {
		char path[PATH_MAX], val[128];

		snprintf(path, sizeof(path), "%s/module/%s", root, probe_modules[i]);
		if (access(path, F_OK))
			continue;
		snprintf(path, sizeof(path), "%s/module/%s/version", root, probe_modules[i]);
		json_object_set_new(o, probe_modules[i],
				    fc_read_file(path, val, sizeof(val)) > 0 ? json_string(val) :
									    json_string(""));
	}
	return o;
}

/* libibverbs.so.1.14.44.0: rdma-core 44.0 (the file name carries it). */
static void probe_rdma_core(json_t *doc)
{
	Dl_info info;
	char real[PATH_MAX], *base;
	const char *v;

	if (!dladdr((void *)ibv_get_device_list, &info) || !info.dli_fname ||
	    !realpath(info.dli_fname, real)) {
		json_object_set_new(doc, "rdma_core", json_null());
		return;
	}
	base = basename(real);
	v = strstr(base, ".so.");
	json_object_set_new(doc, "libibverbs", json_string(v ? v + 4 : base));
	/* "1.14.44.0": the third field on is the rdma-core release. */
	if (v && (v = strchr(v + 4, '.')) && (v = strchr(v + 1, '.')))
		json_object_set_new(doc, "rdma_core", json_string(v + 1));
	else
		json_object_set_new(doc, "rdma_core", json_null());
}

/* The kernel driver of an RDMA device: its PCI driver's module, or the
 * software device's module. */
static void probe_driver(const char *root, json_t *hca, const char *dev, const char *kernel)
{
	char path[PATH_MAX], link[256], val[128];
	const char *drv = NULL;
	ssize_t n;

	snprintf(path, sizeof(path), "%s/class/infiniband/%s/device/driver/module", root, dev);
	n = readlink(path, link, sizeof(link) - 1);
	if (n > 0) {
		link[n] = 0;
		drv = strrchr(link, '/') ? strrchr(link, '/') + 1 : link;
	} else if (!strncmp(dev, "rxe", 3)) {
		drv = "rdma_rxe";
	} else if (!strncmp(dev, "siw", 3)) {
		drv = "siw";
	}
	json_object_set_new(hca, "driver", drv ? json_string(drv) : json_null());
	if (!drv)
		return;
	snprintf(path, sizeof(path), "%s/module/%s/version", root, drv);
	if (fc_read_file(path, val, sizeof(val)) > 0) {
		json_object_set_new(hca, "driver_version", json_string(val));
	} else {
		/* An in-tree driver: its version is the kernel's. */
		snprintf(val, sizeof(val), "in-tree (kernel %s)", kernel);
		json_object_set_new(hca, "driver_version", json_string(val));
	}
}

/* A replayed capture without the netdev's sysfs files (its sysfs copy
 * stopped at its bound, or a bundle put together from another tool's
 * record): the MTU and operational state from its recorded `ip -j link`
 * (core/iplink.c), the same kernel attributes; "from" says so. Live, sysfs
 * has them and ip is not run. */
static void netdev_from_ip(struct fc_src *s, json_t *o, const char *ifname)
{
	static const char *const keys[] = { "mtu", "operstate" };
	const char *argv[] = { "ip", "-j", "link", NULL };
	char why[256], *out;
	int code = -1;
	json_t *l;

	if (!s->from || (json_object_get(o, "mtu") && json_object_get(o, "operstate")))
		return;
	out = fc_src_cmd(s, argv, 0, &code, why, sizeof(why));
	l = out && !code ? fc_ip_link(out, ifname) : NULL;
	free(out);
	if (!l)
		return;
	for (size_t i = 0; i < FC_ARRAY_SIZE(keys); i++)
		if (!json_object_get(o, keys[i]) && json_object_get(l, keys[i]))
			json_object_set(o, keys[i], json_object_get(l, keys[i]));
	json_object_set_new(o, "from", json_string("ip -j link (recorded)"));
	json_decref(l);
}

static json_t *probe_netdev(struct fc_src *s, const char *ifname)
{
	const char *root = s->sys;
	json_t *o = json_pack("{s:s}", "name", ifname);
	char path[PATH_MAX], val[64];

	snprintf(path, sizeof(path), "%s/class/net/%s/mtu", root, ifname);
	if (fc_read_file(path, val, sizeof(val)) > 0)
		json_object_set_new(o, "mtu", json_integer(atoi(val)));
	snprintf(path, sizeof(path), "%s/class/net/%s/carrier_changes", root, ifname);
	if (fc_read_file(path, val, sizeof(val)) > 0)
		json_object_set_new(o, "carrier_changes", json_integer(atoll(val)));
	/* Times the carrier came up (Linux >= 4.16, net/core/net-sysfs.c;
	 * counted only on a no-carrier -> carrier change, netif_carrier_on in
	 * net/sched/sch_generic.c): 0 on a port that never had a link since
	 * the netdev was made, which carrier_changes (down changes too) cannot
	 * tell. health reads it as evidence that a port was in use. */
	snprintf(path, sizeof(path), "%s/class/net/%s/carrier_up_count", root, ifname);
	if (fc_read_file(path, val, sizeof(val)) > 0)
		json_object_set_new(o, "carrier_up_count", json_integer(atoll(val)));
	snprintf(path, sizeof(path), "%s/class/net/%s/operstate", root, ifname);
	if (fc_read_file(path, val, sizeof(val)) > 0)
		json_object_set_new(o, "operstate", json_string(val));
	netdev_from_ip(s, o, ifname);
	return o;
}

/* What a probe may spend: each tool @timeout, all of them together until
 * @deadline (fc_now; 0: none). A tool that ran out is listed in @doc's
 * "ran_out": what it would have read was not checked. */
struct pf_budget {
	double timeout, deadline;
	json_t *doc;
};

/* The time @tool may take now; 0 after saying it is not started. */
static double budget_for(const struct pf_budget *b, const char *tool)
{
	double left = b->deadline > 0 ? b->deadline - fc_now() : b->timeout;

	if (left >= 0.5)
		return left < b->timeout ? left : b->timeout;
	json_array_append_new(json_object_get(b->doc, "ran_out"),
			      json_sprintf("%s: not started, the deadline was spent", tool));
	return 0;
}

/* A tool that gave no answer in its budget (ctl/child.c's words). */
static void ran_out(const struct pf_budget *b, const char *why)
{
	if (strstr(why, "no answer within"))
		json_array_append_new(json_object_get(b->doc, "ran_out"), json_string(why));
}

/* `mlnx_qos -i IF` where the tool exists; a skip with its reason where not. */
static json_t *probe_qos_json(struct fc_src *s, const char *ifname, const struct pf_budget *b)
{
	const char *argv[] = { "mlnx_qos", "-i", ifname, NULL };
	double timeout = budget_for(b, "mlnx_qos");
	char why[512];
	json_t *o;
	char *out;
	int code;

	if (!timeout)
		return json_pack("{s:s}", "skip", "not started: the deadline was spent");
	out = fc_src_cmd(s, argv, timeout, &code, why, sizeof(why));
	if (!out) {
		ran_out(b, why);
		return json_pack("{s:s}", "skip", why);
	}
	if (code == 127) {
		free(out);
		return json_pack("{s:s}", "skip",
				 "mlnx_qos is not installed on the node (it comes with MLNX_OFED)");
	}
	if (code)
		o = json_pack("{s:s, s:i}", "error", *why ? why : "mlnx_qos failed", "exit", code);
	else
		o = json_pack("{s:s, s:s}", "tool", "mlnx_qos", "text", out);
	free(out);
	return o;
}

/* The text of @argv (devlink), or NULL, said in "ran_out" when it ran out. */
static char *probe_tool(struct fc_src *s, const char *const *argv, const struct pf_budget *b)
{
	double timeout = budget_for(b, argv[0]);
	char why[512];
	char *out;
	int code;

	if (!timeout)
		return NULL;
	out = fc_src_cmd(s, argv, timeout, &code, why, sizeof(why));
	if (!out)
		ran_out(b, why);
	return out;
}

/*
 * The module of port @p of @dev, whose netdev @net is: `ethtool -m` read
 * (diag/parse_module.c) into the readings the same port on other nodes is
 * compared with (diag_module_readings) and what the module says of itself
 * and of the port's rate (pf_module_facts, with what the HCA and its link
 * partner support: `ethtool IF`'s link modes, diag/linkmodes.c), as
 * "module" of the netdev, with its "device" and "port"; "skip" with the
 * reason where none was read. Judged by pf_module.c.
 */
static void probe_module(struct fc_src *s, json_t *net, const char *dev, const json_t *p,
			 const struct pf_budget *b)
{
	const char *nd = fc_jstr(net, "name", "");
	const char *argv[] = { "ethtool", "-m", nd, NULL };
	double timeout = budget_for(b, "ethtool -m");
	char why[512] = "", pn[48];
	struct diag_module m;
	json_t *o;
	char *out;
	int code = -1;

	if (!timeout || !fc_name_ok(FC_NAME_NETDEV, nd))
		return;
	out = fc_src_cmd(s, argv, timeout, &code, why, sizeof(why));
	if (!out)
		ran_out(b, why);
	if (!out || code || diag_parse_module(out, &m)) {
		o = json_pack("{s:s}", "skip", !out || code ? (*why ? why : "ethtool -m failed") :
					       "ethtool -m printed no monitor readings");
	} else {
		const char *largv[] = { "ethtool", nd, NULL };
		char *lt = probe_tool(s, largv, b);
		struct diag_link l;
		int lk = lt && !diag_parse_link(lt, &l);

		free(lt);
		diag_module_pn(out, pn, sizeof(pn));
		diag_module_judge(&m, atoi(fc_jstr(p, "width", "0")));
		o = diag_module_readings(&m, pn);
		pf_module_facts(o, &m, p, lk ? &l : NULL);
	}
	free(out);
	json_object_set_new(o, "device", json_string(dev));
	json_object_set_new(o, "port", json_integer((json_int_t)fc_jnum(p, "port", 0)));
	json_object_set_new(net, "module", o);
}

/* The PCI function of RDMA device @dev (its sysfs "device" link's last
 * part, "0000:85:00.0") into @bdf; 0, or -1 for a device with none. */
static int hca_bdf(const char *root, const char *dev, char *bdf, size_t len)
{
	char path[PATH_MAX], link[PATH_MAX];
	const char *b;
	ssize_t n;

	snprintf(path, sizeof(path), "%s/class/infiniband/%s/device", root, dev);
	n = readlink(path, link, sizeof(link) - 1);
	if (n <= 0)
		return -1;
	link[n] = 0;
	b = strrchr(link, '/') ? strrchr(link, '/') + 1 : link;
	if (strlen(b) != 12 || strspn(b, "0123456789abcdef:.") != 12 || b[4] != ':' || b[7] != ':')
		return -1;
	snprintf(bdf, len, "%s", b);
	return 0;
}

/*
 * Each HCA's firmware state and health reporters, where it is a PCI
 * function: its entry of `devlink dev info` ("psid", "running", "stored")
 * and its reporters of `devlink health show` (the card's pci/BDF, its
 * ports' pci/BDF/N) as "devlink" of the HCA; judged by pf_fwstate.c.
 */
#define FC_PROBE_HCAS 64 /* HCAs whose devlink state is read */
static void probe_devlink(struct fc_src *s, json_t *hcas, const struct pf_budget *b)
{
	static const char *const info_argv[] = { "devlink", "dev", "info", NULL };
	static const char *const health_argv[] = { "devlink", "health", "show", NULL };
	char *info_t = NULL, *health_t = NULL;
	json_t *info, *health, *h, *r;
	size_t i, k;

	char bdfs[FC_PROBE_HCAS][16];
	size_t nh = json_array_size(hcas) < FC_PROBE_HCAS ? json_array_size(hcas) : FC_PROBE_HCAS;
	int any = 0;

	for (i = 0; i < nh; i++) {
		if (hca_bdf(s->sys, fc_jstr(json_array_get(hcas, i), "name", ""), bdfs[i],
			    sizeof(bdfs[i])))
			bdfs[i][0] = 0;
		any |= bdfs[i][0] != 0;
	}
	if (!any)
		return; /* no PCI function: software devices only */
	info_t = probe_tool(s, info_argv, b);
	health_t = probe_tool(s, health_argv, b);
	info = diag_parse_devlink_info(info_t);
	health = diag_parse_devlink(health_t);
	for (i = 0; i < nh && (h = json_array_get(hcas, i)); i++) {
		const char *bdf = bdfs[i][0] ? bdfs[i] : NULL;
		const json_t *e = bdf ? diag_devlink_find(info, bdf) : NULL;
		json_t *dl = e ? json_deep_copy(e) : json_object(), *rep = json_array();
		char handle[64];
		size_t hl;

		hl = (size_t)snprintf(handle, sizeof(handle), "pci/%s", bdf ? bdf : "");
		json_array_foreach(health, k, r) {
			const char *rh = fc_jstr(r, "handle", "");

			if (bdf && !strncmp(rh, handle, hl) && (!rh[hl] || rh[hl] == '/'))
				json_array_append(rep, r);
		}
		if (json_array_size(rep))
			json_object_set_new(dl, "health", rep);
		else
			json_decref(rep);
		if (json_object_size(dl))
			json_object_set_new(h, "devlink", dl);
		else
			json_decref(dl);
	}
	json_decref(info);
	json_decref(health);
	free(info_t);
	free(health_t);
}

/* `fabcheck topo --json` of this node (of the capture: `--from` it), with
 * its exit code. */
static void probe_topo(struct fc_src *s, json_t *doc, const struct pf_budget *b)
{
	const char *argv[] = { fc_self_exe(), "topo", "--json", s->from ? "--from" : NULL,
			       s->from ? s->from->root : NULL, NULL };
	char why[512];
	json_t *topo;
	char *out;
	int code;

	double timeout = budget_for(b, "fabcheck topo");

	if (!timeout) {
		json_object_set_new(doc, "topo_error", json_string("not started: the deadline was spent"));
		return;
	}
	out = fc_capture(argv, timeout, &code, why, sizeof(why));
	if (!out)
		ran_out(b, why);
	topo = out ? json_loads(out, 0, NULL) : NULL;
	free(out);
	json_object_set_new(doc, "topo_exit", json_integer(code));
	if (!topo) {
		json_object_set_new(doc, "topo_error",
				    json_string(*why ? why : "fabcheck topo gave no JSON document"));
		return;
	}
	json_object_set_new(doc, "topo", topo);
}

/*
 * The HCA's PCIe link: sysfs's current_link_* and max_link_* (diag/live.c).
 * A capture without them (its sysfs copy stopped at its bound, doc/capture.md)
 * still holds `lspci -vvv -s BDF` of the HCA, the same registers printed
 * (diag/lspci.c): judged from that, "from" saying so. Live, those sysfs
 * files are what lspci would read, so lspci is not run for them.
 */
static json_t *probe_pcie(struct fc_src *s, const char *name)
{
	json_t *pc = diag_hca_pcie_json(s->sys, name);
	char link[PATH_MAX], target[PATH_MAX], why[256], *out;
	const char *bdf;
	struct diag_pcie d;
	ssize_t n;
	int code = -1;

	if (!json_is_null(pc) || !s->from)
		return pc;
	snprintf(link, sizeof(link), "%s/class/infiniband/%s/device", s->sys, name);
	n = readlink(link, target, sizeof(target) - 1);
	if (n <= 0)
		return pc;
	target[n] = 0;
	bdf = strrchr(target, '/') ? strrchr(target, '/') + 1 : target;
	if (!fc_name_ok(FC_NAME_BDF, bdf))
		return pc;
	const char *argv[] = { "lspci", "-vvv", "-s", bdf, NULL };

	out = fc_src_cmd(s, argv, 1.0, &code, why, sizeof(why));
	if (out && !code && !diag_parse_lspci_link(out, &d)) {
		snprintf(d.bdf, sizeof(d.bdf), "%.*s", (int)sizeof(d.bdf) - 1, bdf);
		json_decref(pc);
		pc = diag_pcie_json(&d);
		json_object_set_new(pc, "from", json_string("lspci -vvv"));
	}
	free(out);
	return pc;
}

static void probe_hcas(struct fc_src *s, json_t *doc, const json_t *devs, const char *kernel,
		       const struct pf_budget *b)
{
	json_t *hcas = json_array(), *netdevs = json_object(), *qos = json_object();
	size_t i, j;
	json_t *d, *p;

	json_array_foreach(devs, i, d) {
		const char *name = fc_jstr(d, "name", "?");
		json_t *h = json_pack("{s:s, s:O}", "name", name, "fw_ver",
				      json_object_get(d, "fw_ver"));

		json_object_set_new(h, "hca_type", sysfs_str(s->sys, "class/infiniband/%s/hca_type%s",
							     name, ""));
		json_object_set_new(h, "board_id", sysfs_str(s->sys, "class/infiniband/%s/board_id%s",
							     name, ""));
		probe_driver(s->sys, h, name, kernel);
		json_object_set_new(h, "pcie", probe_pcie(s, name));
		json_array_append_new(hcas, h);
		json_array_foreach(json_object_get(d, "ports"), j, p) {
			const char *nd = fc_jstr(p, "netdev", "");

			if (!*nd || json_object_get(netdevs, nd))
				continue;
			json_object_set_new(netdevs, nd, probe_netdev(s, nd));
			probe_module(s, json_object_get(netdevs, nd), name, p, b);
			if (!strcmp(fc_jstr(p, "link_layer", ""), "Ethernet"))
				json_object_set_new(qos, nd, probe_qos_json(s, nd, b));
		}
	}
	probe_devlink(s, hcas, b);
	json_object_set_new(doc, "hcas", hcas);
	json_object_set_new(doc, "netdevs", netdevs);
	json_object_set_new(doc, "qos", qos);
}

struct probe_args {
	double timeout;
	int no_topo;
};

#define FC_OPT_T struct probe_args
static const struct fc_opts probe_spec = {
	.opt = (const struct fc_opt[]){
		FCO_FLAG("no-topo", 0, no_topo),
		FCO_DURATION("timeout", 0, timeout, 1, 600),
		FCO_JSON,
		{ 0 },
	},
	.cmd = "preflight-probe", .usage = usage_preflight_probe, .no_args = "",
};

/* The facts of the node that sysfs and the tools do not give: its name,
 * kernel and rdma-core; recorded in a capture as node.json. */
static json_t *probe_node_facts(struct fc_src *s)
{
	const char *rel = "node.json";
	char host[256] = "?", why[256];
	struct utsname u;
	size_t len;
	json_t *doc;
	char *text;
	int code;

	if (s->from) {
		text = fc_bundle_read(s->from, rel, &len, &code, why, sizeof(why));
		doc = text ? json_loadb(text, len, 0, NULL) : NULL;
		free(text);
		return json_is_object(doc) ? doc : json_pack("{s:s, s:s}", "host", "?", "kernel", "?");
	}
	gethostname(host, sizeof(host) - 1);
	if (uname(&u))
		snprintf(u.release, sizeof(u.release), "?");
	doc = json_pack("{s:s, s:s}", "host", host, "kernel", u.release);
	probe_rdma_core(doc);
	if (s->rec && (text = json_dumps(doc, JSON_INDENT(1) | JSON_PRESERVE_ORDER))) {
		fc_bw_put(s->rec, rel, text, strlen(text), "gethostname, uname, libibverbs' file name",
			  -1);
		free(text);
	}
	return doc;
}

json_t *pf_probe_doc_src(struct fc_src *s, double timeout, int no_topo)
{
	return pf_probe_doc_by(s, timeout, 0, no_topo);
}

json_t *pf_probe_doc_by(struct fc_src *s, double timeout, double deadline, int no_topo)
{
	const char *why = NULL, *kernel;
	json_t *doc, *devs, *facts = probe_node_facts(s);
	struct pf_budget b = { .timeout = timeout, .deadline = deadline };

	kernel = fc_jstr(facts, "kernel", "?");
	doc = json_pack("{s:i, s:O, s:s, s:s}", "probe", 1, "host", json_object_get(facts, "host"),
			"fabcheck", FC_VERSION, "kernel", kernel);
	json_object_set(doc, "libibverbs", json_object_get(facts, "libibverbs"));
	json_object_set(doc, "rdma_core", json_object_get(facts, "rdma_core"));
	if (!json_object_get(doc, "libibverbs"))
		json_object_del(doc, "libibverbs");
	json_object_set_new(doc, "modules", probe_modules_json(s->sys));
	devs = fc_src_devices(s, &why);
	if (!devs) {
		json_object_set_new(doc, "devices_error", json_string(why));
		devs = json_array();
	}
	json_object_set_new(doc, "devices", devs);
	fc_ib_switches_add_src(s, devs, doc);
	b.doc = doc;
	json_object_set_new(doc, "ran_out", json_array());
	probe_hcas(s, doc, devs, kernel, &b);
	if (!no_topo)
		probe_topo(s, doc, &b);
	if (!json_array_size(json_object_get(doc, "ran_out")))
		json_object_del(doc, "ran_out");
	json_decref(facts);
	return doc;
}

json_t *pf_probe_doc(double timeout, int no_topo)
{
	struct fc_src live;

	fc_src_live(&live, NULL);
	return pf_probe_doc_src(&live, timeout, no_topo);
}

int cmd_preflight_probe(struct fc_ctx *ctx, int argc, char **argv)
{
	struct probe_args a = { .timeout = 20 };

	if (fc_opts_parse(ctx, &probe_spec, &a, argc, argv))
		return FC_EXIT_USAGE;
	/* Always JSON: the controller reads it. */
	ctx->json = 1;
	return fc_emit(ctx, pf_probe_doc(a.timeout, a.no_topo), NULL);
}
