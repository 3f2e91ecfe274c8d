/*
 * The PCIe link of one function as `lspci -vvv` prints it (pciutils
 * ls-caps.c): cap_express_link() prints
 *   "\t\tLnkCap:\tPort #%d, Speed %s, Width x%d, ASPM ..."
 *   "\t\tLnkSta:\tSpeed %s%s, Width x%d%s" (before pciutils 3.7:
 *   "Speed %s (%s), Width x%d (%s)")
 * with link_speed() "2.5GT/s" "5GT/s" "8GT/s" "16GT/s" "32GT/s" "64GT/s" or
 * "unknown", and link_compare() "", " (ok)", " (downgraded)", " (strange)"
 * or " (overdriven)"; cap_express_dev() prints the programmed payload on the
 * line after "DevCtl:" as "\t\t\tMaxPayload %d bytes, MaxReadReq %d bytes"
 * (a line or two below it: older releases print "RlxdOrd+ ..." first;
 * DevCap's "MaxPayload" is the function's capability, not what it uses).
 * The same registers sysfs's current_link_speed/width and max_link_* read
 * (drivers/pci/pci-sysfs.c), so a capture without those files is judged on
 * this text. Pure.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag/diag.h"

/* "Speed 16GT/s" at @s -> 16; 0 when unknown. */
static double lnk_speed(const char *s)
{
	char *end;
	double v;

	s = strstr(s, "Speed ");
	if (!s)
		return 0;
	v = strtod(s + 6, &end);
	if (end == s + 6 || v <= 0 || v > 1000 || strncmp(end, "GT/s", 4))
		return 0;
	return v;
}

/* "Width x16" at @s -> 16; 0 when none. */
static int lnk_width(const char *s)
{
	int w;

	s = strstr(s, "Width x");
	if (!s || !isdigit((unsigned char)s[7]))
		return 0;
	w = atoi(s + 7);
	return w > 0 && w <= 32 ? w : 0;
}

/* The first word of the block ("82:00.0" or "0000:82:00.0"), when it is a
 * PCI address. */
static void block_bdf(const char *text, char *out, size_t len)
{
	unsigned a, b, c, d;
	char tail;
	size_t n = strcspn(text, " \t\n");
	char word[24];

	out[0] = 0;
	if (n == 0 || n >= sizeof(word))
		return;
	memcpy(word, text, n);
	word[n] = 0;
	if (sscanf(word, "%4x:%2x:%2x.%1x%c", &a, &b, &c, &d, &tail) == 4 ||
	    sscanf(word, "%2x:%2x.%1x%c", &b, &c, &d, &tail) == 3)
		snprintf(out, len, "%s", word);
}

int diag_parse_lspci_link(const char *text, struct diag_pcie *d)
{
	const char *line = text;
	int devctl = 0, cap = 0, sta = 0;

	memset(d, 0, sizeof(*d));
	snprintf(d->role, sizeof(d->role), "hca");
	if (!text)
		return -ENOENT;
	while (*line) {
		size_t n = strcspn(line, "\n");
		char buf[512];
		const char *p;

		snprintf(buf, sizeof(buf), "%.*s", (int)(n < sizeof(buf) - 1 ? n : sizeof(buf) - 1),
			 line);
		line += n + (line[n] == '\n');
		p = buf + strspn(buf, " \t");
		/* a function's first line, unindented; lines before the first
		 * (a prompt, "[sudo] password") are not the block's; only the first
		 * function's block is read */
		if (p == buf && *p) {
			char bdf[sizeof(d->bdf)];

			block_bdf(p, bdf, sizeof(bdf));
			if (*bdf && (*d->bdf || cap || sta))
				break;
			if (*bdf)
				snprintf(d->bdf, sizeof(d->bdf), "%s", bdf);
			continue;
		}
		if (!strncmp(p, "LnkCap:", 7) && !cap) {
			d->max_gts = lnk_speed(p), d->max_width = lnk_width(p);
			cap = 1;
		} else if (!strncmp(p, "LnkSta:", 7) && !sta) {
			d->cur_gts = lnk_speed(p), d->cur_width = lnk_width(p);
			sta = 1;
		} else if (!strncmp(p, "DevCtl:", 7)) {
			devctl = 1;
		} else if (devctl && !strncmp(p, "MaxPayload ", 11) && !d->mps) {
			int mps = atoi(p + 11);

			d->mps = mps >= 128 && mps <= 4096 ? mps : 0;
		} else if (p[strcspn(p, " \t:")] == ':') {
			devctl = 0; /* the next register's line */
		}
	}
	if (d->cur_gts <= 0 || d->cur_width <= 0)
		return -ENOENT;
	d->ceiling_gbps = diag_pcie_gbps(d->cur_gts, d->cur_width, d->mps);
	return 0;
}
