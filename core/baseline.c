/* The fleet's baseline: pruned means per fabric profile (core/baseline.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/baseline.h"
#include "core/log.h"
#include "core/out.h"

/* The mean of the kept values; their count. */
static int kept_mean(const double *v, const unsigned char *keep, int n, double *mean)
{
	double sum = 0;
	int k = 0;

	for (int i = 0; i < n; i++)
		if (keep[i]) {
			sum += v[i];
			k++;
		}
	*mean = k ? sum / k : NAN;
	return k;
}

static void kept_spread(const double *v, const unsigned char *keep, int n, struct fc_bl_stat *s)
{
	double ss = 0;

	s->min = INFINITY;
	s->max = -INFINITY;
	for (int i = 0; i < n; i++)
		if (keep[i]) {
			ss += (v[i] - s->mean) * (v[i] - s->mean);
			s->min = v[i] < s->min ? v[i] : s->min;
			s->max = v[i] > s->max ? v[i] : s->max;
		}
	s->stdev = s->count > 1 ? sqrt(ss / (s->count - 1)) : 0;
}

int fc_bl_prune(const double *v, int n, double below_pct, struct fc_bl_stat *out)
{
	unsigned char *keep = calloc(n > 0 ? (size_t)n : 1, 1);
	int finite = 0, dropped;

	memset(out, 0, sizeof(*out));
	if (!keep)
		return -1;
	for (int i = 0; i < n; i++)
		finite += keep[i] = isfinite(v[i]) && v[i] >= 0;
	if (!finite) {
		free(keep);
		return -1;
	}
	do {
		double floor;

		out->count = kept_mean(v, keep, n, &out->mean);
		floor = out->mean * (1 - below_pct / 100);
		dropped = 0;
		for (int i = 0; i < n; i++)
			if (keep[i] && v[i] < floor) {
				keep[i] = 0;
				dropped++;
			}
		out->pruned += dropped;
		out->rounds++;
	} while (dropped);
	kept_spread(v, keep, n, out);
	free(keep);
	return 0;
}

void fc_bl_profile_text(const struct fc_bl_profile *p, char *buf, size_t len)
{
	snprintf(buf, len, "%s %g Gb/s HCA %s, %s %.0f B %s, pattern %s", p->link_layer,
		 p->rate_gbps, p->hca[0] ? p->hca : "not known", p->test, p->size_bytes,
		 p->direction, p->pattern);
}

json_t *fc_bl_profile_json(const struct fc_bl_profile *p)
{
	return json_pack("{s:s, s:f, s:s, s:s, s:f, s:s, s:s}", "hca", p->hca, "rate_gbps",
			 p->rate_gbps, "link_layer", p->link_layer, "test", p->test,
			 "size_bytes", p->size_bytes, "direction", p->direction, "pattern",
			 p->pattern);
}

/* A string member into @dst: 0, or -1 when missing, not a string or too long. */
static int take_str(const json_t *o, const char *key, char *dst, size_t len)
{
	const json_t *v = json_object_get(o, key);

	if (!json_is_string(v) || json_string_length(v) >= len)
		return -1;
	memcpy(dst, json_string_value(v), json_string_length(v) + 1);
	return 0;
}

int fc_bl_profile_parse(const json_t *o, struct fc_bl_profile *p, char *why, size_t wlen)
{
	static const char *const strs[] = { "hca", "link_layer", "test", "direction", "pattern" };
	char *dst[] = { p->hca, p->link_layer, p->test, p->direction, p->pattern };
	size_t lens[] = { sizeof(p->hca), sizeof(p->link_layer), sizeof(p->test),
			  sizeof(p->direction), sizeof(p->pattern) };

	memset(p, 0, sizeof(*p));
	for (size_t i = 0; i < sizeof(strs) / sizeof(strs[0]); i++)
		if (take_str(o, strs[i], dst[i], lens[i])) {
			snprintf(why, wlen, "its profile has no valid \"%s\" (a string of at most %zu bytes)",
				 strs[i], lens[i] - 1);
			return -1;
		}
	p->rate_gbps = fc_jnum(o, "rate_gbps", NAN);
	p->size_bytes = fc_jnum(o, "size_bytes", NAN);
	if (!(p->rate_gbps > 0 && p->rate_gbps < 1e6) || !(p->size_bytes > 0 && p->size_bytes < 1e13)) {
		snprintf(why, wlen, "its profile's rate_gbps or size_bytes is not a positive figure");
		return -1;
	}
	return 0;
}

json_t *fc_bl_doc(const struct fc_bl_entry *e, int n, double below_pct)
{
	json_t *list = json_array();

	for (int i = 0; i < n; i++) {
		json_t *o = fc_bl_profile_json(&e[i].prof);

		json_object_set_new(o, "mean_gbps", json_real(e[i].st.mean));
		json_object_set_new(o, "stdev_gbps", json_real(e[i].st.stdev));
		json_object_set_new(o, "min_gbps", json_real(e[i].st.min));
		json_object_set_new(o, "max_gbps", json_real(e[i].st.max));
		json_object_set_new(o, "count", json_integer(e[i].st.count));
		json_object_set_new(o, "pruned", json_integer(e[i].st.pruned));
		json_array_append_new(list, o);
	}
	return json_pack("{s:i, s:{s:s, s:f}, s:o}", "fabcheck_baseline", 1, "rule", "name",
			 "more than N% below the pruned mean is defective (SuperBench's variance rule)",
			 "below_pct", below_pct, "profiles", list);
}

