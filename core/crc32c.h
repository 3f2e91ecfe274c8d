/* CRC32C (Castagnoli, as iSCSI and ext4 use it): table code written here. */
#ifndef FC_CRC32C_H
#define FC_CRC32C_H

#include <stddef.h>
#include <stdint.h>

/* Continues @crc (0 to start) over @len bytes; "123456789" gives 0xe3069283. */
uint32_t fc_crc32c(uint32_t crc, const void *buf, size_t len);

#endif
