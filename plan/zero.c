/* Communication arithmetic of data-parallel training: DDP and ZeRO traffic (see zero.h). */
#include "plan/zero.h"
#include "core/fc.h"
#include "core/log.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Link rates are the signalling rates of one port; latencies are typical
 * ib_write_lat / RoCE figures through one switch (InfiniBand ~1 us,
 * RoCEv2 on Ethernet switches ~2 us). */
static const struct plan_fabric fabrics[] = {
	{ .name = "100gbe", .desc = "100 GbE RoCEv2", .gbps = 100, .lat_us = 2.0 },
	{ .name = "200gbe", .desc = "200 GbE RoCEv2", .gbps = 200, .lat_us = 2.0 },
	{ .name = "hdr", .desc = "InfiniBand HDR", .gbps = 200, .lat_us = 1.0 },
	{ .name = "400gbe", .desc = "400 GbE RoCEv2", .gbps = 400, .lat_us = 2.0 },
	{ .name = "ndr", .desc = "InfiniBand NDR", .gbps = 400, .lat_us = 1.0 },
};

const struct plan_fabric *plan_fabrics(size_t *n)
{
	*n = FC_ARRAY_SIZE(fabrics);
	return fabrics;
}

const struct plan_fabric *plan_fabric_find(const char *name)
{
	for (size_t i = 0; i < FC_ARRAY_SIZE(fabrics); i++)
		if (!strcasecmp(fabrics[i].name, name))
			return &fabrics[i];
	return NULL;
}

const char *plan_op_name(enum plan_op op)
{
	static const char *const names[] = { [PLAN_ALLREDUCE] = "all-reduce",
					     [PLAN_ALLGATHER] = "all-gather",
					     [PLAN_REDUCESCATTER] = "reduce-scatter" };
	return names[op];
}

double plan_busbw_factor(enum plan_op op, int n)
{
	double f = n > 0 ? (double)(n - 1) / n : 0;

	return op == PLAN_ALLREDUCE ? 2 * f : f;
}

int plan_ring_steps(enum plan_op op, int n)
{
	return op == PLAN_ALLREDUCE ? 2 * (n - 1) : n - 1;
}

double plan_coll_time(enum plan_op op, double bytes, int n, double busbw, double lat)
{
	if (n <= 1 || busbw <= 0)
		return 0;
	return bytes * plan_busbw_factor(op, n) / busbw + plan_ring_steps(op, n) * lat;
}

const char *plan_strategy_name(enum plan_strategy s)
{
	static const char *const names[] = { [PLAN_DDP] = "ddp", [PLAN_ZERO1] = "zero1",
					     [PLAN_ZERO2] = "zero2", [PLAN_ZERO3] = "zero3" };
	return names[s];
}

int plan_strategy_colls(enum plan_strategy s, struct plan_coll out[3])
{
	switch (s) {
	case PLAN_DDP:
		out[0] = (struct plan_coll){ PLAN_ALLREDUCE, 1, "gradients" };
		return 1;
	case PLAN_ZERO1:
	case PLAN_ZERO2:
		/* Gradients reduce-scattered to their owners, updated
		 * parameters all-gathered: the volume of an all-reduce. */
		out[0] = (struct plan_coll){ PLAN_REDUCESCATTER, 1, "gradients" };
		out[1] = (struct plan_coll){ PLAN_ALLGATHER, 1, "updated parameters" };
		return 2;
	case PLAN_ZERO3:
		/* Parameters gathered before forward and again before
		 * backward, gradients reduce-scattered. */
		out[0] = (struct plan_coll){ PLAN_ALLGATHER, 2, "parameters (forward, backward)" };
		out[1] = (struct plan_coll){ PLAN_REDUCESCATTER, 1, "gradients" };
		return 2;
	case PLAN_NSTRAT:
		break;
	}
	return 0;
}

double plan_traffic(enum plan_strategy s, double model_bytes, int n)
{
	struct plan_coll c[3];
	int k = plan_strategy_colls(s, c);
	double t = 0;

	for (int i = 0; i < k; i++)
		t += c[i].count * model_bytes * plan_busbw_factor(c[i].op, n);
	return t;
}

double plan_comm_time(enum plan_strategy s, double model_bytes, int n, double busbw,
		      double lat, int calls)
{
	struct plan_coll c[3];
	int k = plan_strategy_colls(s, c);
	double t = 0;

	if (calls < 1)
		calls = 1;
	for (int i = 0; i < k; i++)
		t += c[i].count * (plan_coll_time(c[i].op, model_bytes, n, busbw, 0) +
				   calls * plan_ring_steps(c[i].op, n) * lat);
	return n > 1 ? t : 0;
}

double plan_exposed(double comm, double compute, double overlap)
{
	double e = comm - overlap * compute;

	return e > 0 ? e : 0;
}

int plan_parse_count(const char *opt, const char *text, double *out)
{
	char *end;
	double v, mult = 1;

	if (!text || !*text || !(isdigit((unsigned char)text[0]) || text[0] == '.'))
		goto bad;
	errno = 0;
	v = strtod(text, &end);
	if (errno || end == text || !isfinite(v))
		goto bad;
	switch (toupper((unsigned char)*end)) {
	case '\0': break;
	case 'K': mult = 1e3; end++; break;
	case 'M': mult = 1e6; end++; break;
	case 'B':
	case 'G': mult = 1e9; end++; break;
	case 'T': mult = 1e12; end++; break;
	default: goto bad;
	}
	if (*end || v <= 0 || v * mult > 1e16)
		goto bad;
	*out = v * mult;
	return 0;
bad:
	fc_err("%s: '%s' is not a parameter count; expected a positive number with K, M, B or T (e.g. 70B, 1.3T, 350M)",
	       opt, text ? text : "");
	return -EINVAL;
}
