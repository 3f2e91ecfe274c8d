/*
 * The part diagnosis of a matrix's suspects: each suspect of a matrix or
 * soak document (node, port, link; per rail) gets "diagnosis", the
 * diagnosis (diag/: part, confidence, evidence, next step) of its worst
 * pair on its rail, read back from that pair's stored document, with the
 * pair it came from. A suspect whose pair has no diagnosis (no counters
 * read) gets none. The soak's suspects (matrix/soak_suspects.c) take the
 * same entry from their worst slice.
 */
#ifndef FC_MX_DIAG_H
#define FC_MX_DIAG_H

#include <jansson.h>
#include <stdio.h>

#include "matrix/mx_model.h"

struct fc_store;

/* The diagnosis entry of a pair's document for the rail of index
 * @rail_index (its subject "rail R ..." in a pair --rails document), else
 * its first entry of no rail (never another rail's); @rail_index -1: its
 * first. NULL when it has none. */
const json_t *mx_diag_pick(const json_t *pair_doc, int rail_index);
/* A suspect's "diagnosis" from entry @e of pair @a -> @b: {pair, subject,
 * part, confidence, evidence, next}; NULL when @e is no object. */
json_t *mx_diag_entry(const json_t *e, const char *a, const char *b);

void mx_doc_diagnoses(const struct mx_model *m, struct fc_store *st, json_t *doc);
/* The text of those diagnoses, after the findings (nothing when none). */
void mx_doc_diagnoses_render(FILE *f, const json_t *doc);

#endif
