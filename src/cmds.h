/* Entry points of the top-level commands. */
#ifndef FC_CMDS_H
#define FC_CMDS_H

#include "core/fc.h"

int cmd_devices(struct fc_ctx *ctx, int argc, char **argv);
int cmd_lab(struct fc_ctx *ctx, int argc, char **argv);
int cmd_gpu_check(struct fc_ctx *ctx, int argc, char **argv);
int cmd_pair(struct fc_ctx *ctx, int argc, char **argv);
int cmd_worker(struct fc_ctx *ctx, int argc, char **argv);
int cmd_nccl_worker(struct fc_ctx *ctx, int argc, char **argv);
int cmd_nccl_run(struct fc_ctx *ctx, int argc, char **argv);
int cmd_matrix(struct fc_ctx *ctx, int argc, char **argv);
int cmd_tui(struct fc_ctx *ctx, int argc, char **argv);
int cmd_report(struct fc_ctx *ctx, int argc, char **argv);
int cmd_nccl(struct fc_ctx *ctx, int argc, char **argv);
int cmd_topo(struct fc_ctx *ctx, int argc, char **argv);
int cmd_plan(struct fc_ctx *ctx, int argc, char **argv);
int cmd_preflight(struct fc_ctx *ctx, int argc, char **argv);
int cmd_rails(struct fc_ctx *ctx, int argc, char **argv);
int cmd_preflight_probe(struct fc_ctx *ctx, int argc, char **argv);
int cmd_health(struct fc_ctx *ctx, int argc, char **argv);
int cmd_capture(struct fc_ctx *ctx, int argc, char **argv);
int cmd_soak(struct fc_ctx *ctx, int argc, char **argv);
int cmd_diagnose(struct fc_ctx *ctx, int argc, char **argv);
int cmd_baseline(struct fc_ctx *ctx, int argc, char **argv);

extern const char usage_devices[];
extern const char usage_lab[];
extern const char usage_gpu_check[];
extern const char usage_pair[];
extern const char usage_worker[];
extern const char usage_nccl_worker[];
extern const char usage_nccl_run[];
extern const char usage_matrix[];
extern const char usage_tui[];
extern const char usage_report[];
extern const char usage_nccl[];
extern const char usage_topo[];
extern const char usage_plan[];
extern const char usage_preflight[];
extern const char usage_rails[];
extern const char usage_capture[];
extern const char usage_preflight_probe[];
extern const char usage_health[];
extern const char usage_soak[];
extern const char usage_diagnose[];
extern const char usage_baseline[];

#endif
