/* Shared by topo/pcitopo_ncclpath.c, pcitopo_nccl.c and pcitopo_vnic.c only. */
#ifndef FC_PCITOPO_INT_H
#define FC_PCITOPO_INT_H

#include "topo/pcitopo.h"

/* NCCL's bandwidth of the path between @a and @b in GB/s (0 unknown). */
double topo_nccl_path_bw(const struct topo *t, const struct topo_dev *a,
			 const struct topo_dev *b);
/* Where NCCL finds @d: a Data Direct HCA at its DMA function
 * (topo_set_data_direct), else itself. */
static inline const struct topo_dev *topo_place(const struct topo_dev *d)
{
	return d->dd ? d->dd : d;
}
/* 1 when NCCL's node of @a comes before @b's (same kind). */
int topo_nccl_before(const struct topo *t, const struct topo_dev *a, const struct topo_dev *b);

#endif
