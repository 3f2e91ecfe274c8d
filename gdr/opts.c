/*
 * The memory options of a test (--use-cuda[=N|BUS_ID], --gdr, --validate)
 * as the controller parses them and relays them to the workers, and what a
 * worker reports about the memory it used. Pure code over jansson.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "core/names.h"
#include "core/out.h"
#include "gdr/gdr.h"

int gdr_opts_use_cuda(struct gdr_opts *o, const char *spec)
{
	int ret = gdr_parse_gpu_spec("--use-cuda", spec, &o->req);

	if (!ret)
		o->kind = GDR_CUDA;
	return ret;
}

json_t *gdr_opts_json(const struct gdr_opts *o)
{
	json_t *gpu;

	if (o->kind != GDR_CUDA)
		gpu = json_null();
	else if (o->req.how == GDR_GPU_INDEX)
		gpu = json_integer(o->req.index);
	else if (o->req.how == GDR_GPU_BUS)
		gpu = json_string(o->req.bus_id);
	else
		gpu = json_string("nearest");
	return json_pack("{s:s, s:o, s:s, s:b, s:b}", "memory", gdr_kind_name(o->kind), "gpu", gpu,
			 "gdr", gdr_mode_name(o->mode), "validate", o->validate, "hugepages",
			 o->hugepages);
}

static int bad(char *why, size_t len, const char *what)
{
	snprintf(why, len, "bad memory options: %s", what);
	return -EPROTO;
}

int gdr_opts_from_json(const json_t *j, struct gdr_opts *o, char *why, size_t len)
{
	const json_t *gpu = json_object_get(j, "gpu");
	const char *kind = fc_jstr(j, "memory", "");

	memset(o, 0, sizeof(*o));
	if (!json_is_object(j))
		return bad(why, len, "not an object");
	if (!strcmp(kind, "cuda"))
		o->kind = GDR_CUDA;
	else if (strcmp(kind, "host"))
		return bad(why, len, "\"memory\" is neither host nor cuda");
	if (!strcmp(fc_jstr(j, "gdr", "auto"), "dmabuf"))
		o->mode = GDR_MODE_DMABUF;
	else if (!strcmp(fc_jstr(j, "gdr", "auto"), "peermem"))
		o->mode = GDR_MODE_PEERMEM;
	else if (strcmp(fc_jstr(j, "gdr", "auto"), "auto"))
		return bad(why, len, "\"gdr\" is not auto, dmabuf or peermem");
	o->validate = json_is_true(json_object_get(j, "validate"));
	o->hugepages = json_is_true(json_object_get(j, "hugepages"));
	if (o->kind != GDR_CUDA)
		return 0;
	if (json_is_integer(gpu) && json_integer_value(gpu) >= 0 &&
	    json_integer_value(gpu) <= 1023) {
		o->req.how = GDR_GPU_INDEX;
		o->req.index = (int)json_integer_value(gpu);
	} else if (json_is_string(gpu) && !strcmp(json_string_value(gpu), "nearest")) {
		o->req.how = GDR_GPU_NEAREST;
	} else if (json_is_string(gpu) && strlen(json_string_value(gpu)) < sizeof(o->req.bus_id) &&
		   gdr_bdf_parse(json_string_value(gpu), &(uint64_t){ 0 }) == 0) {
		o->req.how = GDR_GPU_BUS;
		snprintf(o->req.bus_id, sizeof(o->req.bus_id), "%s", json_string_value(gpu));
	} else {
		return bad(why, len, "\"gpu\" is not an index, a bus id or \"nearest\"");
	}
	return 0;
}

void gdr_mem_report(json_t *side, const struct gdr_mem *m, const char *hca)
{
	char desc[64];

	json_object_set_new(side, "memory", json_string(gdr_mem_describe(m, desc, sizeof(desc))));
	if (!m->dev || m->dev->kind != GDR_CUDA)
		return;
	json_object_set_new(side, "gpu", json_integer(m->dev->gpu.index));
	json_object_set_new(side, "gpu_name", json_string(m->dev->gpu.name));
	json_object_set_new(side, "gpu_bus_id", json_string(m->dev->gpu.bus_id));
	json_object_set_new(side, "gpu_distance", json_string(topo_dist_name(m->dev->gpu.dist)));
	json_object_set_new(side, "gpu_count", json_integer(m->dev->ngpus));
	if (hca)
		json_object_set_new(side, "gpu_hca", json_string(hca));
}

const char *gdr_vnic_note(const json_t *gpu, char *buf, size_t len)
{
	const char *v = fc_jstr(gpu, "nccl_nic", ""), *h = fc_jstr(gpu, "hca", "");
	size_t n = strlen(h);
	const char *p = n ? strstr(v, h) : NULL;

	buf[0] = 0;
	/* a whole '+'-separated name of it (NCCL's virtual NIC, topo_nccl_name) */
	if (strchr(v, '+') && p && (p == v || p[-1] == '+') && (!p[n] || p[n] == '+'))
		snprintf(buf, len, " (a port of NCCL's virtual NIC %s)", v);
	return buf;
}

