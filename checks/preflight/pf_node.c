/* Preflight: a node's GPUDirect RDMA path, its topology's findings and its
 * ports' trust and PFC (pf_judge.h). */
#include "checks/preflight/pf_judge.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/out.h"
#include "core/util.h"
#include "verbs/qos.h"

static int module_loaded(const json_t *probe, const char *m)
{
	return json_object_get(json_object_get(probe, "modules"), m) != NULL;
}

/* dma-buf registration of GPU memory: NVIDIA driver 515+ on kernel 5.12+. */
static int dmabuf_usable(const json_t *probe)
{
	int kmaj = 0, kmin = 0;

	if (sscanf(fc_jstr(probe, "kernel", ""), "%d.%d", &kmaj, &kmin) != 2)
		return 0;
	return atoi(fc_jstr(json_object_get(probe, "modules"), "nvidia", "0")) >= 515 &&
	       kmaj * 100 + kmin >= 512;
}

/* GPUDirect RDMA where GPUs exist; the topology's findings. */
void pf_check_gpu_topo(json_t *doc, const struct pf_node *nd, json_t *skipped)
{
	const json_t *topo = json_object_get(nd->probe, "topo");
	size_t ngpu = json_array_size(json_object_get(topo, "gpus"));
	const char *gdr = "none";
	size_t i;
	json_t *f;

	if (module_loaded(nd->probe, "nvidia_peermem") || module_loaded(nd->probe, "nv_peer_mem") ||
	    json_is_true(json_object_get(topo, "peermem")))
		gdr = "peermem";
	else if (dmabuf_usable(nd->probe))
		gdr = "dma-buf";
	if (!topo) {
		json_array_append_new(skipped,
				      json_sprintf("%s: topology: %s", nd->name,
						   fc_jstr(nd->probe, "topo_error", "no topo document")));
	} else if (!ngpu && !json_array_size(json_object_get(topo, "nics"))) {
		json_array_append_new(skipped,
				      json_sprintf("%s: PCIe and topology: no PCI GPU or HCA on the node (a software RDMA device has no PCIe link); skipped",
						   nd->name));
	} else {
		int fail = !strcmp(fc_jstr(topo, "verdict", ""), "fail");

		json_array_foreach(json_object_get(topo, "findings"), i, f) {
			const char *t = json_string_value(f);

			/* no peer-memory module and no dma-buf either: the failure
			 * below says both, once (each fact once, issue 39) */
			if (!t || (ngpu && !strcmp(gdr, "none") &&
				   !strncmp(t, "no peer-memory module", 21)))
				continue;
			fc_finding(doc, fail || strstr(t, "trained at") ? FC_FAIL : FC_WARN, "%s: %s",
				   nd->name, t);
			if (fail || strstr(t, "trained at"))
				pf_blame(doc, nd->name, "topology", NULL);
		}
	}
	json_object_set_new(nd->sum, "gpus", json_integer((json_int_t)ngpu));
	if (!ngpu) {
		json_object_set_new(nd->sum, "gdr", json_string("no GPU"));
		return;
	}
	json_object_set_new(nd->sum, "gdr", json_string(gdr));
	if (!strcmp(gdr, "none")) {
		fc_finding(doc, FC_FAIL,
			   "%s: %zu GPU%s but no GPUDirect RDMA path: neither nvidia_peermem is loaded nor dma-buf usable (NVIDIA driver 515+ on kernel 5.12+); run 'modprobe nvidia_peermem'",
			   nd->name, ngpu, fc_s((long long)ngpu));
		pf_blame(doc, nd->name, "no GPUDirect RDMA", NULL);
	}
}

void pf_check_qos(json_t *doc, const struct pf_node *nd, int tclass, json_t *skipped)
{
	const char *ifn;
	json_t *q;

	json_object_foreach(json_object_get(nd->probe, "qos"), ifn, q) {
		struct qos_dcb dcb;

		if (json_object_get(q, "skip")) {
			json_array_append_new(skipped, json_sprintf("%s: %s trust and PFC: %s", nd->name,
								    ifn, fc_jstr(q, "skip", "?")));
		} else if (json_object_get(q, "error")) {
			json_array_append_new(skipped,
					      json_sprintf("%s: %s trust and PFC: mlnx_qos failed: %s",
							   nd->name, ifn, fc_jstr(q, "error", "?")));
		} else if (qos_parse_mlnx_qos(fc_jstr(q, "text", ""), &dcb)) {
			json_array_append_new(skipped,
					      json_sprintf("%s: %s trust and PFC: mlnx_qos output not understood",
							   nd->name, ifn));
		} else {
			qos_dcb_findings(doc, nd->name, ifn, &dcb, tclass);
		}
	}
}

