/* fabcheck health: the node against the rack's reference and its own last
 * readings (see health.h). */
#include "checks/preflight/health.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "checks/preflight/preflight.h"
#include "core/out.h"
#include "core/util.h"
#include "diag/diag.h"

/* The reference's value for @dev port @port (@key of its summary rows)
 * across its nodes, as text, and the majority one (NULL: none). */
static const char *ref_majority(const json_t *ref, const char *dev, int port, const char *key,
				char (*text)[64], const char **vals, int max)
{
	size_t i, j;
	json_t *nd, *p;
	int n = 0, m;

	json_array_foreach(json_object_get(ref, "nodes"), i, nd) {
		json_array_foreach(json_object_get(nd, "ports"), j, p) {
			const json_t *v = json_object_get(p, key);

			if (n >= max || strcmp(fc_jstr(p, "device", ""), dev) ||
			    (int)fc_jnum(p, "port", 0) != port ||
			    strcmp(fc_jstr(p, "state", ""), "ACTIVE"))
				continue;
			if (json_is_string(v))
				snprintf(text[n], sizeof(text[n]), "%s", json_string_value(v));
			else if (json_is_number(v) && json_number_value(v) > 0)
				snprintf(text[n], sizeof(text[n]), "%g", json_number_value(v));
			else
				continue;
			vals[n] = text[n];
			n++;
		}
	}
	m = fc_majority(vals, n);
	return m >= 0 ? vals[m] : NULL;
}

#define HL_REF_MAX 4096

/* Why pf_check left @dev port @port (@ifn: the port of that net device
 * instead) of this node out of the rails (its summary row's "left_out"),
 * NULL when it is a rail port or no port's. */
static const char *left_out(const json_t *doc, const char *dev, int port, const char *ifn)
{
	size_t i;
	json_t *p;

	json_array_foreach(json_object_get(json_array_get(json_object_get(doc, "nodes"), 0), "ports"), i, p)
		if (ifn ? !strcmp(fc_jstr(p, "netdev", ""), ifn) :
			  !strcmp(fc_jstr(p, "device", ""), dev) && (int)fc_jnum(p, "port", 0) == port)
			return fc_jstr(p, "left_out", NULL);
	return NULL;
}

/* The three "%s" of a finding's tail for a port left out of the rails. */
#define LEFT_NOTE(left)                                                             \
	(left) ? " (left out of the rails: " : "", (left) ? (left) : "",            \
		(left) ? ": not judged for a drain)" : ""

void hl_check_reference(json_t *doc, const char *node, const json_t *probe, const json_t *ref,
			const char *ref_path)
{
	static const enum pf_value keys[] = { PF_FW, PF_RATE, PF_NETDEV_MTU };
	static char text[HL_REF_MAX][64];
	static const char *vals[HL_REF_MAX];
	size_t i, j;
	json_t *d, *p;

	json_array_foreach(json_object_get(probe, "devices"), i, d) {
		const char *dev = fc_jstr(d, "name", "?");

		json_array_foreach(json_object_get(d, "ports"), j, p) {
			int port = (int)fc_jnum(p, "port", 0);
			const char *ifn = fc_jstr(p, "netdev", "");
			const json_t *ndv = json_object_get(json_object_get(probe, "netdevs"), ifn);
			char mine[64];
			const char *left;

			if (strcmp(fc_jstr(p, "state", ""), "ACTIVE"))
				continue; /* pf_check names a port that is down */
			for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++) {
				const struct pf_value_rule *r = &pf_values[keys[k]];
				const char *maj = ref_majority(ref, dev, port, r->key, text, vals,
							       HL_REF_MAX);

				if (keys[k] == PF_FW)
					snprintf(mine, sizeof(mine), "%s", fc_jstr(d, r->key, ""));
				else if (keys[k] == PF_RATE)
					snprintf(mine, sizeof(mine), "%g", fc_jnum(p, r->key, 0));
				else
					snprintf(mine, sizeof(mine), "%g", fc_jnum(ndv, "mtu", 0));
				if (!maj || !*mine || !strcmp(mine, "0") || !strcmp(mine, maj))
					continue;
				left = left_out(doc, dev, port, NULL);
				fc_finding(doc, left ? FC_WARN : FC_FAIL,
					   "%s: %s port %d %s is %s%s where the rack's recorded majority (%s) is %s%s: %s%s%s%s",
					   node, dev, port, r->what, mine, r->unit, ref_path, maj, r->unit, r->fix,
					   LEFT_NOTE(left));
				if (!left)
					pf_blame(doc, node, r->part, keys[k] == PF_NETDEV_MTU && *ifn ? ifn : dev);
			}
		}
	}
}

