/* The topo report from a view: matrix, islands, nearest HCAs, NCCL advice. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/out.h"
#include "core/util.h"
#include "topo/topo_report.h"

static void cpy(char *dst, size_t n, const char *src)
{
	size_t l = strnlen(src, n - 1);

	memcpy(dst, src, l);
	dst[l] = '\0';
}

/* The affinity columns of nvidia-smi's GPU column @c into @d. */
static void nvsmi_affinity(struct tv_dev *d, const struct nvsmi_topo *m, int c)
{
	cpy(d->cpu_aff, sizeof(d->cpu_aff), m->cpu_aff[c]);
	cpy(d->numa_aff, sizeof(d->numa_aff), m->numa_list[c]);
	cpy(d->gpu_numa, sizeof(d->gpu_numa), m->gpu_numa_txt[c]);
}

void topo_view_from_sysfs(struct topo_view *v, const struct topo *t,
			  const struct nvsmi_topo *m, json_t *doc)
{
	int mg[NVSMI_MAX_COLS], nmg = 0;

	memset(v, 0, sizeof(*v));
	v->source = "sysfs";
	v->ngpus = t->ngpus < TV_MAX ? t->ngpus : TV_MAX;
	v->nnics = t->nnics < TV_MAX ? t->nnics : TV_MAX;
	v->cols_cut = t->ngpus - v->ngpus + t->nnics - v->nnics;
	v->truncated = v->cols_cut > 0;
	for (int i = 0; i < v->ngpus; i++) {
		const struct topo_dev *g = topo_gpu(t, i);

		cpy(v->gpu[i].name, sizeof(v->gpu[i].name), g->name);
		cpy(v->gpu[i].label, sizeof(v->gpu[i].label), g->name);
		cpy(v->gpu[i].bus_id, sizeof(v->gpu[i].bus_id), g->bdf);
		v->gpu[i].numa = g->numa;
		v->gpu[i].c2c = g->c2c;
		v->row_known[i] = 1;
	}
	for (int i = 0; i < v->nnics; i++) {
		const struct topo_dev *h = topo_nic(t, i);

		cpy(v->nic[i].name, sizeof(v->nic[i].name), h->name);
		snprintf(v->nic[i].label, sizeof(v->nic[i].label), "NIC%d", i);
		cpy(v->nic[i].bus_id, sizeof(v->nic[i].bus_id), h->bdf);
		v->nic[i].numa = h->numa;
		v->nic[i].has_rdma = strcmp(h->name, h->bdf) != 0;
	}
	for (int a = 0; a < v->ngpus; a++) {
		for (int b = 0; b < v->ngpus; b++)
			cpy(v->gg[a][b], NVSMI_CELL_LEN,
			    topo_dist_name(topo_dev_distance(topo_gpu(t, a), topo_gpu(t, b))));
		for (int b = 0; b < v->nnics; b++) /* a Data Direct HCA: its DMA function */
			cpy(v->gn[a][b], NVSMI_CELL_LEN,
			    topo_dist_name(topo_dev_distance(topo_gpu(t, a), topo_nic(t, b)->dd ?
										 topo_nic(t, b)->dd :
										 topo_nic(t, b))));
	}
	if (!m)
		return;
	for (int c = 0; c < m->ncols; c++)
		if (m->is_gpu[c])
			mg[nmg++] = c;
	if (nmg != v->ngpus) {
		fc_finding(doc, FC_WARN,
			   "nvidia-smi shows %d GPUs but sysfs has %d: NVLink cells not used; check that the matrix comes from this host",
			   nmg, v->ngpus);
		return;
	}
	v->source = "sysfs+nvidia-smi";
	v->nvlink_known = 1;
	for (int a = 0; a < nmg; a++)
		nvsmi_affinity(&v->gpu[a], m, mg[a]);
	for (int a = 0; a < nmg; a++)
		for (int b = 0; b < nmg; b++) {
			const char *cell = nvsmi_topo_cell(m, mg[a], mg[b]);

			if (cell && nvsmi_cell_rank(cell) == 1)
				cpy(v->gg[a][b], NVSMI_CELL_LEN, cell);
		}
}

