/* Parser of `nvidia-smi topo -m` text (see nvsmi_topo.h). */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "topo/nvsmi_topo.h"
#include "topo/nvsmi_topo_int.h"

/* Words read per line: a header of NVSMI_MAX_COLS columns has fewer; past
 * this the line counts as cut. */
#define MAX_TOKS (4 * NVSMI_MAX_COLS)
/* The longest line read: a 512-column row is about 4 KiB. */
#define LINE_MAX_LEN (64u << 10)
#define TOK_LEN 64

/* Copies @src into @dst of @n bytes, cutting what does not fit. */
static void scopy(char *dst, size_t n, const char *src)
{
	size_t l = strnlen(src, n - 1);

	memcpy(dst, src, l);
	dst[l] = '\0';
}

struct toks {
	int n;
	int over; /* words past MAX_TOKS, dropped */
	char t[MAX_TOKS][TOK_LEN];
};

static void toks_add(struct toks *tk, const char *s, size_t len)
{
	if (len == 0)
		return;
	if (tk->n == MAX_TOKS) {
		tk->over++;
		return;
	}
	if (len >= TOK_LEN)
		len = TOK_LEN - 1;
	memcpy(tk->t[tk->n], s, len);
	tk->t[tk->n][len] = '\0';
	tk->n++;
}

/* Splits a line on blanks (spaces, TABs, CR), leaving out the rules and
 * column bars a person drew ("-----", "|", box drawing). */
static void tokenize(const char *line, struct toks *tk)
{
	const char *p = line;

	tk->n = tk->over = 0;
	while (*p) {
		const char *s;

		while (*p == ' ' || *p == '\t' || *p == '\r')
			p++;
		s = p;
		while (*p && *p != ' ' && *p != '\t' && *p != '\r')
			p++;
		if (!nvsmi_rule_word(s, (size_t)(p - s)))
			toks_add(tk, s, (size_t)(p - s));
	}
}

/* Length of the cell word at the start of @s, 0 when none. */
static size_t cell_word(const char *s)
{
	static const char *const words[] = { "PIX", "PXB", "PHB", "NODE", "SYS", "X" };
	size_t n;

	if (!strncmp(s, "NV", 2) && isdigit((unsigned char)s[2])) {
		for (n = 2; isdigit((unsigned char)s[n]); n++)
			;
		return n;
	}
	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++) {
		n = strlen(words[i]);
		if (!strncmp(s, words[i], n))
			return n;
	}
	return 0;
}

/* True when @s is entirely made of cell words (lost TABs fuse them). */
static int all_cell_words(const char *s)
{
	while (*s) {
		size_t n = cell_word(s);

		if (!n)
			return 0;
		s += n;
	}
	return 1;
}

/* An unknown cell word of an old driver (SOC): 2-5 capital letters. */
static int odd_cell_word(const char *s)
{
	size_t n = strlen(s);

	if (n < 2 || n > 5)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!isupper((unsigned char)s[i]))
			return 0;
	return 1;
}

static int label_like(const char *s)
{
	if (!isalpha((unsigned char)*s))
		return 0;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '_' && *s != '-')
			return 0;
	return 1;
}

static int gpu_label(const char *s)
{
	if (strncmp(s, "GPU", 3) || !s[3])
		return 0;
	for (s += 3; *s; s++)
		if (!isdigit((unsigned char)*s))
			return 0;
	return 1;
}

/* Splits fused labels "NIC8NIC9" at a digit followed by GPU<d> or NIC<d>. */
static int split_labels(const char *tok, char out[][NVSMI_LABEL_LEN], int max)
{
	const char *s = tok;
	int n = 0;

	while (*s && n < max) {
		const char *e = s + 1;
		size_t len;

		while (*e && !(isdigit((unsigned char)e[-1]) &&
			       (!strncmp(e, "GPU", 3) || !strncmp(e, "NIC", 3)) &&
			       isdigit((unsigned char)e[3])))
			e++;
		len = (size_t)(e - s);
		if (len >= NVSMI_LABEL_LEN)
			len = NVSMI_LABEL_LEN - 1;
		memcpy(out[n], s, len);
		out[n][len] = '\0';
		n++;
		s = e;
	}
	return n;
}

