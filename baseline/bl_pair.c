/* Pair documents as baseline samples, and their judgment (baseline/bl_pair.h). */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "baseline/bl_pair.h"
#include "core/log.h"
#include "core/out.h"
#include "core/util.h"

/* The keys of @o as a list. */
static json_t *keys_list(const json_t *o)
{
	json_t *l = json_array(), *v;
	const char *k;

	json_object_foreach((json_t *)o, k, v)
		json_array_append_new(l, json_string(k));
	return l;
}

/* A baseline file is a few kilobytes a profile; 16 MiB holds 100,000. */
#define BL_FILE_MAX (16u << 20)

static void copy(char *dst, size_t len, const char *src)
{
	snprintf(dst, len, "%s", src ? src : "");
}

/* The port part of @p's profile for a pair between sides @a and @b (their
 * link layer, the slower rate, the HCA when both have the same): 0, or -1
 * when the two ends differ in link layer or give no rate. */
static int side_profile(struct fc_bl_profile *p, const json_t *a, const json_t *b)
{
	const char *la = fc_jstr(a, "link_layer", ""), *lb = fc_jstr(b, "link_layer", "");
	const char *ha = fc_jstr(a, "hca", ""), *hb = fc_jstr(b, "hca", "");
	double ra = fc_jnum(a, "rate_gbps", NAN), rb = fc_jnum(b, "rate_gbps", NAN);

	if (!*la || strcmp(la, lb) || !(ra > 0) || !(rb > 0))
		return -1;
	copy(p->link_layer, sizeof(p->link_layer), la);
	copy(p->hca, sizeof(p->hca), strcmp(ha, hb) ? "" : ha);
	p->rate_gbps = ra < rb ? ra : rb;
	return 0;
}

/* Each bandwidth result of @results as a sample of @base. */
static void results_samples(const json_t *results, struct fc_bl_sample *base, fc_bl_sample_fn fn,
			    void *arg)
{
	const json_t *e;
	size_t i;

	json_array_foreach(results, i, e) {
		struct fc_bl_sample s = *base;

		if (strcmp(fc_jstr(e, "metric", ""), "bw"))
			continue;
		s.gbps = fc_jnum(e, "gbps", NAN);
		s.prof.size_bytes = fc_jnum(e, "size_bytes", NAN);
		if (!isfinite(s.gbps) || s.gbps < 0 || !(s.prof.size_bytes > 0))
			continue;
		copy(s.prof.test, sizeof(s.prof.test), fc_jstr(e, "test", "write"));
		fn(&s, arg);
	}
}

/* The traffic a pair document ran in: a flow of a matrix's --pattern
 * (its "matrix"."pattern", matrix/mx_run.c: the flows of a round share the
 * ports, so they are a profile of their own), else "pairs". */
static const char *pattern_of(const json_t *doc)
{
	return fc_jstr(json_object_get(doc, "matrix"), "pattern", "pairs");
}

static void rail_samples(const json_t *doc, const json_t *rail, struct fc_bl_sample *base,
			 fc_bl_sample_fn fn, void *arg)
{
	static const char *const phases[] = { "alone", "loaded" };
	json_t *a = json_deep_copy(json_object_get(doc, "a"));
	json_t *b = json_deep_copy(json_object_get(doc, "b"));

	/* The rail's own sides where they say more than the pair's. */
	json_object_update(a, json_object_get(rail, "a"));
	json_object_update(b, json_object_get(rail, "b"));
	if (!side_profile(&base->prof, a, b)) {
		base->rail = (int)fc_jnum(rail, "rail", -1);
		base->dev_a = fc_jstr(json_object_get(rail, "a"), "device", "");
		base->dev_b = fc_jstr(json_object_get(rail, "b"), "device", "");
		for (int p = 0; p < 2; p++) {
			struct fc_bl_sample s = *base;

			snprintf(s.prof.pattern, sizeof(s.prof.pattern), "%s%s", pattern_of(doc),
				 p ? "+rails" : "");
			results_samples(json_object_get(json_object_get(rail, phases[p]), "results"),
					&s, fn, arg);
		}
	}
	json_decref(a);
	json_decref(b);
}