void gdr_gpu_findings(json_t *doc, const char *node, const struct gdr_gpu_info *g,
		      const char *hca)
{
	if (g->dist == TOPO_UNKNOWN && hca)
		fc_finding(doc, FC_WARN,
			   "%s: the PCIe path from GPU %d (%s) to %s is unknown: check that the HCA is a PCI device and /sys is readable",
			   node, g->index, g->bus_id, hca);
	else if (g->dist == TOPO_SYS)
		fc_finding(doc, FC_WARN,
			   "%s: GPU %d (%s) is SYS from %s: they sit on different sockets, so every GPUDirect byte crosses the inter-socket link (UPI, xGMI) and its bandwidth, not the HCA's, bounds the test; NCCL does not use GPUDirect RDMA across sockets and stages through host memory instead; use the GPU on the HCA's socket (under its PCIe switch) or the HCA on the GPU's",
			   node, g->index, g->bus_id, hca ? hca : "the HCA");
	else if (g->dist == TOPO_P2C)
		fc_finding(doc, FC_PASS,
			   "%s: GPU %d (%s) is P2C from %s: over C2C to its CPU, then the CPU's PCIe; NCCL 2.27.3+ uses GPUDirect RDMA on this path by default (NCCL_NET_GDR_C2C=1 is its default), 2.26 only with NCCL_NET_GDR_C2C=1, older releases only with NCCL_NET_GDR_LEVEL=PHB (src/graph/paths.cc ncclTopoCheckGdr)",
			   node, g->index, g->bus_id, hca ? hca : "the HCA");
	else if (g->dist != TOPO_UNKNOWN && g->dist > TOPO_PXB)
		fc_finding(doc, FC_WARN,
			   "%s: GPU %d (%s) is %s from %s, worse than PXB: GPUDirect RDMA crosses the CPU, is slow, and NCCL will not use it; use the GPU nearest the HCA or the HCA nearest the GPU",
			   node, g->index, g->bus_id, topo_dist_name(g->dist), hca ? hca : "the HCA");
}

void gdr_mem_findings(json_t *doc, const char *node, const struct gdr_mem *m, const char *hca)
{
	if (m->dev && m->dev->kind == GDR_CUDA)
		gdr_gpu_findings(doc, node, &m->dev->gpu, hca);
}

void gdr_side_findings(json_t *doc, const json_t *side)
{
	struct gdr_gpu_info g = { .dist = TOPO_UNKNOWN };
	const char *dist = fc_jstr(side, "gpu_distance", NULL);
	enum topo_dist d;

	if (!dist || !json_is_integer(json_object_get(side, "gpu")))
		return;
	g.index = (int)json_integer_value(json_object_get(side, "gpu"));
	snprintf(g.bus_id, sizeof(g.bus_id), "%s",
		 fc_name_or_unknown(FC_NAME_BDF, fc_jstr(side, "gpu_bus_id", NULL),
				    "the worker's GPU bus id"));
	if (topo_dist_parse(dist, &d) == 0)
		g.dist = d;
	gdr_gpu_findings(doc, fc_jstr(side, "node", "?"), &g, fc_jstr(side, "device", NULL));
}

void gdr_validate_findings(json_t *doc, const char *node, const char *test, uint64_t size,
			   const json_t *v)
{
	const char *mem = fc_jstr(v, "memory", "host");
	double slots = fc_jnum(v, "slots", 0), sent = fc_jnum(v, "sent", 0);
	double good = fc_jnum(v, "messages_validated", 0), bad = fc_jnum(v, "messages_bad", 0);
	double seen = fc_jnum(v, "slots_checked", 0);
	int gpu = !strncmp(mem, "cuda", 4);

	if (!json_is_object(v))
		return;
	if (json_object_get(v, "problem"))
		fc_finding(doc, FC_FAIL,
			   "%s: --validate: %s of %llu B: %.0f of %.0f messages failed (%s memory); the first, in slot %lld, the %s check: %s: the data path misplaces, repeats, loses or corrupts data; check the HCA firmware, the PCIe link (AER errors in dmesg)%s",
			   node, test, (unsigned long long)size, bad, good + bad, mem,
			   (long long)fc_jnum(v, "bad_slot", -1), fc_jstr(v, "problem", "?"),
			   fc_jstr(v, "why", "?"),
			   gpu ? " and the GPUDirect setup (ACS on the switch, driver and peermem versions)" : "");
	else if (good < 1 || good + bad != sent)
		fc_finding(doc, FC_FAIL,
			   "%s: --validate: %s of %llu B: %.0f of %.0f messages were checked (%s memory): the others never completed where they were due, although the test did",
			   node, test, (unsigned long long)size, good + bad, sent, mem);
	else if (seen < fc_jnum(v, "slots_due", 0))
		fc_finding(doc, FC_FAIL,
			   "%s: --validate: %s of %llu B: a good message was checked in %.0f of the %.0f slots messages were due in (of %.0f; %.0f messages sent; %s memory)",
			   node, test, (unsigned long long)size, seen, fc_jnum(v, "slots_due", 0), slots,
			   sent, mem);
	if (fc_jnum(v, "stray", 0) > 0)
		fc_finding(doc, FC_FAIL,
			   "%s: --validate: %s of %llu B: %.0f slots (the first: %lld) were written after their message was checked, or hold data no message was due for (%s memory): a late duplicate or a misdirected write",
			   node, test, (unsigned long long)size, fc_jnum(v, "stray", 0),
			   (long long)fc_jnum(v, "stray_slot", -1), mem);
}