static int trailer_word(const char *s)
{
	return !strcmp(s, "CPU") || !strcmp(s, "NUMA") || !strcmp(s, "GPU") ||
	       !strcmp(s, "Affinity");
}

/* Reads a header line into @m; 0 when the line is not a matrix header. */
static int parse_header(const struct toks *tk, struct nvsmi_topo *m)
{
	char parts[8][NVSMI_LABEL_LEN];
	int i;

	/* The first column is GPU0, or another GPU in a grep excerpt; a cell
	 * word (X, NV#, SYS...) makes it a row, not a header. */
	if (tk->n == 0 || strncmp(tk->t[0], "GPU", 3) || !isdigit((unsigned char)tk->t[0][3]))
		return 0;
	memset(m, 0, sizeof(*m));
	for (i = 0; i < tk->n && !trailer_word(tk->t[i]); i++) {
		int np;

		if (!label_like(tk->t[i]) || all_cell_words(tk->t[i]))
			return 0;
		np = split_labels(tk->t[i], parts, 8);
		for (int k = 0; k < np; k++) {
			if (m->ncols == NVSMI_MAX_COLS) {
				m->cols_cut++;
				continue;
			}
			memcpy(m->label[m->ncols], parts[k], NVSMI_LABEL_LEN);
			m->is_gpu[m->ncols] = gpu_label(parts[k]);
			m->ncols++;
		}
	}
	if (!gpu_label(m->label[0]))
		return 0;
	for (; i < tk->n; i++) {
		if (!strcmp(tk->t[i], "CPU"))
			m->has_cpu_aff = 1;
		else if (!strcmp(tk->t[i], "NUMA") && (i == 0 || strcmp(tk->t[i - 1], "GPU")))
			m->has_numa_aff = 1;
		else if (!strcmp(tk->t[i], "GPU"))
			m->has_gpu_numa = 1;
	}
	for (int c = 0; c < m->ncols; c++) {
		m->numa_aff[c] = -1;
		m->gpu_numa[c] = -1;
		if (m->is_gpu[c])
			m->ngpus++;
		else
			m->nnics++;
	}
	return 1;
}

int nvsmi_topo_col(const struct nvsmi_topo *m, const char *label)
{
	for (int c = 0; c < m->ncols; c++)
		if (!strcmp(m->label[c], label))
			return c;
	return -1;
}

static int parse_num(const char *s)
{
	char *end;
	long v = strtol(s, &end, 10);

	return end != s && !*end && v >= 0 && v < 65536 ? (int)v : -1;
}

/* The first node of a NUMA affinity list ("0,3-9,11-17": 0); -1 for N/A. */
static int first_node(const char *s)
{
	char head[16];
	size_t n = strspn(s, "0123456789");

	if (!n || n >= sizeof(head))
		return -1;
	memcpy(head, s, n);
	head[n] = '\0';
	return parse_num(head);
}

/* The affinity columns of GPU row @row from word @i on: CPU affinity, NUMA
 * affinity, GPU NUMA ID, as many as the header names. One word short with a
 * CPU list that runs into digits: the blank before the NUMA affinity was lost
 * ("0-45,92-1370", tests/real/topo/gh-sglang-21210_...). Words short and the
 * first no CPU list: the affinity cells are empty (a VM prints none,
 * tests/real/topo/idx8361423075_...), the words are the last columns. */
