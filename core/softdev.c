/* Software RDMA devices (core/softdev.h). */
#include <stdlib.h>
#include <string.h>

#include "core/softdev.h"

int fc_rdma_soft(const char *dev, long long vendor_id)
{
	if (vendor_id == FC_RXE_VENDOR_ID || vendor_id == FC_SIW_VENDOR_ID)
		return 1;
	return dev && (!strncmp(dev, "rxe", 3) || !strncmp(dev, "siw", 3));
}

int fc_rdma_soft_side(const json_t *side)
{
	const char *hca = json_string_value(json_object_get(side, "hca"));
	long long vendor = -1;
	char *end;

	if (hca && !strncmp(hca, "0x", 2)) {
		vendor = strtoll(hca + 2, &end, 16);
		if (end == hca + 2 || *end != ':')
			vendor = -1;
	}
	return fc_rdma_soft(json_string_value(json_object_get(side, "device")), vendor);
}
