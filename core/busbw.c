/* The all_reduce busbw the rails can carry (see busbw.h). */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "core/busbw.h"

static const struct {
	const char *word;
	unsigned algo;
} algo_words[] = {
	{ "ring", BUSBW_ALGO_RING },	    { "tree", BUSBW_ALGO_TREE },
	{ "nvls", BUSBW_ALGO_NVLS },	    { "nvlstree", BUSBW_ALGO_NVLS },
	{ "collnet", BUSBW_ALGO_COLLNET },    { "collnetdirect", BUSBW_ALGO_COLLNET },
	{ "collnetchain", BUSBW_ALGO_COLLNET }, { "pat", BUSBW_ALGO_PAT },
};

/* The algorithm one word names (@w of @n chars, blanks trimmed); 0 none. */
static unsigned algo_word(const char *w, size_t n)
{
	while (n && (*w == ' ' || *w == '\t'))
		w++, n--;
	while (n && (w[n - 1] == ' ' || w[n - 1] == '\t'))
		n--;
	for (size_t k = 0; k < sizeof(algo_words) / sizeof(algo_words[0]); k++)
		if (strlen(algo_words[k].word) == n && !strncasecmp(w, algo_words[k].word, n))
			return algo_words[k].algo;
	return 0;
}

/* The list part of @s for all_reduce: @s itself, or of a per-operation
 * value the text after "allreduce:" up to ';' (NULL: not named there). */
static const char *allreduce_part(const char *s, size_t *len_p)
{
	const char *p = s;

	if (!strchr(s, ':')) {
		*len_p = strlen(s);
		return s;
	}
	while (p && *p) {
		const char *end = strchr(p, ';'), *colon = strchr(p, ':');
		size_t seg = end ? (size_t)(end - p) : strlen(p);

		while (*p == ' ')
			p++, seg--;
		if (colon && colon < p + seg && (size_t)(colon - p) == strlen("allreduce") &&
		    !strncasecmp(p, "allreduce", strlen("allreduce"))) {
			*len_p = seg - (size_t)(colon + 1 - p);
			return colon + 1;
		}
		p = end ? end + 1 : NULL;
	}
	return NULL;
}

unsigned busbw_algo_parse(const char *s)
{
	unsigned set = 0, excl = 0;
	const char *l;
	size_t n;

	if (!s || !*s || !(l = allreduce_part(s, &n)))
		return BUSBW_ALGO_ALL;
	if (n && *l == '^')
		excl = 1, l++, n--;
	while (n) {
		const char *comma = memchr(l, ',', n);
		size_t w = comma ? (size_t)(comma - l) : n;

		set |= algo_word(l, w);
		l += w, n -= w;
		if (n)
			l++, n--;
	}
	return excl ? BUSBW_ALGO_ALL & ~set : set;
}

const char *busbw_algo_name(unsigned algo)
{
	switch (algo) {
	case BUSBW_ALGO_RING: return "ring";
	case BUSBW_ALGO_TREE: return "tree";
	case BUSBW_ALGO_NVLS: return "NVLS tree";
	case BUSBW_ALGO_COLLNET: return "CollNet";
	case BUSBW_ALGO_PAT: return "PAT";
	}
	return "?";
}

double busbw_algo_factor(unsigned algo, int nnodes, int gpus_per_node)
{
	int n = nnodes * gpus_per_node;

	if (nnodes < 2 || gpus_per_node < 1)
		return 0;
	switch (algo) {
	case BUSBW_ALGO_RING: return 1;
	case BUSBW_ALGO_TREE:
	case BUSBW_ALGO_NVLS: return nnodes == 2 ? 1 : (double)(n - 1) / n;
	}
	return 0;
}

/* The node's network payload rate, GB/s: one rail per GPU at most. */
static double node_rate(int rails, double payload_gbytes, int gpus_per_node)
{
	int used = rails < gpus_per_node ? rails : gpus_per_node;

	return used > 0 && payload_gbytes > 0 ? used * payload_gbytes : 0;
}

double busbw_payload(unsigned algos, int rails, double payload_gbytes, int gpus_per_node,
		     int nnodes, unsigned *which_p)
{
	double best = 0;

	if (which_p)
		*which_p = 0;
	for (unsigned a = BUSBW_ALGO_RING; a <= BUSBW_ALGO_NVLS; a <<= 1) {
		double f = algos & a ? busbw_algo_factor(a, nnodes, gpus_per_node) : 0;

		if (f > 0 && (!best || f < best)) {
			best = f;
			if (which_p)
				*which_p = a;
		}
	}
	return best * node_rate(rails, payload_gbytes, gpus_per_node);
}

double busbw_rails(unsigned algos, int rails, double rate_gbit, int gpus_per_node, int nnodes,
		   unsigned *which_p)
{
	return busbw_payload(algos, rails, rate_gbit / 8 * BUSBW_RAIL_PAYLOAD, gpus_per_node,
			     nnodes, which_p);
}

double busbw_rails_bound(unsigned algos, int rails, double rate_gbit,
		   int gpus_per_node, int nnodes)
{
	int n = nnodes * gpus_per_node;

	if (nnodes != 2 || !(algos & (BUSBW_ALGO_TREE | BUSBW_ALGO_NVLS)))
		return 0;
	return 2.0 * (n - 1) / n * node_rate(rails, rate_gbit / 8 * BUSBW_RAIL_PAYLOAD, gpus_per_node);
}
