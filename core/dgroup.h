/*
 * Each fact once: the entries of a diagnosis list that name the same part,
 * as sure, with the same next step, are one problem. pair --rails gives an
 * entry per rail and phase ("rail 0 alone: nodeB rxe0 -> nodeA rxe0", ...
 * "rail 1 loaded: nodeB rxe1 -> nodeA rxe1"); the text says it once, under
 * one subject that keeps where ("nodeB rxe0/rxe1 -> nodeA rxe0/rxe1 on
 * rails 0 and 1": each rail alone and loaded). The JSON keeps every entry. Read by the
 * diagnosis block (diag_render) and the summary under the verdict.
 */
#ifndef FC_DGROUP_H
#define FC_DGROUP_H

#include <jansson.h>
#include <stddef.h>

struct fc_dgroup {
	size_t first;	   /* the index of its first entry */
	int n;		   /* its entries */
	int same_evidence; /* 1 when every entry's evidence is the first's */
	char subject[512]; /* the subjects merged */
};

/* Groups the entries of @list, in the order of each group's first entry,
 * into @g (room for json_array_size(@list)); returns how many. */
int fc_dgroups(const json_t *list, struct fc_dgroup *g);
/* 1 when entry @e belongs to group @g of @list. */
int fc_dgroup_has(const json_t *list, const struct fc_dgroup *g, const json_t *e);

#endif
