/* Text form of the check-log report: a summary, then aligned tables. */
#include <stdio.h>
#include <string.h>

#include "core/summary.h"
#include "core/out.h"
#include "checks/nccl/log/nccllog.h"

#define MAX_ROWS 64

static const char *str_or(const json_t *o, const char *key, const char *dflt)
{
	const char *s = fc_jstr(o, key, NULL);

	return s && *s ? s : dflt;
}

/* The error lines ("file.cc:N -> code"): each entry of "errors" is one
 * place with the count of its lines, so the lines are the counts' sum and
 * the source locations the entries (one repeated by two ranks is two
 * lines). */
static void errors_said(FILE *f, const json_t *errors)
{
	long lines = 0;
	size_t i, places = json_array_size(errors);
	json_t *e;

	json_array_foreach(errors, i, e)
		lines += (long)fc_jnum(e, "count", 1);
	if ((size_t)lines == places)
		fprintf(f, "%ld error line%s\n", lines, lines == 1 ? "" : "s");
	else
		fprintf(f, "%ld error lines from %zu source locations\n", lines, places);
}

static void summary(FILE *f, const json_t *doc)
{
	const json_t *era = json_object_get(doc, "nccl_era");
	const json_t *oob = json_object_get(doc, "oob");
	const json_t *files = json_object_get(doc, "files");
	long net = 0, net_gdr = 0, complete = 0;
	size_t i;
	json_t *c;

	json_array_foreach(json_object_get(doc, "channels"), i, c)
		if (json_is_true(json_object_get(c, "gdr")) || json_is_false(json_object_get(c, "gdr"))) {
			net++;
			net_gdr += json_is_true(json_object_get(c, "gdr"));
		}
	json_array_foreach(json_object_get(doc, "ranks"), i, c)
		complete += !strcmp(fc_jstr(c, "init", ""), "complete");
	fprintf(f, "NCCL log: %zu file%s, %.0f lines, %.0f NCCL lines\n", json_array_size(files),
		json_array_size(files) == 1 ? "" : "s", fc_jnum(doc, "lines", 0),
		fc_jnum(doc, "nccl_lines", 0));
	fprintf(f, "  version     %s", str_or(doc, "nccl_version", "not printed"));
	if (json_is_object(era) && !strcmp(fc_jstr(era, "from", ""), fc_jstr(era, "to", "")))
		fprintf(f, " (wording of NCCL %s)", fc_jstr(era, "from", "?"));
	else if (json_is_object(era))
		fprintf(f, " (wording of NCCL %s - %s)", fc_jstr(era, "from", "?"),
			fc_jstr(era, "to", "?"));
	fprintf(f, "\n  network     %s", str_or(doc, "network", "not shown"));
	if (fc_jstr(doc, "plugin", NULL))
		fprintf(f, " (plugin %s)", fc_jstr(doc, "plugin", ""));
	if (json_is_true(json_object_get(doc, "socket_fallback")))
		fprintf(f, ", fallback from IB");
	fprintf(f, "\n  OOB         %s%s%s\n", json_is_object(oob) ? fc_jstr(oob, "if", "") : "-",
		json_is_object(oob) ? " " : "", json_is_object(oob) ? fc_jstr(oob, "addr", "") : "");
	fprintf(f, "  GPUDirect   %s", fc_jstr(doc, "gdr", "unknown"));
	if (net)
		fprintf(f, " (%ld of %ld NET channels with /GDRDMA)", net_gdr, net);
	fprintf(f, "\n  init        %s",
		json_is_true(json_object_get(doc, "init_failed")) ? "FAILED" :
		json_is_true(json_object_get(doc, "init_complete")) ? "complete" : "completion not shown");
	if (complete)
		fprintf(f, " on %ld rank%s", complete, complete == 1 ? "" : "s");
	if (json_is_true(json_object_get(doc, "run_failed")))
		fprintf(f, "; transfers FAILED after init (the proxy thread)");
	fputc('\n', f);
	fprintf(f, "  warnings    %zu distinct NCCL WARN, ",
		json_array_size(json_object_get(doc, "warnings")));
	errors_said(f, json_object_get(doc, "errors"));
}

/* A table of the elements of a document's array: a row a element, by @row. */
struct array_table {
	const char *title;
	int ncols;
	const char *const *heads;
	void (*row)(struct fc_table *t, const json_t *e);
};

