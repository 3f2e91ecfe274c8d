/*
 * Pure decisions of the gdr module: names, option parsing, which way to
 * register GPU memory, which GPU to use, and the --validate data pattern.
 * No hardware is touched here; everything is tested on recorded inputs.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/fc.h"
#include "core/log.h"
#include "gdr/cudrv.h"
#include "gdr/gdr.h"

const char *gdr_kind_name(enum gdr_kind k)
{
	return k == GDR_CUDA ? "cuda" : "host";
}

const char *gdr_mode_name(enum gdr_mode m)
{
	static const char *const names[] = {
		[GDR_MODE_AUTO] = "auto",
		[GDR_MODE_DMABUF] = "dmabuf",
		[GDR_MODE_PEERMEM] = "peermem",
	};
	return (unsigned)m < FC_ARRAY_SIZE(names) ? names[m] : "?";
}

const char *gdr_method_name(enum gdr_reg_method m)
{
	static const char *const names[] = {
		[GDR_REG_NONE] = "none",
		[GDR_REG_HOST] = "host",
		[GDR_REG_DMABUF] = "dmabuf",
		[GDR_REG_PEERMEM] = "peermem",
	};
	return (unsigned)m < FC_ARRAY_SIZE(names) ? names[m] : "?";
}

int gdr_parse_mode(const char *opt, const char *text, enum gdr_mode *out_p)
{
	if (!strcmp(text, "auto"))
		*out_p = GDR_MODE_AUTO;
	else if (!strcmp(text, "dmabuf") || !strcmp(text, "dma-buf"))
		*out_p = GDR_MODE_DMABUF;
	else if (!strcmp(text, "peermem"))
		*out_p = GDR_MODE_PEERMEM;
	else {
		fc_err("%s: '%s' is not a registration method; expected auto, dmabuf or peermem",
		       opt, text);
		return -EINVAL;
	}
	return 0;
}

/* Hex number of at most @maxdigits digits ending at a delimiter. */
static int hex_field(const char **p, int maxdigits, unsigned long *out)
{
	const char *s = *p;
	int n = 0;

	*out = 0;
	while (isxdigit((unsigned char)*s)) {
		if (++n > maxdigits)
			return -EINVAL;
		*out = *out * 16 + (unsigned long)(isdigit((unsigned char)*s) ?
							   *s - '0' :
							   tolower((unsigned char)*s) - 'a' + 10);
		s++;
	}
	if (!n)
		return -EINVAL;
	*p = s;
	return 0;
}

int gdr_bdf_parse(const char *text, uint64_t *out_p)
{
	unsigned long f[4] = { 0 };
	const char *p = text;
	int colons = 0;

	if (!text)
		return -EINVAL;
	for (const char *q = text; *q; q++)
		colons += *q == ':';
	if (colons < 1 || colons > 2)
		return -EINVAL;
	if (colons == 2) {
		if (hex_field(&p, 8, &f[0]) || *p++ != ':')
			return -EINVAL;
	}
	if (hex_field(&p, 2, &f[1]) || *p++ != ':' || hex_field(&p, 2, &f[2]) ||
	    *p++ != '.' || hex_field(&p, 1, &f[3]) || *p || f[2] > 31 || f[3] > 7)
		return -EINVAL;
	*out_p = ((uint64_t)f[0] << 16) | (f[1] << 8) | (f[2] << 3) | f[3];
	return 0;
}

int gdr_parse_gpu_spec(const char *opt, const char *text, struct gdr_gpu_req *req)
{
	uint64_t bdf;
	char *end;
	long v;

	memset(req, 0, sizeof(*req));
	if (!text || !*text) {
		req->how = GDR_GPU_NEAREST;
		return 0;
	}
	if (isdigit((unsigned char)text[0]) && !strchr(text, ':')) {
		errno = 0;
		v = strtol(text, &end, 10);
		if (errno || *end || v < 0 || v > 1023) {
			fc_err("%s: '%s' is not a GPU; expected an index (0, 1, ...) or a PCI bus id such as 0000:3b:00.0",
			       opt, text);
			return -EINVAL;
		}
		req->how = GDR_GPU_INDEX;
		req->index = (int)v;
		return 0;
	}
	if (strlen(text) >= sizeof(req->bus_id) || gdr_bdf_parse(text, &bdf)) {
		fc_err("%s: '%s' is not a GPU; expected an index (0, 1, ...) or a PCI bus id such as 0000:3b:00.0",
		       opt, text);
		return -EINVAL;
	}
	req->how = GDR_GPU_BUS;
	snprintf(req->bus_id, sizeof(req->bus_id), "%s", text);
	return 0;
}

