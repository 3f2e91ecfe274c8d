/*
 * A module's readings against the same port's module on the rack's other
 * nodes (diagnose over evidence folders, preflight over its nodes).
 *
 * Receive power (diag_rx_peers): the same port (device and port) on two or
 * more other nodes, each lane in use, the median of theirs. A lane
 * receiving more than DIAG_RX_PEER_DB less than that median is named: the
 * largest channel insertion loss of the short-reach optics these racks use
 * is 4 dB (IEEE 802.3cu-2021, 400GBASE-FR4 and 100GBASE-FR1, 2 km SMF;
 * 100GBASE-SR4 on OM4 allows 1.9 dB, IEEE 802.3bm clause 95), so a lane
 * that far below its peers loses more than any compliant channel's length
 * explains: the far end's transmitter on that lane, or the fibre and its
 * connectors, not this module (its receiver reads what arrives).
 *
 * The module's own readings (diag_module_peer): temperature, supply
 * voltage, each lane's transmit power and laser bias. Each is judged in
 * the units of the module's own warning window, not by a spread chosen
 * here. The module publishes where a reading stops being normal: its
 * warning thresholds (SFF-8636 rev 2.10a page 03h bytes 128-199, CMIS 5.2
 * page 02h bytes 128-199; ethtool sff-common.c sff_show_thresholds prints
 * them). For transmit power they are the PMD's launch power range: the
 * Mellanox SR4 of tests/real/ethtool_m warns at -8.40 and +2.40 dBm, the
 * "Average launch power, each lane" of 100GBASE-SR4 (IEEE 802.3bm table
 * 95-6). The same part in the same port of the other nodes (same switch
 * model, airflow, supply and host lanes) gives the operating point a
 * healthy module of this rack sits at: the median of two or more peers
 * with the same part number. A reading outside the band its peers form
 * that has gone more than half the way from their median to its own
 * warning threshold (so it is nearer its warning than its peers) is named:
 * it has used most of the margin the part's maker left, where its peers
 * have not, so it is the module (or its airflow, or its supply), not the
 * rack. Beyond the warning threshold the module flags the reading itself
 * (its warning flags, judged by diag_module_verdict), so this rule judges
 * readings inside the window only. No window published: not judged.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/out.h"
#include "core/stats.h"
#include "diag/diag.h"
#include "diag/rules.h"

static double dbm(double mw)
{
	return 10.0 * log10(mw);
}

/* A reading of @o: its value and its warning window (null: not given). */
static void reading(json_t *o, const char *key, double v, int has_lo, double lo, int has_hi,
		    double hi, const char *unit)
{
	if (has_lo && has_hi && lo >= hi)
		has_lo = has_hi = 0; /* no window: a module that gives zeros */
	json_object_set_new(o, key, json_pack("{s:f, s:o, s:o, s:s}", "value", v, "warn_lo",
					      has_lo ? json_real(lo) : json_null(), "warn_hi",
					      has_hi ? json_real(hi) : json_null(), "unit", unit));
}

/* Each lane's receive power in dBm, null where not read or not in use. */
static json_t *lanes_rx_json(const struct diag_module *m)
{
	json_t *a = json_array();

	for (int i = 0; i < m->nlanes; i++)
		json_array_append_new(a, (m->used & (1u << i)) && m->lane_rx_mw[i] > 0
						 ? json_real(dbm(m->lane_rx_mw[i]))
						 : json_null());
	return a;
}

