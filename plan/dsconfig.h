/*
 * fabcheck plan --ds-config: the collectives one optimizer step of a
 * DeepSpeed run issues, from its JSON config (the keys the communication
 * depends on) and the model's parameter count.
 */
#ifndef FC_DSCONFIG_H
#define FC_DSCONFIG_H

#include <jansson.h>
#include <stddef.h>

#include "plan/zero.h"

struct ds_config {
	int stage;		/* zero_optimization.stage, 0 .. 3 */
	double reduce_bucket;	/* elements per gradient reduction call */
	double allgather_bucket; /* elements per parameter all-gather (stages 1, 2) */
	double prefetch_bucket; /* stage3_prefetch_bucket_size, elements */
	int overlap_comm;	/* 1 true, 0 false */
	int gas;		/* gradient_accumulation_steps */
	int elem_bytes;		/* 2 with fp16 or bf16 enabled, else 4 */
	const char *dtype;	/* "bf16", "fp16", "fp32" */
};

/*
 * Reads @cfg (a DeepSpeed config document) into *out, with DeepSpeed's
 * defaults for the keys it does not have. A key of the wrong type, "auto"
 * (which the Hugging Face Trainer fills in before DeepSpeed sees it), or
 * an absurd value is an error naming the key: -EINVAL, with the message in
 * @why (@len bytes).
 */
int ds_config_from_json(const json_t *cfg, struct ds_config *out, char *why, size_t len);
/* ds_config_from_json of the file @path; a file that is not JSON is an
 * error naming the file, line and column. */
int ds_config_load(const char *path, struct ds_config *out, char *why, size_t len);

/* One kind of collective of a step: @calls calls that move @bytes in all
 * (the all-reduce buffers, the all-gather outputs, the reduce-scatter
 * inputs, summed over the calls). */
struct ds_coll {
	enum plan_op op;
	double bytes;
	double calls;
	double bucket_bytes; /* the size of one full call */
	const char *what;
};
#define DS_MAX_COLLS 4

/*
 * The collectives of one optimizer step (gradient_accumulation_steps
 * micro-batches) for a model of @params parameters; returns how many
 * kinds (at most DS_MAX_COLLS). The model of each stage is in dsconfig.c.
 */
int ds_step_colls(const struct ds_config *c, double params, struct ds_coll out[DS_MAX_COLLS]);
/* Seconds of communication of those collectives on @n ranks at bus
 * bandwidth @busbw (bytes/s) and @lat seconds per ring step:
 *   sum of bytes x factor / busbw + calls x ring steps x lat. */
double ds_step_time(const struct ds_coll *c, int k, int n, double busbw, double lat);
/* Bytes each GPU sends in those collectives: sum of bytes x factor. */
double ds_step_traffic(const struct ds_coll *c, int k, int n);

#endif
