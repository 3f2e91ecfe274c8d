/* Shared by topo/pcitopo_ncclpath.c and topo/pcitopo_nccl.c only. */
#ifndef FC_PCITOPO_INT_H
#define FC_PCITOPO_INT_H

#include "topo/pcitopo.h"

/* NCCL's bandwidth of the path between @a and @b in GB/s (0 unknown). */
double topo_nccl_path_bw(const struct topo *t, const struct topo_dev *a,
			 const struct topo_dev *b);
/* 1 when NCCL's node of @a comes before @b's (same kind). */
int topo_nccl_before(const struct topo *t, const struct topo_dev *a, const struct topo_dev *b);

#endif
