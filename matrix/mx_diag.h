/*
 * The part diagnosis of a matrix's suspects: each suspect of a matrix or
 * soak document (node, port, link; per rail) gets "diagnosis", the
 * diagnosis (diag/: part, confidence, evidence, next step) of its worst
 * pair on its rail, read back from that pair's stored document, with the
 * pair it came from. A suspect whose pair has no diagnosis (no counters
 * read) gets none.
 */
#ifndef FC_MX_DIAG_H
#define FC_MX_DIAG_H

#include <jansson.h>
#include <stdio.h>

#include "matrix/mx_model.h"

struct fc_store;

void mx_doc_diagnoses(const struct mx_model *m, struct fc_store *st, json_t *doc);
/* The text of those diagnoses, after the findings (nothing when none). */
void mx_doc_diagnoses_render(FILE *f, const json_t *doc);

#endif
