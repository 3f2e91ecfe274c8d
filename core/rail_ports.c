/* Rails: the port lists read from JSON, names, subnets, and the map's
 * accessors (see rail.h). */
#include "core/rail.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/names.h"

int fc_rail_name_cmp(const char *a, const char *b)
{
	while (*a && *b) {
		if (isdigit((unsigned char)*a) && isdigit((unsigned char)*b)) {
			unsigned long x = strtoul(a, (char **)&a, 10);
			unsigned long y = strtoul(b, (char **)&b, 10);

			if (x != y)
				return x < y ? -1 : 1;
			continue;
		}
		if (*a != *b)
			return (unsigned char)*a - (unsigned char)*b;
		a++;
		b++;
	}
	return (unsigned char)*a - (unsigned char)*b;
}

void fc_rail_link_peer(const char *addr, char *gw, size_t len)
{
	char a[INET6_ADDRSTRLEN];
	const char *slash = strchr(addr, '/');
	int plen = slash ? atoi(slash + 1) : 0, v6 = strchr(addr, ':') != NULL;
	unsigned char b[16];

	if (!slash || plen != (v6 ? 127 : 31) || (size_t)(slash - addr) >= sizeof(a))
		return;
	snprintf(a, sizeof(a), "%.*s", (int)(slash - addr), addr);
	if (inet_pton(v6 ? AF_INET6 : AF_INET, a, b) != 1)
		return;
	b[v6 ? 15 : 3] ^= 1;
	inet_ntop(v6 ? AF_INET6 : AF_INET, b, gw, (socklen_t)len);
}

int fc_rail_subnet_ipv4(const char *addr, int prefix_len, char *buf, size_t len)
{
	struct in_addr in;
	uint32_t h, mask;
	char txt[INET_ADDRSTRLEN];

	if (!addr || prefix_len < 0 || prefix_len > 32 || inet_pton(AF_INET, addr, &in) != 1)
		return -EINVAL;
	mask = prefix_len ? 0xffffffffu << (32 - prefix_len) : 0;
	h = ntohl(in.s_addr) & mask;
	in.s_addr = htonl(h);
	inet_ntop(AF_INET, &in, txt, sizeof(txt));
	snprintf(buf, len, "%s/%d", txt, prefix_len);
	return 0;
}

int fc_rail_subnet_ipv6(const char *addr, int prefix_len, char *buf, size_t len)
{
	struct in6_addr in;
	char txt[INET6_ADDRSTRLEN];

	if (!addr || prefix_len < 0 || prefix_len > 128 || inet_pton(AF_INET6, addr, &in) != 1)
		return -EINVAL;
	for (int b = 0; b < 16; b++) {
		int keep = prefix_len - 8 * b;

		in.s6_addr[b] &= keep >= 8 ? 0xff : keep <= 0 ? 0 : (uint8_t)(0xff << (8 - keep));
	}
	inet_ntop(AF_INET6, &in, txt, sizeof(txt));
	snprintf(buf, len, "%s/%d", txt, prefix_len);
	return 0;
}

/* "ADDR/LEN" of family @v6 into @buf's subnet; the prefix length or -1. */
static int subnet_one(const char *a, int v6, char *buf, size_t len)
{
	char addr[INET6_ADDRSTRLEN + 8];
	const char *slash = strchr(a, '/');
	int plen;
	char *end;

	if (!slash || (size_t)(slash - a) >= sizeof(addr) || (strchr(a, ':') != NULL) != v6)
		return -1;
	snprintf(addr, sizeof(addr), "%.*s", (int)(slash - a), a);
	plen = (int)strtol(slash + 1, &end, 10);
	if (*end || end == slash + 1)
		return -1;
	if (v6 && !strncasecmp(addr, "fe8", 3)) /* link-local fe80::/10 names no network */
		return -1;
	if (v6 ? fc_rail_subnet_ipv6(addr, plen, buf, len) : fc_rail_subnet_ipv4(addr, plen, buf, len))
		return -1;
	return plen;
}

int fc_rail_subnet_of(const char *const *addrs, int n, char *buf, size_t len)
{
	buf[0] = 0;
	for (int v6 = 0; v6 < 2; v6++)
		for (int i = 0; i < n; i++) {
			int plen = addrs[i] ? subnet_one(addrs[i], v6, buf, len) : -1;

			if (plen >= 0)
				return plen;
		}
	buf[0] = 0;
	return -1;
}

void fc_rail_add_leaves(json_t *o, const struct fc_rail *rl)
{
	const char *t = rl->leaves, *e;
	json_t *l;

	if (!o || rl->nleaves < 2)
		return;
	l = json_array();
	/* rl->leaves joins the names with ", " (core/rail_reach.c) */
	for (; l && t; t = e ? e + 2 : NULL) {
		e = strstr(t, ", ");
		json_array_append_new(l, json_stringn(t, e ? (size_t)(e - t) : strlen(t)));
	}
	json_object_set_new(o, "leaves", l);
}

const char *fc_rail_by_name(enum fc_rail_by by)
{
	static const char *const names[] = { "subnet", "switch", "lldp", "position", "name",
					     "gateway", "none" };

	return (unsigned)by < sizeof(names) / sizeof(names[0]) ? names[by] : "?";
}

void fc_rail_subnet_ib(const unsigned char gid[16], char *buf, size_t len)
{
	snprintf(buf, len, "%02x%02x:%02x%02x:%02x%02x:%02x%02x", gid[0], gid[1], gid[2], gid[3],
		 gid[4], gid[5], gid[6], gid[7]);
}

