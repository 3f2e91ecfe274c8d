/* Findings only sysfs can give: PCIe links, ACS, peermem, RoCE netdevs,
 * and the NCCL settings that come from netdevs and GIDs. */
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "core/fc.h"
#include "core/out.h"
#include "core/util.h"
#include "topo/topo_report.h"

static const char *dev_label(const struct topo_dev *d, char *buf, size_t len)
{
	if (strcmp(d->name, d->bdf))
		snprintf(buf, len, "%s (%s)", d->name, d->bdf);
	else
		snprintf(buf, len, "%s %s", d->kind == TOPO_KIND_BRIDGE ? "bridge" : "device",
			 d->bdf);
	return buf;
}

/* Link of @d against its own maximum and what its upstream port allows. */
static void check_link(const struct topo *t, const struct topo_dev *d, json_t *doc)
{
	const struct topo_dev *up = d->depth ? topo_find(t, d->chain[d->depth - 1]) : NULL;
	double want_gts = d->link.max_gts;
	int want_w = d->link.max_width;
	char lbl[64];

	if (up && up->link.max_gts > 0 && up->link.max_gts < want_gts)
		want_gts = up->link.max_gts;
	if (up && up->link.max_width > 0 && up->link.max_width < want_w)
		want_w = up->link.max_width;
	dev_label(d, lbl, sizeof(lbl));
	if (d->link.cur_width > 0 && d->link.cur_width < want_w)
		fc_finding(doc, FC_WARN,
			   "PCIe link of %s trained at x%d of x%d: reseat the card, check the riser and the slot (and BIOS lane bifurcation)",
			   lbl, d->link.cur_width, want_w);
	if (d->link.cur_gts <= 0 || d->link.cur_gts >= want_gts)
		return;
	if (d->kind == TOPO_KIND_GPU)
		fc_finding(doc, FC_PASS,
			   "PCIe link of %s at %g GT/s of %g GT/s: GPUs slow the link when idle; check again under load (nvidia-smi -q -d PCIE), and reseat or check the riser if it stays low",
			   lbl, d->link.cur_gts, want_gts);
	else
		fc_finding(doc, FC_WARN,
			   "PCIe link of %s trained at %g GT/s of %g GT/s: reseat the card, check the riser and the slot, and the BIOS PCIe speed setting",
			   lbl, d->link.cur_gts, want_gts);
}

static int seen_add(const struct topo_dev **seen, int *n, int max, const struct topo_dev *d)
{
	for (int i = 0; i < *n; i++)
		if (seen[i] == d)
			return 0;
	if (*n < max)
		seen[(*n)++] = d;
	return 1;
}

static void check_links(const struct topo *t, json_t *doc)
{
	const struct topo_dev *seen[512];
	int n = 0;

	for (int i = 0; i < t->ndevs; i++) {
		const struct topo_dev *d = &t->devs[i];

		if (d->kind != TOPO_KIND_GPU && d->kind != TOPO_KIND_NIC)
			continue;
		for (int k = 0; k < d->depth; k++) {
			const struct topo_dev *br = topo_find(t, d->chain[k]);

			if (br && seen_add(seen, &n, 512, br))
				check_link(t, br, doc);
		}
		if (seen_add(seen, &n, 512, d))
			check_link(t, d, doc);
	}
}

static void acs_pair(const struct topo *t, const struct topo_dev *a, const struct topo_dev *b,
		     const struct topo_dev **seen, int *nseen, int *unknown, json_t *doc)
{
	const struct topo_dev *br[TOPO_MAX_DEPTH * 2];
	int n = topo_acs_on_path(t, a, b, TOPO_ACS_P2P_BREAKING, br, TOPO_MAX_DEPTH * 2);
	enum topo_dist d = topo_dev_distance(a, b);

	if (d != TOPO_PIX && d != TOPO_PXB)
		return;
	for (int k = 0; k < a->depth; k++) {
		const struct topo_dev *x = topo_find(t, a->chain[k]);

		*unknown += x && !x->acs_known && seen_add(seen, nseen, 512, x);
	}
	for (int i = 0; i < n; i++) {
		if (!seen_add(seen, nseen, 512, br[i]))
			continue;
		fc_finding(doc, FC_WARN,
			   "ACS redirect is on at bridge %s (control 0x%02x%s%s%s) between %s and %s: peer-to-peer traffic (GPUDirect RDMA, GPU P2P) is sent up to the root complex, slow or failing with the IOMMU on; turn ACS off in the BIOS, or run 'setpci -s %s ECAP_ACS+6.w=0000' at every boot",
			   br[i]->bdf, br[i]->acs_ctl,
			   br[i]->acs_ctl & TOPO_ACS_RR ? " ReqRedir" : "",
			   br[i]->acs_ctl & TOPO_ACS_CR ? " CmpltRedir" : "",
			   br[i]->acs_ctl & TOPO_ACS_EC ? " EgressCtrl" : "", a->name, b->name,
			   br[i]->bdf);
	}
}

