/*
 * The worker's memory: the buffer of the test comes from gdr/ (host or GPU
 * memory behind one ops table), registered by dma-buf or peermem for GPUs,
 * never silently from host memory when GPU memory was asked for.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "core/log.h"
#include "ctl/worker_gdr.h"

static int mem_alloc(struct vb_res *r, int access)
{
	struct wk_mem *wm = r->mem_arg;
	int err;

	snprintf(wm->hca, sizeof(wm->hca), "%s", r->pi->dev);
	if (!wm->dev_open) {
		err = gdr_dev_open(&wm->dev, wm->opts.kind, wm->opts.mode, &wm->opts.req, wm->topo,
				   wm->hca);
		if (err)
			return err;
		wm->dev_open = 1;
	} else {
		gdr_dev_set_hca(&wm->dev, wm->topo, wm->hca);
	}
	/* Local by default: pinned to the node of the HCA (or of the GPU)
	 * first, so that the buffer's first touch lands there too. */
	gdr_numa_setup(&wm->numa, wm->hca, wm->dev.kind == GDR_CUDA ? wm->dev.gpu.bus_id : NULL);
	if (wm->numa.pinned) {
		r->cpus = wm->numa.cpus;
		r->pin = 1;
	}
	wm->dev.numa_node = wm->numa.want_node;
	wm->dev.hugepages = wm->opts.hugepages;
	err = gdr_mem_alloc(&wm->dev, &wm->mem, r->buf_len);
	if (!err)
		err = gdr_mem_reg(&wm->mem, r->pd, access, NULL, wm->hca);
	if (err)
		return err;
	r->buf = wm->mem.base;
	r->mr = wm->mem.mr;
	return 0;
}

static void mem_free(struct vb_res *r)
{
	struct wk_mem *wm = r->mem_arg;

	gdr_mem_free(&wm->mem);
	r->buf = NULL;
	r->mr = NULL;
}

/* --use-cuda=N or =BUS without -d: the HCA nearest that GPU. */
static int hca_for_gpu(struct wk_mem *wm, struct vb_opts *o)
{
	int err = gdr_dev_open(&wm->dev, GDR_CUDA, wm->opts.mode, &wm->opts.req, wm->topo, NULL);

	char v[128];
	const char *vnic;

	if (err)
		return err;
	wm->dev_open = 1;
	if (gdr_nearest_hca(wm->topo, wm->dev.gpu.bus_id, o->dev, sizeof(o->dev)))
		return 0;
	/* NCCL 2.20.3+ may fuse it with the card's other ports (topo_nccl_fuse) */
	vnic = gdr_nccl_nic(wm->topo, wm->dev.gpu.bus_id, v, sizeof(v));
	if (vnic && strchr(vnic, '+'))
		fc_info("GPU %d (%s): nearest HCA %s, a port of NCCL's virtual NIC %s",
			wm->dev.gpu.index, wm->dev.gpu.bus_id, o->dev, vnic);
	else
		fc_info("GPU %d (%s): nearest HCA %s", wm->dev.gpu.index, wm->dev.gpu.bus_id,
			o->dev);
	return 0;
}

int wk_mem_setup(struct wk_mem *wm, const json_t *setup, struct vb_opts *o, struct vb_res *r,
		 const char *node)
{
	const json_t *mj = json_object_get(setup, "mem");
	char why[256];

	snprintf(wm->node, sizeof(wm->node), "%s", node);
	if (mj && gdr_opts_from_json(mj, &wm->opts, why, sizeof(why))) {
		fc_err("the controller's setup message has %s", why);
		return -EPROTO;
	}
	r->mem_alloc = mem_alloc;
	r->mem_free = mem_free;
	r->mem_arg = wm;
	if (wm->opts.kind != GDR_CUDA)
		return 0;
	wm->topo = gdr_topo_load();
	if (!o->dev[0] && wm->opts.req.how != GDR_GPU_NEAREST && !json_object_get(setup, "cm"))
		return hca_for_gpu(wm, o);
	return 0;
}