static void parse_affinity(const struct toks *tk, int i, int row, struct nvsmi_topo *m)
{
	int want = m->has_cpu_aff + m->has_numa_aff + m->has_gpu_numa, have = tk->n - i;
	int fused = m->has_cpu_aff && m->has_numa_aff && have == want - 1 && i < tk->n &&
		    nvsmi_split_fused_affinity(tk->t[i], m->cpu_aff[row], sizeof(m->cpu_aff[row]),
					       m->numa_list[row], sizeof(m->numa_list[row]));
	int empty = !fused && have > 0 && have < want && !nvsmi_cpu_list(tk->t[i]) ? want - have : 0;

	if (fused)
		i++;
	else if (m->has_cpu_aff && empty)
		empty--;
	else if (m->has_cpu_aff && i < tk->n)
		scopy(m->cpu_aff[row], sizeof(m->cpu_aff[row]), tk->t[i++]);
	if (m->has_numa_aff && !fused && empty)
		empty--;
	else if (m->has_numa_aff && !fused && i < tk->n)
		scopy(m->numa_list[row], sizeof(m->numa_list[row]), tk->t[i++]);
	m->numa_aff[row] = first_node(m->numa_list[row]);
	if (m->has_gpu_numa && i < tk->n) {
		scopy(m->gpu_numa_txt[row], sizeof(m->gpu_numa_txt[row]), tk->t[i]);
		m->gpu_numa[row] = parse_num(tk->t[i++]);
	}
}

/* Reads a row whose first token is a column label. */
static void parse_row(const struct toks *tk, int row, struct nvsmi_topo *m)
{
	int c = 0, i = 1;

	m->row_seen[row] = 1;
	for (; i < tk->n && c < m->ncols; i++) {
		const char *s = tk->t[i];

		if (all_cell_words(s)) {
			while (*s && c < m->ncols) {
				size_t n = cell_word(s);

				memcpy(m->cell[row][c], s, n < NVSMI_CELL_LEN ? n : NVSMI_CELL_LEN - 1);
				c++;
				s += n;
			}
		} else if (odd_cell_word(s)) {
			scopy(m->cell[row][c++], NVSMI_CELL_LEN, s);
		} else {
			break;
		}
	}
	if (m->is_gpu[row])
		parse_affinity(tk, i, row, m);
}

/* "NIC3: mlx5_3" in the NIC legend. */
static void parse_nic_legend(const struct toks *tk, struct nvsmi_topo *m)
{
	char lab[NVSMI_LABEL_LEN];
	size_t len;
	int c;

	if (tk->n != 2)
		return;
	len = strlen(tk->t[0]);
	if (len < 2 || len >= sizeof(lab) || tk->t[0][len - 1] != ':')
		return;
	memcpy(lab, tk->t[0], len - 1);
	lab[len - 1] = '\0';
	c = nvsmi_topo_col(m, lab);
	if (c >= 0 && !m->is_gpu[c])
		scopy(m->nic_dev[c], sizeof(m->nic_dev[c]), tk->t[1]);
}

enum pstate { P_SEEK, P_ROWS, P_AFTER };

static void parse_line(const char *line, struct toks *tk, struct nvsmi_topo *m,
		       enum pstate *st, int *found)
{
	int c;

	if (line[0] == '#')
		return;
	tokenize(line, tk);
	if (*st == P_SEEK) {
		if (parse_header(tk, m)) {
			*found = 1;
			*st = P_ROWS;
		}
		return;
	}
	if (tk->n == 0)
		return;
	if (*st == P_ROWS) {
		c = nvsmi_topo_col(m, tk->t[0]);
		if (c >= 0 && (tk->n < 2 || strncmp(tk->t[1], "GPU", 3) || all_cell_words(tk->t[1]))) {
			if (!m->row_seen[c])
				parse_row(tk, c, m);
			return;
		}
		*st = P_AFTER;
	}
	if (tk->n == 1 && !strcmp(tk->t[0], "Legend:"))
		m->legend_seen = 1;
	else if (tk->n == 2 && !strcmp(tk->t[0], "NIC") && !strcmp(tk->t[1], "Legend:"))
		m->nic_legend_seen = 1;
	else if (m->nic_legend_seen)
		parse_nic_legend(tk, m);
}

/* 1 when the GPU columns are not GPU0, GPU1, ... in order, or the NICn
 * columns not NIC0, NIC1, ...: nvidia-smi numbers every device it sees
 * from 0 (its own Legend: "GPU0", "NIC0"), so a table that starts at GPU5
 * is an excerpt a person cut (tests/real/topo: a DGX A100's GPU5, GPU6,
 * NIC0, NIC1 redrawn), and its missing devices are unknown, not absent. */