void topo_view_from_nvsmi(struct topo_view *v, const struct nvsmi_topo *m)
{
	int gcol[NVSMI_MAX_COLS], ncol[NVSMI_MAX_COLS];

	memset(v, 0, sizeof(*v));
	v->source = "nvidia-smi";
	v->nvlink_known = 1;
	v->truncated = m->truncated;
	v->cols_cut = m->cols_cut;
	for (int c = 0; c < m->ncols; c++) {
		struct tv_dev *d;

		if (m->is_gpu[c]) {
			gcol[v->ngpus] = c;
			d = &v->gpu[v->ngpus];
			v->row_known[v->ngpus] = m->row_seen[c];
			d->numa = m->numa_aff[c];
			d->c2c = nvsmi_topo_gpu_c2c(m, c);
			nvsmi_affinity(d, m, c);
			v->ngpus++;
		} else {
			ncol[v->nnics] = c;
			d = &v->nic[v->nnics++];
			d->numa = -1;
			d->has_rdma = 1;
		}
		cpy(d->label, sizeof(d->label), m->label[c]);
		cpy(d->name, sizeof(d->name), m->nic_dev[c][0] ? m->nic_dev[c] : m->label[c]);
	}
	for (int a = 0; a < v->ngpus; a++) {
		for (int b = 0; b < v->ngpus; b++) {
			const char *cell = nvsmi_topo_cell(m, gcol[a], gcol[b]);

			cpy(v->gg[a][b], NVSMI_CELL_LEN, cell ? cell : "");
		}
		for (int b = 0; b < v->nnics; b++) {
			const char *cell = nvsmi_topo_cell(m, gcol[a], ncol[b]);

			cpy(v->gn[a][b], NVSMI_CELL_LEN, cell ? cell : "");
		}
	}
}

int topo_view_nearest(const struct topo_view *v, int g, int *out, int max)
{
	int best = 7, n = 0;

	for (int b = 0; b < v->nnics; b++)
		if (nvsmi_cell_rank(v->gn[g][b]) < best)
			best = nvsmi_cell_rank(v->gn[g][b]);
	for (int b = 0; b < v->nnics && best < 7 && n < max; b++)
		if (nvsmi_cell_rank(v->gn[g][b]) == best)
			out[n++] = b;
	return n;
}

/* A GPU-NIC cell as NCCL classes it: NODE is PHB (topo_nccl_class). */
static enum topo_dist nccl_cell(const char *cell)
{
	enum topo_dist d;

	return topo_dist_parse(cell, &d) ? TOPO_UNKNOWN : topo_nccl_class(d);
}

/* A C2C GPU that only nvidia-smi shows: it has no C2C cell and prints SYS to
 * every NIC, the NICs of its own CPU included (tests/real/topo, GB200). */
static int c2c_sys(const struct topo_view *v, int g, int rank)
{
	return v->gpu[g].c2c && rank == 6 && !strcmp(v->source, "nvidia-smi");
}

/*
 * The NICs NCCL ranks first for GPU @g from the cells alone (topo.cc
 * ncclTopoGetLocal, 2.7+): the highest path bandwidth, then the lowest path
 * type. A table prints no link speed, so the type decides, NODE tying with
 * PHB: NCCL keys its CPU nodes by NUMA node (xml.cc ncclTopoGetXmlFromSys),
 * so another host bridge of the GPU's NUMA node is PHB to it
 * (design/nccl-rules.md section 2). -1 when the table cannot say: a C2C GPU
 * whose every NIC is SYS reaches the NICs of its own Grace at P2C (paths.cc,
 * 2.27.3+) and the others at SYS, and which are which is not printed.
 */
