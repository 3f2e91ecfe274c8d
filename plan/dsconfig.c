/*
 * DeepSpeed configs and the collectives of one step (see dsconfig.h).
 *
 * Defaults and meanings are DeepSpeed's (deepspeed.ai/docs/config-json,
 * deepspeed/runtime/zero/config.py): bucket sizes count elements, not
 * bytes; reduce_bucket_size and allgather_bucket_size 5e8,
 * stage3_prefetch_bucket_size 5e7, overlap_comm false (true at stage 3),
 * gradient_accumulation_steps 1.
 */
#include "plan/dsconfig.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/readfile.h"

/* DeepSpeed's engine all-reduces without ZeRO in buffers of this many
 * elements (MEMORY_OPT_ALLREDUCE_SIZE, deepspeed/runtime/engine.py). */
#define DS_STAGE0_BUCKET 5e8
/* A bucket past 1e11 elements (200 GB in 16 bit) is more than any GPU
 * holds (288 GB of HBM3e on a B300, NVIDIA's data sheet): a typo. */
#define DS_MAX_BUCKET 1e11
#define DS_MAX_GAS 1000000

static const char *jtype(const json_t *v)
{
	switch (json_typeof(v)) {
	case JSON_OBJECT: return "an object";
	case JSON_ARRAY: return "a list";
	case JSON_STRING: return "a string";
	case JSON_INTEGER:
	case JSON_REAL: return "a number";
	case JSON_TRUE:
	case JSON_FALSE: return "true/false";
	case JSON_NULL: return "null";
	}
	return "?";
}

/* The Hugging Face Trainer replaces "auto" before DeepSpeed reads the
 * file; fabcheck sees the file as written. */
static int bad_type(const char *key, const json_t *v, const char *want, char *why, size_t len)
{
	if (json_is_string(v) && !strcmp(json_string_value(v), "auto"))
		snprintf(why, len, "%s: \"auto\" is filled in by the Hugging Face Trainer, not by "
			 "DeepSpeed; give %s (the value the Trainer logs, or DeepSpeed's default "
			 "by removing the key)", key, want);
	else
		snprintf(why, len, "%s: expected %s, got %s", key, want, jtype(v));
	return -EINVAL;
}

/* A whole number in [lo, hi] at @key of @obj (absent: *out unchanged). */
static int get_whole(const json_t *obj, const char *name, const char *key, double lo, double hi,
		     double *out, char *why, size_t len)
{
	const json_t *v = json_object_get(obj, name);
	double d;

	if (!v)
		return 0;
	if (!json_is_number(v))
		return bad_type(key, v, "a number", why, len);
	d = json_number_value(v);
	if (!isfinite(d) || d != floor(d) || d < lo || d > hi) {
		snprintf(why, len, "%s: %g is not a whole number from %g to %g", key, d, lo, hi);
		return -EINVAL;
	}
	*out = d;
	return 0;
}

static int get_bool(const json_t *obj, const char *name, const char *key, int *out, char *why,
		    size_t len)
{
	const json_t *v = json_object_get(obj, name);

	if (!v)
		return 0;
	if (!json_is_boolean(v))
		return bad_type(key, v, "true or false", why, len);
	*out = json_is_true(v);
	return 0;
}

/* "fp16": {"enabled": true} or "bf16": ...: 1 enabled, 0 not (or absent). */
static int precision(const json_t *cfg, const char *name, int *on, char *why, size_t len)
{
	const json_t *p = json_object_get(cfg, name);
	char key[32];

	*on = 0;
	if (!p)
		return 0;
	if (!json_is_object(p))
		return bad_type(name, p, "an object ({\"enabled\": true})", why, len);
	snprintf(key, sizeof(key), "%s.enabled", name);
	return get_bool(p, "enabled", key, on, why, len);
}

static int read_zero(const json_t *z, struct ds_config *c, char *why, size_t len)
{
	double stage = 0;
	int overlap = -1;

	if (!json_is_object(z))
		return bad_type("zero_optimization", z, "an object", why, len);
	if (get_whole(z, "stage", "zero_optimization.stage", 0, 3, &stage, why, len) ||
	    get_whole(z, "reduce_bucket_size", "zero_optimization.reduce_bucket_size", 1,
		      DS_MAX_BUCKET, &c->reduce_bucket, why, len) ||
	    get_whole(z, "allgather_bucket_size", "zero_optimization.allgather_bucket_size", 1,
		      DS_MAX_BUCKET, &c->allgather_bucket, why, len) ||
	    get_whole(z, "stage3_prefetch_bucket_size",
		      "zero_optimization.stage3_prefetch_bucket_size", 1, DS_MAX_BUCKET,
		      &c->prefetch_bucket, why, len) ||
	    get_bool(z, "overlap_comm", "zero_optimization.overlap_comm", &overlap, why, len))
		return -EINVAL;
	c->stage = (int)stage;
	c->overlap_comm = overlap >= 0 ? overlap : c->stage == 3;
	return 0;
}

