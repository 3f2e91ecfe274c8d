/*
 * A cause of loss outside the nodes that the command itself measured: set
 * only on a lab rack (lab/fabloss.h: the emulator's fabric dropped frames in
 * the host). NULL everywhere else: real ports' counters are always judged.
 */
#ifndef FC_HOSTLOSS_H
#define FC_HOSTLOSS_H

#include <jansson.h>
#include <stddef.h>

/* The frames lost outside the nodes at port @ip of @node during the run
 * (> 0 explains its loss), with the sentence in @why; 0 when none is known. */
extern double (*fc_host_loss)(const char *node, const char *ip, char *why, size_t len);

/* fc_host_loss for @side (a pair document's "a" or "b": its "host" and its
 * RoCE GID's IPv4 address); 0 when it is not set or @side has no such GID. */
double fc_host_loss_side(const json_t *side, char *why, size_t len);

/* 1 when @test (a pair's document, live or recorded in an evidence folder)
 * keeps both its ports' counters under "host_loss" (core/pairv.c): their
 * loss was measured outside the nodes when the run judged it. */
int fc_host_loss_recorded(const json_t *test);

/* The "host_loss" lists of @doc (core/pairv.c): its own, and each of its
 * rails' phases' (pair --rails: rails[].alone, rails[].loaded), into @out
 * (at most @max); returns how many. */
size_t fc_host_loss_lists(const json_t *doc, const json_t **out, size_t max);

#endif