static int labels_gap(const struct nvsmi_topo *m)
{
	int g = 0, n = 0, k;

	for (int c = 0; c < m->ncols; c++) {
		const char *l = m->label[c];

		if (m->is_gpu[c] && sscanf(l, "GPU%d", &k) == 1 && k != g++)
			return 1;
		if (!m->is_gpu[c] && sscanf(l, "NIC%d", &k) == 1 && k != n++)
			return 1;
	}
	return 0;
}

static void finish(struct nvsmi_topo *m)
{
	int grows = 0, nrows = 0;

	for (int c = 0; c < m->ncols; c++) {
		if (!m->row_seen[c])
			continue;
		if (m->is_gpu[c])
			grows++;
		else
			nrows++;
	}
	m->truncated = grows < m->ngpus || (nrows > 0 && nrows < m->nnics) ||
		       (m->nnics > 0 && nrows == 0 && !m->legend_seen) || m->cols_cut || m->lines_cut ||
		       labels_gap(m);
}

int nvsmi_topo_parse(const char *text, size_t len, const char *src,
		     struct nvsmi_topo **out_p)
{
	struct nvsmi_topo *m = calloc(1, sizeof(*m));
	struct toks *tk = calloc(1, sizeof(*tk));
	char *line = malloc(LINE_MAX_LEN);
	enum pstate st = P_SEEK;
	size_t pos = 0;
	int found = 0;

	if (!m || !tk || !line) {
		free(m);
		free(tk);
		free(line);
		return -ENOMEM;
	}
	while (pos < len) {
		size_t e = pos, n;

		while (e < len && text[e] != '\n')
			e++;
		n = e - pos < LINE_MAX_LEN - 1 ? e - pos : LINE_MAX_LEN - 1;
		memcpy(line, text + pos, n);
		line[n] = '\0';
		nvsmi_strip_sgr(line);
		tk->over = 0;
		parse_line(line, tk, m, &st, &found);
		if (n < e - pos || tk->over)
			m->lines_cut++;
		pos = e + 1;
	}
	free(tk);
	free(line);
	if (!found) {
		fc_err("%s: no 'nvidia-smi topo -m' matrix found (no header line starting with GPU0); "
		       "give the output of 'nvidia-smi topo -m'", src);
		free(m);
		return -EINVAL;
	}
	finish(m);
	*out_p = m;
	return 0;
}

int nvsmi_cell_rank(const char *cell)
{
	static const char *const order[] = { "X", "NV", "PIX", "PXB", "PHB", "NODE", "SYS" };

	if (!cell || !*cell)
		return 7;
	if (!strncmp(cell, "NV", 2) && isdigit((unsigned char)cell[2]))
		return 1;
	for (int i = 0; i < 7; i++)
		if (!strcmp(cell, order[i]))
			return i;
	return 7;
}

const char *nvsmi_topo_cell(const struct nvsmi_topo *m, int a, int b)
{
	if (a < 0 || b < 0 || a >= m->ncols || b >= m->ncols)
		return NULL;
	if (m->row_seen[a] && m->cell[a][b][0])
		return m->cell[a][b];
	if (m->row_seen[b] && m->cell[b][a][0])
		return m->cell[b][a];
	return NULL;
}

int nvsmi_topo_nearest_nics(const struct nvsmi_topo *m, int gpu, int *out, int max)
{
	int best = 7, n = 0;

	if (gpu < 0 || gpu >= m->ncols || !m->row_seen[gpu])
		return 0;
	for (int c = 0; c < m->ncols; c++)
		if (!m->is_gpu[c] && nvsmi_cell_rank(m->cell[gpu][c]) < best)
			best = nvsmi_cell_rank(m->cell[gpu][c]);
	for (int c = 0; c < m->ncols && best < 7 && n < max; c++)
		if (!m->is_gpu[c] && nvsmi_cell_rank(m->cell[gpu][c]) == best)
			out[n++] = c;
	return n;
}