int topo_view_nccl_nics(const struct topo_view *v, int g, int *out, int max)
{
	enum topo_dist best = TOPO_UNKNOWN;
	int n = 0;

	for (int b = 0; b < v->nnics; b++)
		if (nccl_cell(v->gn[g][b]) < best)
			best = nccl_cell(v->gn[g][b]);
	if (best == TOPO_SYS && c2c_sys(v, g, 6)) /* 6: nvsmi_cell_rank("SYS") */
		return -1;
	for (int b = 0; b < v->nnics && best != TOPO_UNKNOWN && n < max; b++)
		if (nccl_cell(v->gn[g][b]) == best)
			out[n++] = b;
	return n;
}

void topo_recommend(json_t *doc, const char *env, const char *value, const char *fmt, ...)
{
	json_t *list = json_object_get(doc, "recommendations");
	char *why = NULL;
	va_list ap;

	if (!list) {
		list = json_array();
		json_object_set_new(doc, "recommendations", list);
	}
	va_start(ap, fmt);
	if (vasprintf(&why, fmt, ap) < 0)
		why = NULL;
	va_end(ap);
	json_array_append_new(list, json_pack("{s:s, s:s, s:s}", "env", env, "value", value,
					      "why", why ? why : ""));
	free(why);
}

static json_t *opt_str(const char *s)
{
	return s[0] ? json_string(s) : json_null();
}

static json_t *dev_json(const struct tv_dev *d, int is_nic)
{
	json_t *o = json_pack("{s:s}", "name", d->name);

	if (is_nic) {
		json_object_set_new(o, "label", json_string(d->label));
	} else {
		json_object_set_new(o, "c2c", json_boolean(d->c2c));
		json_object_set_new(o, "cpu_affinity", opt_str(d->cpu_aff));
		json_object_set_new(o, "numa_affinity", opt_str(d->numa_aff));
		json_object_set_new(o, "gpu_numa_id", opt_str(d->gpu_numa));
	}
	json_object_set_new(o, "bus_id", d->bus_id[0] ? json_string(d->bus_id) : json_null());
	json_object_set_new(o, "numa", d->numa >= 0 ? json_integer(d->numa) : json_null());
	return o;
}

/* The GPU's NCCL candidates by name; null when the table cannot say. */
static json_t *nccl_nics_json(const struct topo_view *v, int g)
{
	int nn[TV_MAX], k = topo_view_nccl_nics(v, g, nn, TV_MAX);
	json_t *a = k < 0 ? json_null() : json_array();

	for (int i = 0; i < k; i++)
		json_array_append_new(a, json_string(v->nic[nn[i]].name));
	return a;
}

static void report_devices(const struct topo_view *v, json_t *doc)
{
	json_t *gpus = json_array(), *nics = json_array(), *matrix = json_object();

	for (int g = 0; g < v->ngpus; g++) {
		json_t *o = dev_json(&v->gpu[g], 0), *near = json_array(), *row = json_object();
		int nn[TV_MAX], k = topo_view_nearest(v, g, nn, TV_MAX);

		for (int i = 0; i < k; i++)
			json_array_append_new(near, json_string(v->nic[nn[i]].name));
		json_object_set_new(o, "nearest_nics", near);
		json_object_set_new(o, "nearest_dist",
				    k ? json_string(v->gn[g][nn[0]]) : json_null());
		json_object_set_new(o, "row_known", json_boolean(v->row_known[g]));
		if (!strcmp(v->source, "nvidia-smi")) /* from sysfs: nccl_nic (topo_checks.c) */
			json_object_set_new(o, "nccl_nics", nccl_nics_json(v, g));
		json_array_append_new(gpus, o);
		for (int b = 0; b < v->ngpus; b++)
			if (v->gg[g][b][0])
				json_object_set_new(row, v->gpu[b].label, json_string(v->gg[g][b]));
		for (int b = 0; b < v->nnics; b++)
			if (v->gn[g][b][0])
				json_object_set_new(row, v->nic[b].label, json_string(v->gn[g][b]));
		json_object_set_new(matrix, v->gpu[g].label, row);
	}
	for (int b = 0; b < v->nnics; b++)
		json_array_append_new(nics, dev_json(&v->nic[b], 1));
	json_object_set_new(doc, "source", json_string(v->source));
	json_object_set_new(doc, "gpus", gpus);
	json_object_set_new(doc, "nics", nics);
	json_object_set_new(doc, "matrix", matrix);
	json_object_set_new(doc, "truncated", json_boolean(v->truncated));
	json_object_set_new(doc, "columns_cut", json_integer(v->cols_cut));
}