void fc_bl_doc_samples(const json_t *doc, fc_bl_sample_fn fn, void *arg)
{
	const json_t *a = json_object_get(doc, "a"), *b = json_object_get(doc, "b");
	const json_t *rails = json_object_get(doc, "rails"), *r;
	const char *dir = json_is_true(json_object_get(json_object_get(doc, "options"), "bidir")) ?
				  "bidir" : "uni";
	struct fc_bl_sample base;
	size_t i;

	memset(&base, 0, sizeof(base));
	base.a = fc_jstr(a, "node", "?");
	base.b = fc_jstr(b, "node", "?");
	base.rail = -1;
	if (json_array_size(rails)) {
		json_array_foreach(rails, i, r) {
			struct fc_bl_sample s = base;

			copy(s.prof.direction, sizeof(s.prof.direction), dir);
			rail_samples(doc, r, &s, fn, arg);
		}
		return;
	}
	if (side_profile(&base.prof, a, b))
		return;
	copy(base.prof.direction, sizeof(base.prof.direction), dir);
	copy(base.prof.pattern, sizeof(base.prof.pattern), pattern_of(doc));
	base.dev_a = fc_jstr(a, "device", "");
	base.dev_b = fc_jstr(b, "device", "");
	results_samples(json_object_get(doc, "results"), &base, fn, arg);
}

void fc_bl_judge_init(struct fc_bl_judge *j, const struct fc_baseline *bl)
{
	memset(j, 0, sizeof(*j));
	j->bl = bl;
	j->below = json_array();
	j->links = json_object();
}

/* The key of a link: "a\tb\trail". */
static void link_key(char *buf, size_t len, const char *a, const char *b, int rail)
{
	snprintf(buf, len, "%s\t%s\t%d", a, b, rail);
}

/* Marks @s's link as judged for @node. */
static void link_seen(json_t *links, const char *node, const struct fc_bl_sample *s)
{
	json_t *set = json_object_get(links, node);
	char key[600];

	if (!set) {
		set = json_object();
		json_object_set_new(links, node, set);
	}
	link_key(key, sizeof(key), s->a, s->b, s->rail);
	json_object_set_new(set, key, json_true());
}

static void judge_one(const struct fc_bl_sample *s, void *arg)
{
	struct fc_bl_judge *j = arg;
	char why[400];
	const struct fc_bl_entry *e = fc_bl_find(j->bl, &s->prof, why, sizeof(why));
	double pct;

	if (!e) {
		if (!j->unmatched++)
			copy(j->unmatched_why, sizeof(j->unmatched_why), why);
		return;
	}
	j->judged++;
	link_seen(j->links, s->a, s);
	link_seen(j->links, s->b, s);
	pct = fc_bl_below_pct(e, s->gbps);
	if (pct <= j->bl->below_pct)
		return;
	j->defective++;
	json_array_append_new(j->below,
			      json_pack("{s:s, s:s, s:s, s:s, s:i, s:s, s:s, s:f, s:f, s:f, s:f, s:i}",
					"a", s->a, "b", s->b, "device_a", s->dev_a ? s->dev_a : "",
					"device_b", s->dev_b ? s->dev_b : "", "rail", s->rail,
					"test", s->prof.test, "pattern", s->prof.pattern,
					"size_bytes", s->prof.size_bytes, "gbps", s->gbps,
					"baseline_gbps", e->st.mean, "below_pct", pct,
					"baseline_count", e->st.count));
}

void fc_bl_judge_doc(struct fc_bl_judge *j, const json_t *doc)
{
	fc_bl_doc_samples(doc, judge_one, j);
}

/* "rail 0 (mlx5_0 on nodeA, mlx5_0 on nodeB)", or "" for a pair without rails. */
static void where(const json_t *o, char *buf, size_t len)
{
	int rail = (int)fc_jnum(o, "rail", -1);

	if (rail < 0)
		snprintf(buf, len, "%s", "");
	else
		snprintf(buf, len, " rail %d (%s on %s, %s on %s)", rail, fc_jstr(o, "device_a", "?"),
			 fc_jstr(o, "a", "?"), fc_jstr(o, "device_b", "?"), fc_jstr(o, "b", "?"));
}

/* The defective results grouped per link (a, b, rail): the worst of each,
 * with how many of the link's results were below. */
static json_t *per_link(const json_t *below)
{
	json_t *links = json_object(), *o, *g;
	size_t i;

	json_array_foreach(below, i, o) {
		char key[600];

		link_key(key, sizeof(key), fc_jstr(o, "a", ""), fc_jstr(o, "b", ""),
			 (int)fc_jnum(o, "rail", -1));
		g = json_object_get(links, key);
		if (!g) {
			json_object_set_new(links, key, json_pack("{s:O, s:i}", "worst", o, "n", 0));
			g = json_object_get(links, key);
		}
		json_object_set_new(g, "n", json_integer((json_int_t)fc_jnum(g, "n", 0) + 1));
		if (fc_jnum(o, "below_pct", 0) > fc_jnum(json_object_get(g, "worst"), "below_pct", 0))
			json_object_set(g, "worst", o);
	}
	return links;
}