int ds_config_from_json(const json_t *cfg, struct ds_config *c, char *why, size_t len)
{
	const json_t *z;
	double gas = 1;
	int fp16, bf16;

	*c = (struct ds_config){ .reduce_bucket = 5e8, .allgather_bucket = 5e8,
				 .prefetch_bucket = 5e7, .gas = 1 };
	if (!json_is_object(cfg)) {
		snprintf(why, len, "the config is %s; a DeepSpeed config is one JSON object",
			 jtype(cfg));
		return -EINVAL;
	}
	if ((z = json_object_get(cfg, "zero_optimization")) && read_zero(z, c, why, len))
		return -EINVAL;
	if (get_whole(cfg, "gradient_accumulation_steps", "gradient_accumulation_steps", 1,
		      DS_MAX_GAS, &gas, why, len) ||
	    precision(cfg, "fp16", &fp16, why, len) || precision(cfg, "bf16", &bf16, why, len))
		return -EINVAL;
	if (fp16 && bf16) {
		snprintf(why, len, "fp16.enabled and bf16.enabled: both are true; DeepSpeed takes "
			 "one of them (set the other false)");
		return -EINVAL;
	}
	c->gas = (int)gas;
	c->elem_bytes = fp16 || bf16 ? 2 : 4;
	c->dtype = bf16 ? "bf16" : fp16 ? "fp16" : "fp32";
	return 0;
}

int ds_config_load(const char *path, struct ds_config *out, char *why, size_t len)
{
	json_error_t e;
	json_t *cfg = fc_load_json(path, 0, JSON_REJECT_DUPLICATES, &e);
	int rc;

	if (!cfg) {
		snprintf(why, len, "%s: not a JSON file (line %d, column %d: %s)", path, e.line,
			 e.column, e.text);
		if (e.line < 0) /* fc_load_json: not read */
			snprintf(why, len, "%s: %s", path, e.text);
		return -EINVAL;
	}
	rc = ds_config_from_json(cfg, out, why, len);
	json_decref(cfg);
	return rc;
}

static struct ds_coll coll(enum plan_op op, double elems, double bucket, double times,
			   int elem_bytes, const char *what)
{
	return (struct ds_coll){ .op = op, .bytes = times * elems * elem_bytes,
				 .calls = times * ceil(elems / bucket),
				 .bucket_bytes = (bucket < elems ? bucket : elems) * elem_bytes,
				 .what = what };
}

/*
 * The model, for P parameters and g = gradient_accumulation_steps:
 *   stage 0: the gradients all-reduced once a step (at the accumulation
 *     boundary) in buffers of 5e8 elements;
 *   stage 1: the gradients reduced once a step in reduce_bucket_size
 *     buckets (DeepSpeed issues one reduce per owner rank: the volume of
 *     a reduce-scatter), the updated parameters all-gathered once in
 *     allgather_bucket_size buckets;
 *   stage 2: as stage 1, but the gradients are reduced in every micro-batch
 *     (g times a step), as their buckets fill during backward;
 *   stage 3: in every micro-batch the parameters all-gathered before
 *     forward and again before backward (calls of at most
 *     stage3_prefetch_bucket_size elements), the gradients reduce-scattered
 *     in reduce_bucket_size buckets.
 * A call count is a floor: DeepSpeed also cuts buckets at layer edges.
 */
int ds_step_colls(const struct ds_config *c, double p, struct ds_coll out[DS_MAX_COLLS])
{
	int e = c->elem_bytes;

	switch (c->stage) {
	case 0:
		out[0] = coll(PLAN_ALLREDUCE, p, DS_STAGE0_BUCKET, 1, e, "gradients");
		return 1;
	case 1:
	case 2:
		out[0] = coll(PLAN_REDUCESCATTER, p, c->reduce_bucket, c->stage == 2 ? c->gas : 1,
			      e, "gradients");
		out[1] = coll(PLAN_ALLGATHER, p, c->allgather_bucket, 1, e, "updated parameters");
		return 2;
	case 3:
		out[0] = coll(PLAN_ALLGATHER, p, c->prefetch_bucket, c->gas, e,
			      "parameters before forward");
		out[1] = coll(PLAN_ALLGATHER, p, c->prefetch_bucket, c->gas, e,
			      "parameters before backward");
		out[2] = coll(PLAN_REDUCESCATTER, p, c->reduce_bucket, c->gas, e, "gradients");
		return 3;
	}
	return 0;
}

double ds_step_time(const struct ds_coll *c, int k, int n, double busbw, double lat)
{
	double t = 0;

	if (n <= 1)
		return 0;
	for (int i = 0; i < k; i++)
		t += plan_coll_time(c[i].op, c[i].bytes, n, busbw, 0) +
		     c[i].calls * plan_ring_steps(c[i].op, n) * lat;
	return t;
}

double ds_step_traffic(const struct ds_coll *c, int k, int n)
{
	double t = 0;

	for (int i = 0; i < k; i++)
		t += c[i].bytes * plan_busbw_factor(c[i].op, n);
	return t;
}