static void check_acs(const struct topo *t, json_t *doc)
{
	const struct topo_dev *seen[512];
	int nseen = 0, unknown = 0;

	for (int g = 0; g < t->ngpus; g++) {
		const struct topo_dev *gpu = topo_gpu(t, g);

		for (int b = 0; b < t->nnics; b++)
			acs_pair(t, gpu, topo_nic(t, b), seen, &nseen, &unknown, doc);
		for (int h = g + 1; h < t->ngpus; h++)
			acs_pair(t, gpu, topo_gpu(t, h), seen, &nseen, &unknown, doc);
	}
	if (unknown)
		fc_finding(doc, FC_PASS,
			   "ACS state of %d bridge%s between GPUs and HCAs is unknown: the extended PCIe config space is readable by root only; run as root, or check 'sudo lspci -vvv | grep ACSCtl'",
			   unknown, fc_s(unknown));
}

static void check_roce(const struct topo *t, json_t *doc)
{
	for (int b = 0; b < t->nnics; b++) {
		const struct topo_dev *h = topo_nic(t, b);

		if (!strcmp(h->name, h->bdf)) {
			fc_finding(doc, FC_WARN,
				   "Mellanox function %s has no RDMA device: load the RDMA driver (modprobe mlx5_ib)",
				   h->bdf);
			continue;
		}
		for (int p = 0; p < h->nports; p++) {
			const struct topo_port *pt = &h->ports[p];

			if (strcmp(pt->link_layer, "Ethernet"))
				continue;
			if (!pt->netdev[0])
				fc_finding(doc, FC_WARN,
					   "%s port %d (RoCE) has no GID bound to a netdev: bring its netdev up and give it an IP address",
					   h->name, pt->port);
			else if (pt->mtu > 0 && pt->mtu < 4200)
				fc_finding(doc, FC_WARN,
					   "%s port %d (RoCE): netdev %s has MTU %d B, below 4200 B, so RoCE runs with 1024 B frames or less; set 'ip link set %s mtu 9000' and the same on the switch ports",
					   h->name, pt->port, pt->netdev, pt->mtu, pt->netdev);
			if (pt->netdev[0] && pt->roce_v2_gid < 0)
				fc_finding(doc, FC_WARN,
					   "%s port %d (RoCE): no RoCE v2 GID (v1 is not routable): give %s an IPv4 address and check the RoCE mode (cma_roce_mode, mlxconfig)",
					   h->name, pt->port, pt->netdev);
		}
	}
}

static void advise_gid(const struct topo *t, json_t *doc)
{
	int idx = -2, mixed = 0, n = 0;
	char list[512] = "";
	size_t len = 0;

	for (int b = 0; b < t->nnics; b++) {
		const struct topo_dev *h = topo_nic(t, b);

		for (int p = 0; p < h->nports; p++) {
			const struct topo_port *pt = &h->ports[p];

			if (strcmp(pt->link_layer, "Ethernet") || pt->roce_v2_gid < 0)
				continue;
			mixed |= idx != -2 && idx != pt->roce_v2_gid;
			idx = pt->roce_v2_gid;
			if (len < sizeof(list))
				len += (size_t)snprintf(list + len, sizeof(list) - len, "%s%s:%d",
							n ? ", " : "", h->name, pt->roce_v2_gid);
			n++;
		}
	}
	if (!n)
		return;
	if (!mixed) {
		char val[16];

		snprintf(val, sizeof(val), "%d", idx);
		topo_recommend(doc, "NCCL_IB_GID_INDEX", val,
			       "the RoCE v2 GID (IPv4 first) is at index %d on every RoCE HCA (%s); NCCL before 2.21 uses index 0, a RoCE v1 link-local GID",
			       idx, list);
	} else {
		topo_recommend(doc, "NCCL_IB_GID_INDEX", "-1",
			       "the RoCE v2 GID sits at different indexes (%s) and NCCL takes one value for all HCAs: use NCCL 2.21+ auto-selection (-1), or give every netdev the same address layout",
			       list);
	}
}

