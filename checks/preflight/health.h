/*
 * `fabcheck health`: this node alone, as Slurm's HealthCheckProgram runs it.
 * The preflight probe of the node (pf_probe_doc) judged by pf_check as a
 * rack of one, and against two records: the rack's reference (a `preflight
 * --json` document of the rack: its majority firmware, port rate and MTU
 * per device and port) and the node's own state file (its readings at the
 * last check: error counters, carrier changes, PCIe links). Pure: documents
 * in, findings and a new state out (checks/preflight/health.c).
 */
#ifndef FC_CHECKS_HEALTH_H
#define FC_CHECKS_HEALTH_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#define HL_STATE_VERSION 1

/* The node's port counters ("counters": {"DEV:PORT": {NAME: N}}) read
 * from sysfs under @sysfs ("/sys") into @probe (cmd_health.c). */
void hl_read_counters(json_t *probe, const char *sysfs);

/* The probe's firmware, port rate and netdev MTU of each ACTIVE port
 * against the majority of the nodes of @ref (a `preflight --json`
 * document); a fail and a pf_blame per difference. */
void hl_check_reference(json_t *doc, const char *node, const json_t *probe, const json_t *ref,
			const char *ref_path);
/* The probe against @state (the last check's, NULL: none): an error
 * counter that rose, carrier changes, a PCIe link that trained lower;
 * each a fail and a pf_blame. */
void hl_check_state(json_t *doc, const char *node, const json_t *probe, const json_t *state);
/* The ports that show, on this node alone, they were in use (a rail port
 * that went down, not a spare never cabled): {"DEV:PORT": WHY} for each
 * ACTIVE at the last check (@last, NULL: none), or whose netdev's carrier
 * came up since it was made (carrier_up_count), or whose link_downed
 * counter says its link was up. pf_opts.in_use: a DOWN one is judged. */
json_t *hl_in_use(const json_t *probe, const json_t *last);
/* The rail devices of @node ("mlx5_0,mlx5_3") as the newest matrix run
 * of the store @db that matched its ports to the rack's rails recorded
 * them (its params "rails" "ports"), into @list; that run's id and its
 * start in *@started_p, or 0 (@list "") when the store is missing or
 * unreadable or none of its newest 10 matrix runs holds the node's rails.
 * Device names are checked (fc_drain_device_ok); nothing else is used. */
int64_t hl_rails_from_store(const char *db, const char *node, char *list, size_t len,
			    double *started_p);
/* The state to keep for the next check: this probe's readings at @now,
 * with its ACTIVE ports ("active"). */
json_t *hl_state_new(const char *node, const json_t *probe, double now);

#endif
