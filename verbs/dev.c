/* RDMA device and port discovery through libibverbs (see dev.h). */
#include "verbs/dev.h"
#include "verbs/dev_net.h"

#include <arpa/inet.h>
#include <errno.h>
#include <ifaddrs.h>
#include <infiniband/verbs.h>
#include <net/if.h>
#include <stdio.h>
#include <string.h>

#include "core/log.h"
#include "core/payload.h"
#include "core/rail.h"
#include "core/util.h"

const char *vb_port_state_name(int state)
{
	switch (state) {
	case IBV_PORT_DOWN: return "DOWN";
	case IBV_PORT_INIT: return "INIT";
	case IBV_PORT_ARMED: return "ARMED";
	case IBV_PORT_ACTIVE: return "ACTIVE";
	case IBV_PORT_ACTIVE_DEFER: return "ACTIVE_DEFER";
	default: return "NOP";
	}
}

static void port_gids(struct ibv_context *ctx, struct vb_port_info *pi, int tbl_len)
{
	struct ibv_gid_entry e;

	pi->ngids = 0;
	for (int i = 0; i < tbl_len && pi->ngids < VB_MAX_GIDS; i++) {
		struct fc_gid *g = &pi->gids[pi->ngids];

		if (ibv_query_gid_ex(ctx, (uint32_t)pi->port, (uint32_t)i, &e, 0))
			continue; /* empty slot */
		memset(g, 0, sizeof(*g));
		g->index = i;
		memcpy(g->raw, e.gid.raw, 16);
		if (fc_gid_is_zero(g->raw))
			continue;
		g->type = e.gid_type == IBV_GID_TYPE_ROCE_V2 ? FC_GID_ROCE_V2 :
			  e.gid_type == IBV_GID_TYPE_ROCE_V1 ? FC_GID_ROCE_V1 :
							      FC_GID_IB;
		if (e.ndev_ifindex)
			if_indextoname(e.ndev_ifindex, g->netdev);
		if (g->netdev[0] && !pi->netdev[0])
			snprintf(pi->netdev, sizeof(pi->netdev), "%s", g->netdev);
		pi->ngids++;
	}
	pi->chosen_gid = fc_gid_choose(pi->gids, pi->ngids, pi->is_ethernet, pi->netdev);
}

/*
 * An XDR port: libibverbs before active_speed_ex (rdma-core 47) reads
 * active_speed 0 there. The kernel's rate file says it in words
 * ("800 Gb/sec (4X XDR)"). Left at 0 (and said so by the verdict) when
 * that fails too.
 */
static void speed_from_sysfs(struct vb_port_info *pi)
{
	char path[256], text[64] = "";
	unsigned w, sp, ex;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/class/infiniband/%s/ports/%d/rate", pi->dev, pi->port);
	f = fopen(path, "r");
	if (!f)
		return;
	if (!fgets(text, sizeof(text), f))
		text[0] = '\0';
	fclose(f);
	if (fc_rate_text_parse(text, &w, &sp, &ex))
		return;
	pi->width = w;
	pi->speed = sp;
	pi->speed_ex = ex;
	pi->rate_gbps = fc_port_rate_gbps(w, sp, ex);
}

static int netdev_is_vlan(const char *netdev)
{
	char path[128];
	FILE *f;

	if (!netdev[0])
		return 0;
	snprintf(path, sizeof(path), "/proc/net/vlan/%s", netdev);
	f = fopen(path, "r");
	if (f)
		fclose(f);
	return f != NULL;
}

void vb_port_link(const struct vb_port_info *pi, int gid_pos, int mtu, struct fc_link *l)
{
	const struct fc_gid *g = gid_pos >= 0 && gid_pos < pi->ngids ? &pi->gids[gid_pos] : NULL;

	*l = (struct fc_link){ .is_ethernet = pi->is_ethernet, .width = pi->width,
			       .speed = pi->speed, .speed_ex = pi->speed_ex, .mtu = mtu,
			       .vlan = pi->vlan };
	if (pi->is_ethernet && g) {
		l->rocev1 = g->type == FC_GID_ROCE_V1;
		l->ipv6 = !fc_gid_is_ipv4_mapped(g->raw);
	}
}

/* The network a port is on, which rails are matched by: on RoCE the first
 * IPv4 subnet of its net device (else its first IPv6 one that is not
 * link-local), on InfiniBand the GID's subnet prefix. */
static void port_subnet(struct vb_port_info *pi)
{
	char addrs[16][64];
	const char *list[16];
	int n;

	pi->subnet[0] = 0;
	if (!pi->is_ethernet) {
		if (pi->ngids)
			fc_rail_subnet_ib(pi->gids[0].raw, pi->subnet, sizeof(pi->subnet));
		return;
	}
	n = vb_netdev_addrs(pi->netdev, addrs, 16);
	for (int i = 0; i < n; i++)
		list[i] = addrs[i];
	fc_rail_subnet_of(list, n, pi->subnet, sizeof(pi->subnet));
}

static int port_fill(struct ibv_context *ctx, const char *dev, int port,
		     struct vb_port_info *pi)
{
	struct ibv_port_attr pa;
	int err;

