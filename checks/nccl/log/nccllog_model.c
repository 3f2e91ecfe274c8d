/* The NCCL log model: tables of hosts, processes, ranks, channels, items. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checks/nccl/log/nccllog_int.h"
#include "core/util.h"

struct ncl_log *ncl_log_new(void)
{
	struct ncl_log *lg = calloc(1, sizeof(*lg));

	if (!lg)
		return NULL;
	lg->max_rank = -1;
	return lg;
}

void ncl_log_free(struct ncl_log *lg)
{
	if (!lg)
		return;
	free(lg->cur);
	free(lg->hosts);
	free(lg->procs);
	free(lg->ranks);
	free(lg->chans);
	free(lg->chan_hash);
	free(lg);
}

size_t ncl_log_lines(const struct ncl_log *lg)
{
	return lg->lines;
}

size_t ncl_log_nccl_lines(const struct ncl_log *lg)
{
	return lg->nccl_lines;
}

void ncl_copy(char *dst, size_t len, const char *src, size_t n)
{
	if (n >= len)
		n = len - 1;
	memcpy(dst, src, n);
	dst[n] = '\0';
}

int ncl_host(struct ncl_log *lg, const char *name)
{
	struct ncl_host *h;

	for (int i = 0; i < lg->nhosts; i++)
		if (!strncmp(lg->hosts[i].name, name, NCL_HOST - 1))
			return i;
	if (lg->nhosts >= NCL_MAX_HOSTS ||
	    fc_grow((void **)&lg->hosts, &lg->hosts_cap, lg->nhosts, sizeof(*h))) {
		lg->cut_host_lines++;
		return -1;
	}
	h = &lg->hosts[lg->nhosts];
	memset(h, 0, sizeof(*h));
	ncl_copy(h->name, sizeof(h->name), name, strlen(name));
	return lg->nhosts++;
}

const char *ncl_host_name(const struct ncl_log *lg, int h)
{
	return h >= 0 && h < lg->nhosts && lg->hosts[h].name[0] ? lg->hosts[h].name :
								  "(no host prefix)";
}

struct ncl_proc *ncl_proc(struct ncl_log *lg, int host, long pid)
{
	struct ncl_proc *p;

	for (int i = lg->nprocs - 1; i >= 0; i--)
		if (lg->procs[i].host == host && lg->procs[i].pid == pid)
			return &lg->procs[i];
	if (lg->nprocs >= NCL_MAX_PROCS ||
	    fc_grow((void **)&lg->procs, &lg->procs_cap, lg->nprocs, sizeof(*p))) {
		lg->cut_proc_lines++;
		return NULL;
	}
	p = &lg->procs[lg->nprocs++];
	memset(p, 0, sizeof(*p));
	p->host = host;
	p->pid = pid;
	p->lo = 0;
	p->hi = NCL_V_MAX;
	return p;
}

struct ncl_rank *ncl_rank(struct ncl_log *lg, int rank)
{
	struct ncl_rank *r;

	if (rank < 0 || rank > NCL_MAX_RANK)
		return NULL;
	if (rank >= lg->ranks_cap) {
		int ncap = lg->ranks_cap ? lg->ranks_cap : 64;

		while (ncap <= rank)
			ncap *= 2;
		r = realloc(lg->ranks, (size_t)ncap * sizeof(*r));
		if (!r)
			return NULL;
		memset(r + lg->ranks_cap, 0, (size_t)(ncap - lg->ranks_cap) * sizeof(*r));
		lg->ranks = r;
		lg->ranks_cap = ncap;
	}
	r = &lg->ranks[rank];
	if (!r->present) {
		r->present = 1;
		r->host = -1;
		r->cuda_dev = r->nvml_dev = -1;
		r->bus_id = -1;
	}
	if (rank > lg->max_rank)
		lg->max_rank = rank;
	return r;
}

static uint64_t chan_key(const struct ncl_chan *c)
{
	uint64_t h = 1469598103934665603ULL;
	const int f[] = { c->channel, c->conn, c->from, c->to, c->dir };

	for (size_t i = 0; i < sizeof(f) / sizeof(f[0]); i++)
		h = (h ^ (uint32_t)f[i]) * 1099511628211ULL;
	for (const char *s = c->via; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return h;
}

static int chan_same(const struct ncl_chan *a, const struct ncl_chan *b)
{
	return a->key == b->key && a->channel == b->channel && a->conn == b->conn &&
	       a->from == b->from && a->to == b->to && a->dir == b->dir &&
	       !strcmp(a->via, b->via);
}

static int hash_rebuild(struct ncl_log *lg, size_t cap)
{
	uint32_t *t = calloc(cap, sizeof(*t));

	if (!t)
		return -ENOMEM;
	for (size_t i = 0; i < lg->nchans; i++) {
		size_t j = lg->chans[i].key & (cap - 1);

		while (t[j])
			j = (j + 1) & (cap - 1);
		t[j] = (uint32_t)i + 1;
	}
	free(lg->chan_hash);
	lg->chan_hash = t;
	lg->hash_cap = cap;
	return 0;
}

/* Adds a channel unless the same line was seen (repeats per excerpt). */
void ncl_chan_add(struct ncl_log *lg, const struct ncl_chan *c)
{
	struct ncl_chan n = *c;
	size_t j;

	n.key = chan_key(&n);
	if (lg->nchans >= NCL_MAX_CHANNELS)
		return;
	if ((lg->nchans + 1) * 2 > lg->hash_cap &&
	    hash_rebuild(lg, lg->hash_cap ? lg->hash_cap * 2 : 256))
		return;
	for (j = n.key & (lg->hash_cap - 1); lg->chan_hash[j];
	     j = (j + 1) & (lg->hash_cap - 1))
		if (chan_same(&lg->chans[lg->chan_hash[j] - 1], &n))
			return;
	if (lg->nchans == lg->chans_cap) {
		size_t cap = lg->chans_cap ? lg->chans_cap * 2 : 64;
		struct ncl_chan *p = realloc(lg->chans, cap * sizeof(*p));

		if (!p)
			return;
		lg->chans = p;
		lg->chans_cap = cap;
	}
	lg->chans[lg->nchans] = n;
	lg->chan_hash[j] = (uint32_t)++lg->nchans;
}