static int netdev_on_nic(const struct topo *t, const char *root, const char *nd)
{
	char path[PATH_MAX], link[PATH_MAX];
	const char *base;
	int r;

	if (snprintf(path, sizeof(path), "%s/class/net/%s/device", root, nd) >=
	    (int)sizeof(path))
		return -1;
	r = (int)readlink(path, link, sizeof(link) - 1);
	if (r <= 0)
		return -1; /* virtual: no device */
	link[r] = '\0';
	base = strrchr(link, '/');
	for (int b = 0; b < t->nnics; b++)
		if (!strcmp(topo_nic(t, b)->bdf, base ? base + 1 : link))
			return 1;
	return 0;
}

static void advise_ifname(const struct topo *t, json_t *doc)
{
	char path[PATH_MAX], val[256] = "=", virt[256] = "", st[32];
	size_t len = 1, vlen = 0;
	struct dirent *de;
	DIR *dir;
	int n = 0;

	snprintf(path, sizeof(path), "%s/class/net", t->sysfs_root);
	dir = opendir(path);
	if (!dir)
		return;
	while ((de = readdir(dir))) {
		char sp[PATH_MAX];
		int on;

		if (de->d_name[0] == '.' || strlen(de->d_name) > 32)
			continue;
		on = netdev_on_nic(t, t->sysfs_root, de->d_name);
		if (snprintf(sp, sizeof(sp), "%s/%s/operstate", path, de->d_name) >=
		    (int)sizeof(sp))
			continue;
		if (on < 0) {
			if (vlen < sizeof(virt) - 40)
				vlen += (size_t)snprintf(virt + vlen, sizeof(virt) - vlen, "%s%s",
							 vlen ? ", " : "", de->d_name);
			continue;
		}
		if (on || fc_read_file(sp, st, sizeof(st)) <= 0 || strcmp(st, "up"))
			continue;
		if (len < sizeof(val) - 40)
			len += (size_t)snprintf(val + len, sizeof(val) - len, "%s%s", n ? "," : "",
						de->d_name);
		n++;
	}
	closedir(dir);
	if (n)
		topo_recommend(doc, "NCCL_SOCKET_IFNAME", val,
			       "NCCL's bootstrap and out-of-band traffic should use the host's up, physical interface%s off the HCAs%s%s",
			       n > 1 ? "s" : "", vlen ? "; this keeps it off " : "", virt);
}

/* NCCL's GPUDirect verdict on the path from @g to its HCA @p at default
 * settings, per release range (topo_nccl_gdr): "off", "Default" or "PCI". */
static json_t *gdr_by_nccl(const struct topo *t, const struct topo_dev *g, const struct topo_dev *p)
{
	static const struct { const char *range; int version; } rel[] = {
		{ "<2.26", 22503 }, { "2.26", 22602 }, { ">=2.27.3", 23007 },
	};
	enum topo_dist d = topo_nccl_distance(t, g, p);
	json_t *o = json_object();

	for (size_t i = 0; i < FC_ARRAY_SIZE(rel); i++)
		json_object_set_new(o, rel[i].range,
				    json_string(topo_gdr_mode_name(topo_nccl_gdr(d, g->c2c, rel[i].version, NULL))));
	return o;
}