	memset(pi, 0, sizeof(*pi));
	snprintf(pi->dev, sizeof(pi->dev), "%s", dev);
	pi->port = port;
	err = ibv_query_port(ctx, (uint8_t)port, &pa);
	if (err) {
		fc_err("%s port %d: ibv_query_port failed: %s", dev, port, strerror(err));
		return -err;
	}
	pi->state = pa.state;
	pi->is_ethernet = pa.link_layer == IBV_LINK_LAYER_ETHERNET;
	pi->active_mtu = fc_mtu_bytes(pa.active_mtu);
	pi->max_mtu = fc_mtu_bytes(pa.max_mtu);
	pi->width = pa.active_width;
	pi->speed = pa.active_speed;
	pi->rate_gbps = fc_port_rate_gbps(pa.active_width, pa.active_speed, 0);
	if (pi->rate_gbps <= 0)
		speed_from_sysfs(pi);
	pi->lid = pa.lid;
	port_gids(ctx, pi, pa.gid_tbl_len);
	pi->vlan = netdev_is_vlan(pi->netdev);
	port_subnet(pi);
	return 0;
}

int vb_port_query(const char *dev, int port, struct vb_port_info *pi)
{
	struct ibv_device **list;
	int n, err = -ENODEV;

	list = ibv_get_device_list(&n);
	if (!list) {
		fc_err("cannot list RDMA devices: %s", strerror(errno));
		return -errno;
	}
	for (int i = 0; i < n; i++) {
		struct ibv_context *ctx;

		if (strcmp(ibv_get_device_name(list[i]), dev))
			continue;
		ctx = ibv_open_device(list[i]);
		if (!ctx) {
			err = -errno;
			fc_err("%s: cannot open device: %s", dev, strerror(errno));
			break;
		}
		err = port_fill(ctx, dev, port, pi);
		ibv_close_device(ctx);
		break;
	}
	ibv_free_device_list(list);
	return err;
}

/* What the port carries as payload at its active MTU (null: rate unknown). */
static void port_payload_json(const struct vb_port_info *pi, json_t *o)
{
	struct fc_link l;
	struct fc_ceiling c;

	vb_port_link(pi, pi->chosen_gid, pi->active_mtu, &l);
	fc_payload_json(o, &l, &c);
}

void vb_gid_json(json_t *o, const struct fc_gid *g)
{
	char buf[64];

	if (!g) {
		json_object_set_new(o, "gid_index", json_null());
		return;
	}
	json_object_set_new(o, "gid_index", json_integer(g->index));
	json_object_set_new(o, "gid", json_string(fc_gid_fmt(g->raw, buf, sizeof(buf))));
	json_object_set_new(o, "gid_type", json_string(fc_gid_type_name(g->type)));
}

json_t *vb_port_json(const struct vb_port_info *pi)
{
	json_t *gids = json_array();
	char buf[64];
	json_t *o;

	for (int i = 0; i < pi->ngids; i++) {
		const struct fc_gid *g = &pi->gids[i];

		json_array_append_new(gids, json_pack("{s:i, s:s, s:s, s:s}", "index",
						      g->index, "gid",
						      fc_gid_fmt(g->raw, buf, sizeof(buf)),
						      "type", fc_gid_type_name(g->type),
						      "netdev", g->netdev));
	}
	o = json_pack("{s:s, s:i, s:s, s:s, s:i, s:i, s:s, s:s, s:f, s:i, s:s, s:o}",
		      "device", pi->dev, "port", pi->port, "state",
		      vb_port_state_name(pi->state), "link_layer",
		      pi->is_ethernet ? "Ethernet" : "InfiniBand", "active_mtu",
		      pi->active_mtu, "max_mtu", pi->max_mtu, "width",
		      fc_port_width_name(pi->width), "speed",
		      fc_port_speed_name(pi->speed, pi->speed_ex), "rate_gbps", pi->rate_gbps,
		      "lid", pi->lid, "netdev", pi->netdev, "gids", gids);
	port_payload_json(pi, o);
	vb_port_net_json(pi->dev, pi->is_ethernet ? pi->netdev : "", o);
	json_object_set_new(o, "subnet", json_string(pi->subnet));
	vb_gid_json(o, pi->chosen_gid >= 0 ? &pi->gids[pi->chosen_gid] : NULL);
	return o;
}

json_t *vb_devices_json(const char **why_p)
{
	struct ibv_device **list;
	json_t *devs;
	int n;

	list = ibv_get_device_list(&n);
	if (!list) {
		*why_p = errno == ENOSYS ? "the kernel has no RDMA support (no ib_uverbs)" :
					   "libibverbs could not list devices";
		return NULL;
	}
	if (n == 0) {
		ibv_free_device_list(list);
		*why_p = "no RDMA devices found";
		return NULL;
	}
	devs = json_array();
	for (int i = 0; i < n; i++) {
		const char *name = ibv_get_device_name(list[i]);
		struct ibv_context *ctx = ibv_open_device(list[i]);
		struct ibv_device_attr da;
		json_t *d, *ports;

		if (!ctx) {
			fc_warn("%s: cannot open device: %s", name, strerror(errno));
			continue;
		}
		if (ibv_query_device(ctx, &da)) {
			fc_warn("%s: ibv_query_device failed", name);
			ibv_close_device(ctx);
			continue;
		}
		ports = json_array();
		for (int p = 1; p <= da.phys_port_cnt; p++) {
			static struct vb_port_info pi; /* large: keep off the stack */

			if (port_fill(ctx, name, p, &pi) == 0)
				json_array_append_new(ports, vb_port_json(&pi));
		}
		d = json_pack("{s:s, s:s, s:s, s:o}", "name", name, "fw_ver", da.fw_ver,
			      "transport",
			      list[i]->transport_type == IBV_TRANSPORT_IB ? "IB" : "other",
			      "ports", ports);
		json_array_append_new(devs, d);
		ibv_close_device(ctx);
	}
	ibv_free_device_list(list);
	return devs;
}