void wk_mem_report(struct wk_mem *wm, struct vb_res *r, json_t *rep)
{
	gdr_mem_report(rep, &wm->mem, wm->hca[0] ? wm->hca : NULL);
	json_object_set_new(rep, "numa", gdr_numa_json(&wm->numa, wm->mem.numa_node,
						       !gdr_mem_host_accessible(&wm->mem)));
	json_object_set_new(rep, "hugepages", json_boolean(wm->opts.hugepages));
	json_object_set_new(rep, "page_bytes", json_integer((json_int_t)wm->mem.page));
	/* IBV_ACCESS_RELAXED_ORDERING is optional: a driver that does not
	 * support it drops it silently and nothing reports whether PCIe
	 * ordering was relaxed, so "requested", never true. */
	json_object_set_new(rep, "relaxed_ordering",
			    wm->mem.relaxed ? json_string("requested") : json_false());
	if (wm->mem.reg_note[0])
		json_object_set_new(rep, "registration_note", json_string(wm->mem.reg_note));
	/* The CPU cannot read GPU memory: no inline sends from it. */
	if (!gdr_mem_host_accessible(&wm->mem)) {
		r->max_inline = 0;
		json_object_set_new(rep, "max_inline", json_integer(0));
	}
}

/* --validate on GPU memory: the data path reads and poisons through the driver. */
static int val_read(void *arg, const uint8_t *p, size_t len, uint8_t *out)
{
	struct wk_mem *wm = arg;
	int err;

	/* gdr_flush_decide chose a loopback RDMA READ, as NCCL flushes. */
	if (wm->dev.flush == GDR_FLUSH_LOOPBACK && (err = vb_loop_read(wm->res, p)))
		return err;
	return gdr_mem_read_at(&wm->mem, p, len, out);
}

/* The copy alone, no flush: what the copy ceiling times (verbs/val.c). */
static int val_copy(void *arg, const uint8_t *p, size_t len, uint8_t *out)
{
	return gdr_mem_copy_at(&((struct wk_mem *)arg)->mem, p, len, out);
}

/* How GPUDirect writes are flushed before a check. */
static const char *flush_name(const struct wk_mem *wm)
{
	if (gdr_mem_host_accessible(&wm->mem))
		return "none (host memory)";
	return gdr_flush_name(wm->dev.flush);
}

static int val_poison(void *arg, uint8_t *p, size_t len)
{
	return gdr_mem_poison_at(&((struct wk_mem *)arg)->mem, p, len);
}

/* --validate: the test's numbered messages in the tx half, the rx half poisoned. */
static int val_prepare(struct wk_mem *wm, struct vb_res *r, struct vb_test *t)
{
	uint64_t half = (uint64_t)r->stride * r->nslots;
	int host = gdr_mem_host_accessible(&wm->mem), err;

	if (t->cycle != VB_CYCLE_SLOTS) {
		fc_err("--validate needs a slot per message; the perftest method's one buffer cannot tell messages apart");
		return -EINVAL;
	}
	if (t->lat && t->op == VB_WRITE && t->lat_mode == VB_LAT_POLL) {
		fc_err("--validate checks each message at its receive completion, which write latency by polling has none of: use --lat-mode imm");
		return -EINVAL;
	}
	/* Both workers count the same tests: their tags agree. */
	wm->val.tag = (uint32_t)(0x76616c00u ^ (wm->ntests << 8) ^ (uint32_t)t->op ^ (uint32_t)t->size);
	/* The CPU numbers each header where it may write the buffer; both
	 * sides have the same kind of memory (one --use-cuda for the pair). */
	wm->val.stamp = wm->val.peer_stamps = host;
	wm->val.read = host ? NULL : val_read;
	wm->val.copy = host ? NULL : val_copy;
	wm->val.poison = host ? NULL : val_poison;
	wm->val.arg = wm;
	wm->res = r;
	wm->loop_base = vb_loop_reads(r);
	t->val = &wm->val;
	if (!host && wm->dev.flush != GDR_FLUSH_CUDA && !wm->flush_said++)
		fc_info("GPU %d: GPUDirect writes before each check: %s", wm->dev.gpu.index,
			wm->dev.flush_why);
	if ((err = vb_val_prepare(r, t)))
		return err;
	err = gdr_mem_fill_msgs(&wm->mem, 0, t->cyc_stride, t->cyc_nslots, wm->val.part,
				(uint32_t)t->size, wm->val.tag, half, (size_t)half);
	if (err)
		fc_err("--validate: cannot fill the %s buffer: %s", gdr_kind_name(wm->dev.kind),
		       strerror(-err));
	return err;
}