int fc_rail_split_list(char *buf, const char **out, int max)
{
	int cnt = 0;
	char *save = NULL, *tok;

	if (!*buf)
		return -EINVAL;
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (cnt == max)
			return -E2BIG;
		out[cnt++] = tok;
	}
	/* strtok_r skips empty fields: ",," or a trailing comma. */
	return cnt ? cnt : -EINVAL;
}

void fc_rail_map_release(struct fc_rail_map *map)
{
	free(map->port);
	free(map->findings);
	map->port = NULL;
	map->findings = NULL;
	map->nfindings = map->findings_cap = 0;
}

const struct fc_rail_port *fc_rail_port_of(const struct fc_rail_map *map,
					   const struct fc_rail_node *nodes, int node, int r)
{
	int p;

	if (!map->port || node < 0 || node >= map->nnodes || r < 0 || r >= map->nrails)
		return NULL;
	p = map->port[node * map->nrails + r];
	return p < 0 ? NULL : &nodes[node].ports[p];
}

enum fc_rail_sev fc_rail_worst(const struct fc_rail_map *map)
{
	enum fc_rail_sev w = FC_RAIL_NOTE;

	for (int i = 0; i < map->nfindings; i++)
		if (map->findings[i].sev > w)
			w = map->findings[i].sev;
	return w;
}

/* The subnet and prefix length from "subnet", else from "addrs". */
static void port_subnet(const json_t *p, struct fc_rail_port *o)
{
	const json_t *addrs = json_object_get(p, "addrs"), *a;
	const char *list[16];
	int n = 0;
	size_t i;

	json_array_foreach(addrs, i, a)
		if (json_is_string(a) && n < 16)
			list[n++] = json_string_value(a);
	o->prefix_len = json_is_integer(json_object_get(p, "prefix_len")) ?
				(int)json_integer_value(json_object_get(p, "prefix_len")) : -1;
	if (!o->subnet[0]) {
		o->prefix_len = fc_rail_subnet_of(list, n, o->subnet, sizeof(o->subnet));
	} else if (o->prefix_len < 0) {
		const char *slash = strchr(o->subnet, '/');

		o->prefix_len = slash ? atoi(slash + 1) : -1;
	}
}

static void jcopy(const json_t *o, const char *key, char *buf, size_t len)
{
	const char *v = json_string_value(json_object_get(o, key));

	snprintf(buf, len, "%s", v ? v : "");
}

/* A name of the list checked as it is, before it is copied (never cut). */
static int jname(const json_t *o, const char *key, enum fc_name_kind kind, char *buf,
		 size_t len)
{
	const char *v = json_string_value(json_object_get(o, key));

	buf[0] = '\0';
	if (!v || !*v)
		return 0;
	if (fc_name_check(kind, v, "the port list ('fabcheck devices --json')"))
		return -EINVAL;
	snprintf(buf, len, "%s", v);
	return 0;
}

int fc_rail_ports_from_json(const json_t *devices, struct fc_rail_port *out, int max)
{
	size_t i, j;
	const json_t *d, *p;
	int cnt = 0;

	if (!json_is_array(devices))
		return -EINVAL;
	json_array_foreach(devices, i, d) {
		const json_t *ports = json_object_get(d, "ports");

		if (!json_is_array(ports))
			return -EINVAL;
		json_array_foreach(ports, j, p) {
			struct fc_rail_port *o = &out[cnt];
			const char *ll = json_string_value(json_object_get(p, "link_layer"));
			const char *st = json_string_value(json_object_get(p, "state"));

			if (cnt == max)
				return -E2BIG;
			memset(o, 0, sizeof(*o));
			if (jname(p, "device", FC_NAME_DEV, o->dev, sizeof(o->dev)) ||
			    (!o->dev[0] && jname(d, "name", FC_NAME_DEV, o->dev, sizeof(o->dev))))
				return -EINVAL;
			o->port = (int)json_integer_value(json_object_get(p, "port"));
			o->active = st && !strcmp(st, "ACTIVE");
			o->link_layer = !ll			  ? FC_RAIL_LL_UNKNOWN :
					!strcmp(ll, "Ethernet")	  ? FC_RAIL_LL_ETH :
					!strcmp(ll, "InfiniBand") ? FC_RAIL_LL_IB :
								    FC_RAIL_LL_UNKNOWN;
			if (jname(p, "netdev", FC_NAME_NETDEV, o->netdev, sizeof(o->netdev)))
				return -EINVAL;
			jcopy(p, "subnet", o->subnet, sizeof(o->subnet));
			jcopy(p, "switch_guid", o->peer, sizeof(o->peer));
			jcopy(p, "switch_desc", o->peer_desc, sizeof(o->peer_desc));
			for (char *c = o->peer_desc; *c; c++) /* the switch's own bytes */
				*c = *c >= 0x20 && *c < 0x7f ? *c : '?';
			port_subnet(p, o);
			o->rate = json_number_value(json_object_get(p, "rate_gbps"));
			o->width = json_is_string(json_object_get(p, "width")) ? /* "4X", verbs/dev.c */
					   atoi(json_string_value(json_object_get(p, "width"))) : 0;
			jcopy(p, "gateway", o->gateway, sizeof(o->gateway));
			o->numa = json_is_integer(json_object_get(p, "numa_node")) ?
					  (int)json_integer_value(json_object_get(p, "numa_node")) : -1;
			jcopy(p, "pci", o->pci, sizeof(o->pci));
			jcopy(json_object_get(p, "lldp"), "chassis", o->lldp, sizeof(o->lldp));
			jcopy(json_object_get(p, "lldp"), "port", o->lldp_port, sizeof(o->lldp_port));
			jcopy(p, "mgmt", o->mgmt, sizeof(o->mgmt));
			if (!o->dev[0])
				return -EINVAL;
			cnt++;
		}
	}
	return cnt;
}