json_t *diag_module_readings(const struct diag_module *m, const char *pn)
{
	json_t *r = json_object();
	char key[48];

	if (!m->known) {
		json_decref(r);
		return json_null();
	}
	if (m->nlanes && m->temp_c != 0) /* low side: a cooler module is no fault */
		reading(r, "temperature", m->temp_c, 0, 0, m->temp_warn_c > 0, m->temp_warn_c, "C");
	if (m->volt > 0)
		reading(r, "supply voltage", m->volt, m->volt_lo_warn > 0, m->volt_lo_warn,
			m->volt_hi_warn > 0, m->volt_hi_warn, "V");
	for (int i = 0; i < m->nlanes; i++) {
		if (!(m->used & (1u << i)))
			continue;
		snprintf(key, sizeof(key), "lane %d transmit power", i + 1);
		if (m->lane_tx_mw[i] > 0)
			reading(r, key, dbm(m->lane_tx_mw[i]), m->tx_lo_warn_dbm < 99,
				m->tx_lo_warn_dbm, m->tx_hi_warn_dbm < 99, m->tx_hi_warn_dbm, "dBm");
		snprintf(key, sizeof(key), "lane %d laser bias", i + 1);
		if (m->lane_bias_ma[i] > 0)
			reading(r, key, m->lane_bias_ma[i], m->bias_lo_warn_ma > 0, m->bias_lo_warn_ma,
				m->bias_hi_warn_ma > 0, m->bias_hi_warn_ma, "mA");
	}
	return json_pack("{s:s, s:o, s:o}", "pn", pn ? pn : "", "readings", r, "lanes_rx_dbm",
			 lanes_rx_json(m));
}

int diag_window_apart(const char *key, const struct diag_window *w, double *p, int k,
		      const char *whose, char *why, size_t len)
{
	const char *d_unit = strcmp(w->unit, "dBm") ? w->unit : "dB";
	double v = w->v, med = k ? fc_median(p, (size_t)k) : 0, lim; /* sorts @p */
	size_t n = strlen(why);
	const char *side;

	if (k < 2)
		return 0;
	if (w->has_hi && v > p[k - 1] && v <= w->hi && v - med > w->hi - v)
		side = "high", lim = w->hi;
	else if (w->has_lo && v < p[0] && v >= w->lo && med - v > v - w->lo)
		side = "low", lim = w->lo;
	else
		return 0;
	snprintf(why + n, len - n,
		 "%s%s %.2f %s where %s %.2f to %.2f %s: %.2f %s from their median %.2f %s, more than the %.2f %s left to its own %s warning threshold %.2f %s",
		 n ? "; " : "", key, v, w->unit, whose, p[0], p[k - 1], w->unit, fabs(v - med), d_unit,
		 med, w->unit, fabs(lim - v), d_unit, side, lim, w->unit);
	return 1;
}

/* Reading @r of @key against its peers' values @p (@k): appended to @why
 * when it is apart; 1 then. */
static int apart(const char *key, const json_t *r, double *p, int k, char *why, size_t len)
{
	const json_t *lo_j = json_object_get(r, "warn_lo"), *hi_j = json_object_get(r, "warn_hi");
	struct diag_window w = { fc_jnum(r, "value", 0), json_number_value(lo_j),
				 json_number_value(hi_j), json_is_number(lo_j), json_is_number(hi_j),
				 fc_jstr(r, "unit", "") };
	char whose[96];

	snprintf(whose, sizeof(whose), "the same port's module on %d other nodes reads", k);
	return diag_window_apart(key, &w, p, k, whose, why, len);
}

/* The part a named reading points at. */
static const char *reading_part(const char *key)
{
	if (strstr(key, "temperature"))
		return "transceiver (its temperature: the module or the airflow over it)";
	if (strstr(key, "voltage"))
		return "transceiver supply (the module or the port's cage)";
	return "transceiver (its transmitter)";
}

int diag_module_peer(const json_t *own, const json_t *const *peers, int k, char *why, size_t len,
		     const char **part)
{
	const char *pn = fc_jstr(own, "pn", ""), *key;
	double *p = calloc((size_t)k + 1, sizeof(*p));
	const json_t *r;
	int named = 0;

	*why = 0;
	*part = NULL;
	json_object_foreach(json_object_get(own, "readings"), key, r) {
		int m = 0;

		for (int j = 0; p && j < k; j++) {
			const char *qpn = fc_jstr(peers[j], "pn", "");
			const json_t *q = json_object_get(json_object_get(peers[j], "readings"), key);

			if ((!*pn || !*qpn || !strcmp(pn, qpn)) &&
			    json_is_number(json_object_get(q, "value")))
				p[m++] = fc_jnum(q, "value", 0);
		}
		if (!apart(key, r, p, m, why, len))
			continue;
		if (!named++)
			*part = reading_part(key);
	}
	free(p);
	return named;
}