/* An NV# cell between two GPUs, read either way (a row may be unknown). */
static int nv_joined(const void *arg, int u, int w)
{
	const struct topo_view *v = arg;

	return nvsmi_cell_rank(v->gg[u][w]) == 1 || nvsmi_cell_rank(v->gg[w][u]) == 1;
}

/* NVLink islands: GPUs joined by NV# cells. */
static void report_islands(const struct topo_view *v, json_t *doc)
{
	int comp[TV_MAX], n;
	json_t *islands;

	if (!v->nvlink_known) {
		json_object_set_new(doc, "nvlink_islands", json_null());
		return;
	}
	n = nvsmi_components(v->ngpus, NULL, nv_joined, v, comp);
	islands = json_array();
	for (int i = 0; i < n; i++) {
		json_t *isl = json_array();

		for (int g = 0; g < v->ngpus; g++)
			if (comp[g] == i)
				json_array_append_new(isl, json_string(v->gpu[g].name));
		json_array_append_new(islands, isl);
	}
	json_object_set_new(doc, "nvlink_islands", islands);
}

/* Worst "nearest HCA" rank over the GPUs whose row is known; *who = GPU. */
static int worst_nearest(const struct topo_view *v, int *who)
{
	int worst = -1;

	*who = -1;
	for (int g = 0; g < v->ngpus; g++) {
		int nn[TV_MAX];

		if (!v->row_known[g] || !topo_view_nearest(v, g, nn, TV_MAX))
			continue;
		if (nvsmi_cell_rank(v->gn[g][nn[0]]) > worst) {
			worst = nvsmi_cell_rank(v->gn[g][nn[0]]);
			*who = g;
		}
	}
	return worst;
}

/* NCCL_IB_HCA from the table: the NICs NCCL ranks first for some GPU
 * (topo_view_nccl_nics); GPUs the table cannot say that of are left out. */
static void advise_hca(const struct topo_view *v, json_t *doc)
{
	int used[TV_MAX] = { 0 }, unresolved = 0, nused = 0, unknown = 0;
	char val[1024] = "=";
	size_t len = 1;

	for (int g = 0; g < v->ngpus; g++) {
		int nn[TV_MAX], k = topo_view_nccl_nics(v, g, nn, TV_MAX);

		unknown += k < 0;
		for (int i = 0; i < k; i++)
			used[nn[i]] = 1;
	}
	for (int b = 0; b < v->nnics; b++) {
		if (!used[b] || !v->nic[b].has_rdma)
			continue;
		unresolved |= !strncmp(v->nic[b].name, "NIC", 3);
		len += (size_t)snprintf(val + len, len < sizeof(val) ? sizeof(val) - len : 0,
					"%s%s", nused ? "," : "", v->nic[b].name);
		nused++;
	}
	if (!nused || len >= sizeof(val))
		return;
	topo_recommend(doc, "NCCL_IB_HCA", val,
		       "%d HCA%s nearest to a GPU; '=' makes NCCL match these names exactly (a bare mlx5_1 also takes mlx5_10..mlx5_19)%s%s%s",
		       nused, fc_s(nused), nused < v->nnics ? "; the others are farther from every GPU" : "",
		       unresolved ? "; NICn are matrix labels: replace them with device names from the NIC Legend of nvidia-smi topo -m" : "",
		       unknown ? "; the C2C GPUs that print SYS to every NIC are not counted: which NICs they use is not in the table" : "");
	for (int b = 0; b < v->nnics && !unknown; b++)
		if (!used[b] && v->nic[b].has_rdma && v->ngpus)
			fc_finding(doc, FC_PASS,
				   "%s is not the nearest HCA of any GPU: NCCL may still send over it unless NCCL_IB_HCA leaves it out",
				   v->nic[b].name);
}

