/* libFuzzer target: the readers of a capture's tool text that a replay
 * judges when the capture lacks sysfs or libibverbs' record: `lspci -vvv`'s
 * PCIe link (diag/lspci.c) and the device list of `ibv_devinfo -v` or
 * `ibstat` (verbs/devtext.c), an interface of `ip -j link` (core/iplink.c)
 * a module of `ethtool -m` with its lanes judged (diag/parse_module.c) and the
 * trust, PFC and DSCP map of `mlnx_qos -i` (verbs/qos.c). Any
 * text gives a link within PCIe's bounds or none, devices each with a name
 * and ports each with a port number, an interface whose MTU is a number and
 * whose state is a string, a module whose lanes in use and dark lanes are
 * lanes it printed and never both, a QoS state whose PFC flags are 0 or 1,
 * whose DSCPs map to priorities 0-7 and whose trust is a terminated word,
 * never a crash or a leak.
 * fuzz-sources: diag/lspci.c diag/parse.c diag/parse_module.c verbs/devtext.c verbs/qos.c topo/pcitopo_dist.c core/[a-z]*.c
 * fuzz-seeds: tests/real/lspci/[a-z]*.txt tests/real/ibv/[a-z]*.txt tests/real/ip/[a-z]*.json tests/real/ethtool_m/[a-z]*.txt tests/real/mlnx_qos/[a-z]*.txt
 */
#include <errno.h>
#include <jansson.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/iplink.h"
#include "core/log.h"
#include "diag/diag.h"
#include "verbs/devtext.h"
#include "verbs/qos.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The lanes judged in use and the dark ones: within the lanes printed,
 * never the same lane. */
static void check_module(const char *text)
{
	struct diag_module m;
	unsigned printed;

	diag_parse_module(text, &m);
	if (m.nlanes < 0 || m.nlanes > DIAG_MAX_LANES)
		abort();
	diag_module_judge(&m, m.nlanes);
	printed = m.nlanes >= 32 ? ~0u : (1u << m.nlanes) - 1;
	if ((m.used & m.dark) || (m.used & ~printed) || (m.dark & ~printed))
		abort();
}

/* mlnx_qos -i: read or refused (-EINVAL, nothing read), each PFC flag 0 or
 * 1, each DSCP on a priority 0-7, the trust a word within its buffer. */
static void check_qos(const char *text)
{
	struct qos_dcb q;
	int rc = qos_parse_mlnx_qos(text, &q);

	if (rc && (rc != -EINVAL || q.trust[0] || q.pfc_known))
		abort();
	if (!memchr(q.trust, 0, sizeof(q.trust)))
		abort();
	for (int i = 0; i < 8; i++)
		if (q.pfc_enabled[i] != 0 && q.pfc_enabled[i] != 1)
			abort();
	for (int i = 0; i < 64; i++)
		if (q.dscp2prio[i] < 0 || q.dscp2prio[i] > 7)
			abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1);
	struct diag_pcie d;
	json_t *devs, *dev, *p, *ip;
	size_t i, j;

	fc_log_level = -1; /* quiet: bad input is expected here */
	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = 0;
	if (diag_parse_lspci_link(text, &d) == 0 &&
	    (d.cur_gts <= 0 || d.cur_gts > 1000 || d.cur_width <= 0 || d.cur_width > 32 ||
	     d.max_width < 0 || d.max_width > 32 || (d.mps && (d.mps < 128 || d.mps > 4096)) ||
	     memchr(d.bdf, 0, sizeof(d.bdf)) == NULL))
		abort();
	devs = vb_devices_from_text(text);
	json_array_foreach(devs, i, dev) {
		if (!json_is_string(json_object_get(dev, "name")))
			abort();
		json_array_foreach(json_object_get(dev, "ports"), j, p)
			if (!json_is_integer(json_object_get(p, "port")) ||
			    !json_is_string(json_object_get(p, "state")))
				abort();
	}
	json_decref(devs);
	ip = fc_ip_link(text, "ibp12s0");
	if (ip && ((json_object_get(ip, "mtu") && !json_is_integer(json_object_get(ip, "mtu"))) ||
		   (json_object_get(ip, "operstate") &&
		    !json_is_string(json_object_get(ip, "operstate")))))
		abort();
	json_decref(ip);
	check_module(text);
	check_qos(text);
	free(text);
	return 0;
}
