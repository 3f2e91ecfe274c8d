/*
 * NCCL versions from wording. The version line is often missing from an
 * excerpt, but the wording of the plugin lookup and bootstrap lines changed
 * between releases (FORMATS.md 1.3, 1.4), so each process gets the range of
 * versions its lines fit. Two processes whose ranges do not meet run
 * different NCCL builds.
 */
#include <stdio.h>
#include <string.h>

#include "checks/nccl/log/nccllog_int.h"

struct era_rule {
	const char *prefix; /* the message starts with this */
	int exact;	    /* ... and is exactly this */
	int lo, hi;
};

/* Checked in order; the first match decides. */
static const struct era_rule rules[] = {
	{ "NET/Plugin : No plugin found (libnccl-net.so).", 1, NCL_V(2, 4, 0), NCL_V(2, 4, 99) },
	{ "NET/Plugin : No plugin found (libnccl-net.so), using internal implementation", 0,
	  NCL_V(2, 5, 0), NCL_V(2, 16, 99) },
	{ "NET/Plugin : Plugin load returned ", 0, NCL_V(2, 5, 0), NCL_V(2, 16, 99) },
	{ "NET/Plugin : Plugin load (libnccl-net.so) returned ", 0, NCL_V(2, 17, 0),
	  NCL_V(2, 18, 99) },
	{ "NET/Plugin : No plugin found, using internal implementation", 0, NCL_V(2, 17, 0),
	  NCL_V(2, 18, 99) },
	{ "NET/Plugin : dlerror=", 0, NCL_V(2, 19, 0), NCL_V(2, 20, 99) },
	{ "NET/Plugin: No plugin found (libnccl-net.so)", 1, NCL_V(2, 21, 0), NCL_V(2, 21, 99) },
	{ "NET/Plugin: Using internal network plugin.", 1, NCL_V(2, 21, 0), NCL_V(2, 21, 99) },
	{ "NET/Plugin: Could not find: libnccl-net.so. Using internal network plugin.", 1,
	  NCL_V(2, 22, 0), NCL_V(2, 25, 99) },
	{ "NET/Plugin: Could not find: libnccl-net.so.", 0, NCL_V(2, 26, 0), NCL_V(2, 27, 99) },
	{ "NET/Plugin: Could not find: libnccl-net.so", 1, NCL_V(2, 28, 0), NCL_V_MAX },
	{ "Using non-device net plugin version 0", 1, NCL_V(2, 19, 0), NCL_V(2, 21, 99) },
	{ "Bootstrap : Using [", 0, NCL_V(2, 4, 8), NCL_V(2, 7, 99) },
	{ "Bootstrap : Using ", 0, NCL_V(2, 8, 0), NCL_V(2, 23, 99) },
	{ "Bootstrap: Using ", 0, NCL_V(2, 24, 0), NCL_V_MAX },
	{ "NET : Using interface ", 0, NCL_V(2, 3, 0), NCL_V(2, 3, 99) },
	{ "Init timings: rank", 0, NCL_V(2, 22, 0), NCL_V(2, 22, 99) },
	{ "Init timings - ", 0, NCL_V(2, 23, 0), NCL_V_MAX },
	{ "NCCL git version", 0, NCL_V(2, 29, 0), NCL_V_MAX },
};

/* Parses "2.19.3[+cuda...]"; 0 or -1. */
int ncl_parse_version(const char *s, int *v_p)
{
	long a, b, c;

	if (!ncl_num(&s, &a) || !ncl_skip(&s, ".") || !ncl_num(&s, &b) || !ncl_skip(&s, ".") ||
	    !ncl_num(&s, &c))
		return -1;
	if (a < 1 || a > 9 || b < 0 || b > 99 || c < 0 || c > 99)
		return -1;
	*v_p = (int)NCL_V(a, b, c);
	return 0;
}

void ncl_fmt_version(int v, char *buf, size_t len)
{
	if (v >= NCL_V_MAX)
		snprintf(buf, len, "today");
	else if (v % 100 == 99 || v % 100 == 0)
		snprintf(buf, len, "%d.%d", v / 10000, v / 100 % 100);
	else
		snprintf(buf, len, "%d.%d.%d", v / 10000, v / 100 % 100, v % 100);
}

static void narrow(struct ncl_proc *p, int lo, int hi, const char *why)
{
	if (p->conflict)
		return;
	if (lo > p->lo) {
		p->lo = lo;
		ncl_copy(p->why_lo, sizeof(p->why_lo), why, strlen(why));
	}
	if (hi < p->hi) {
		p->hi = hi;
		ncl_copy(p->why_hi, sizeof(p->why_hi), why, strlen(why));
	}
	if (p->lo > p->hi)
		p->conflict = 1; /* the table does not know this build: say nothing */
}

void ncl_era_note(struct ncl_log *lg, const struct ncl_rec *r, int h)
{
	struct ncl_proc *p;

	if (r->level != NCL_INFO)
		return;
	for (size_t i = 0; i < sizeof(rules) / sizeof(rules[0]); i++) {
		const struct era_rule *e = &rules[i];
		int hit = e->exact ? !strcmp(r->msg, e->prefix) : ncl_starts(r->msg, e->prefix);

		if (!hit)
			continue;
		p = ncl_proc(lg, h, r->pid);
		if (p)
			narrow(p, e->lo, e->hi, e->prefix);
		return;
	}
}

