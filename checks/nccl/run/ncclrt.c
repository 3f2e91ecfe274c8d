/* fabcheck nccl run: pure parts (see ncclrt.h). */
#include "checks/nccl/run/ncclrt.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "core/out.h"

int ncr_op_parse(const char *s, enum ncr_op *out_p)
{
	if (!strcmp(s, "all_reduce") || !strcmp(s, "allreduce")) {
		*out_p = NCR_ALL_REDUCE;
		return 0;
	}
	return -EINVAL;
}

const char *ncr_op_name(enum ncr_op op)
{
	return op == NCR_ALL_REDUCE ? "all_reduce" : "?";
}

int ncr_size_series(uint64_t min, uint64_t max, unsigned factor, uint64_t *out, int cap)
{
	int n = 0;

	if (min < NCR_ELEM_BYTES || max < min || factor < 2 || cap < 1)
		return -EINVAL;
	for (uint64_t s = min; s <= max; s *= factor) {
		if (n == cap)
			return -E2BIG;
		out[n++] = s / NCR_ELEM_BYTES * NCR_ELEM_BYTES;
		if (s > max / factor)
			break;
	}
	return n;
}

double ncr_algbw(uint64_t bytes, double seconds)
{
	return seconds > 0 ? (double)bytes / seconds / 1e9 : 0;
}

double ncr_busbw_factor(enum ncr_op op, int nranks)
{
	if (nranks < 1)
		return 0;
	switch (op) {
	case NCR_ALL_REDUCE: return 2.0 * (nranks - 1) / nranks;
	}
	return 0;
}

