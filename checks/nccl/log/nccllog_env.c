/*
 * The NCCL_* settings a log echoes ("NCCL_X set by environment to Y"),
 * judged with the knowledge of `fabcheck nccl env` (ncclenv_check_vars):
 * "env_status" in the report ({"name", "value", "status", "why"} per
 * variable) and findings.
 *
 * What a log proves differs from what a shell snippet does: NCCL echoes
 * only names it reads, so "unknown" there means fabcheck's list lacks a
 * name this NCCL has (no finding), and a deprecated alias that is echoed is
 * still honoured (a note in env_status, no finding). Findings, all
 * warnings, are for what NCCL misreads or what defeats the intent: invalid
 * values, and conflicts (IB disabled with RDMA tuning, a GDR level stricter
 * than the topology given with --topo).
 */
#include <stdio.h>
#include <string.h>

#include "core/out.h"
#include "checks/nccl/env/ncclenv.h"
#include "checks/nccl/log/nccllog_int.h"

/* The finding ncclenv made for NAME=VALUE, without that prefix. */
static const char *finding_for(const json_t *doc, const char *name, const char *value)
{
	char prefix[NCL_NAME + NCL_TEXT + 4];
	size_t i, n;
	json_t *f;

	n = (size_t)snprintf(prefix, sizeof(prefix), "%s=%s: ", name, value);
	json_array_foreach(json_object_get(doc, "findings"), i, f) {
		const char *s = json_string_value(f);

		if (s && !strncmp(s, prefix, n))
			return s + n;
	}
	return NULL;
}

static void judge_one(const struct ncl_env *e, const json_t *v, const json_t *doc,
		      json_t *list, json_t *out)
{
	const char *st = fc_jstr(v, "status", "ok"), *why = fc_jstr(v, "why", "");
	const char *found = finding_for(doc, e->name, e->value);
	char note[NCL_TEXT + 160];
	json_t *row;

	if (!strcmp(st, "unknown")) {
		snprintf(note, sizeof(note),
			 "not in fabcheck's list of NCCL %s names, but this NCCL echoed it, so "
			 "it reads it", ncclenv_shipped_version);
		why = note;
	}
	row = json_pack("{s:s, s:s, s:s, s:s}", "name", e->name, "value", e->value, "status",
			st, "why", why);
	json_array_append_new(list, row);
	/* ncclenv keeps one finding per conflict (the others are quiet). */
	if (found && (!strcmp(st, "invalid") || !strcmp(st, "conflict")))
		fc_finding(out, FC_WARN, "%s=%s (echoed by NCCL): %s", e->name, e->value, found);
}

void ncl_env_findings(const struct ncl_log *lg, const json_t *topo, json_t *doc)
{
	const char *names[NCL_MAX_ENV], *values[NCL_MAX_ENV];
	json_t *list = json_array(), *res;
	int n = 0;

	for (int i = 0; i < lg->nenv; i++) {
		if (lg->env[i].invalid)
			continue; /* NCCL said so itself: find_env reports it */
		names[n] = lg->env[i].name;
		values[n++] = lg->env[i].value;
	}
	res = n ? ncclenv_check_vars(names, values, n, topo) : NULL;
	for (int i = 0, k = 0; i < lg->nenv; i++) {
		const struct ncl_env *e = &lg->env[i];

		if (e->invalid) {
			json_array_append_new(list, json_pack("{s:s, s:s, s:s, s:s}", "name",
				e->name, "value", e->value, "status", "invalid", "why",
				"NCCL rejected the value and used its default"));
			continue;
		}
		if (res)
			judge_one(e, json_array_get(json_object_get(res, "variables"), (size_t)k),
				  res, list, doc);
		k++;
	}
	json_decref(res);
	json_object_set_new(doc, "env_status", list);
}