static int load_entry(struct fc_bl_entry *e, const json_t *o, const char *name, size_t i)
{
	char why[160];

	if (fc_bl_profile_parse(o, &e->prof, why, sizeof(why))) {
		fc_err("baseline %s: profile %zu: %s; write the file with 'fabcheck baseline'", name,
		       i, why);
		return -1;
	}
	e->st.mean = fc_jnum(o, "mean_gbps", NAN);
	e->st.stdev = fc_jnum(o, "stdev_gbps", 0);
	e->st.count = (int)fc_jnum(o, "count", 0);
	if (!(e->st.mean > 0 && e->st.mean < 1e6) || e->st.count < 1) {
		fc_err("baseline %s: profile %zu: mean_gbps must be a positive figure and count at "
		       "least 1; write the file with 'fabcheck baseline'", name, i);
		return -1;
	}
	return 0;
}

int fc_bl_load(struct fc_baseline *b, const json_t *doc, const char *name)
{
	const json_t *list = json_object_get(doc, "profiles");
	const json_t *rule = json_object_get(doc, "rule");
	size_t n = json_array_size(list);

	memset(b, 0, sizeof(*b));
	if (fc_jnum(doc, "fabcheck_baseline", 0) != 1 || !json_is_array(list) || !n ||
	    n > 100000) {
		fc_err("baseline %s: not a fabcheck baseline (version 1, a list of 1 to 100,000 "
		       "profiles); write one with 'fabcheck baseline --db FILE -o %s'", name, name);
		return -1;
	}
	b->below_pct = fc_jnum(rule, "below_pct", FC_BL_BELOW_PCT);
	if (!(b->below_pct > 0 && b->below_pct < 100)) {
		fc_err("baseline %s: rule.below_pct must be between 0 and 100", name);
		return -1;
	}
	b->e = calloc(n, sizeof(*b->e));
	if (!b->e)
		return -1;
	for (size_t i = 0; i < n; i++)
		if (load_entry(&b->e[i], json_array_get(list, i), name, i)) {
			fc_bl_release(b);
			return -1;
		}
	b->n = (int)n;
	return 0;
}

void fc_bl_release(struct fc_baseline *b)
{
	free(b->e);
	memset(b, 0, sizeof(*b));
}

/* In the order a refusal should name it. */
const char *fc_bl_profile_differs(const struct fc_bl_profile *a, const struct fc_bl_profile *b)
{
	if (strcmp(a->link_layer, b->link_layer))
		return "link layer";
	if (fabs(a->rate_gbps - b->rate_gbps) > 1e-6 * b->rate_gbps)
		return "port rate";
	if (strcmp(a->hca, b->hca))
		return "HCA model";
	if (strcmp(a->pattern, b->pattern))
		return "traffic pattern";
	if (strcmp(a->test, b->test))
		return "test";
	if (strcmp(a->direction, b->direction))
		return "direction";
	if (a->size_bytes != b->size_bytes)
		return "message size";
	return NULL;
}

/* How many leading fields of the order above two profiles share. */
static int shared(const struct fc_bl_profile *a, const struct fc_bl_profile *b)
{
	static const char *const order[] = { "link layer", "port rate", "HCA model",
					     "traffic pattern", "test", "direction", "message size" };
	const char *d = fc_bl_profile_differs(a, b);

	for (int i = 0; d && i < 7; i++)
		if (!strcmp(order[i], d))
			return i;
	return 7;
}

const struct fc_bl_entry *fc_bl_find(const struct fc_baseline *b, const struct fc_bl_profile *p,
				     char *why, size_t wlen)
{
	int best = -1, best_shared = -1;
	char have[200], want[200];

	for (int i = 0; i < b->n; i++) {
		int s = shared(&b->e[i].prof, p);

		if (s == 7)
			return &b->e[i];
		if (s > best_shared) {
			best_shared = s;
			best = i;
		}
	}
	fc_bl_profile_text(p, want, sizeof(want));
	if (best < 0) {
		snprintf(why, wlen, "the baseline has no profiles");
		return NULL;
	}
	fc_bl_profile_text(&b->e[best].prof, have, sizeof(have));
	snprintf(why, wlen, "no profile of the baseline matches %s: the nearest (%s) differs in its %s",
		 want, have, fc_bl_profile_differs(&b->e[best].prof, p));
	return NULL;
}

double fc_bl_below_pct(const struct fc_bl_entry *e, double gbps)
{
	return (e->st.mean - gbps) / e->st.mean * 100;
}
