/* Frames the virtual rack's fabric lost in the host (see fabloss.h). */
#include "lab/fabloss.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/util.h"
#include "lab/starve.h"

/* "fab" is rail 0's netdev, "fabR" rail R's (lab/up.sh); "stor" and "mgmt"
 * are no rail. */
static int netdev_rail(const char *id, size_t n)
{
	if (n == 3 && !strncmp(id, "fab", 3))
		return 0;
	if (n == 4 && !strncmp(id, "fab", 3) && id[3] >= '1' && id[3] < '0' + FC_FABLOSS_RAILS)
		return id[3] - '0';
	return -1;
}

/* The value of "KEY=" in the comma-separated option list @opt, into @out. */
static int opt_value(const char *opt, const char *key, char *out, size_t len)
{
	size_t k = strlen(key), n;

	for (const char *p = opt; p && *p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL) {
		if (strncmp(p, key, k) || p[k] != '=')
			continue;
		n = strcspn(p + k + 1, ",");
		if (n == 0 || n >= len)
			return -EINVAL;
		memcpy(out, p + k + 1, n);
		out[n] = 0;
		return 0;
	}
	return -ENOENT;
}

/* "230.0.0.1:47001" as /proc/net/udp prints a local address: the address's
 * 32 bits in host order, then the port, in hex (net/ipv4/udp.c
 * udp4_format_sock: "%08X:%04X"). */
static int udp_key(const char *grp, char *out, size_t len)
{
	char host[16];
	const char *colon = strrchr(grp, ':');
	struct in_addr a;
	long port;
	char *end;

	if (!colon || (size_t)(colon - grp) >= sizeof(host))
		return -EINVAL;
	memcpy(host, grp, (size_t)(colon - grp));
	host[colon - grp] = 0;
	port = strtol(colon + 1, &end, 10);
	if (inet_pton(AF_INET, host, &a) != 1 || *end || port <= 0 || port > 65535)
		return -EINVAL;
	snprintf(out, len, "%08X:%04lX", a.s_addr, port);
	return 0;
}

static void netdev_arg(const char *v, struct fc_fabloss_node *nd)
{
	char id[16], val[64];
	int r;

	if (opt_value(strchr(v, ',') ? strchr(v, ',') + 1 : "", "id", id, sizeof(id)))
		return;
	r = netdev_rail(id, strlen(id));
	if (r < 0)
		return;
	if (!strncmp(v, "socket,", 7) && !opt_value(v, "mcast", val, sizeof(val)))
		udp_key(val, nd->port[r].udp, sizeof(nd->port[r].udp));
	else if (!strncmp(v, "tap,", 4) && !opt_value(v, "ifname", val, sizeof(val)) &&
		 strlen(val) < sizeof(nd->port[r].tap) &&
		 strspn(val, "abcdefghijklmnopqrstuvwxyz0123456789-") == strlen(val))
		snprintf(nd->port[r].tap, sizeof(nd->port[r].tap), "%s", val);
}

/* One word of the kernel's command line ("-append"): fc.node=, fc.ip=, fc.ipR=. */
static void append_word(const char *w, size_t n, struct fc_fabloss_node *nd)
{
	char word[80];
	int r = -1;
	const char *v;

	if (n >= sizeof(word))
		return;
	memcpy(word, w, n);
	word[n] = 0;
	if (!strncmp(word, "fc.node=", 8) && n - 8 < sizeof(nd->name))
		memcpy(nd->name, word + 8, n - 8 + 1);
	if (!strncmp(word, "fc.ip=", 6))
		r = 0, v = word + 6;
	else if (!strncmp(word, "fc.ip", 5) && word[5] >= '1' && word[5] < '0' + FC_FABLOSS_RAILS &&
		 word[6] == '=')
		r = word[5] - '0', v = word + 7;
	if (r >= 0 && strlen(v) < sizeof(nd->port[r].ip))
		memcpy(nd->port[r].ip, v, strlen(v) + 1);
}

int fc_fabloss_parse_cmdline(const char *cmd, size_t n, struct fc_fabloss_node *nd)
{
	const char *end = cmd + n, *prev = "";

	memset(nd, 0, sizeof(*nd));
	for (const char *a = cmd; a < end; a += strnlen(a, (size_t)(end - a)) + 1) {
		if (!strcmp(prev, "-netdev"))
			netdev_arg(a, nd);
		if (!strcmp(prev, "-append"))
			for (const char *w = a; *w; w += strcspn(w, " ")) {
				w += strspn(w, " ");
				append_word(w, strcspn(w, " "), nd);
			}
		prev = a;
	}
	for (int r = 0; r < FC_FABLOSS_RAILS; r++)
		nd->port[r].drops = -1;
	return nd->name[0] ? 0 : -EINVAL;
}