void ncl_era_version(struct ncl_log *lg, const struct ncl_rec *r, int h, int v)
{
	struct ncl_proc *p = ncl_proc(lg, h, r->pid);

	if (p)
		narrow(p, v, v, "NCCL version line");
}

static int known(const struct ncl_proc *p)
{
	return !p->conflict && (p->lo > 0 || p->hi < NCL_V_MAX);
}

static void range_text(const struct ncl_proc *p, char *buf, size_t len)
{
	char lo[16], hi[16];

	ncl_fmt_version(p->lo, lo, sizeof(lo));
	ncl_fmt_version(p->hi, hi, sizeof(hi));
	if (p->lo == p->hi)
		snprintf(buf, len, "%s", lo);
	else if (!p->lo)
		snprintf(buf, len, "up to %s", hi);
	else
		snprintf(buf, len, "%s - %s", lo, hi);
}

int ncl_era_summary(const struct ncl_log *lg, int *lo_p, int *hi_p, char *why, size_t len)
{
	const struct ncl_proc *a = NULL, *b = NULL;
	int lo = 0, hi = NCL_V_MAX, have = 0, v = 0;
	char ra[48], rb[48];

	*lo_p = *hi_p = 0;
	if (lg->nversions == 1)
		ncl_parse_version(lg->versions[0].text, &v);
	for (int i = 0; i < lg->nprocs; i++) {
		const struct ncl_proc *p = &lg->procs[i];

		if (!known(p))
			continue;
		if (!have) {
			lo = p->lo;
			hi = p->hi;
			have = 1;
		} else {
			lo = p->lo < lo ? p->lo : lo;
			hi = p->hi > hi ? p->hi : hi;
		}
		for (int j = 0; j < i && !a; j++) {
			const struct ncl_proc *o = &lg->procs[j];

			if (known(o) && (o->hi < p->lo || p->hi < o->lo)) {
				a = o;
				b = p;
			}
		}
		if (!a && v && (v < p->lo || v > p->hi))
			b = p;
	}
	if (have) {
		*lo_p = lo;
		*hi_p = hi;
	}
	if (a) {
		range_text(a, ra, sizeof(ra));
		range_text(b, rb, sizeof(rb));
		snprintf(why, len,
			 "host %s (pid %ld) prints the wording of NCCL %s (\"%s\") but host %s "
			 "(pid %ld) that of NCCL %s (\"%s\")",
			 lg->hosts[a->host].name[0] ? lg->hosts[a->host].name : "?", a->pid, ra,
			 a->hi < b->lo ? a->why_hi : a->why_lo,
			 lg->hosts[b->host].name[0] ? lg->hosts[b->host].name : "?", b->pid, rb,
			 a->hi < b->lo ? b->why_lo : b->why_hi);
		return 1;
	}
	if (b) {
		range_text(b, rb, sizeof(rb));
		snprintf(why, len,
			 "the log prints NCCL version %s but host %s (pid %ld) uses the wording "
			 "of NCCL %s (\"%s\")",
			 lg->versions[0].text,
			 lg->hosts[b->host].name[0] ? lg->hosts[b->host].name : "?", b->pid, rb,
			 v < b->lo ? b->why_lo : b->why_hi);
		return 1;
	}
	return 0;
}

/* Path type numbers by release (nccl-rules.md section 1). */
const char *ncl_path_name(int v, int n)
{
	static const struct {
		int from;
		const char *names[13];
	} eras[] = {
		{ NCL_V(2, 4, 0), { "PIX", "PXB", "PHB", "NODE", "SYS" } },
		{ NCL_V(2, 6, 0), { "LOC", "NVL", "PIX", "PXB", "PHB", "SYS", "NET" } },
		{ NCL_V(2, 8, 0), { "LOC", "NVL", "NVB", "PIX", "PXB", "PHB", "SYS" } },
		{ NCL_V(2, 12, 0), { "LOC", "NVL", "NVB", "PIX", "PXB", "PXN", "PHB", "SYS" } },
		{ NCL_V(2, 18, 0),
		  { "LOC", "NVL", "NVB", "PIX", "PXB", "PXN", "PHB", "SYS", "NET", "DIS" } },
		{ NCL_V(2, 26, 0),
		  { "LOC", "NVL", "NVB", "C2C", "PIX", "PXB", "PXN", "PHB", "SYS", "NET", "DIS" } },
		{ NCL_V(2, 27, 3), { "LOC", "NVL", "NVB", "C2C", "PIX", "PXB", "PXN", "P2C", "PHB",
				     "SYS", "NET", "DIS" } },
		{ NCL_V(2, 27, 5), { "LOC", "NVL", "NVB", "C2C", "PIX", "PXB", "P2C", "PXN", "PHB",
				     "SYS", "NET", "DIS" } },
	};
	int e = -1;

	for (size_t i = 0; i < sizeof(eras) / sizeof(eras[0]); i++)
		if (v >= eras[i].from)
			e = (int)i;
	if (e < 0 || n < 0 || n >= 13 || !eras[e].names[n])
		return "";
	return eras[e].names[n];
}
