/*
 * Software RDMA devices (rxe: Soft-RoCE; siw: Soft-iWARP): the kernel's
 * drivers/infiniband/sw. Such a device does the HCA's work on its node's
 * CPU: rxe "implements the InfiniBand RDMA transport over the Linux network
 * stack" (drivers/infiniband/sw/rxe/Kconfig), its requester, responder and
 * completer running as tasklets or work items (rxe_task.c); siw carries
 * iWARP over the kernel's TCP sockets with a transmit thread per CPU
 * (drivers/infiniband/sw/siw/Kconfig, siw_qp_tx.c). So every software
 * device of a node shares that node's CPUs, and a PCIe model of the host
 * path (a hardware HCA's) does not apply to it.
 */
#ifndef FC_SOFTDEV_H
#define FC_SOFTDEV_H

#include <jansson.h>

/* The vendor ids these drivers report (ibv_query_device, ibv_devinfo's
 * vendor_id): rxe_param.h RXE_VENDOR_ID, siw.h SIW_VENDOR_ID ("bmt"). */
#define FC_RXE_VENDOR_ID 0xffffffu
#define FC_SIW_VENDOR_ID 0x626d74u

/* Pure. 1 when an RDMA device is a software one: its vendor id (@vendor_id
 * < 0: unknown) is rxe's or siw's, or its name is one `rdma link add`
 * gives them by convention (rxe*, siw*). */
int fc_rdma_soft(const char *dev, long long vendor_id);

/* Pure. fc_rdma_soft of one side of a pair document: its "device" and its
 * "hca" ("0xVENDOR:PART", verbs/res.c; absent: unknown). */
int fc_rdma_soft_side(const json_t *side);

#endif
