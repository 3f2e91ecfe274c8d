/*
 * fabcheck capture: one node recorded into a bundle (core/bundle.h,
 * doc/capture.md): the preflight probe's inputs recorded as it reads them
 * (ctl/nodesrc.h), the sysfs files the readers read, and the tools' outputs
 * a person judging the node asks for.
 */
#ifndef FC_CHECKS_PREFLIGHT_CAPTURE_H
#define FC_CHECKS_PREFLIGHT_CAPTURE_H

#include "core/bundle.h"

/* Bounds of one capture (doc/capture.md): each command's deadline, the
 * sysfs copy's and the whole capture's. */
#define CAP_CMD_S 10.0
#define CAP_SYSFS_S 60.0
#define CAP_TOTAL_S 180.0
/* The kernel log lines kept (the last ones naming mlx5, AER, PCIe errors). */
#define CAP_KLOG_LINES 2000
/* The most of one sysfs file and of one NCCL settings file kept. */
#define CAP_SYS_FILE_MAX 65536
#define CAP_SETTINGS_MAX (1u << 20)

/* Copies sysfs under @root into sys/ of @w until @deadline (monotonic);
 * returns how many files (capture_sys.c). */
int cap_sysfs(struct fc_bundle_w *w, const char *root, double deadline);

/* Records this node into the new folder @dir. 0, or -1 after logging. */
int cap_node(const char *dir, const char *sysroot);

#endif
