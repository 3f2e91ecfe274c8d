/*
 * Issue 39 item 5: each sysfs finding of topo/topo_checks.c with figures,
 * checked whole on recorded trees (tests/topo/mksysfs.sh) whose figures are
 * known and distinct: a PCIe speed of 16 against 32 GT/s, a width of 8
 * against 16, an MTU of 1500 against the 4200 bar, a GID at index 3, five
 * bridges of unknown ACS state, one HCA against four, 4 GPU pairs on a
 * switch against 24 through the CPU. A count swapped with
 * its total or a wrong unit changes the sentence.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#define TREES_SCENARIOS "dgx split degraded"
#include "sysfs_trees.h"
#include "topo_doc.h"

/* @doc has the finding @want, word for word; else fails naming those that
 * begin as it does (the sentence the code printed instead). */
static void finding_is(const json_t *doc, const char *want)
{
	size_t i;
	json_t *f;

	json_array_foreach(json_object_get(doc, "findings"), i, f)
		if (!strcmp(json_string_value(f), want))
			return;
	json_array_foreach(json_object_get(doc, "findings"), i, f)
		if (!strncmp(json_string_value(f), want, 16))
			print_error("  got: %s\n", json_string_value(f));
	fail_msg("no finding \"%s\"", want);
}

/* The reason given for recommending @env, word for word. */
static void why_is(const json_t *doc, const char *env, const char *want)
{
	size_t i;
	json_t *r;

	json_array_foreach(json_object_get(doc, "recommendations"), i, r)
		if (!strcmp(fc_jstr(r, "env", ""), env)) {
			assert_string_equal(fc_jstr(r, "why", ""), want);
			return;
		}
	fail_msg("no recommendation of %s", env);
}

/* split: GPU0's five bridges (00:01.0 to 04:00.0) give 64 bytes of config
 * space, as to a reader who is not root; mlx5_0's netdev at MTU 1500; its
 * RoCE v2 IPv4 GID at index 3; mlx5_1 has v1 GIDs only; GPU1 at x8 of x16;
 * GPU0 and GPU1, one pair, meet at the CPU (NODE). */
static void test_split(void **state)
{
	struct topo *t = load("split");
	json_t *doc = report(t);

	(void)state;
	finding_is(doc, "ACS state of 5 bridges between GPUs and HCAs is unknown: the extended PCIe config space is readable by root only; run as root, or check 'sudo lspci -vvv | grep ACSCtl'");
	finding_is(doc, "mlx5_0 port 1 (RoCE): netdev ens1f0 has MTU 1500 B, below 4200 B, so RoCE runs with 1024 B frames or less; set 'ip link set ens1f0 mtu 9000' and the same on the switch ports");
	finding_is(doc, "mlx5_1 port 1 (RoCE): no RoCE v2 GID (v1 is not routable): give ens2f0 an IPv4 address and check the RoCE mode (cma_roce_mode, mlxconfig)");
	finding_is(doc, "PCIe link of GPU1 (0000:41:00.0) trained at x8 of x16: reseat the card, check the riser and the slot (and BIOS lane bifurcation)");
	finding_is(doc, "PCIe link of GPU0 (0000:05:00.0) at 2.5 GT/s of 16 GT/s: GPUs slow the link when idle; check again under load (nvidia-smi -q -d PCIE), and reseat or check the riser if it stays low");
	assert_string_equal(rec(doc, "NCCL_IB_GID_INDEX"), "3");
	why_is(doc, "NCCL_IB_GID_INDEX",
	       "the RoCE v2 GID (IPv4 first) is at index 3 on every RoCE HCA (mlx5_0:3); NCCL before 2.21 uses index 0, a RoCE v1 link-local GID");
	why_is(doc, "NCCL_P2P_LEVEL",
	       "1 GPU pair without NVLink meets only through the CPU (PHB/NODE/SYS): P2P through the root complex is usually slower than host memory; keep P2P within switches");
	why_is(doc, "NCCL_IB_HCA",
	       "1 HCA that NCCL's topology search gives the GPUs; '=' makes NCCL match these names exactly (a bare mlx5_1 also takes mlx5_10..mlx5_19); left out, given no GPU (slower or farther than another): mlx5_1");
	json_decref(doc);
	topo_free(t);
}

/* dgx: ACS control 0x1d (SV, ReqRedir, CmpltRedir, UpstreamFwd; no
 * EgressCtrl) on the switch port above GPU2; four HCAs, each some GPU's;
 * 8 GPUs two a switch: of their 28 pairs 4 share a switch, 24 do not. */
static void test_dgx(void **state)
{
	struct topo *t = load("dgx");
	json_t *doc = report(t);

	(void)state;
	finding_is(doc, "ACS redirect is on at bridge 0000:22:00.0 (control 0x1d ReqRedir CmpltRedir) between GPU2 and mlx5_1: peer-to-peer traffic (GPUDirect RDMA, GPU P2P) is sent up to the root complex, slow or failing with the IOMMU on; turn ACS off in the BIOS, or run 'setpci -s 0000:22:00.0 ECAP_ACS+6.w=0000' at every boot");
	finding_is(doc, "PCIe link of mlx5_2 (0000:85:00.0) trained at x8 of x16: reseat the card, check the riser and the slot (and BIOS lane bifurcation)");
	why_is(doc, "NCCL_P2P_LEVEL",
	       "4 GPU pairs share a PCIe switch (PIX/PXB) and use PCIe P2P; 24 pairs only meet through the CPU and are better staged in host memory (NCCL's default since 2.23)");
	why_is(doc, "NCCL_IB_HCA",
	       "4 HCAs that NCCL's topology search gives the GPUs; '=' makes NCCL match these names exactly (a bare mlx5_1 also takes mlx5_10..mlx5_19)");
	json_decref(doc);
	topo_free(t);
}

/* degraded: an HCA (not a GPU, which slows its link when idle) trained at
 * 16 GT/s below a 32 GT/s slot; a RoCE port with no GID on a netdev. */
static void test_degraded(void **state)
{
	struct topo *t = load("degraded");
	json_t *doc = report(t);

	(void)state;
	finding_is(doc, "PCIe link of mlx5_0 (0000:04:00.0) trained at 16 GT/s of 32 GT/s: reseat the card, check the riser and the slot, and the BIOS PCIe speed setting");
	finding_is(doc, "mlx5_1 port 1 (RoCE) has no GID bound to a netdev: bring its netdev up and give it an IP address");
	json_decref(doc);
	topo_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_split),
		cmocka_unit_test(test_dgx),
		cmocka_unit_test(test_degraded),
	};

	return cmocka_run_group_tests(tests, trees_setup, trees_teardown);
}