void ncl_item_add(struct ncl_item *items, int *n, const char *text, const char *extra,
		  int host)
{
	for (int i = 0; i < *n; i++)
		if (!strncmp(items[i].text, text, NCL_TEXT - 1)) {
			items[i].count++;
			return;
		}
	if (*n >= NCL_MAX_LIST) {
		items[NCL_MAX_LIST - 1].count++; /* folded into the last one */
		return;
	}
	memset(&items[*n], 0, sizeof(items[*n]));
	ncl_copy(items[*n].text, NCL_TEXT, text, strlen(text));
	ncl_copy(items[*n].extra, NCL_NAME, extra ? extra : "", extra ? strlen(extra) : 0);
	items[*n].host = host;
	items[*n].count = 1;
	(*n)++;
}

void ncl_env_set(struct ncl_log *lg, const char *name, const char *value, int host,
		 int invalid)
{
	struct ncl_env *e;

	for (int i = 0; i < lg->nenv; i++) {
		e = &lg->env[i];
		if (strncmp(e->name, name, NCL_NAME - 1))
			continue;
		if (strncmp(e->value, value, NCL_TEXT - 1) && !e->other[0]) {
			ncl_copy(e->other, sizeof(e->other), value, strlen(value));
			e->other_host = host;
		}
		e->invalid |= invalid;
		return;
	}
	if (lg->nenv >= NCL_MAX_ENV)
		return;
	e = &lg->env[lg->nenv++];
	memset(e, 0, sizeof(*e));
	ncl_copy(e->name, sizeof(e->name), name, strlen(name));
	ncl_copy(e->value, sizeof(e->value), value, strlen(value));
	e->host = host;
	e->other_host = -1;
	e->invalid = invalid;
}