static void link_finding(json_t *doc, const json_t *g, double rule)
{
	const json_t *o = json_object_get(g, "worst");
	char w[300];

	where(o, w, sizeof(w));
	fc_finding(doc, FC_FAIL,
		   "%s -> %s%s: %d result%s below the fleet's baseline, the worst %s %.0f B at "
		   "%.4g Gb/s, %.1f%% below %.4g Gb/s (pruned mean of %d results, pattern %s): "
		   "defective by the rule 'more than %g%% below'; compare the port with its peers "
		   "(diagnose) and check its cable and PCIe link",
		   fc_jstr(o, "a", "?"), fc_jstr(o, "b", "?"), w, (int)fc_jnum(g, "n", 0),
		   fc_s((long long)fc_jnum(g, "n", 0)),
		   fc_jstr(o, "test", "?"), fc_jnum(o, "size_bytes", 0), fc_jnum(o, "gbps", 0),
		   fc_jnum(o, "below_pct", 0), fc_jnum(o, "baseline_gbps", 0),
		   (int)fc_jnum(o, "baseline_count", 0), fc_jstr(o, "pattern", "?"), rule);
}

/* A node below the baseline with most of its peers (at least two links, and
 * at least half of those it was judged on) is the part to name, not each
 * of its links, as the matrix names a node bad with most of its peers. */
static json_t *named_nodes(const struct fc_bl_judge *j, const json_t *links, json_t *doc)
{
	json_t *named = json_object(), *set, *g;
	const char *node, *key;

	json_object_foreach(j->links, node, set) {
		int bad = 0, all = (int)json_object_size(set);
		double lo = INFINITY, hi = 0;

		json_object_foreach((json_t *)links, key, g) {
			const json_t *w = json_object_get(g, "worst");
			double pct = fc_jnum(w, "below_pct", 0);

			if (!json_object_get(set, key))
				continue;
			bad++;
			lo = pct < lo ? pct : lo;
			hi = pct > hi ? pct : hi;
		}
		if (bad < 2 || 2 * bad < all)
			continue;
		json_object_set_new(named, node, json_true());
		fc_finding(doc, FC_FAIL,
			   "%s: %d of its %d links below the fleet's baseline (by %.1f%% to %.1f%%, "
			   "the rule: more than %g%% below): the node, not its links: compare its "
			   "ports with its peers' (diagnose, preflight: rate, width, PCIe, firmware)",
			   node, bad, all, lo, hi, j->bl->below_pct);
	}
	return named;
}

int fc_bl_judge_finish(struct fc_bl_judge *j, json_t *doc, const char *file)
{
	json_t *links = per_link(j->below), *g, *named = named_nodes(j, links, doc);
	const char *key;
	int n = j->defective;

	json_object_foreach(links, key, g) {
		const json_t *w = json_object_get(g, "worst");

		if (!json_object_get(named, fc_jstr(w, "a", "")) &&
		    !json_object_get(named, fc_jstr(w, "b", "")))
			link_finding(doc, g, j->bl->below_pct);
	}
	json_decref(links);
	if (j->unmatched)
		fc_finding(doc, FC_WARN,
			   "%d result%s not judged against the baseline %s: %s; build a baseline "
			   "for that profile (fabcheck baseline) or give the one of this fabric",
			   j->unmatched, fc_s(j->unmatched), file, j->unmatched_why);
	json_object_set_new(doc, "baseline",
			    json_pack("{s:s, s:f, s:i, s:i, s:i, s:s?, s:o, s:o}", "file", file,
				      "below_pct", j->bl->below_pct, "judged", j->judged,
				      "defective", j->defective, "not_judged", j->unmatched,
				      "refused", j->unmatched ? j->unmatched_why : NULL, "below",
				      j->below, "nodes", keys_list(named)));
	json_decref(named);
	json_decref(j->links);
	j->below = j->links = NULL;
	return n;
}

int fc_bl_read_file(struct fc_baseline *b, const char *file)
{
	int fd = open(file, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	struct stat sb;
	json_error_t e;
	json_t *doc;
	char *text;
	size_t len;
	int rc;

	if (fd < 0 || fstat(fd, &sb) || !S_ISREG(sb.st_mode)) {
		fc_err("--baseline %s: %s; give the JSON file 'fabcheck baseline -o FILE' wrote",
		       file, fd < 0 ? strerror(errno) : "not a regular file");
		if (fd >= 0)
			close(fd);
		return -1;
	}
	text = fc_read_fd(fd, BL_FILE_MAX, &len);
	close(fd);
	if (!text) {
		fc_err("--baseline %s: %s", file,
		       errno == EFBIG ? "larger than 16 MiB: not a baseline" : strerror(errno));
		return -1;
	}
	doc = json_loadb(text, len, 0, &e);
	free(text);
	if (!doc) {
		fc_err("--baseline %s: line %d: %s; give the JSON file 'fabcheck baseline' wrote",
		       file, e.line, e.text);
		return -1;
	}
	rc = fc_bl_load(b, doc, file);
	json_decref(doc);
	return rc;
}