void diag_module_peer_next(const char *cmd, char *buf, size_t len)
{
	snprintf(buf, len,
		 "compare '%s' with the same port on a good node: reseat the module and check the airflow over it, then swap it with a known-good transceiver; a reading that follows the module is the module's: replace it",
		 cmd);
}

/* Lane @lane's receive power of module @mod (diag_module_readings'
 * lanes_rx_dbm), or 99 when not read or not in use. */
static double lane_rx(const json_t *mod, size_t lane)
{
	const json_t *v = json_array_get(json_object_get(mod, "lanes_rx_dbm"), lane);

	return json_is_number(v) ? json_number_value(v) : 99;
}

int diag_rx_peer(const json_t *own, const json_t *const *peers, int k, char *why, size_t len,
		 char *lanes, size_t llen)
{
	double *peer = calloc((size_t)k + 1, sizeof(*peer));
	size_t nl = json_array_size(json_object_get(own, "lanes_rx_dbm"));
	int low = 0;

	*why = *lanes = 0;
	for (size_t l = 0; peer && l < nl; l++) {
		double v = lane_rx(own, l), med;
		int m = 0;

		for (int j = 0; j < k; j++)
			if (lane_rx(peers[j], l) < 99)
				peer[m++] = lane_rx(peers[j], l);
		if (v >= 99 || m < 2 || (med = fc_median(peer, (size_t)m)) - v <= DIAG_RX_PEER_DB)
			continue;
		snprintf(lanes + strlen(lanes), llen - strlen(lanes), "%s%zu", low ? ", " : "", l + 1);
		snprintf(why + strlen(why), len - strlen(why),
			 "%slane %zu receives %.2f dBm where the same port on %d other nodes receives %.2f dBm (median), %.1f dB less",
			 low ? "; " : "", l + 1, v, m, med, med - v);
		low++;
	}
	free(peer);
	return low;
}

void diag_rx_peer_next(const char *lanes, int n, char *buf, size_t len)
{
	snprintf(buf, len,
		 "read 'ethtool -m' of the module at the other end of this cable (the transmit power of lane%s %s), clean and inspect both ends of the fibre, then swap the fibre; if the light stays low, replace the far end's transceiver",
		 n > 1 ? "s" : "", lanes);
}

/* The modules of the same port as evidence @a's on the other nodes of @ev
 * (on its rail where @rails places both, diag/peerport.c) with readings
 * (@key) into @mods; how many. */
static int port_peers(const json_t *const *ev, int n, int a, const char *key, const json_t **mods,
		      const json_t *rails)
{
	int k = 0;

	for (int b = 0; b < n; b++)
		if (b != a && diag_same_port(rails, ev[a], ev[b]) &&
		    json_object_get(json_object_get(ev[b], "module"), key))
			mods[k++] = json_object_get(ev[b], "module");
	return k;
}

int diag_rx_peers(struct diag_ctx *c, const json_t *const *ev, int n, const json_t *rails)
{
	const json_t **mods = calloc((size_t)n + 1, sizeof(*mods));
	int found = 0;

	for (int a = 0; mods && a < n; a++) {
		char subj[256], next[400], part[112], lanes[64], ev_text[1024], by[160];
		int k = port_peers(ev, n, a, "lanes_rx_dbm", mods, rails), low;

		low = diag_rx_peer(json_object_get(ev[a], "module"), mods, k, ev_text,
				   sizeof(ev_text), lanes, sizeof(lanes));
		if (!low)
			continue;
		snprintf(subj, sizeof(subj), "%s %s port %d", fc_jstr(ev[a], "node", "?"),
			 fc_jstr(ev[a], "device", "?"), (int)fc_jnum(ev[a], "port", 0));
		snprintf(part, sizeof(part), "far end's transmitter or fibre (lane%s %s)",
			 low > 1 ? "s" : "", lanes);
		diag_rx_peer_next(lanes, low, next, sizeof(next));
		diag_peer_note(rails, ev[a], by, sizeof(by));
		diag_emit_f(c, "module_rx_peers", subj, part, 0, next,
			    "%s: more than the %.0f dB a compliant channel loses (ethtool -m)%s", ev_text,
			    DIAG_RX_PEER_DB, by);
		found++;
	}
	free(mods);
	return found;
}