/* A C2C GPU whose nearest HCA is on its CPU's PCIe (PHB or NODE): P2C. */
static int gpu_p2c(const struct topo_view *v, int g, int rank)
{
	return v->gpu[g].c2c && (rank == 4 || rank == 5);
}

/* Grace: GPUs on C2C whose nearest HCAs hang off their CPU (P2C). NCCL's
 * verdict by release: topo_nccl_gdr (src/graph/paths.cc ncclTopoCheckGdr). */
static int advise_gdr_c2c(const struct topo_view *v, json_t *doc)
{
	int nn[TV_MAX], n = 0, first = -1;

	for (int g = 0; g < v->ngpus; g++) {
		int k = v->row_known[g] ? topo_view_nearest(v, g, nn, TV_MAX) : 0;

		if (k && gpu_p2c(v, g, nvsmi_cell_rank(v->gn[g][nn[0]]))) {
			first = first < 0 ? g : first;
			n++;
		}
	}
	if (!n)
		return 0;
	topo_view_nearest(v, first, nn, TV_MAX);
	topo_recommend(doc, "NCCL_NET_GDR_C2C", "1",
		       "%d GPU%s reach%s %s nearest HCA over C2C to the CPU, then its PCIe (P2C; %s to %s is %s in PCIe terms): NCCL 2.27.3+ uses GPUDirect RDMA there by default (NCCL_NET_GDR_C2C=1 is its default), 2.26 only with NCCL_NET_GDR_C2C=1, older releases only with NCCL_NET_GDR_LEVEL=PHB",
		       n, fc_s(n), n == 1 ? "es" : "", n == 1 ? "its" : "their", v->gpu[first].name,
		       v->nic[nn[0]].name, v->gn[first][nn[0]]);
	return 1;
}

/* Says so instead of "the other socket": the table cannot tell which NICs
 * hang off the GPU's own CPU; sysfs can (fabcheck topo on the node). */
static void note_c2c_sys(const struct topo_view *v, json_t *doc)
{
	char list[256] = "";
	size_t len = 0;
	int nn[TV_MAX], n = 0;

	for (int g = 0; g < v->ngpus; g++) {
		int k = v->row_known[g] ? topo_view_nearest(v, g, nn, TV_MAX) : 0;

		if (k && c2c_sys(v, g, nvsmi_cell_rank(v->gn[g][nn[0]])) && len < sizeof(list)) {
			len += (size_t)snprintf(list + len, sizeof(list) - len, "%s%s", n ? ", " : "",
						v->gpu[g].name);
			n++;
		}
	}
	if (n)
		fc_finding(doc, FC_PASS,
			   "%s: on a C2C link to a Grace CPU (a GPU NUMA ID is printed): nvidia-smi shows SYS to every NIC, which here is not the other socket; the NICs on the GPU's own CPU are reached over C2C then that CPU's PCIe (P2C: NCCL 2.27.3+ uses GPUDirect RDMA there by default); which NICs those are is not in the table: run fabcheck topo on the node (it reads sysfs)",
			   list);
}

/* The NUMA node of NIC @k: sysfs's, else that of a GPU the table puts in
 * the same NUMA node as it (PIX, PXB, PHB, NODE: nvidia-smi's Legend),
 * that GPU in @via; -1 unknown. */