/* An error counter: its rise means the link is not healthy (the classes
 * of diag/parse.c: the signal, FEC, flaps, a remote link, drops). */
static int is_error_counter(const char *name)
{
	enum diag_class c = diag_counter_class(name);

	return c == DIAG_C_PHYS || c == DIAG_C_POSTFEC || c == DIAG_C_FLAP ||
	       c == DIAG_C_REMOTE || c == DIAG_C_DROP;
}

static const char *when_text(double t, char *buf, size_t len)
{
	time_t tt;
	struct tm tm;

	if (!(t > 0 && t <= FC_TIME_MAX) || (tt = (time_t)t, !gmtime_r(&tt, &tm)) || !strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm))
		snprintf(buf, len, "an unknown time");
	return buf;
}

static void check_counters(json_t *doc, const char *node, const json_t *probe,
			   const json_t *state, const char *when)
{
	const char *key, *name;
	json_t *ctrs, *v;

	json_object_foreach(json_object_get(probe, "counters"), key, ctrs) {
		const json_t *old = json_object_get(json_object_get(state, "counters"), key);
		char list[512] = "", dev[64];
		const char *left;
		size_t len = 0;

		if (!old)
			continue;
		json_object_foreach(ctrs, name, v) {
			json_int_t now = json_integer_value(v);
			json_int_t was = json_integer_value(json_object_get(old, name));

			/* A lower figure is a reset (driver reload, perfquery -R): no rise. */
			if (!is_error_counter(name) || !json_is_integer(json_object_get(old, name)) ||
			    now <= was || len + 80 >= sizeof(list))
				continue;
			len += (size_t)snprintf(list + len, sizeof(list) - len, "%s%s +%lld",
						len ? ", " : "", name, (long long)(now - was));
		}
		if (!len)
			continue;
		snprintf(dev, sizeof(dev), "%.*s", (int)strcspn(key, ":"), key);
		left = left_out(doc, dev, strchr(key, ':') ? atoi(strchr(key, ':') + 1) : 0, NULL);
		fc_finding(doc, left ? FC_WARN : FC_FAIL,
			   "%s: %s port %s error counters moved since the last check (%s): %s: check the cable, the transceiver and the switch port (fabcheck diagnose names the part)%s%s%s",
			   node, dev, strchr(key, ':') ? strchr(key, ':') + 1 : "?", when, list,
			   LEFT_NOTE(left));
		if (!left)
			pf_blame(doc, node, "error counters", dev);
	}
}

static void check_carrier(json_t *doc, const char *node, const json_t *probe,
			  const json_t *state, const char *when)
{
	const char *ifn;
	json_t *nd;

	json_object_foreach(json_object_get(probe, "netdevs"), ifn, nd) {
		const json_t *was = json_object_get(json_object_get(state, "carrier_changes"), ifn);
		json_int_t now = json_integer_value(json_object_get(nd, "carrier_changes"));
		const char *left;

		if (!json_is_integer(was) || now <= json_integer_value(was))
			continue;
		left = left_out(doc, NULL, 0, ifn);
		fc_finding(doc, left ? FC_WARN : FC_FAIL,
			   "%s: %s link went down and up since the last check (%s): carrier_changes +%lld: check the cable, the transceiver and the switch port's log%s%s%s",
			   node, ifn, when, (long long)(now - json_integer_value(was)), LEFT_NOTE(left));
		if (!left)
			pf_blame(doc, node, "link flap", ifn);
	}
}

static void check_pcie(json_t *doc, const char *node, const json_t *probe, const json_t *state,
		       const char *when)
{
	size_t i;
	json_t *h;

	json_array_foreach(json_object_get(probe, "hcas"), i, h) {
		const char *dev = fc_jstr(h, "name", "?");
		const json_t *pc = json_object_get(h, "pcie");
		const json_t *was = json_object_get(json_object_get(state, "pcie"), dev);
		double gts = fc_jnum(pc, "gts", 0), wgts = fc_jnum(was, "gts", 0);
		int w = (int)fc_jnum(pc, "width", 0), ww = (int)fc_jnum(was, "width", 0);

		if (!json_is_object(pc) || !json_is_object(was) || (gts >= wgts && w >= ww))
			continue;
		fc_finding(doc, FC_FAIL,
			   "%s: %s PCIe link trained to %g GT/s x%d where it was %g GT/s x%d at the last check (%s): reseat the HCA, check the riser and the slot (lspci -vv LnkSta)",
			   node, dev, gts, w, wgts, ww, when);
		pf_blame(doc, node, "pcie link", dev);
	}
}