int wk_mem_prepare(struct wk_mem *wm, struct vb_res *r, struct vb_test *t)
{
	if (!gdr_mem_host_accessible(&wm->mem)) {
		r->max_inline = 0;
		if (t->lat && t->op == VB_WRITE && t->lat_mode == VB_LAT_POLL) {
			fc_err("write latency by polling reads memory with the CPU, which GPU memory does not allow; use --lat-mode imm");
			return -EOPNOTSUPP;
		}
	}
	wm->ntests++;
	wm->last = *t;
	wm->last.val = NULL;
	if (!wm->opts.validate)
		return 0;
	return val_prepare(wm, r, t);
}

/* Where the last test's messages landed: its cycle, or (send) the receive slots. */
static void check_layout(const struct vb_res *r, const struct vb_test *t, uint64_t *stride_p,
			 uint32_t *n_p)
{
	*stride_p = t->op == VB_SEND ? r->stride : t->cyc_stride;
	*n_p = t->op == VB_SEND ? r->nslots : t->cyc_nslots;
}

/* Slots the messages that came were due in: a QP's first part messages
 * each have their own. */
static uint32_t slots_due(const struct wk_mem *wm, const struct vb_res *r)
{
	uint32_t n = 0;

	for (int q = 0; q < r->nqps; q++)
		n += wm->val.rx_seq[q] < wm->val.part ? wm->val.rx_seq[q] : wm->val.part;
	return n;
}

int wk_mem_verify(struct wk_mem *wm, struct vb_res *r, json_t *result)
{
	uint64_t half = (uint64_t)r->stride * r->nslots, stride;
	const struct vb_test *t = &wm->last;
	const struct fc_vtally *ty = &wm->val.tally;
	char desc[64], why[320];
	int64_t first;
	uint32_t n;
	int stray;
	json_t *v;

	if (!wm->opts.validate || !wm->ntests) {
		fc_err("the controller asked to check data of a test that was not validated");
		return -EPROTO;
	}
	/* Every message was checked as it came; now nothing may have come
	 * after its check, nor anywhere else. */
	check_layout(r, t, &stride, &n);
	stray = gdr_mem_stray(&wm->mem, half, stride, n, t->size < FC_VMSG_HDR ? t->size : FC_VMSG_HDR,
			      &first);
	if (stray < 0)
		return stray; /* logged where it failed */
	v = json_pack("{s:s, s:i, s:i, s:i, s:I, s:I, s:I, s:i, s:s}", "memory",
		      gdr_mem_describe(&wm->mem, desc, sizeof(desc)), "slots",
		      (int)(wm->val.part * (uint32_t)r->nqps), "slots_due", (int)slots_due(wm, r),
		      "slots_checked", (int)fc_vtally_slots(ty), "messages_validated",
		      (json_int_t)ty->msgs, "messages_bad", (json_int_t)ty->bad, "bytes_checked",
		      (json_int_t)ty->bytes, "stray", stray, "check",
		      t->op == VB_READ ? "each read at its completion: header, CRC32C, byte_len" :
					 "each message at its receive completion: header, CRC32C, byte_len, immediate");
	json_object_set_new(v, "numbered_headers", json_boolean(wm->val.peer_stamps && t->op != VB_READ));
	json_object_set_new(v, "flush", json_string(flush_name(wm)));
	if (!gdr_mem_host_accessible(&wm->mem))
		json_object_set_new(v, "flush_why", json_string(wm->dev.flush_why));
	/* What the messages went as (a validated write carries an immediate). */
	json_object_set_new(v, "opcode", json_string(t->op == VB_READ ? "RDMA READ" :
						     t->op == VB_SEND ? "SEND WITH IMMEDIATE" :
									"RDMA WRITE WITH IMMEDIATE"));
	json_object_set_new(v, "loopback_reads", json_integer((json_int_t)(vb_loop_reads(r) - wm->loop_base)));
	if (ty->first_set) {
		json_object_set_new(v, "bad_slot", json_integer(ty->first.want.slot));
		json_object_set_new(v, "problem", json_string(fc_vmsg_err_name(ty->first.err)));
		json_object_set_new(v, "why", json_string(fc_vtally_why(ty, why, sizeof(why))));
	}
	if (stray)
		json_object_set_new(v, "stray_slot", json_integer(first));
	json_object_set_new(result, "validate", v);
	return 0;
}

void wk_mem_close(struct wk_mem *wm)
{
	gdr_mem_free(&wm->mem);
	if (wm->dev_open)
		gdr_dev_close(&wm->dev);
	wm->dev_open = 0;
	topo_free(wm->topo);
	wm->topo = NULL;
}
