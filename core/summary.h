/*
 * The answer first: the few lines every judging command ends its text with
 * (fc_render_findings): "verdict: X, N problems named:" (the verdict said
 * once), then one line per named problem with where (node, device, rail),
 * what (the part), how sure, and the next step. The detail stays above it and in --json. One printer
 * for every command, fed by what its document names:
 *   "diagnosis"  [{subject, part, confidence, next}] (pair, diagnose);
 *   "suspects"   [{level, node, device, rail, reason}] (matrix);
 *   otherwise the findings above, counted, the first one quoted.
 */
#ifndef FC_SUMMARY_H
#define FC_SUMMARY_H

#include <jansson.h>
#include <stddef.h>
#include <stdio.h>

/* The problems a summary names at most; more are counted in one line. */
#define FC_SUMMARY_MAX 6

/* The terminal's width: $COLUMNS when it is a number from 40 to 1000,
 * else 100. */
int fc_term_cols(void);
/* Cuts @s (in place) to at most @width bytes at a word, ending it with
 * " ..." when cut; returns @s. The whole text stays in --json and the store. */
char *fc_fit_words(char *s, int width);
/* Prints @doc's summary to @f, each line fitted to fc_term_cols(). */
void fc_summary_render(FILE *f, const json_t *doc);
/* The same lines whole, their indent left out, for a --json document's
 * "summary" (["verdict: fail, 1 problem named:", "nodeC rxe1 on rail 1:
 * ..."]): burnin-rack's summary ends with its steps' (one printer). */
#define FC_SUMMARY_WHOLE 100000
json_t *fc_summary_json(const json_t *doc);

#endif