double fc_fabloss_udp_drops(const char *text, const char *udp, const unsigned long *inodes,
			    int ninodes)
{
	/* sl local rem st tx:rx tr:when retr uid timeout inode ref ptr drops
	 * (net/ipv4/udp.c udp4_format_sock) */
	for (const char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		char local[32];
		unsigned long inode;
		unsigned long long drops;

		if (sscanf(l, "%*s %31s %*s %*s %*s %*s %*s %*s %*s %lu %*s %*s %llu", local, &inode,
			   &drops) != 3 ||
		    strcmp(local, udp))
			continue;
		for (int i = 0; i < ninodes; i++)
			if (inodes[i] == inode)
				return (double)drops;
	}
	return -1;
}

/* The socket inodes among @pid's open files (at most @max). */
static int socket_inodes(const char *proc, long pid, unsigned long *out, int max)
{
	char path[PATH_MAX], link[64];
	struct dirent *e;
	int n = 0;
	ssize_t k;
	DIR *d;

	snprintf(path, sizeof(path), "%s/%ld/fd", proc, pid);
	d = opendir(path);
	if (!d)
		return 0;
	while ((e = readdir(d)) && n < max) {
		snprintf(path, sizeof(path), "%s/%ld/fd/%.32s", proc, pid, e->d_name);
		k = readlink(path, link, sizeof(link) - 1);
		if (k <= 0)
			continue;
		link[k] = 0;
		if (sscanf(link, "socket:[%lu]", &out[n]) == 1)
			n++;
	}
	closedir(d);
	return n;
}

/* Each rail's drops of node @nd so far: its socket's row (mcast) or its
 * tap's tx_dropped, frames the host could not hand to the guest
 * (drivers/net/tun.c tun_net_xmit's drop path). */
static void node_drops(const char *proc, const char *sys, const char *udp,
		       struct fc_fabloss_node *nd)
{
	unsigned long ino[64];
	int nino = socket_inodes(proc, nd->pid, ino, 64);
	char path[PATH_MAX], text[32];

	for (int r = 0; r < FC_FABLOSS_RAILS; r++) {
		struct fc_fabloss_port *p = &nd->port[r];

		if (p->udp[0] && udp)
			p->drops = fc_fabloss_udp_drops(udp, p->udp, ino, nino);
		if (!p->tap[0])
			continue;
		snprintf(path, sizeof(path), "%s/class/net/%s/statistics/tx_dropped", sys, p->tap);
		if (fc_read_file(path, text, sizeof(text)) > 0)
			p->drops = strtod(text, NULL);
	}
}

/* /proc/net/udp whole, NULL unreadable. A seq_file gives a page or so per
 * read(2), so it is read to its end; a host of very many sockets is cut at
 * 4 MiB (its rows past that are not the rack's to find: then "unknown"). */
static char *read_udp(const char *proc)
{
	size_t max = 4u << 20, n = 0;
	char path[PATH_MAX], *buf = malloc(max);
	ssize_t k = 1;
	int fd;

	snprintf(path, sizeof(path), "%s/net/udp", proc);
	fd = buf ? open(path, O_RDONLY | O_CLOEXEC) : -1;
	if (fd < 0) {
		free(buf);
		return NULL;
	}
	while (n < max - 1 && (k = read(fd, buf + n, max - 1 - n)) > 0)
		n += (size_t)k;
	close(fd);
	buf[n] = 0;
	return buf;
}

int fc_fabloss_sample(const char *proc, const char *sys, const char *dir, const char *name,
		      struct fc_fabloss *s)
{
	char path[PATH_MAX], *cmd = malloc(16384), *udp = read_udp(proc);
	int n;

	memset(s, 0, sizeof(*s));
	for (char l = 'A'; cmd && l <= FC_LAB_LAST_NODE && s->nnodes < FC_FABLOSS_NODES; l++) {
		struct fc_fabloss_node *nd = &s->node[s->nnodes];
		long pid = fc_starve_node_pid(proc, dir, name, l);

		if (pid <= 0)
			continue;
		snprintf(path, sizeof(path), "%s/%ld/cmdline", proc, pid);
		n = fc_read_file(path, cmd, 16384);
		if (n <= 0 || fc_fabloss_parse_cmdline(cmd, (size_t)n, nd))
			continue;
		nd->pid = pid;
		node_drops(proc, sys, udp, nd);
		s->nnodes++;
	}
	free(cmd);
	free(udp);
	return s->nnodes;
}

int fc_fabloss_find(const struct fc_fabloss *s, const char *ip, int *node)
{
	for (int i = 0; i < s->nnodes; i++)
		for (int r = 0; r < FC_FABLOSS_RAILS; r++)
			if (s->node[i].port[r].ip[0] && !strcmp(s->node[i].port[r].ip, ip)) {
				*node = i;
				return r;
			}
	return -1;
}

int fc_fabloss_port_faulted(const char *dir, const char *node, int rail)
{
	char path[PATH_MAX], text[8];

	if (rail == 0)
		snprintf(path, sizeof(path), "%s/nodes/%s.faults", dir, node);
	else
		snprintf(path, sizeof(path), "%s/nodes/%s.rail%d.faults", dir, node, rail);
	return fc_read_file(path, text, sizeof(text)) > 0 && text[strspn(text, " \n")];
}