/* Prints @at's title and table of @arr, at most MAX_ROWS rows and then a
 * "..." row; nothing when @arr is empty. */
static void array_table(FILE *f, const json_t *arr, const struct array_table *at)
{
	struct fc_table *t;
	size_t i;
	json_t *e;

	if (!json_array_size(arr))
		return;
	fprintf(f, "\n%s\n", at->title);
	t = fc_table_newv(at->ncols, at->heads);
	json_array_foreach(arr, i, e) {
		fc_table_row(t);
		if (i == MAX_ROWS) {
			fc_table_addf(t, 0, "...");
			break;
		}
		at->row(t, e);
	}
	fc_table_print(t, f, "  ");
	fc_table_free(t);
}

static void hca_row(struct fc_table *t, const json_t *h)
{
	if (json_is_integer(json_object_get(h, "merged_into")))
		fc_table_addf(t, 0, "%d (merged %d)", (int)fc_jnum(h, "index", 0),
			      (int)fc_jnum(h, "merged_into", 0));
	else if (json_is_integer(json_object_get(h, "fused_into")))
		fc_table_addf(t, 0, "%d (fused %d)", (int)fc_jnum(h, "index", 0),
			      (int)fc_jnum(h, "fused_into", 0));
	else
		fc_table_addf(t, 0, "%d", (int)fc_jnum(h, "index", 0));
	fc_table_addf(t, 1, "%s", fc_jstr(h, "name", "?"));
	fc_table_addf(t, 2, "%d", (int)fc_jnum(h, "port", 0));
	fc_table_addf(t, 3, "%s%s", str_or(h, "link", "?"),
		      json_is_true(json_object_get(h, "sharp")) ? "/SHARP" : "");
	fc_table_addf(t, 4, "%s", str_or(h, "gdr", "-"));
}

/* The model holds at most NCL_MAX_HCAS (64, MAX_ROWS) HCAs: the table is never cut. */
static const char *const hca_heads[] = { "IDX", "HCA", "PORT", "LINK", "GDR" };
static const struct array_table hcas_at = { "HCAs (NCCL's IB device list)", 5, hca_heads,
					    hca_row };

static void rank_row(struct fc_table *t, const json_t *r)
{
	fc_table_addf(t, 0, "%d", (int)fc_jnum(r, "rank", 0));
	fc_table_addf(t, 1, "%s", str_or(r, "host", "-"));
	fc_table_addint(t, 2, r, "cuda_dev");
	fc_table_addf(t, 3, "%s", str_or(r, "bus_id", "-"));
	fc_table_addf(t, 4, "%s", fc_jstr(r, "init", ""));
}

static const char *const rank_heads[] = { "RANK", "HOST", "CUDA DEV", "BUS ID", "INIT" };
static const struct array_table ranks_at = { "ranks", 5, rank_heads, rank_row };

/* A group of NET channels: "c" one of them, "n" how many. */
static void net_row(struct fc_table *t, const json_t *g)
{
	const json_t *c = json_object_get(g, "c");

	fc_table_addf(t, 0, "%s", str_or(c, "host", "-"));
	fc_table_addf(t, 1, "%d", (int)fc_jnum(c, "local_rank", -1));
	fc_table_addf(t, 2, "%s", str_or(c, "direction", "-"));
	fc_table_addf(t, 3, "%s", fc_jstr(c, "via", ""));
	fc_table_addf(t, 4, "%s", str_or(c, "hca", "-"));
	fc_table_addf(t, 5, "%d", (int)fc_jnum(g, "n", 0));
	fc_table_addf(t, 6, "%s", json_is_true(json_object_get(c, "gdr")) ? "yes" : "no");
}

/* NET channels grouped per host, rank, direction and device. */
static void net_table(FILE *f, const json_t *doc)
{
	static const char *const heads[] = { "HOST", "RANK", "DIR", "VIA", "HCA", "CHANNELS",
					     "GDR" };
	static const struct array_table at = {
		"network channels (per rank, direction and device)", 7, heads, net_row,
	};
	json_t *groups = json_object(), *order = json_array(), *g;
	char key[512];
	size_t i;
	json_t *c;

	json_array_foreach(json_object_get(doc, "channels"), i, c) {
		if (strcmp(fc_jstr(c, "transport", ""), "NET"))
			continue;
		snprintf(key, sizeof(key), "%s|%d|%s|%s", str_or(c, "host", "-"),
			 (int)fc_jnum(c, "local_rank", -1), str_or(c, "direction", "-"),
			 fc_jstr(c, "via", ""));
		g = json_object_get(groups, key);
		if (!g) {
			g = json_pack("{s:O, s:i}", "c", c, "n", 0);
			json_object_set_new(groups, key, g);
			json_array_append(order, g);
		}
		json_object_set_new(g, "n", json_integer((json_int_t)fc_jnum(g, "n", 0) + 1));
	}
	array_table(f, order, &at);
	json_decref(order);
	json_decref(groups);
}