const struct ncl_env *ncl_env_get(const struct ncl_log *lg, const char *name)
{
	for (int i = 0; i < lg->nenv; i++)
		if (!strcmp(lg->env[i].name, name))
			return &lg->env[i];
	return NULL;
}

/* IPoIB netdevs: ib0, ib1.8013, ibp26s0, ibs3, ib0:0. */
int ncl_is_ipoib(const char *ifname)
{
	return ifname[0] == 'i' && ifname[1] == 'b' &&
	       (isdigit((unsigned char)ifname[2]) || ifname[2] == 'p' || ifname[2] == 's');
}

static const struct ncl_host *host_with_list(const struct ncl_log *lg, int h)
{
	if (h >= 0 && h < lg->nhosts && lg->hosts[h].have_list)
		return &lg->hosts[h];
	for (int i = 0; i < lg->nhosts; i++)
		if (lg->hosts[i].have_list)
			return &lg->hosts[i];
	return NULL;
}

int ncl_hca_same(const char *logname, const char *name, size_t n)
{
	return !strncmp(logname, name, n) && (!logname[n] || !strcmp(logname + n, "_dma"));
}

int ncl_hca_listed(const struct ncl_log *lg, int h, const char *name)
{
	const struct ncl_host *host = host_with_list(lg, h);

	for (int i = 0; host && i < host->nhcas; i++)
		if (ncl_hca_same(host->hcas[i].name, name, strlen(name)))
			return 1;
	return 0;
}

const char *ncl_hca_of(const struct ncl_log *lg, int h, int net_dev, char *buf,
		       size_t len)
{
	const struct ncl_host *host = host_with_list(lg, h);
	size_t used = 0;

	buf[0] = '\0';
	if (!host || net_dev < 0)
		return buf;
	for (int i = 0; i < host->nhcas; i++) {
		const struct ncl_hca *c = &host->hcas[i];
		int hit = ncl_hca_netdev(host, c) == net_dev ||
			  (!host->nmerged && c->index == net_dev);

		if (!hit)
			continue;
		used += (size_t)snprintf(buf + used, used < len ? len - used : 0, "%s%s",
					 used ? "+" : "", c->name);
		if (used >= len) {
			buf[len - 1] = '\0';
			break;
		}
	}
	return buf;
}

/* ---- cursor helpers ---- */

int ncl_starts(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

int ncl_skip(const char **p, const char *lit)
{
	size_t n = strlen(lit);

	if (strncmp(*p, lit, n))
		return 0;
	*p += n;
	return 1;
}

void ncl_ws(const char **p)
{
	while (**p == ' ' || **p == '\t')
		(*p)++;
}

int ncl_num(const char **p, long *v)
{
	const char *s = *p;
	long x = 0;
	int neg = 0;

	if (*s == '-') {
		neg = 1;
		s++;
	}
	if (!isdigit((unsigned char)*s))
		return 0;
	for (; isdigit((unsigned char)*s); s++)
		x = x < 100000000000L ? x * 10 + (*s - '0') : x;
	*v = neg ? -x : x;
	*p = s;
	return 1;
}

int ncl_hex(const char **p, int64_t *v)
{
	const char *s = *p;
	uint64_t x = 0;
	int n = 0;

	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X') && isxdigit((unsigned char)s[2]))
		s += 2;
	for (; isxdigit((unsigned char)*s); s++, n++) {
		int d = isdigit((unsigned char)*s) ? *s - '0' : (tolower(*s) - 'a' + 10);

		if (n < 15)
			x = x * 16 + (uint64_t)d;
	}
	if (!n)
		return 0;
	*v = (int64_t)x;
	*p = s;
	return 1;
}

/* Copies characters up to whitespace or one of @stop; returns the length. */
size_t ncl_word(const char **p, char *buf, size_t len, const char *stop)
{
	const char *s = *p;
	size_t n = 0;

	while (*s && *s != ' ' && *s != '\t' && !strchr(stop, *s))
		s++;
	n = (size_t)(s - *p);
	if (buf)
		ncl_copy(buf, len, *p, n);
	*p = s;
	return n;
}
