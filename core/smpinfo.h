/*
 * InfiniBand NodeInfo as infiniband-diags' `smpquery nodeinfo` prints it
 * ("Key:........value" lines after a "# Node info: ..." header). Pure.
 */
#ifndef FC_SMPINFO_H
#define FC_SMPINFO_H

#include <stddef.h>

struct fc_smp_nodeinfo {
	char type[24];	/* "Switch", "Channel Adapter", "Router" */
	char guid[24];	/* the node GUID, "0x" and 16 hex digits */
	int local_port; /* the port the query came in on, -1 unknown */
	int num_ports;	/* -1 unknown */
};

/* Reads @text into @out. Returns 0, or -EINVAL when it has no NodeType or
 * no Guid of at most 16 hex digits (not NodeInfo: an error message). */
int fc_smp_nodeinfo_parse(const char *text, struct fc_smp_nodeinfo *out);

/* The node description of `smpquery nodedesc` ("Node Description:" and dots
 * to column 33, then the description: infiniband-diags' smpquery.c,
 * node_desc()) into @buf, its bytes outside printable ASCII as '?' (it is
 * the switch's own 64 bytes). 0, or -EINVAL when there is no such line or
 * it is empty. */
int fc_smp_nodedesc_parse(const char *text, char *buf, size_t len);

#endif