/* Each GPU's HCA and each HCA's GPU as NCCL pairs them (topo/pcitopo_nccl.c):
 * "nccl_nic" on the GPU entries (by bus id), with NCCL's class of that path
 * ("nccl_path": P2C on Grace) and its GPUDirect verdict by release
 * ("nccl_gdr"); "nccl_gpu", "nccl_name" (mlx5_0_dma for a Data Direct HCA)
 * and "data_direct" (its DMA function's bus id, or null) on the NIC entries. */
static void report_nccl_pairs(const struct topo *t, json_t *doc)
{
	const struct topo_dev *d, *p;
	char bdf[TOPO_BDF_LEN], name[40];
	size_t i;
	json_t *o;

	json_array_foreach(json_object_get(doc, "gpus"), i, o) {
		if (topo_bdf_norm(fc_jstr(o, "bus_id", ""), bdf) ||
		    !(p = topo_nccl_gpu_nic(t, bdf, 0)))
			continue;
		d = topo_find(t, bdf);
		json_object_set_new(o, "nccl_nic", json_string(topo_nccl_name(p, name, sizeof(name))));
		json_object_set_new(o, "nccl_path", json_string(topo_dist_name(topo_nccl_distance(t, d, p))));
		json_object_set_new(o, "nccl_gdr", gdr_by_nccl(t, d, p));
	}
	json_array_foreach(json_object_get(doc, "nics"), i, o) {
		if (!(d = topo_find(t, fc_jstr(o, "name", ""))) || d->kind != TOPO_KIND_NIC)
			continue;
		json_object_set_new(o, "nccl_name", json_string(topo_nccl_name(d, name, sizeof(name))));
		json_object_set_new(o, "data_direct", d->dd ? json_string(d->dd->bdf) : json_null());
		if ((p = topo_nccl_nic_gpu(t, d->name)))
			json_object_set_new(o, "nccl_gpu", json_string(p->name));
	}
}

/* Appends ",name" (or "name") to @buf; names are sysfs device names. */
static void add_name(char *buf, size_t len, const char *name)
{
	size_t n = strlen(buf);

	snprintf(buf + n, len - n, "%s%s", n && buf[n - 1] != '=' ? "," : "", name);
}

/*
 * NCCL_IB_HCA: the HCAs NCCL's topology search gives some GPU on some
 * channel (topo_nccl_used), less BlueField DPU ports (topo_nic_is_dpu: their
 * traffic is the DPU's own, storage or north-south). HCAs no GPU gets
 * (storage ports slower than the compute ones, HCAs farther than another of
 * the same speed) and HCAs without an active port are left out too, each
 * said.
 */
static void advise_hca_nccl(const struct topo *t, json_t *doc)
{
	char val[1024] = "=", unused[512] = "", dpu[256] = "", down[256] = "", vnic[256] = "";
	char name[128];
	const struct topo_dev *d;
	int nused = 0, ndpu = 0;

	for (int i = 0; (d = topo_nic(t, i)); i++) {
		if (!strcmp(d->name, d->bdf))
			continue; /* no RDMA device */
		if (!topo_nccl_net(d))
			add_name(down, sizeof(down), d->name);
		else if (!topo_nccl_used(t, d))
			add_name(unused, sizeof(unused), d->name);
		else if (topo_nic_is_dpu(d)) {
			add_name(dpu, sizeof(dpu), d->name);
			ndpu++;
		}
		else {
			add_name(val, sizeof(val), d->name);
			nused++;
			/* NCCL_IB_HCA names ports: a virtual NIC needs them all */
			if (d->nvnic > 1 && d->vnic[0] == d)
				add_name(vnic, sizeof(vnic), topo_nccl_name(d, name, sizeof(name)));
		}
	}
	if (!nused || strlen(val) >= sizeof(val) - 1)
		return;
	topo_recommend(doc, "NCCL_IB_HCA", val,
		       "%d HCA%s that NCCL's topology search gives the GPUs; '=' makes NCCL match these names exactly (a bare mlx5_1 also takes mlx5_10..mlx5_19)%s%s%s%s%s%s%s%s",
		       nused, fc_s(nused), vnic[0] ? "; NCCL fuses the ports of one card into one NIC, so each is listed: " : "", vnic,
		       unused[0] ? "; left out, given no GPU (slower or farther than another): " : "", unused,
		       dpu[0] ? "; left out, BlueField DPU ports NCCL would otherwise use: " : "", dpu,
		       down[0] ? "; no active port (NCCL skips it): " : "", down);
	for (int i = 0; (d = topo_nic(t, i)); i++)
		if (strcmp(d->name, d->bdf) && topo_nccl_net(d) && !topo_nccl_used(t, d))
			fc_finding(doc, FC_PASS,
				   "%s: NCCL's topology search gives it no GPU (a slower or farther HCA than another): NCCL_IB_HCA leaves it out",
				   d->name);
	if (dpu[0])
		fc_finding(doc, FC_WARN,
			   "%s: BlueField DPU port%s with the compute HCAs, so NCCL puts GPU channels on %s unless NCCL_IB_HCA leaves %s out",
			   dpu, ndpu == 1 ? " ties" : "s tie", ndpu == 1 ? "it" : "them",
			   ndpu == 1 ? "it" : "them");
	if (down[0])
		fc_finding(doc, FC_WARN,
			   "%s: no active port, so NCCL does not list it and its GPUs use other HCAs (topo --json: nccl_nic, nccl_path)",
			   down);
}