static int nic_numa(const struct topo_view *v, int k, int *via)
{
	if (v->nic[k].numa >= 0)
		return *via = -1, v->nic[k].numa;
	for (int g = 0; g < v->ngpus; g++) {
		int r = nvsmi_cell_rank(v->gn[g][k]);

		if (v->gpu[g].numa >= 0 && r >= 2 && r <= 5)
			return *via = g, v->gpu[g].numa;
	}
	return -1;
}

/* GPU @g's nearest HCA @k at SYS: the other socket, unless the table
 * itself puts both on one NUMA node (its NUMA Affinity column beside a GPU
 * that reaches the HCA within the node): then SYS is all that is known, not
 * a socket to add an HCA on (a real 8 x RTX 4090 table: GPU4, GPU5, GPU7
 * print SYS to the NICs their node-1 neighbour GPU6 reaches at PHB). */
static void sys_finding(const struct topo_view *v, int g, int k, json_t *doc)
{
	int via = -1, n = nic_numa(v, k, &via);

	if (n < 0 || n != v->gpu[g].numa) {
		fc_finding(doc, FC_WARN,
			   "%s: nearest HCA %s is on the other socket (SYS): its traffic crosses the inter-socket link and GPUDirect RDMA stays off; add an HCA on the GPU's socket",
			   v->gpu[g].name, v->nic[k].name);
		return;
	}
	fc_finding(doc, FC_WARN,
		   "%s: nearest HCA %s is SYS (across the SMP interconnect, as nvidia-smi prints it), though both are on NUMA node %d%s%s%s%s%s: GPUDirect RDMA stays off at SYS; read the numa_node of both in sysfs (fabcheck topo on the node) before moving an HCA",
		   v->gpu[g].name, v->nic[k].name, n, via >= 0 ? " (the table's NUMA Affinity; " : "",
		   via >= 0 ? v->gpu[via].name : "", via >= 0 ? " reaches it at " : "",
		   via >= 0 ? v->gn[via][k] : "", via >= 0 ? ")" : "");
}

static void advise_gdr(const struct topo_view *v, json_t *doc)
{
	int who, worst = worst_nearest(v, &who), c2c = advise_gdr_c2c(v, doc);
	int nn[TV_MAX];

	if (worst < 0)
		return;
	note_c2c_sys(v, doc);
	topo_view_nearest(v, who, nn, TV_MAX);
	if (worst <= 3 && !c2c) {
		topo_recommend(doc, "NCCL_NET_GDR_LEVEL", "PXB",
			       "every GPU has an HCA at PIX or PXB (worst: %s %s %s); at PXB (NCCL's default) GPUDirect RDMA is used for all of them; set it so a changed default cannot turn it off",
			       v->gpu[who].name, v->gn[who][nn[0]], v->nic[nn[0]].name);
		return;
	}
	worst = -1;
	for (int g = 0; g < v->ngpus; g++) {
		int k = v->row_known[g] ? topo_view_nearest(v, g, nn, TV_MAX) : 0;
		int r = k ? nvsmi_cell_rank(v->gn[g][nn[0]]) : 0;

		if (gpu_p2c(v, g, r) || c2c_sys(v, g, r))
			continue; /* P2C, or C2C seen only by nvidia-smi: note_c2c_sys */
		if (r > worst) {
			worst = r;
			who = g;
		}
		if (r == 4 || r == 5)
			fc_finding(doc, FC_WARN,
				   "%s: nearest HCA %s is %s (through the CPU root complex): at NCCL's default GPUDirect level (PXB) its traffic is staged through host memory; put an HCA under the GPU's PCIe switch, or set NCCL_NET_GDR_LEVEL=PHB after measuring (fabcheck pair --use-cuda)",
				   v->gpu[g].name, v->nic[nn[0]].name, v->gn[g][nn[0]]);
		else if (r == 6)
			sys_finding(v, g, nn[0], doc);
	}
	if (worst <= 3)
		return; /* the rest are C2C GPUs at P2C, or at PIX/PXB */
	topo_view_nearest(v, who, nn, TV_MAX);
	if (worst == 6)
		topo_recommend(doc, "NCCL_NET_GDR_LEVEL", "PXB",
			       "%s's nearest HCA is across sockets (SYS): GPUDirect over the inter-socket link is usually slower than staging in host memory; keep the default",
			       v->gpu[who].name);
	else
		topo_recommend(doc, "NCCL_NET_GDR_LEVEL", "PHB",
			       "%s's nearest HCA %s is %s: at the default (PXB) NCCL stages its traffic through host memory; PHB lets GPUDirect RDMA cross the CPU root complex; measure both",
			       v->gpu[who].name, v->nic[nn[0]].name, v->gn[who][nn[0]]);
}