void ncr_hex_encode(const uint8_t *in, size_t n, char *out)
{
	static const char digits[] = "0123456789abcdef";

	for (size_t i = 0; i < n; i++) {
		out[2 * i] = digits[in[i] >> 4];
		out[2 * i + 1] = digits[in[i] & 15];
	}
	out[2 * n] = '\0';
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int ncr_hex_decode(const char *s, uint8_t *out, size_t n)
{
	if (!s || strlen(s) != 2 * n)
		return -EINVAL;
	for (size_t i = 0; i < n; i++) {
		int hi = hexval(s[2 * i]), lo = hexval(s[2 * i + 1]);

		if (hi < 0 || lo < 0)
			return -EINVAL;
		out[i] = (uint8_t)(hi << 4 | lo);
	}
	return 0;
}

const char *ncr_version_str(int code, char *buf, size_t len)
{
	if (code <= 0)
		snprintf(buf, len, "?");
	else if (code >= 10000)
		snprintf(buf, len, "%d.%d.%d", code / 10000, code % 10000 / 100, code % 100);
	else
		snprintf(buf, len, "%d.%d.%d", code / 1000, code % 1000 / 100, code % 100);
	return buf;
}

json_t *ncr_params_json(const struct ncr_params *p)
{
	return json_pack("{s:i, s:i, s:i, s:b, s:s, s:I, s:I, s:i, s:i, s:i, s:f}", "rank",
			 p->rank, "nranks", p->nranks, "gpu", p->gpu, "want_topo", p->want_topo,
			 "op", ncr_op_name(p->op), "min_bytes", (json_int_t)p->min_bytes,
			 "max_bytes", (json_int_t)p->max_bytes, "factor", (int)p->factor,
			 "iters", p->iters, "warmup", p->warmup, "timeout", p->timeout);
}

/* An integer member in [lo, hi]; 0 or -EPROTO with @why. */
static int get_int(const json_t *m, const char *key, long long lo, long long hi,
		   long long *out, char *why, size_t len)
{
	const json_t *v = json_object_get(m, key);

	if (!json_is_integer(v) || json_integer_value(v) < lo || json_integer_value(v) > hi) {
		snprintf(why, len, "\"%s\" is missing or not an integer in [%lld, %lld]", key,
			 lo, hi);
		return -EPROTO;
	}
	*out = json_integer_value(v);
	return 0;
}

int ncr_params_from_json(const json_t *m, struct ncr_params *p, char *why, size_t len)
{
	long long v[8];
	const json_t *t = json_object_get(m, "timeout");
	uint64_t sizes[NCR_MAX_SIZES];

	memset(p, 0, sizeof(*p));
	if (get_int(m, "nranks", 1, NCR_MAX_RANKS, &v[0], why, len) ||
	    get_int(m, "rank", 0, v[0] - 1, &v[1], why, len) ||
	    get_int(m, "gpu", 0, 1023, &v[2], why, len) ||
	    get_int(m, "min_bytes", NCR_ELEM_BYTES, (long long)NCR_MAX_BYTES, &v[3], why, len) ||
	    get_int(m, "max_bytes", v[3], (long long)NCR_MAX_BYTES, &v[4], why, len) ||
	    get_int(m, "factor", 2, 1024, &v[5], why, len) ||
	    get_int(m, "iters", 1, 100000, &v[6], why, len) ||
	    get_int(m, "warmup", 0, 100000, &v[7], why, len))
		return -EPROTO;
	if (ncr_op_parse(fc_jstr(m, "op", ""), &p->op)) {
		snprintf(why, len, "\"op\" '%s' is not an operation this worker runs",
			 fc_jstr(m, "op", ""));
		return -EPROTO;
	}
	if (!json_is_number(t) || json_number_value(t) <= 0 || json_number_value(t) > 86400) {
		snprintf(why, len, "\"timeout\" is missing or not in (0, 86400] seconds");
		return -EPROTO;
	}
	p->nranks = (int)v[0];
	p->rank = (int)v[1];
	p->gpu = (int)v[2];
	p->min_bytes = (uint64_t)v[3];
	p->max_bytes = (uint64_t)v[4];
	p->factor = (unsigned)v[5];
	p->iters = (int)v[6];
	p->warmup = (int)v[7];
	p->timeout = json_number_value(t);
	p->want_topo = json_is_true(json_object_get(m, "want_topo"));
	if (ncr_size_series(p->min_bytes, p->max_bytes, p->factor, sizes, NCR_MAX_SIZES) < 0) {
		snprintf(why, len, "the sizes from %llu to %llu bytes by %u are more than %d",
			 (unsigned long long)p->min_bytes, (unsigned long long)p->max_bytes,
			 p->factor, NCR_MAX_SIZES);
		return -EPROTO;
	}
	return 0;
}

json_t *ncr_result_json(const struct ncr_rank_result *r)
{
	json_t *a = json_array();

	for (int i = 0; i < r->nsizes; i++)
		json_array_append_new(a, json_pack("{s:I, s:f, s:I}", "bytes",
						   (json_int_t)r->bytes[i], "time_us",
						   r->time_us[i], "wrong", (json_int_t)r->wrong[i]));
	return json_pack("{s:o}", "sizes", a);
}

int ncr_result_from_json(const json_t *m, const struct ncr_params *p,
			 struct ncr_rank_result *r, char *why, size_t len)
{
	const json_t *a = json_object_get(m, "sizes"), *e;
	uint64_t want[NCR_MAX_SIZES];
	int n = ncr_size_series(p->min_bytes, p->max_bytes, p->factor, want, NCR_MAX_SIZES);
	size_t i;

	memset(r, 0, sizeof(*r));
	if (n < 0 || !json_is_array(a) || json_array_size(a) != (size_t)n) {
		snprintf(why, len, "the result holds %zu sizes where %d were asked for",
			 json_array_size(a), n);
		return -EPROTO;
	}
	json_array_foreach(a, i, e) {
		const json_t *b = json_object_get(e, "bytes"), *t = json_object_get(e, "time_us"),
			     *w = json_object_get(e, "wrong");

		if (!json_is_integer(b) || (uint64_t)json_integer_value(b) != want[i] ||
		    !json_is_number(t) || !(json_number_value(t) > 0) ||
		    !isfinite(json_number_value(t)) || !json_is_integer(w) ||
		    json_integer_value(w) < 0 ||
		    (uint64_t)json_integer_value(w) > want[i] / NCR_ELEM_BYTES) {
			/* a rank checks each element of its buffer once: no more are wrong */
			snprintf(why, len, "result %zu is not {bytes: %llu, time_us > 0, "
				 "0 <= wrong <= %llu elements}", i, (unsigned long long)want[i],
				 (unsigned long long)(want[i] / NCR_ELEM_BYTES));
			return -EPROTO;
		}
		r->bytes[i] = want[i];
		r->time_us[i] = json_number_value(t);
		r->wrong[i] = json_integer_value(w);
	}
	r->nsizes = n;
	return 0;
}

json_t *ncr_table(enum ncr_op op, const struct ncr_rank_result *r, int nranks)
{
	json_t *a = json_array();
	double f = ncr_busbw_factor(op, nranks);

	for (int i = 0; nranks > 0 && i < r[0].nsizes; i++) {
		double sum = 0, max = 0, alg, bus;
		int64_t wrong = 0; /* each rank's at most bytes / 4 (ncr_result_from_json) */

		for (int k = 0; k < nranks; k++) {
			sum += r[k].time_us[i];
			max = r[k].time_us[i] > max ? r[k].time_us[i] : max;
			wrong += r[k].wrong[i];
		}
		alg = ncr_algbw(r[0].bytes[i], sum / nranks / 1e6);
		bus = alg * f;
		json_array_append_new(
			a, json_pack("{s:s, s:I, s:I, s:s, s:f, s:f, s:f, s:f, s:f, s:I}", "op",
				     ncr_op_name(op), "size_bytes", (json_int_t)r[0].bytes[i],
				     "count", (json_int_t)(r[0].bytes[i] / NCR_ELEM_BYTES), "type",
				     "float", "time_us", sum / nranks, "max_time_us", max,
				     "algbw_gbytes_s", alg, "busbw_gbytes_s", bus, "busbw_gbps",
				     bus * 8, "wrong", (json_int_t)wrong));
	}
	return a;
}

double ncr_avg_busbw(const json_t *table)
{
	double sum = 0;
	size_t i;
	json_t *e;

	json_array_foreach(table, i, e)
		sum += fc_jnum(e, "busbw_gbytes_s", 0);
	return json_array_size(table) ? sum / (double)json_array_size(table) : 0;
}

double ncr_size_deadline(double timeout, uint64_t bytes, int ops)
{
	return timeout + (double)bytes * 2 * ops / 1e8;
}

static int needed_subsys(const char *tok, size_t n)
{
	static const char *const need[] = { "INIT", "ENV", "NET" };

	for (size_t i = 0; i < sizeof(need) / sizeof(need[0]); i++)
		if (strlen(need[i]) == n && !strncasecmp(tok, need[i], n))
			return (int)i;
	return -1;
}

void ncr_debug_subsys(const char *user, char *out, size_t len)
{
	int have[3] = { 0 }, inv = user && *user == '^';
	size_t used = 0;
	const char *p;

	if (!user || !*user) {
		snprintf(out, len, "INIT,ENV,NET");
		return;
	}
	out[0] = 0;
	for (p = user + inv; *p;) {
		size_t n = strcspn(p, ",");
		int k = needed_subsys(p, n);

		if (n == 3 && !strncasecmp(p, "ALL", 3) && !inv) {
			snprintf(out, len, "%s", user);
			return;
		}
		if (k >= 0)
			have[k] = 1;
		if (n && (k < 0 || !inv) && used < len)
			used += (size_t)snprintf(out + used, len - used, "%s%s%.*s", used ? "," : "",
						 inv && !used ? "^" : "", (int)n, p);
		p += n + (p[n] == ',');
	}
	if (inv) {
		if (!used)
			snprintf(out, len, "ALL");
		return;
	}
	for (int i = 0; i < 3; i++)
		if (!have[i] && used < len)
			used += (size_t)snprintf(out + used, len - used, "%s%s", used ? "," : "",
						 i == 0 ? "INIT" : i == 1 ? "ENV" : "NET");
}