static void list_gpus(const struct gdr_gpu_info *gpus, int n, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = 0;
	for (int i = 0; i < n && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used, "%s%d (%s)", i ? ", " : "",
					 gpus[i].index, gpus[i].bus_id);
}

int gdr_gpu_pick(const struct gdr_gpu_info *gpus, int n, const struct gdr_gpu_req *req,
		 char *err, size_t errlen)
{
	char have[256];
	uint64_t want, bdf;
	int best = 0;

	if (n <= 0) {
		snprintf(err, errlen, "no CUDA device");
		return -ENODEV;
	}
	list_gpus(gpus, n, have, sizeof(have));
	switch (req->how) {
	case GDR_GPU_INDEX:
		for (int i = 0; i < n; i++)
			if (gpus[i].index == req->index)
				return i;
		snprintf(err, errlen, "GPU %d not found; this node has %d GPU%s: %s", req->index,
			 n, n == 1 ? "" : "s", have);
		return -ENOENT;
	case GDR_GPU_BUS:
		if (gdr_bdf_parse(req->bus_id, &want) == 0)
			for (int i = 0; i < n; i++)
				if (gdr_bdf_parse(gpus[i].bus_id, &bdf) == 0 && bdf == want)
					return i;
		snprintf(err, errlen, "no GPU at bus id %s; this node has %d GPU%s: %s",
			 req->bus_id, n, n == 1 ? "" : "s", have);
		return -ENOENT;
	case GDR_GPU_NEAREST:
		for (int i = 1; i < n; i++)
			if (gpus[i].dist < gpus[best].dist)
				best = i;
		return best;
	}
	snprintf(err, errlen, "bad GPU request");
	return -EINVAL;
}

/* What dma-buf lacks, as a phrase; "" when nothing. */
static void dmabuf_missing(const struct gdr_reg_inputs *in, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = 0;
	if (!in->cuda_export)
		used += (size_t)snprintf(buf + used, len - used,
					 "the CUDA driver (%d.%d) has no cuMemGetHandleForAddressRange (needs 11.7 or newer)",
					 in->driver_version / 1000, in->driver_version % 1000 / 10);
	else if (!in->cuda_dmabuf)
		used += (size_t)snprintf(buf + used, len - used,
					 "the GPU does not report dma-buf support (needs the open kernel modules, driver 515 or newer)");
	if (in->verbs_dmabuf == -2 && used < len)
		snprintf(buf + used, len - used, "%slibibverbs has no ibv_reg_dmabuf_mr (rdma-core older than 34)",
			 used ? "; " : "");
	else if (in->verbs_dmabuf == 0 && used < len)
		snprintf(buf + used, len - used, "%sthe kernel or rdma-core refuses dma-buf MRs (needs Linux 5.12 and rdma-core 34 or newer)",
			 used ? "; " : "");
}

int gdr_reg_decide(const struct gdr_reg_inputs *in, struct gdr_reg_plan *plan)
{
	char why[384];
	int dmabuf_ok, peermem_ok = !!in->peermem;

	memset(plan, 0, sizeof(*plan));
	dmabuf_missing(in, why, sizeof(why));
	dmabuf_ok = !why[0];
	if (in->mode == GDR_MODE_DMABUF && !dmabuf_ok)
		goto no_dmabuf;
	if (in->mode == GDR_MODE_PEERMEM && !peermem_ok)
		goto no_peermem;
	if (in->mode != GDR_MODE_AUTO) { /* the method --gdr asks for, available */
		int dmabuf = in->mode == GDR_MODE_DMABUF;

		plan->first = dmabuf ? GDR_REG_DMABUF : GDR_REG_PEERMEM;
		snprintf(plan->msg, sizeof(plan->msg), "%s, as --gdr %s asks",
			 dmabuf ? "dma-buf" : "peermem", gdr_method_name(plan->first));
		return 0;
	}
	if (dmabuf_ok) {
		plan->first = GDR_REG_DMABUF;
		plan->second = peermem_ok ? GDR_REG_PEERMEM : GDR_REG_NONE;
		snprintf(plan->msg, sizeof(plan->msg), "dma-buf%s",
			 peermem_ok ? " (peermem if the HCA refuses it)" : "");
		return 0;
	}
	if (peermem_ok) {
		plan->first = GDR_REG_PEERMEM;
		snprintf(plan->msg, sizeof(plan->msg), "peermem, since dma-buf is out: %s", why);
		return 0;
	}
	snprintf(plan->msg, sizeof(plan->msg),
		 "GPU memory cannot be registered with the HCA: neither dma-buf nor peermem is available (%s; nvidia_peermem is not loaded); "
		 "fix: modprobe nvidia-peermem, or use an NVIDIA driver and kernel with dma-buf (driver 515+ open modules, Linux 5.12+)",
		 why);
	return -EOPNOTSUPP;
no_dmabuf:
	snprintf(plan->msg, sizeof(plan->msg),
		 "--gdr dmabuf: dma-buf is not available: %s; fix: use a driver and kernel with dma-buf, or --gdr peermem%s",
		 why, peermem_ok ? " (nvidia_peermem is loaded)" : " after modprobe nvidia-peermem");
	return -EOPNOTSUPP;
no_peermem:
	snprintf(plan->msg, sizeof(plan->msg),
		 "--gdr peermem: nvidia_peermem is not loaded; fix: modprobe nvidia-peermem%s",
		 dmabuf_ok ? ", or use --gdr dmabuf (available here)" : "");
	return -EOPNOTSUPP;
}