int nvsmi_components(int n, int (*member)(const void *arg, int i),
		     int (*joined)(const void *arg, int u, int v), const void *arg, int *comp)
{
	int count = 0;

	for (int c = 0; c < n; c++)
		comp[c] = -1;
	for (int c = 0; c < n; c++) {
		int stack[NVSMI_MAX_COLS], sp = 0;

		if ((member && !member(arg, c)) || comp[c] >= 0)
			continue;
		comp[c] = count;
		stack[sp++] = c;
		while (sp) {
			int u = stack[--sp];

			for (int v = 0; v < n; v++)
				if ((!member || member(arg, v)) && comp[v] < 0 && joined(arg, u, v)) {
					comp[v] = count;
					stack[sp++] = v;
				}
		}
		count++;
	}
	return count;
}

static int gpu_col(const void *arg, int c)
{
	return ((const struct nvsmi_topo *)arg)->is_gpu[c];
}

static int nv_cell(const void *arg, int u, int v)
{
	return nvsmi_cell_rank(nvsmi_topo_cell(arg, u, v)) == 1;
}

int nvsmi_topo_islands(const struct nvsmi_topo *m, int comp[NVSMI_MAX_COLS])
{
	for (int c = m->ncols; c < NVSMI_MAX_COLS; c++)
		comp[c] = -1;
	return nvsmi_components(m->ncols, gpu_col, nv_cell, m, comp);
}

int nvsmi_topo_gpu_c2c(const struct nvsmi_topo *m, int c)
{
	return c >= 0 && c < m->ncols && m->is_gpu[c] && m->gpu_numa[c] >= 0;
}

/* Per GPU, the affinity columns as printed, and the GPUs on C2C. */
static void summary_affinity(const struct nvsmi_topo *m, json_t *out)
{
	json_t *cpu = json_object(), *numa = json_object(), *gnuma = json_object();
	json_t *c2c = json_array();

	for (int c = 0; c < m->ncols; c++) {
		if (!m->is_gpu[c] || !m->row_seen[c])
			continue;
		if (m->cpu_aff[c][0])
			json_object_set_new(cpu, m->label[c], json_string(m->cpu_aff[c]));
		if (m->numa_list[c][0])
			json_object_set_new(numa, m->label[c], json_string(m->numa_list[c]));
		if (m->gpu_numa_txt[c][0])
			json_object_set_new(gnuma, m->label[c], json_string(m->gpu_numa_txt[c]));
		if (nvsmi_topo_gpu_c2c(m, c))
			json_array_append_new(c2c, json_string(m->label[c]));
	}
	json_object_set_new(out, "cpu_affinity", cpu);
	json_object_set_new(out, "numa_affinity", numa);
	json_object_set_new(out, "gpu_numa_id", gnuma);
	json_object_set_new(out, "c2c", c2c);
}

json_t *nvsmi_topo_summary(const struct nvsmi_topo *m)
{
	json_t *pairs = json_object(), *near = json_object(), *legend = json_object(), *out;
	int nvlink = 0;

	for (int a = 0; a < m->ncols; a++) {
		int nn[NVSMI_MAX_COLS], k;

		if (!m->is_gpu[a])
			continue;
		for (int b = a + 1; b < m->ncols; b++) {
			const char *cell = nvsmi_topo_cell(m, a, b);
			char key[2 * NVSMI_LABEL_LEN + 2];

			if (!m->is_gpu[b] || !cell)
				continue;
			snprintf(key, sizeof(key), "%s-%s", m->label[a], m->label[b]);
			json_object_set_new(pairs, key, json_string(cell));
			nvlink |= nvsmi_cell_rank(cell) == 1;
		}
		k = nvsmi_topo_nearest_nics(m, a, nn, NVSMI_MAX_COLS);
		if (k) {
			json_t *list = json_array();

			for (int i = 0; i < k; i++)
				json_array_append_new(list, json_string(m->label[nn[i]]));
			json_object_set_new(near, m->label[a], list);
		}
	}
	for (int c = 0; c < m->ncols; c++)
		if (m->nic_dev[c][0])
			json_object_set_new(legend, m->label[c], json_string(m->nic_dev[c]));
	out = json_pack("{s:i, s:i, s:b, s:o, s:o, s:b, s:o}", "gpus", m->ngpus, "nics", m->nnics,
			"nvlink", nvlink, "gpu_pairs", pairs, "nearest_nic", near, "truncated",
			m->truncated, "nic_legend", legend);
	if (out)
		summary_affinity(m, out);
	return out;
}
