/* fabcheck topo: GPUs, HCAs, PCIe distances, NVLink, NCCL advice. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "topo/nvsmi_topo.h"
#include "topo/pcitopo.h"
#include "topo/topo_report.h"
#include "core/opts.h"
#include "core/bundle.h"
#include "core/log.h"
#include "core/out.h"
#include "core/summary.h"
#include "core/util.h"
#include "src/cmds.h"

#define TOPO_TEXT_MAX (4 << 20)
#define NVSMI_DEADLINE_S 20.0

const char usage_topo[] =
	"usage: fabcheck topo [--json] [--sysfs ROOT] [--nvidia-smi-topo FILE]\n"
	"\n"
	"Shows this node's NVIDIA GPUs and RDMA HCAs: PCIe bus ids and NUMA nodes,\n"
	"the distance class of every GPU-GPU and GPU-HCA pair (PIX, PXB, PHB, NODE,\n"
	"SYS as nvidia-smi and NCCL name them; NV# where NVLink is known), NVLink\n"
	"islands, each GPU's nearest HCAs, one or more (a GPU on a C2C link to its CPU,\n"
	"as on Grace, is P2C to the HCAs on that CPU's PCIe, as NCCL 2.27.3+ types\n"
	"it; the JSON gives NCCL's class and GPUDirect verdict by release per GPU:\n"
	"nccl_path, nccl_gdr; an mlx5 HCA with Data Direct, as on GB300, is\n"
	"NCCL's <hca>_dma at its DMA function's place, found through mlx5dv on a\n"
	"live host; nccl_rules.bcm_fused: the Broadcom PEX sub-switches that\n"
	"release fuses into their parent switch, as NCCL flattens them;\n"
	"nccl_rules.vnics: the ports of one card it fuses into one NIC, NCCL\n"
	"2.20.3+, named mlx5_0+mlx5_1 in nccl_nic, with NCCL_IB_MERGE_NICS and\n"
	"NCCL_NET_MERGE_LEVEL read from the environment),\n"
	"recommended NCCL settings with their reasons, and findings: PCIe links\n"
	"trained below their capability, ACS redirect between a GPU and its HCA,\n"
	"no nvidia_peermem, RoCE netdevs with an MTU below 4200 B or without a\n"
	"RoCE v2 GID.\n"
	"\n"
	"  -j, --json                  one JSON document on stdout\n"
	"  -s, --sysfs ROOT            read a recorded sysfs tree (ROOT holds\n"
	"                              bus/pci/devices, class/infiniband, ...)\n"
	"                              instead of /sys; nvidia-smi is then not run\n"
	"  --from BUNDLE               judge a node capture (fabcheck capture; a\n"
	"                              folder or .tar.gz) as the live node\n"
	"  -t, --nvidia-smi-topo FILE  read 'nvidia-smi topo -m' output from FILE\n"
	"                              ('-' for stdin); without it, nvidia-smi is\n"
	"                              run when it is installed\n"
	"  -h, --help                  this text\n"
	"\n"
	"GPUs and HCAs come from sysfs; when sysfs has none (another host's\n"
	"matrix), from the matrix alone. NVLink (NV#) comes from the matrix.\n"
	"From the matrix alone the JSON gives each GPU nccl_nics: the NICs NCCL\n"
	"ranks first by the cells (NODE ties with PHB; a table prints no link\n"
	"speed), null for a Grace GPU that prints SYS to every NIC (which NICs\n"
	"hang off its CPU is not printed).\n"
	"Exit: 0 pass (warnings allowed), 1 a check failed, 2 usage error,\n"
	"3 nothing to check (no GPU and no HCA) or an input that cannot be read.\n";

struct topo_opts {
	const char *sysfs;
	const char *nvsmi_file;
	const char *from;
};

static int load_matrix_file(const char *path, struct nvsmi_topo **m_p)
{
	struct stat st;
	size_t len = 0;
	char *text;
	int fd, err;

	fd = strcmp(path, "-") ? open(path, O_RDONLY | O_CLOEXEC) : 0;
	if (fd < 0) {
		err = -errno;
		fc_err("--nvidia-smi-topo: cannot open '%s': %s; give the file that holds 'nvidia-smi topo -m' output",
		       path, strerror(-err));
		return err;
	}
	if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
		fc_err("--nvidia-smi-topo: '%s' is a directory; give the file that holds 'nvidia-smi topo -m' output",
		       path);
		if (fd)
			close(fd);
		return -EISDIR;
	}
	text = fc_read_fd(fd, TOPO_TEXT_MAX, &len);
	err = -errno;
	if (fd)
		close(fd);
	if (!text) {
		fc_err("--nvidia-smi-topo: cannot read '%s': %s", path, strerror(-err));
		return err;
	}
	err = nvsmi_topo_parse(text, len, path, m_p);
	free(text);
	return err;
}

static int find_in_path(const char *prog, char *out, size_t len)
{
	const char *p = getenv("PATH");

	while (p && *p) {
		const char *e = strchr(p, ':');
		size_t n = e ? (size_t)(e - p) : strlen(p);

		if (n && (size_t)snprintf(out, len, "%.*s/%s", (int)n, p, prog) < len &&
		    access(out, X_OK) == 0)
			return 0;
		p = e ? e + 1 : NULL;
	}
	return -ENOENT;
}

/* Runs `nvidia-smi topo -m` with a deadline; its output or NULL. */
static char *run_nvsmi(const char *exe, size_t *len_p)
{
	char *buf = NULL;
	size_t len = 0, cap = 0;
	double end = fc_now() + NVSMI_DEADLINE_S;
	int pfd[2], status;
	pid_t pid;

	if (pipe2(pfd, O_CLOEXEC))
		return NULL;
	pid = fork();
	if (pid < 0) {
		close(pfd[0]);
		close(pfd[1]);
		return NULL;
	}
	if (pid == 0) {
		int nul = open("/dev/null", O_WRONLY);

		dup2(pfd[1], 1);
		if (nul >= 0)
			dup2(nul, 2);
		execl(exe, "nvidia-smi", "topo", "-m", (char *)NULL);
		_exit(127);
	}
	close(pfd[1]);
	for (;;) {
		struct pollfd pf = { .fd = pfd[0], .events = POLLIN };
		int left = (int)((end - fc_now()) * 1000), n;

		if (left <= 0 || poll(&pf, 1, left) <= 0) {
			fc_warn("nvidia-smi topo -m gave no answer within %.0f s; NVLink left unknown",
				NVSMI_DEADLINE_S);
			kill(pid, SIGKILL);
			free(buf);
			buf = NULL;
			break;
		}
		if (len + 4096 > cap) {
			char *nb = cap < TOPO_TEXT_MAX ? realloc(buf, cap + 65536) : NULL;

			if (!nb)
				break;
			buf = nb;
			cap += 65536;
		}
		n = (int)read(pfd[0], buf + len, cap - len);
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	close(pfd[0]);
	waitpid(pid, &status, 0);
	if (buf && (!WIFEXITED(status) || WEXITSTATUS(status))) {
		fc_info("nvidia-smi topo -m failed (exit %d); NVLink left unknown",
			WIFEXITED(status) ? WEXITSTATUS(status) : -1);
		free(buf);
		return NULL;
	}
	*len_p = len;
	return buf;
}

static void try_nvsmi(struct nvsmi_topo **m_p)
{
	char exe[4096];
	size_t len = 0;
	char *text;

	if (find_in_path("nvidia-smi", exe, sizeof(exe)))
		return;
	text = run_nvsmi(exe, &len);
	if (!text)
		return;
	if (nvsmi_topo_parse(text, len, "nvidia-smi topo -m", m_p))
		*m_p = NULL;
	free(text);
}

#define FC_OPT_T struct topo_opts
static const struct fc_opts topo_spec = {
	.opt = (const struct fc_opt[]){
		FCO_STR("sysfs", 's', sysfs),
		FCO_STR("nvidia-smi-topo", 't', nvsmi_file),
		FCO_STR("from", 0, from),
		FCO_JSON,
		{ 0 },
	},
	.cmd = "topo", .usage = usage_topo,
	.no_args = "give files with --sysfs or --nvidia-smi-topo",
};

static int parse_opts(int argc, char **argv, struct fc_ctx *ctx, struct topo_opts *o)
{
	if (fc_opts_parse(ctx, &topo_spec, o, argc, argv))
		return -EINVAL;
	if (o->sysfs && !*o->sysfs) {
		fc_err("--sysfs: empty path; give the root of a sysfs tree (default /sys)");
		return -EINVAL;
	}
	if (o->from && (o->sysfs || o->nvsmi_file)) {
		fc_err("--from: a capture holds the node's sysfs and 'nvidia-smi topo -m'; give "
		       "--from alone, or --sysfs and --nvidia-smi-topo");
		return -EINVAL;
	}
	return 0;
}

/* The capture's `nvidia-smi topo -m`, as the live path runs it (try_nvsmi). */
static void from_nvsmi(const struct fc_bundle *b, struct nvsmi_topo **m_p)
{
	char why[256];
	size_t len = 0;
	int code;
	char *text = fc_bundle_read(b, "cmd/nvidia-smi_topo_-m", &len, &code, why, sizeof(why));

	if (text && code == 0 && nvsmi_topo_parse(text, len, "nvidia-smi topo -m", m_p))
		*m_p = NULL;
	free(text);
}

/* The widest NUMA cell: a list past it is cut at a comma, ",..." after. */
#define NUMA_CELL 16

/* The NUMA cell of @d: the table's NUMA Affinity where it lists several
 * nodes ("0,3-9,11-17", as nvidia-smi prints a Grace node's), else the
 * node; 0 when neither is known. */
static int numa_cell(const json_t *d, char *buf, size_t len)
{
	const char *aff = fc_jstr(d, "numa_affinity", "");
	size_t n = strlen(aff);

	if (!strpbrk(aff, ",-"))
		return 0;
	if (n > NUMA_CELL) {
		n = NUMA_CELL - 4;
		while (n && aff[n] != ',')
			n--;
	}
	snprintf(buf, len, "%.*s%s", (int)n, aff, aff[n] ? ",..." : "");
	return n > 0;
}

/* One row of the device table: label, name, bus id, NUMA node, nearest, distance. */
static void device_row(struct fc_table *t, const char *label, const json_t *d, const char *near,
		       const char *dist)
{
	char numa[NUMA_CELL + 8];

	fc_table_row(t);
	fc_table_addf(t, 0, "%s", label);
	fc_table_addf(t, 1, "%s", fc_jstr(d, "name", "?"));
	fc_table_addf(t, 2, "%s", fc_jstr(d, "bus_id", "-"));
	if (numa_cell(d, numa, sizeof(numa)))
		fc_table_addf(t, 3, "%s", numa);
	else
		fc_table_addint(t, 3, d, "numa");
	fc_table_addf(t, 4, "%s", near);
	fc_table_addf(t, 5, "%s", dist);
}

static void render_devices(FILE *f, const json_t *doc)
{
	struct fc_table *t = fc_table_new(6, "DEVICE", "NAME", "BUS ID", "NUMA", "NEAREST HCA",
					  "DIST");
	const json_t *d, *n;
	size_t i, k;

	json_array_foreach(json_object_get(doc, "gpus"), i, d) {
		char near[256] = "", dist[32];
		size_t len = 0;

		json_array_foreach(json_object_get(d, "nearest_nics"), k, n)
			if (len < sizeof(near))
				len += (size_t)snprintf(near + len, sizeof(near) - len, "%s%s",
							k ? "," : "", json_string_value(n));
		snprintf(dist, sizeof(dist), "%s%s", fc_jstr(d, "nearest_dist", "-"),
			 !strcmp(fc_jstr(d, "nccl_path", ""), "P2C") ? " (P2C)" : "");
		device_row(t, fc_jstr(d, "name", "?"), d, len ? near : "-", dist);
	}
	json_array_foreach(json_object_get(doc, "nics"), i, d) {
		char dd[64] = "-";

		/* mlx5 Data Direct: NCCL's name and its DMA function's place */
		if (json_is_string(json_object_get(d, "data_direct")))
			snprintf(dd, sizeof(dd), "%s at %s", fc_jstr(d, "nccl_name", "?"),
				 fc_jstr(d, "data_direct", "?"));
		device_row(t, fc_jstr(d, "label", "?"), d, "-", dd);
	}
	fc_table_print(t, f, "  ");
	fc_table_free(t);
}

/* The matrix's GPU rows under the columns @c0..@c1 - 1 of @cols, each
 * cell @cw wide. */
static void matrix_block(FILE *f, const json_t *doc, const char *const *cols, int c0, int c1,
			 int cw)
{
	const json_t *matrix = json_object_get(doc, "matrix"), *d;
	size_t i;

	fprintf(f, "  %-*s", cw, "");
	for (int c = c0; c < c1; c++)
		fprintf(f, "%-*s", c + 1 < c1 ? cw : 0, cols[c]);
	fputc('\n', f);
	json_array_foreach(json_object_get(doc, "gpus"), i, d) {
		const json_t *row = json_object_get(matrix, fc_jstr(d, "name", ""));

		fprintf(f, "  %-*s", cw, fc_jstr(d, "name", "?"));
		for (int c = c0; c < c1; c++)
			fprintf(f, "%-*s", c + 1 < c1 ? cw : 0, fc_jstr(row, cols[c], "?"));
		fputc('\n', f);
	}
}

/* The GPU rows of the distance matrix, folded into blocks of the columns
 * that fit the terminal (COLUMNS, else 100): every cell is kept, a block
 * of columns under the one before, each with its own header line. */
static void render_matrix(FILE *f, const json_t *doc)
{
	const json_t *matrix = json_object_get(doc, "matrix"), *d;
	const char *cols[2 * 64];
	int ncols = 0, cw = 3, per;
	size_t i;

	json_array_foreach(json_object_get(doc, "gpus"), i, d)
		if (ncols < 128)
			cols[ncols++] = fc_jstr(d, "name", "?");
	json_array_foreach(json_object_get(doc, "nics"), i, d)
		if (ncols < 128)
			cols[ncols++] = fc_jstr(d, "label", "?");
	/* each cell a space wider than the widest name or class in it (not
	 * nvidia-smi's 8: 8 GPUs and 10 NICs of "NODE" or "NIC9" fit 100
	 * columns in one block, where cells of 8 took two) */
	for (int c = 0; c < ncols; c++) {
		cw = (int)strlen(cols[c]) > cw ? (int)strlen(cols[c]) : cw;
		json_array_foreach(json_object_get(doc, "gpus"), i, d) {
			const char *v = fc_jstr(json_object_get(matrix, fc_jstr(d, "name", "")),
						cols[c], "?");

			cw = (int)strlen(v) > cw ? (int)strlen(v) : cw;
		}
	}
	cw++;
	per = (fc_term_cols() - 2 - cw) / cw;
	per = per < 1 ? 1 : per;
	fprintf(f, "\nmatrix (PIX < PXB < PHB < NODE < SYS; NV# = NVLink):\n");
	for (int c0 = 0; c0 < ncols; c0 += per) {
		if (c0)
			fputc('\n', f);
		matrix_block(f, doc, cols, c0, c0 + per < ncols ? c0 + per : ncols, cw);
	}
}

/* NCCL's virtual NICs (topo_checks.c nccl_vnics) and why. */
static void render_vnics(FILE *f, const json_t *rules)
{
	const json_t *v;
	size_t i;

	if (!*fc_jstr(rules, "vnic_rule", ""))
		return;
	fprintf(f, "NCCL virtual NICs: ");
	json_array_foreach(json_object_get(rules, "vnics"), i, v)
		if (json_integer_value(json_object_get(v, "mbps")) > 0)
			fprintf(f, "%s%s (%g Gb/s)", i ? ", " : "", fc_jstr(v, "name", "?"),
				json_integer_value(json_object_get(v, "mbps")) / 1000.0);
		else
			fprintf(f, "%s%s", i ? ", " : "", fc_jstr(v, "name", "?"));
	fprintf(f, "%s%s\n", json_array_size(json_object_get(rules, "vnics")) ? ": " : "",
		fc_jstr(rules, "vnic_rule", ""));
}

static void render_topo(FILE *f, const json_t *doc)
{
	const json_t *isl = json_object_get(doc, "nvlink_islands"), *x, *y;
	size_t i, k;

	fprintf(f, "source: %s\n", fc_jstr(doc, "source", "?"));
	if (json_object_get(doc, "nccl_rules"))
		fprintf(f, "NCCL rules: %s (%s)\n",
			fc_jstr(json_object_get(doc, "nccl_rules"), "version", "?"),
			fc_jstr(json_object_get(doc, "nccl_rules"), "from", "?"));
	render_vnics(f, json_object_get(doc, "nccl_rules"));
	fprintf(f, "\n");
	render_devices(f, doc);
	if (json_array_size(json_object_get(doc, "gpus")))
		render_matrix(f, doc);
	fprintf(f, "\nNVLink islands: ");
	if (!json_is_array(isl))
		fprintf(f, "unknown (no nvidia-smi matrix: give --nvidia-smi-topo FILE)");
	json_array_foreach(isl, i, x) {
		fprintf(f, "%s{", i ? " " : "");
		json_array_foreach(x, k, y)
			fprintf(f, "%s%s", k ? " " : "", json_string_value(y));
		fprintf(f, "}");
	}
	fprintf(f, "\n");
	if (json_array_size(json_object_get(doc, "recommendations")))
		fprintf(f, "\nrecommended NCCL settings:\n");
	json_array_foreach(json_object_get(doc, "recommendations"), i, x) {
		fprintf(f, "  %s=%s\n", fc_jstr(x, "env", "?"), fc_jstr(x, "value", "?"));
		fc_put_paraf(f, 6, "      %s", fc_jstr(x, "why", ""));
	}
}

/* root: the sysfs tree as the node has it; from: the capture it was
 * recorded in (NULL live), so a replayed finding reads as the live one. */
static int nothing_found(struct fc_ctx *ctx, const char *root, const char *from)
{
	json_t *doc;

	fc_err("no NVIDIA GPU (vendor 0x10de, class 0x03xx) and no RDMA HCA under %s/bus/pci/devices%s%s and no nvidia-smi matrix: nothing to check; run on a GPU node, or give --sysfs ROOT or --nvidia-smi-topo FILE",
	       root, from ? " as recorded in " : "", from ? from : "");
	if (!ctx->json)
		return FC_EXIT_CANT;
	doc = fc_doc_new();
	json_object_set_new(doc, "gpus", json_array());
	json_object_set_new(doc, "nics", json_array());
	json_object_set_new(doc, "matrix", json_object());
	json_object_set_new(doc, "recommendations", json_array());
	fc_finding(doc, FC_FAIL, "no NVIDIA GPU and no RDMA HCA found under %s", root);
	fc_emit(ctx, doc, NULL);
	return FC_EXIT_CANT;
}

int cmd_topo(struct fc_ctx *ctx, int argc, char **argv)
{
	struct topo_opts o = { 0 };
	struct nvsmi_topo *m = NULL;
	struct topo_view *v = NULL;
	struct topo *t = NULL;
	struct fc_bundle *b = NULL;
	json_t *doc;
	int rc;

	if (parse_opts(argc, argv, ctx, &o))
		return FC_EXIT_USAGE;
	if (o.from) {
		char err[1024], sys[PATH_MAX];

		if (!(b = fc_bundle_open(o.from, err, sizeof(err)))) {
			fc_err("--from %s", err);
			return FC_EXIT_CANT;
		}
		o.sysfs = fc_bundle_path(b, "sys", sys, sizeof(sys));
		rc = topo_load(sys, &t) ? FC_EXIT_CANT : 0;
		o.sysfs = NULL;
		if (rc) {
			fc_bundle_close(b);
			return rc;
		}
		from_nvsmi(b, &m);
	} else if (topo_load(o.sysfs, &t)) {
		return FC_EXIT_CANT;
	}
	if (o.from) {
	} else if (o.nvsmi_file) {
		if (load_matrix_file(o.nvsmi_file, &m)) {
			rc = FC_EXIT_CANT;
			goto out_free_topo;
		}
	} else if (!o.sysfs) {
		try_nvsmi(&m);
	}
	if (!t->ngpus && !t->nnics && (!m || !m->ncols)) {
		rc = nothing_found(ctx, o.from ? "/sys" : t->sysfs_root, o.from);
		goto out_free_matrix;
	}
	v = calloc(1, sizeof(*v));
	doc = fc_doc_new();
	if (!v || !doc) {
		fc_err("topo: out of memory");
		json_decref(doc);
		rc = FC_EXIT_CANT;
		goto out_free_matrix;
	}
	if (t->ngpus || t->nnics) {
		topo_view_from_sysfs(v, t, m, doc);
		topo_view_report(v, doc);
		topo_sysfs_report(t, v, doc);
	} else {
		topo_view_from_nvsmi(v, m);
		topo_view_report(v, doc);
	}
	if (m)
		json_object_set_new(doc, "nvidia_smi", nvsmi_topo_summary(m));
	rc = fc_emit(ctx, doc, render_topo);
	free(v);
out_free_matrix:
	free(m);
out_free_topo:
	topo_free(t);
	fc_bundle_close(b);
	return rc;
}