static void env_table(FILE *f, const json_t *doc)
{
	const json_t *env = json_object_get(doc, "env"), *st;
	struct fc_table *t;
	const char *k;
	json_t *v;

	if (!json_object_size(env))
		return;
	fprintf(f, "\nNCCL settings echoed by NCCL\n");
	t = fc_table_new(3, "VARIABLE", "VALUE", "STATUS");
	json_object_foreach((json_t *)env, k, v) {
		st = fc_jnamed(json_object_get(doc, "env_status"), k);
		fc_table_add(t, k, json_string_value(v), fc_jstr(st, "status", "-"));
	}
	fc_table_print(t, f, "  ");
	fc_table_free(t);
	json_object_foreach((json_t *)env, k, v) {
		st = fc_jnamed(json_object_get(doc, "env_status"), k);
		if (st && strcmp(fc_jstr(st, "status", "ok"), "ok") && *fc_jstr(st, "why", ""))
			fc_put_paraf(f, 4, "  %s: %s", k, fc_jstr(st, "why", ""));
	}
}

/* "a,b" of the strings of @a (or of key @key of its objects) into @buf. */
static const char *join(const json_t *a, const char *key, char *buf, size_t len)
{
	size_t i, used = 0;
	json_t *v;

	buf[0] = '\0';
	json_array_foreach(a, i, v) {
		const char *s = key ? fc_jstr(v, key, "?") : json_string_value(v);

		if (s && used < len)
			used += (size_t)snprintf(buf + used, len - used, "%s%s", used ? "," : "", s);
	}
	return buf[0] ? buf : "-";
}

static void rail_row(struct fc_table *t, const json_t *r)
{
	const json_t *rl = json_object_get(r, "rail_local");
	char near[128], hcas[128], pxn[256];
	size_t k, used = 0;
	json_t *e;

	pxn[0] = '\0';
	json_array_foreach(json_object_get(r, "pxn"), k, e)
		if (used < sizeof(pxn))
			used += (size_t)snprintf(pxn + used, sizeof(pxn) - used, "%s%s via rank %d",
						 used ? "," : "", fc_jstr(e, "hca", "?"),
						 (int)fc_jnum(e, "proxy_rank", -1));
	fc_table_addf(t, 0, "%d", (int)fc_jnum(r, "rank", 0));
	fc_table_addf(t, 1, "%s", str_or(r, "host", "-"));
	fc_table_addf(t, 2, "%s", fc_jstr(r, "gpu", "?"));
	fc_table_addf(t, 3, "%s", join(json_object_get(r, "nearest"), NULL, near, sizeof(near)));
	fc_table_addf(t, 4, "%s", join(json_object_get(r, "hcas"), NULL, hcas, sizeof(hcas)));
	fc_table_addf(t, 5, "%s", json_is_true(rl) ? "yes" : json_is_false(rl) ? "NO" : "-");
	fc_table_addf(t, 6, "%s", pxn[0] ? pxn : "-");
}

/* With --topo: each GPU's HCAs against its rail-local ones, and PXN routes. */
static const char *const rail_heads[] = { "RANK", "HOST", "GPU", "RAIL-LOCAL HCA", "NCCL USES",
					  "LOCAL", "PXN" };
static const struct array_table rails_at = { "GPU rails (--topo)", 7, rail_heads, rail_row };

void ncl_render(FILE *f, const json_t *doc)
{
	summary(f, doc);
	array_table(f, json_object_get(doc, "hcas"), &hcas_at);
	array_table(f, json_object_get(doc, "ranks"), &ranks_at);
	net_table(f, doc);
	array_table(f, json_object_get(doc, "gpu_rails"), &rails_at);
	env_table(f, doc);
	if (json_object_get(doc, "rails")) {
		fprintf(f, "busbw:\n");
		ncl_busbw_render(f, doc);
	}
}
