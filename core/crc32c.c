/*
 * CRC32C, reflected polynomial 0x82f63b78, slicing by eight over tables
 * built once on first use. Written for fabcheck (no packaged library
 * needed); checked against the RFC 3720 vectors in tests/unit/test_vmsg.c.
 */
#include "core/crc32c.h"

#include <pthread.h>

#define CRC32C_POLY 0x82f63b78u

static uint32_t tab[8][256];
static pthread_once_t tab_once = PTHREAD_ONCE_INIT;

static void tab_init(void)
{
	for (uint32_t i = 0; i < 256; i++) {
		uint32_t c = i;

		for (int k = 0; k < 8; k++)
			c = c & 1 ? (c >> 1) ^ CRC32C_POLY : c >> 1;
		tab[0][i] = c;
	}
	for (uint32_t i = 0; i < 256; i++)
		for (int t = 1; t < 8; t++)
			tab[t][i] = (tab[t - 1][i] >> 8) ^ tab[0][tab[t - 1][i] & 0xff];
}

uint32_t fc_crc32c(uint32_t crc, const void *buf, size_t len)
{
	const uint8_t *p = buf;
	uint32_t c = ~crc;

	pthread_once(&tab_once, tab_init);
	while (len && ((uintptr_t)p & 7)) {
		c = tab[0][(c ^ *p++) & 0xff] ^ (c >> 8);
		len--;
	}
	while (len >= 8) {
		uint32_t lo = c ^ ((uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
				   (uint32_t)p[3] << 24);

		c = tab[7][lo & 0xff] ^ tab[6][(lo >> 8) & 0xff] ^ tab[5][(lo >> 16) & 0xff] ^
		    tab[4][lo >> 24] ^ tab[3][p[4]] ^ tab[2][p[5]] ^ tab[1][p[6]] ^ tab[0][p[7]];
		p += 8;
		len -= 8;
	}
	while (len--)
		c = tab[0][(c ^ *p++) & 0xff] ^ (c >> 8);
	return ~c;
}
