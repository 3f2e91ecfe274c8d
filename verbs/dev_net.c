/*
 * The network facts of a port that rails are matched and left out by (see
 * dev_net.h): its net device's addresses, the gateway on its link, whether
 * it carries the node's ssh address or default route, and where the device
 * sits (NUMA node, PCI address).
 */
#include "verbs/dev_net.h"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <limits.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/rail.h"

static int prefix_of(const struct sockaddr *m)
{
	const unsigned char *b;
	int len, n = 0;

	if (m->sa_family == AF_INET) {
		b = (const unsigned char *)&((const struct sockaddr_in *)(const void *)m)->sin_addr;
		len = 4;
	} else {
		b = ((const struct sockaddr_in6 *)(const void *)m)->sin6_addr.s6_addr;
		len = 16;
	}
	for (int i = 0; i < len; i++)
		for (int bit = 7; bit >= 0 && (b[i] >> bit & 1); bit--)
			n++;
	return n;
}

int vb_netdev_addrs(const char *netdev, char (*addrs)[64], int max)
{
	struct ifaddrs *ifa, *i;
	int n = 0;

	if (!netdev[0] || getifaddrs(&ifa))
		return 0;
	for (int fam = 0; fam < 2; fam++) /* IPv4 first */
		for (i = ifa; i && n < max; i = i->ifa_next) {
			char txt[INET6_ADDRSTRLEN];
			int af = fam ? AF_INET6 : AF_INET;
			const void *a;

			if (!i->ifa_addr || !i->ifa_netmask || i->ifa_addr->sa_family != af ||
			    strcmp(i->ifa_name, netdev))
				continue;
			a = af == AF_INET ?
				    (const void *)&((struct sockaddr_in *)(void *)i->ifa_addr)->sin_addr :
				    (const void *)&((struct sockaddr_in6 *)(void *)i->ifa_addr)->sin6_addr;
			inet_ntop(af, a, txt, sizeof(txt));
			snprintf(addrs[n++], 64, "%s/%d", txt, prefix_of(i->ifa_netmask));
		}
	freeifaddrs(ifa);
	return n;
}

/* The IPv4 gateway of a route through @netdev in /proc/net/route ("" none);
 * @dflt set when one of them is the default route. */
static void route4(const char *netdev, char *gw, size_t len, int *dflt)
{
	FILE *f = fopen("/proc/net/route", "r");
	char line[256], ifn[64];
	unsigned dst, via, flags, mask;

	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%63s %x %x %x %*d %*d %*d %x", ifn, &dst, &via, &flags, &mask) == 5 &&
		    !strcmp(ifn, netdev)) {
			struct in_addr in = { .s_addr = via };

			*dflt |= !dst && !mask;
			if (via && !gw[0])
				inet_ntop(AF_INET, &in, gw, (socklen_t)len);
		}
	fclose(f);
}

/* The same from /proc/net/ipv6_route. */
static void route6(const char *netdev, char *gw, size_t len, int *dflt)
{
	FILE *f = fopen("/proc/net/ipv6_route", "r");
	char line[512], dst[40], via[40], ifn[64];
	unsigned dlen;

	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%32s %x %*s %*s %32s %*s %*s %*s %*s %63s", dst, &dlen, via, ifn) == 4 &&
		    !strcmp(ifn, netdev)) {
			struct in6_addr in;

			*dflt |= !dlen;
			if (gw[0] || strspn(via, "0") == strlen(via))
				continue;
			for (int b = 0; b < 16; b++) {
				unsigned v;

				sscanf(via + 2 * b, "%2x", &v);
				in.s6_addr[b] = (unsigned char)v;
			}
			inet_ntop(AF_INET6, &in, gw, (socklen_t)len);
		}
	fclose(f);
}

/* Whether the ssh server address this command came in on is one of @addrs. */
static int ssh_here(char (*addrs)[64], int n)
{
	const char *c = getenv("SSH_CONNECTION"); /* "client port server port" */
	char srv[INET6_ADDRSTRLEN + 1];

	if (!c || sscanf(c, "%*s %*s %46s", srv) != 1)
		return 0;
	for (int i = 0; i < n; i++) {
		size_t l = strcspn(addrs[i], "/");

		if (strlen(srv) == l && !strncmp(addrs[i], srv, l))
			return 1;
	}
	return 0;
}

/* Whether @s looks like a PCI address ("0000:17:00.0"). */
static int is_pci(const char *s)
{
	unsigned d, b, sl, f;
	char end;

	return sscanf(s, "%4x:%2x:%2x.%1x%c", &d, &b, &sl, &f, &end) == 4;
}

/* NUMA node and PCI address of @dev (the net device's for Soft-RoCE): the
 * PCI function its sysfs device sits under (a virtio device's parent). */
static void placement(const char *dev, const char *netdev, json_t *o)
{
	const char *base[2] = { "/sys/class/infiniband", "/sys/class/net" };
	const char *name[2] = { dev, netdev };
	char path[PATH_MAX + 16], real[PATH_MAX];

	for (int k = 0; k < 2; k++) {
		char *slash;
		FILE *f;
		int numa;

		snprintf(path, sizeof(path), "%s/%s/device", base[k], name[k]);
		if (!name[k][0] || !realpath(path, real))
			continue;
		while ((slash = strrchr(real, '/')) && slash != real && !is_pci(slash + 1))
			*slash = 0;
		if (!slash || slash == real)
			continue;
		json_object_set_new(o, "pci", json_string(slash + 1));
		snprintf(path, sizeof(path), "%s/numa_node", real);
		f = fopen(path, "r");
		if (f && fscanf(f, "%d", &numa) == 1)
			json_object_set_new(o, "numa_node", json_integer(numa));
		if (f)
			fclose(f);
		return;
	}
}

void vb_port_net_json(const char *dev, const char *netdev, json_t *o)
{
	char addrs[16][64], gw[INET6_ADDRSTRLEN] = "";
	const char *list[16];
	json_t *a = json_array();
	int n = vb_netdev_addrs(netdev, addrs, 16), dflt = 0;

	for (int i = 0; i < n; i++) {
		list[i] = addrs[i];
		json_array_append_new(a, json_string(addrs[i]));
	}
	json_object_set_new(o, "addrs", a);
	if (netdev[0]) {
		char sub[FC_RAIL_SUBNET_LEN];
		int plen = fc_rail_subnet_of(list, n, sub, sizeof(sub));

		if (plen >= 0) {
			json_object_set_new(o, "subnet", json_string(sub));
			json_object_set_new(o, "prefix_len", json_integer(plen));
		}
		route4(netdev, gw, sizeof(gw), &dflt);
		route6(netdev, gw, sizeof(gw), &dflt);
		for (int i = 0; i < n && !gw[0]; i++)
			fc_rail_link_peer(addrs[i], gw, sizeof(gw));
		if (gw[0])
			json_object_set_new(o, "gateway", json_string(gw));
		if (ssh_here(addrs, n))
			json_object_set_new(o, "mgmt", json_string("carries the node's ssh address"));
		else if (dflt)
			json_object_set_new(o, "mgmt", json_string("carries the node's default route"));
	}
	placement(dev, netdev, o);
}