static void advise_p2p(const struct topo_view *v, json_t *doc)
{
	int nv = 0, near = 0, far = 0;

	for (int a = 0; a < v->ngpus; a++)
		for (int b = a + 1; b < v->ngpus; b++) {
			int r = nvsmi_cell_rank(v->gg[a][b][0] ? v->gg[a][b] : v->gg[b][a]);

			nv += r == 1;
			near += r == 2 || r == 3;
			far += r >= 4 && r <= 6;
		}
	if (v->ngpus < 2 || nv + near + far == 0)
		return;
	if (!near && !far)
		topo_recommend(doc, "NCCL_P2P_LEVEL", "NVL",
			       "every GPU pair is NVLink-connected: P2P needs no PCIe path");
	else if (near)
		topo_recommend(doc, "NCCL_P2P_LEVEL", "PXB",
			       "%d GPU pair%s share%s a PCIe switch (PIX/PXB) and use%s PCIe P2P; %d pair%s only meet%s through the CPU and are better staged in host memory (NCCL's default since 2.23)",
			       near, fc_s(near), near == 1 ? "s" : "", near == 1 ? "s" : "", far,
			       fc_s(far), far == 1 ? "s" : "");
	else
		topo_recommend(doc, "NCCL_P2P_LEVEL", "PXB",
			       "%d GPU pair%s without NVLink meet%s only through the CPU (PHB/NODE/SYS): P2P through the root complex is usually slower than host memory; keep P2P within switches",
			       far, fc_s(far), far == 1 ? "s" : "");
}

void topo_view_report(const struct topo_view *v, json_t *doc)
{
	report_devices(v, doc);
	report_islands(v, doc);
	if (!json_object_get(doc, "recommendations"))
		json_object_set_new(doc, "recommendations", json_array());
	if (v->cols_cut)
		fc_finding(doc, FC_WARN,
			   "%d GPU/NIC column%s past the first %d %s not read: this topology is wider than fabcheck reads; its findings cover the first %d devices only",
			   v->cols_cut, fc_s(v->cols_cut), TV_MAX, v->cols_cut == 1 ? "was" : "were",
			   TV_MAX);
	else if (v->truncated)
		fc_finding(doc, FC_WARN,
			   "the nvidia-smi matrix is cut short (GPU or NIC rows missing, or devices not numbered from GPU0/NIC0: an excerpt): pairs of missing rows come from the other rows or stay unknown, devices left out are not judged; give the whole 'nvidia-smi topo -m' output");
	if (v->ngpus && !v->nnics && !v->cols_cut)
		fc_finding(doc, FC_WARN,
			   "%d GPU%s but no RDMA HCA: NCCL will use TCP sockets between nodes; install the HCA driver (mlx5_ib) or add an HCA",
			   v->ngpus, fc_s(v->ngpus));
	if (v->ngpus && v->nnics) {
		/* from sysfs, NCCL's own model advises it (topo_checks.c) */
		if (strncmp(v->source, "sysfs", 5))
			advise_hca(v, doc);
		advise_gdr(v, doc);
	}
	advise_p2p(v, doc);
}