int diag_module_peers(struct diag_ctx *c, const json_t *const *ev, int n, const json_t *rails)
{
	const json_t **mods = calloc((size_t)n + 1, sizeof(*mods));
	int found = 0;

	for (int a = 0; mods && a < n; a++) {
		const json_t *own = json_object_get(ev[a], "module");
		char subj[256], next[400], why[2048], cmd[64], by[160];
		const char *part;
		int k;

		if (!json_object_get(own, "readings"))
			continue;
		k = port_peers(ev, n, a, "readings", mods, rails);
		if (k < 2 || !diag_module_peer(own, mods, k, why, sizeof(why), &part))
			continue;
		snprintf(subj, sizeof(subj), "%s %s port %d", fc_jstr(ev[a], "node", "?"),
			 fc_jstr(ev[a], "device", "?"), (int)fc_jnum(ev[a], "port", 0));
		diag_module_peer_next(diag_module_cmd(fc_jstr(ev[a], "netdev", NULL),
						      fc_jstr(ev[a], "device", "?"), NULL, 0, cmd,
						      sizeof(cmd)),
				      next, sizeof(next));
		diag_peer_note(rails, ev[a], by, sizeof(by));
		diag_emit_f(c, "module_peers", subj, part, 0, next, "%s (ethtool -m)%s", why, by);
		found++;
	}
	free(mods);
	return found;
}

/* 1 when module_lanes' evidence @lanes (its readings "lane N READING
 * VALUE ...", "; " between) names a lane reading that @x (a module_peers
 * or module_rx_peers entry) names too. */
static int lane_named_both(const char *lanes, const json_t *x)
{
	const char *ev = fc_jstr(x, "evidence", ""), *s = lanes;
	int rx = !strcmp(fc_jstr(x, "rule", ""), "module_rx_peers");

	for (; s; s = strstr(s, "; ") ? strstr(s, "; ") + 2 : NULL) {
		char what[64], needle[96];
		int lane;
		size_t n;

		if (sscanf(s, "lane %d %63[a-z ]", &lane, what) != 2)
			continue;
		n = strlen(what);
		while (n && what[n - 1] == ' ')
			what[--n] = 0;
		if (rx != !strcmp(what, "receive power"))
			continue;
		snprintf(needle, sizeof(needle), rx ? "lane %d receives " : "lane %d %s ", lane, what);
		if (strstr(ev, needle))
			return 1;
	}
	return 0;
}

/* Removes the entries of @list equal to @e. */
static void drop_equal(json_t *list, const json_t *e)
{
	for (size_t i = json_array_size(list); i-- > 0;)
		if (json_equal(json_array_get(list, i), e))
			json_array_remove(list, i);
}

void diag_fold_lanes(json_t *out, json_t *sets)
{
	json_t *x, *e, *set, *drop = json_array();
	size_t i, k;

	json_array_foreach(out, i, x) {
		const char *rule = fc_jstr(x, "rule", "");

		if (strcmp(rule, "module_peers") && strcmp(rule, "module_rx_peers"))
			continue;
		json_array_foreach(out, k, e) {
			char ev[4096];

			if (strcmp(fc_jstr(e, "rule", ""), "module_lanes") ||
			    strcmp(fc_jstr(e, "subject", ""), fc_jstr(x, "subject", "")) ||
			    !lane_named_both(fc_jstr(e, "evidence", ""), x))
				continue;
			json_array_append(drop, e);
			if (strstr(fc_jstr(x, "evidence", ""), fc_jstr(e, "evidence", "")))
				continue; /* the same lane entry from another folder */
			snprintf(ev, sizeof(ev), "%s; and against the module's own lanes: %s",
				 fc_jstr(x, "evidence", ""), fc_jstr(e, "evidence", ""));
			json_object_set_new(x, "evidence", json_string(ev));
			if (!strcmp(fc_jstr(x, "part", ""), "transceiver (its transmitter)"))
				json_object_set(x, "part", json_object_get(e, "part"));
		}
	}
	json_array_foreach(drop, i, e) {
		drop_equal(out, e);
		json_array_foreach(sets, k, set)
			drop_equal(json_object_get(set, "diagnosis"), e);
	}
	json_decref(drop);
}
