/*
 * The verdict of a pair test, from its finished JSON document (the shape of
 * architecture.md "fabcheck pair A B --json"): thresholds, MTU agreement,
 * bandwidth dips and error counters become findings. Pure code.
 */
#ifndef FC_PAIRV_H
#define FC_PAIRV_H

#include <jansson.h>

struct fc_pair_limits {
	double min_gbps;     /* > 0: bandwidth floor, overrides min_link_pct */
	double min_link_pct; /* share of the slower port's rate, for bw >= 1 MiB */
	double max_lat_us;   /* > 0: ceiling of p50 latency at the smallest size */
};

#define FC_LINK_PCT_MIN_SIZE (1u << 20)

/* What error counters that rise mean, said once per report after the first
 * port's counters ("nodeA rxe0 port 1: error counters rose during the
 * test: completer_retry_err +219, rcvd_seq_err +69: " FC_CTR_WHY). */
#define FC_CTR_WHY                                                                   \
	"packets were lost, retried or corrupted (the diagnosis names the likely part " \
	"from the physical-layer counters)"
/* 1 when a finding of @doc already says FC_CTR_WHY. */
int fc_ctr_why_said(const json_t *doc);

/* True for counters that count errors, drops, retries or loss. */
int fc_counter_is_error(const char *name);
/* True for the error counters that count receive-not-ready events (RNR
 * NAKs sent or received, messages that found no receive posted): flow
 * control by the receiving application, not loss on the wire. */
int fc_counter_is_rnr(const char *name);
/* Whether @doc is a --validate run ("options": {"validate": true}): its
 * receiver posts a receive again only once the slot's message was checked
 * (vb_val_rx_cap), so RNR NAKs are the validation's, not the fabric's. */
int fc_doc_validated(const json_t *doc);

/*
 * Adds findings (and raises "verdict") for @doc, which holds "a", "b",
 * "results" and "counters". Also sets "thresholds" to what was applied.
 */
void fc_pair_verdict(json_t *doc, const struct fc_pair_limits *lim);



/* Non-zero differences after - before of counters present in both. */
json_t *fc_counters_delta(const json_t *before, const json_t *after);
#endif