/* The virtual NICs that release makes of the ports of one card
 * (topo_nccl_fuse): {"name", "ports", "mbps"} in device order. */
static json_t *nccl_vnics(const struct topo *t)
{
	json_t *a = json_array();
	const struct topo_dev *d;
	char name[128];

	for (int i = 0; (d = topo_nic(t, i)); i++) {
		json_t *ports = json_array();

		if (d->nvnic < 2 || d->vnic[0] != d) {
			json_decref(ports);
			continue;
		}
		for (int k = 0; k < d->nvnic; k++)
			json_array_append_new(ports, json_string(d->vnic[k]->name));
		json_array_append_new(a, json_pack("{s:s, s:o, s:i}", "name",
						   topo_nccl_name(d, name, sizeof(name)), "ports", ports,
						   "mbps", topo_nccl_nic_mbps(d)));
	}
	return a;
}

/* Which release's rules the NCCL choices above follow (topo_nccl_rules),
 * the Broadcom PEX switches that release fuses into their parent
 * (topo_nccl_fused_into): bcm_fused, {"switch", "into"} by bus order, and
 * the ports it fuses into virtual NICs: vnics, with vnic_rule (why, or why
 * not). */
static void report_nccl_rules(const struct topo *t, json_t *doc)
{
	const char *how, *into;
	char ver[16];
	int v = topo_nccl_rules(t, &how);
	json_t *fused = json_array();

	for (int i = 0; i < t->ndevs; i++)
		if (t->devs[i].kind == TOPO_KIND_BRIDGE &&
		    (into = topo_nccl_fused_into(t, t->devs[i].bdf)))
			json_array_append_new(fused, json_pack("{s:s, s:s}", "switch", t->devs[i].bdf,
							       "into", into));
	json_object_set_new(doc, "nccl_rules",
			    json_pack("{s:s, s:s, s:o, s:o, s:s}", "version",
				      topo_nccl_version_str(v, ver, sizeof(ver)), "from", how,
				      "bcm_fused", fused, "vnics", nccl_vnics(t), "vnic_rule",
				      t->vnic_how));
}

void topo_sysfs_report(const struct topo *t, const struct topo_view *v, json_t *doc)
{
	(void)v;
	report_nccl_rules(t, doc);
	report_nccl_pairs(t, doc);
	if (t->ngpus && t->nnics)
		advise_hca_nccl(t, doc);
	check_links(t, doc);
	check_acs(t, doc);
	if (t->ngpus && t->nnics && !t->peermem)
		fc_finding(doc, FC_WARN,
			   "no peer-memory module (nvidia_peermem) is loaded: GPUDirect RDMA then needs dma-buf (NCCL 2.13+, open GPU kernel module, Linux 5.12+); otherwise run 'modprobe nvidia-peermem' and add it to /etc/modules-load.d");
	check_roce(t, doc);
	json_object_set_new(doc, "peermem", t->peermem ? json_string(t->peermem_how) : json_null());
	advise_ifname(t, doc);
	advise_gid(t, doc);
}