void hl_check_state(json_t *doc, const char *node, const json_t *probe, const json_t *state)
{
	char when[64];

	if (!state)
		return;
	when_text(fc_jnum(state, "time", 0), when, sizeof(when));
	check_counters(doc, node, probe, state, when);
	check_carrier(doc, node, probe, state, when);
	check_pcie(doc, node, probe, state, when);
}

/* "DEV:PORT" of @p on @d into @key. */
static void port_key(const json_t *d, const json_t *p, char *key, size_t len)
{
	snprintf(key, len, "%s:%d", fc_jstr(d, "name", "?"), (int)fc_jnum(p, "port", 0));
}

/* The probe's ACTIVE ports, as "DEV:PORT" (the state's "active"). */
static json_t *hl_active_ports(const json_t *probe)
{
	json_t *a = json_array(), *d, *p;
	size_t i, j;
	char key[160];

	json_array_foreach(json_object_get(probe, "devices"), i, d)
		json_array_foreach(json_object_get(d, "ports"), j, p)
			if (!strcmp(fc_jstr(p, "state", ""), "ACTIVE")) {
				port_key(d, p, key, sizeof(key));
				json_array_append_new(a, json_string(key));
			}
	return a;
}

/* What shows port @p of @d was in use on this node, into @why; 0: none. */
static int port_used(const json_t *probe, const json_t *d, const json_t *p,
		     const json_t *last, char *why, size_t len)
{
	const json_t *nd = json_object_get(json_object_get(probe, "netdevs"),
					   fc_jstr(p, "netdev", ""));
	json_int_t up = json_integer_value(json_object_get(nd, "carrier_up_count"));
	json_int_t downed;
	char key[160];

	port_key(d, p, key, sizeof(key));
	downed = json_integer_value(json_object_get(json_object_get(json_object_get(probe, "counters"), key), "link_downed"));
	if (fc_jhas_str(json_object_get(last, "active"), key))
		snprintf(why, len, "ACTIVE at the last check");
	else if (up > 0)
		snprintf(why, len, "its link came up %lld time%s since %s was made (carrier_up_count)",
			 (long long)up, up == 1 ? "" : "s", fc_jstr(p, "netdev", "?"));
	else if (downed > 0)
		/* IBTA PortCounters LinkDownedCounter: the link was up and
		 * the port's training state machine downed it */
		snprintf(why, len, "its link was up and went down %lld time%s (link_downed)",
			 (long long)downed, downed == 1 ? "" : "s");
	else
		return 0;
	return 1;
}

json_t *hl_in_use(const json_t *probe, const json_t *last)
{
	json_t *used = json_object(), *d, *p;
	size_t i, j;
	char key[160], why[160];

	json_array_foreach(json_object_get(probe, "devices"), i, d)
		json_array_foreach(json_object_get(d, "ports"), j, p)
			if (port_used(probe, d, p, last, why, sizeof(why))) {
				port_key(d, p, key, sizeof(key));
				json_object_set_new(used, key, json_string(why));
			}
	return used;
}

json_t *hl_state_new(const char *node, const json_t *probe, double now)
{
	json_t *st = json_pack("{s:i, s:s, s:f, s:O?, s:o, s:o}", "version", HL_STATE_VERSION,
			       "node", node, "time", now, "counters",
			       json_object_get(probe, "counters"), "carrier_changes", json_object(),
			       "pcie", json_object());
	const char *ifn;
	size_t i;
	json_t *v;

	json_object_foreach(json_object_get(probe, "netdevs"), ifn, v)
		if (json_is_integer(json_object_get(v, "carrier_changes")))
			json_object_set(json_object_get(st, "carrier_changes"), ifn,
					json_object_get(v, "carrier_changes"));
	json_object_set_new(st, "active", hl_active_ports(probe));
	json_array_foreach(json_object_get(probe, "hcas"), i, v)
		if (json_is_object(json_object_get(v, "pcie")))
			json_object_set_new(json_object_get(st, "pcie"), fc_jstr(v, "name", "?"),
					    json_pack("{s:O, s:O}", "gts",
						      json_object_get(json_object_get(v, "pcie"), "gts"),
						      "width",
						      json_object_get(json_object_get(v, "pcie"), "width")));
	return st;
}