/* splitmix64: a different 64-bit word for every word position and seed. */
static uint64_t mix64(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

static inline uint8_t pattern_byte(uint64_t seed, uint64_t off)
{
	return (uint8_t)(mix64(seed ^ (off >> 3) * 0x100000001b3ULL) >> ((off & 7) * 8));
}

void gdr_pattern_fill(void *buf, uint64_t off, size_t len, uint64_t seed)
{
	uint8_t *p = buf;
	size_t i = 0;

	/* Whole words at a time once aligned to the pattern's words. */
	for (; i < len && ((off + i) & 7); i++)
		p[i] = pattern_byte(seed, off + i);
	for (; i + 8 <= len; i += 8) {
		uint64_t w = mix64(seed ^ ((off + i) >> 3) * 0x100000001b3ULL);

		for (int b = 0; b < 8; b++)
			p[i + b] = (uint8_t)(w >> (b * 8));
	}
	for (; i < len; i++)
		p[i] = pattern_byte(seed, off + i);
}

int64_t gdr_pattern_check(const void *buf, uint64_t off, size_t len, uint64_t seed)
{
	const uint8_t *p = buf;
	uint8_t want[4096];
	size_t done = 0, n;

	/* Compare a page of expected bytes at a time; find the byte on a miss. */
	while (done < len) {
		n = len - done < sizeof(want) ? len - done : sizeof(want);
		gdr_pattern_fill(want, off + done, n, seed);
		if (memcmp(want, p + done, n))
			for (size_t i = 0; i < n; i++)
				if (want[i] != p[done + i])
					return (int64_t)(off + done + i);
		done += n;
	}
	return -1;
}

const char *gdr_flush_name(enum gdr_flush_how h)
{
	switch (h) {
	case GDR_FLUSH_CUDA:
		return "cuFlushGPUDirectRDMAWrites";
	case GDR_FLUSH_LOOPBACK:
		return "loopback RDMA READ";
	default:
		return "none";
	}
}

enum gdr_flush_how gdr_flush_decide(const struct gdr_flush_in *in, char *why, size_t len)
{
	char tmp[8];
	enum gdr_flush_how h;
	const char *w;

	if (!why) {
		why = tmp;
		len = sizeof(tmp);
	}
	if (in->c2c_near) {
		h = GDR_FLUSH_LOOPBACK;
		w = "the GPU reaches its CPU over C2C and the NIC over PCIe, two unordered paths: flushed by a loopback RDMA READ, as NCCL does there (paths.cc ncclTopoNeedFlush)";
	} else if (in->wr_order >= CU_GPU_DIRECT_RDMA_WRITES_ORDERING_OWNER) {
		h = GDR_FLUSH_NONE;
		w = "the GPU orders GPUDirect RDMA writes for its own reads (WRITES_ORDERING >= OWNER): no flush";
	} else if (in->cuda_sym && in->flush_opts >= 0 && (in->flush_opts & CU_FLUSH_GPU_DIRECT_RDMA_WRITES_OPTION_HOST)) {
		h = GDR_FLUSH_CUDA;
		w = "cuFlushGPUDirectRDMAWrites (FLUSH_WRITES_OPTIONS has HOST)";
	} else {
		h = GDR_FLUSH_LOOPBACK;
		w = !in->cuda_sym ? "the driver has no cuFlushGPUDirectRDMAWrites (CUDA 11.3+): flushed by a loopback RDMA READ, as NCCL does" :
				    "the GPU does not support cuFlushGPUDirectRDMAWrites (FLUSH_WRITES_OPTIONS lacks HOST): flushed by a loopback RDMA READ, as NCCL does";
	}
	snprintf(why, len, "%s", w);
	return h;
}
