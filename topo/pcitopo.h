/*
 * PCIe topology of one host from sysfs (the real /sys or a recorded tree with
 * the same layout): NVIDIA GPUs, RDMA HCAs, the bridges between them, NUMA
 * nodes, link speed/width, ACS, peermem, RoCE netdevs. Pure code: libc only.
 *
 * Distance classes are the ones nvidia-smi prints and NCCL reasons with
 * (design/nccl-rules.md section 2):
 *   PIX  same PCIe switch (at most one switch between the two devices)
 *   PXB  several switches, without the host bridge
 *   P2C  a GPU that reaches its CPU over the chip-to-chip link (C2C,
 *        Grace) to an HCA on that CPU's PCIe: GPU->C2C->CPU->PCIe->NIC;
 *        NCCL 2.27.3+ types it so (src/graph/paths.cc mergePathType), it is
 *        PHB (or NODE) to nvidia-smi and to older NCCL
 *   PHB  through one host bridge (same root complex, pci0000:xx)
 *   NODE different host bridges in one NUMA node (NCCL counts it as PHB)
 *   SYS  across NUMA nodes (the inter-socket link)
 * Switches are found as NCCL does: climbing from a device, the bridge just
 * above it is a downstream port and the next one up is the switch.
 *
 * Stable API: used by `fabcheck topo` and by GPU choice for GPUDirect (gdr/).
 */
#ifndef FC_PCITOPO_H
#define FC_PCITOPO_H

#include <stddef.h>
#include <stdint.h>

enum topo_dist {
	TOPO_X = 0, /* the same device */
	TOPO_PIX,
	TOPO_PXB,
	TOPO_P2C, /* GPU-NIC only: C2C to the CPU, then its PCIe (NCCL 2.27.3+) */
	TOPO_PHB,
	TOPO_NODE,
	TOPO_SYS,
	TOPO_UNKNOWN, /* a device not found, or not on PCI */
};

/* "X", "PIX", "PXB", "P2C", "PHB", "NODE", "SYS", "?" */
const char *topo_dist_name(enum topo_dist d);
/* Parses the names above (exact case); -EINVAL for others (NV#, SOC, ...). */
int topo_dist_parse(const char *s, enum topo_dist *out_p);

enum topo_kind { TOPO_KIND_OTHER, TOPO_KIND_BRIDGE, TOPO_KIND_GPU, TOPO_KIND_NIC };

#define TOPO_BDF_LEN 16	 /* "0000:07:00.0" */
#define TOPO_MAX_DEPTH 24 /* bridges between a host bridge and a device */
#define TOPO_MAX_PORTS 4
#define TOPO_VNIC_MAX 4 /* ports NCCL fuses into one NIC (net_ib.cc 2.24.3
			 * NCCL_IB_MAX_DEVS_PER_NIC) */

/* PCIe link state; 0 when sysfs does not say. */
struct topo_link {
	double cur_gts, max_gts; /* GT/s per lane */
	int cur_width, max_width; /* lanes */
};

/* One port of an RDMA HCA. */
struct topo_port {
	int port;
	char link_layer[16]; /* "InfiniBand", "Ethernet" */
	char state[24];	     /* "4: ACTIVE" as sysfs says it */
	char netdev[32];     /* RoCE: the netdev of the port's GIDs; "" */
	int mtu;	     /* netdev MTU in bytes; 0 unknown */
	int roce_v2_gid;     /* RoCE: best RoCE v2 GID index (IPv4 first); -1 none */
	int roce_v2_ipv4;    /* that GID is IPv4-mapped */
	int rate_mbps;	     /* ports/P/rate ("400 Gb/sec (4X NDR)") in Mb/s; 0 unknown */
};

/* ACS control register bits (PCIe spec, ACS extended capability +6). */
#define TOPO_ACS_SV 0x01 /* source validation */
#define TOPO_ACS_TB 0x02 /* translation blocking */
#define TOPO_ACS_RR 0x04 /* P2P request redirect */
#define TOPO_ACS_CR 0x08 /* P2P completion redirect */
#define TOPO_ACS_UF 0x10 /* upstream forwarding */
#define TOPO_ACS_EC 0x20 /* P2P egress control */
#define TOPO_ACS_DT 0x40 /* direct translated P2P */
/* Bits that send peer-to-peer traffic up to the root complex. */
#define TOPO_ACS_P2P_BREAKING (TOPO_ACS_RR | TOPO_ACS_CR | TOPO_ACS_EC)

struct topo_dev {
	char bdf[TOPO_BDF_LEN]; /* lowercase, 4-digit domain: "0000:07:00.0" */
	char name[32];		/* "GPU0" (bus order), "mlx5_0"; else the bdf */
	enum topo_kind kind;
	unsigned vendor, device, class_code; /* class_code: 0x030200 */
	unsigned subsys_vendor, subsys_device; /* subsystem_{vendor,device}; 0 unknown */
	int numa;			     /* -1 when unknown */
	char root[16];			     /* host bridge: "pci0000:00" */
	int depth;			     /* bridges in chain[] */
	char chain[TOPO_MAX_DEPTH][TOPO_BDF_LEN]; /* root port first */
	struct topo_link link;
	int acs_ctl; /* ACS control bits; -1 no ACS capability or unreadable */
	int acs_known; /* 1 when the extended config space could be read */
	int index;     /* GPU or NIC index; -1 for other devices */
	int c2c;       /* GPU: 1 reaches its CPU over C2C (topo_gpu_c2c_id), 0 not */
	int data_direct; /* a ConnectX-8 Data Direct DMA function (15b3:2100) */
	const struct topo_dev *dd; /* NIC: the Data Direct function it DMAs
				    * through (topo_set_data_direct), or NULL */
	int nports;
	struct topo_port ports[TOPO_MAX_PORTS];
	/* NIC: the virtual NIC NCCL fuses it into (topo_nccl_vnic), set with
	 * the release's rules: its ports in NCCL's order, vnic[0] the one whose
	 * place it takes; nvnic 0 when NCCL keeps the port on its own. */
	const struct topo_dev *vnic[TOPO_VNIC_MAX];
	int nvnic;
};

struct topo {
	char sysfs_root[256];
	int ndevs;
	struct topo_dev *devs; /* every PCI device, sorted by bdf */
	int ngpus, nnics;
	int *gpus, *nics; /* indexes into devs, GPUs in bus order, NICs by name */
	int peermem;	      /* 1 when a peer-memory module is visible */
	char peermem_how[96]; /* which file showed it */
	int gpu_vendor_nvidia_seen;
	int nccl_version; /* the NCCL release whose rules topo_nccl_* follow
			   * (22703 = 2.27.3); 0 not yet decided: see
			   * topo_nccl_rules */
	char nccl_how[160]; /* where that release was read, or why the newest */
	char vnic_how[256]; /* why ports were fused or not (topo_nccl_fuse) */
};

/*
 * Reads the tree under @sysfs_root ("/sys" when NULL). A root without
 * bus/pci/devices is an error (-ENOENT, logged naming the path); a tree
 * without GPUs or HCAs is not. On success *out_p is set; free with
 * topo_free().
 */
int topo_load(const char *sysfs_root, struct topo **out_p);
/*
 * Facts a live host gives beyond sysfs (mlx5 Data Direct, which only mlx5dv
 * tells): set once by the program (src/main.c: gdr_data_direct_probe, which
 * calls topo_set_data_direct); topo_load calls it on the live tree
 * (@sysfs_root NULL or "/sys"), never on a recorded one. NULL: none.
 */
extern int (*topo_live_probe)(struct topo *t);
void topo_free(struct topo *t);
/* 1 when a peer-memory module (nvidia_peermem, nv_peer_mem) is loaded under
 * @sysfs_root, with the file that says so (relative to it) in @how (may be
 * NULL); 0 when none is. */
int topo_peermem_probe(const char *sysfs_root, char *how, size_t len);

/* Canonical bus id ("0000:07:00.0") of "7:00.0", "0000:07:00.0",
 * "00000000:07:00.0" or upper case; -EINVAL when it is not a bus id. */
int topo_bdf_norm(const char *in, char out[TOPO_BDF_LEN]);

/* A device by bus id (any form above) or by name ("GPU0", "mlx5_0"). */
const struct topo_dev *topo_find(const struct topo *t, const char *bus_or_name);
const struct topo_dev *topo_gpu(const struct topo *t, int i); /* NULL past end */
const struct topo_dev *topo_nic(const struct topo *t, int i);

/* Distance class of two devices; TOPO_UNKNOWN when either is not found. */
enum topo_dist topo_distance(const struct topo *t, const char *bus_a, const char *bus_b);
enum topo_dist topo_dev_distance(const struct topo_dev *a, const struct topo_dev *b);

/*
 * The HCAs nearest to @gpu (bus id or name): every HCA at the smallest
 * distance, in name order, at most @max into @out. Returns the count (0 when
 * there is no HCA) or -ENOENT when @gpu is not a GPU of @t. *dist_p (may be
 * NULL) gets that distance.
 */
int topo_nearest_nics(const struct topo *t, const char *gpu, const struct topo_dev **out,
		      int max, enum topo_dist *dist_p);
/* The GPU nearest to @nic (lowest bus id among ties); NULL when none. */
const struct topo_dev *topo_nearest_gpu(const struct topo *t, const char *nic,
					enum topo_dist *dist_p);

/*
 * GPUs that reach their CPU over the chip-to-chip link (C2C: Grace Hopper,
 * Grace Blackwell). NCCL learns it from NVML (src/graph/xml.cc
 * ncclTopoGetXmlFromGpu: NVML_FI_DEV_C2C_LINK_COUNT, then a link whose
 * NVML_FI_DEV_C2C_LINK_GET_STATUS is 1, on compute capability 9.0+; topo.cc
 * ncclTopoAddC2c links GPU and CPU by C2C). topo reads a sysfs fact instead,
 * so recorded trees and hosts without the driver are judged alike: the PCI
 * device id is one the kernel lists for the superchip GPUs with coherent C2C
 * memory (drivers/vfio/pci/nvgrace-gpu/main.c nvgrace_gpu_vfio_pci_table:
 * GH200 0x2342, 0x2345, 0x2348; GB200 0x2941; GB300 0x31c2). A GPU missing
 * from that list, or whose C2C link is down, is judged as PCIe:
 * topo_set_c2c overrides the fact for one GPU (bus id or name; -ENOENT when
 * it is not a GPU of @t).
 */
int topo_gpu_c2c_id(unsigned vendor, unsigned device);
int topo_set_c2c(struct topo *t, const char *gpu, int c2c);

/*
 * mlx5 Data Direct (ConnectX-8, GB300): the HCA's DMA goes through a PCI
 * function of its own (15b3:2100, "ConnectX-8 Data Direct" in the kernel's
 * drivers/infiniband/hw/mlx5/data_direct.c), which the kernel ties to the HCA
 * by the VPD "VU" keyword and the firmware's VUID; sysfs does not show the
 * tie. rdma-core gives it as mlx5dv_get_data_direct_sysfs_path(3) (its sysfs
 * path, "devices/pci0000:00/.../BDF"), and NCCL 2.27.3+ lists the HCA as
 * <hca>_dma with that path as its position (net_ib/init.cc; by default only
 * that device, NCCL_IB_DATA_DIRECT=1). topo_set_data_direct records it for
 * HCA @hca (name): @path as mlx5dv gives it, with or without /sys, or a bus
 * id; -ENOENT when @hca is not a NIC of @t or @path names no PCI function of
 * it. From then on NCCL's choices (topo_gdr_distance, topo_nccl_local, the
 * pairs) use the Data Direct function's place, and topo_nccl_name names the
 * HCA as NCCL does; topo_find takes that name too.
 */
int topo_set_data_direct(struct topo *t, const char *hca, const char *path);
/* "mlx5_0_dma" for an HCA with Data Direct, "mlx5_0+mlx5_1" for a port NCCL
 * fuses with another (topo_nccl_fuse), else its name, into @buf. */
const char *topo_nccl_name(const struct topo_dev *nic, char *buf, size_t len);

/*
 * The class NCCL gives the path between a GPU and a NIC (either order; for
 * other pairs, topo_dev_distance): P2C where the GPU is C2C and the NIC hangs
 * off the PCIe of the same CPU (PHB or NODE: one NUMA node, NCCL's CPU node),
 * as src/graph/paths.cc (2.27.5+ mergePathType; 2.27.3 ncclTopoComputePaths)
 * turns C2C + PHB into P2C; the PCIe class otherwise (a NIC that shares the
 * GPU's own PCIe switch stays PIX/PXB, one on the other socket SYS).
 */
enum topo_dist topo_gdr_distance(const struct topo_dev *a, const struct topo_dev *b);

/*
 * Whether NCCL uses GPUDirect RDMA between a GPU and a NIC at @path (the
 * class above), and how (src/graph/paths.cc ncclTopoCheckGdr): TOPO_GDR_OFF,
 * TOPO_GDR_DEFAULT, or TOPO_GDR_PCI (mode "PCI": the dma-buf is exported
 * with the PCIe mapping type). @version is NCCL's code (2.27.3 = 22703);
 * @env the user's NCCL_NET_GDR_LEVEL and NCCL_NET_GDR_C2C (NULL: defaults).
 *   < 2.26     no C2C: P2C is PHB; on at <= PXB (or the level); one mode
 *   2.26       NCCL_NET_GDR_C2C (default 0) makes PHB over C2C count as C2C
 *   2.27.3+    P2C; NCCL_NET_GDR_C2C defaults to 1 and P2C counts as C2C
 *   2.29.2+    the default level is P2C with NCCL_NET_GDR_C2C=1, else PXB
 * From 2.26 the mode is PCI where the GPU is C2C and the path is not the C2C
 * one (a NIC reached over PCIe: PIX, PXB, SYS), Default otherwise.
 * topo_nccl_pcie_map is that mode rule alone (newest NCCL): 1 where NCCL
 * maps the dma-buf for PCIe once it uses GPUDirect RDMA on the path.
 */
enum topo_gdr_mode { TOPO_GDR_OFF, TOPO_GDR_DEFAULT, TOPO_GDR_PCI };
struct topo_gdr_env {
	int level;   /* NCCL_NET_GDR_LEVEL as a class (TOPO_X = LOC); -1 unset */
	int gdr_c2c; /* NCCL_NET_GDR_C2C: 0, 1; -1 unset */
};
enum topo_gdr_mode topo_nccl_gdr(enum topo_dist path, int c2c, int version,
				 const struct topo_gdr_env *env);
int topo_nccl_pcie_map(enum topo_dist path, int c2c);
const char *topo_gdr_mode_name(enum topo_gdr_mode m); /* "off", "Default", "PCI" */

/*
 * NCCL's choices on this tree (topo/pcitopo_nccl.c, design/nccl-rules.md
 * section 4), by the rules of the release topo_nccl_rules gives.
 * topo_nccl_class: the class NCCL gives a distance (NODE is PHB).
 * topo_nccl_distance: NCCL's class of the path between two devices, with
 * Broadcom PEX switches flattened as that release flattens them, P2C on
 * Grace and a Data Direct HCA at its DMA function.
 * topo_nccl_net: 1 when NCCL lists @nic as a network device (an active
 * InfiniBand or Ethernet port; a tree that records no port is taken as one).
 * topo_nccl_nic_mbps: its speed as NCCL reads it (the fastest active port;
 * of a fused virtual NIC's first port, its ports' speeds added).
 * topo_nccl_local: the devices of the other kind NCCL counts local to @from
 * (a GPU or a NIC): highest path bandwidth (PCIe links and the NIC's speed),
 * then lowest class; in NCCL's node order; at most @max.
 * topo_nccl_gpu_nic: the NIC NCCL gives @gpu (bus id or name) on @channel
 * (0: its first; a fused virtual NIC as its first port, topo_nccl_name
 * names it); NULL when no NIC or not a GPU. topo_nccl_nic_gpu: the GPU
 * NCCL pairs with @nic (or with the virtual NIC it is a port of); NULL when
 * none of its local GPUs uses it.
 * topo_nccl_used: 1 when some GPU's NIC on some channel is @nic (or the
 * virtual NIC it is a port of).
 * topo_nccl_fused_into: the switch (bus id) that Broadcom PEX switch @sw is
 * fused into as that release flattens them (topo.cc
 * ncclTopoFlattenBcmSwitches), its devices then hanging from that one; NULL
 * when NCCL keeps @sw as it is.
 */
enum topo_dist topo_nccl_class(enum topo_dist d);
enum topo_dist topo_nccl_distance(const struct topo *t, const struct topo_dev *a,
				  const struct topo_dev *b);
int topo_nccl_net(const struct topo_dev *nic);
int topo_nccl_nic_mbps(const struct topo_dev *nic);
int topo_nccl_local(const struct topo *t, const struct topo_dev *from,
		    const struct topo_dev **out, int max);
const struct topo_dev *topo_nccl_gpu_nic(const struct topo *t, const char *gpu, int channel);
int topo_nccl_used(const struct topo *t, const struct topo_dev *nic);
const char *topo_nccl_fused_into(const struct topo *t, const char *sw);
/*
 * The NCCL release whose rules the choices above follow, as a code (2.21.5 =
 * 22105): the one topo_nccl_set_version gave, else the one installed
 * (topo_nccl_version_probe), else TOPO_NCCL_NEWEST; *how_p (may be NULL)
 * gets where it was read or that none was found. Probed once per tree.
 */
#define TOPO_NCCL_NEWEST 23007 /* the newest release these rules were read in */
int topo_nccl_rules(const struct topo *t, const char **how_p);
void topo_nccl_set_version(struct topo *t, int version, const char *how);
/*
 * The installed NCCL's release code: libnccl.so.2 as the loader finds it (or
 * FABCHECK_LIBNCCL), by its ncclGetVersion; else nccl.h's NCCL_MAJOR/MINOR/
 * PATCH in /usr/include, /usr/local/include or $CUDA_HOME/include. 0 when
 * neither is found. @how gets the file it read.
 */
int topo_nccl_version_probe(char *how, size_t len);
/* "2.21.5" of 22105 into @buf. */
const char *topo_nccl_version_str(int code, char *buf, size_t len);
/*
 * NCCL's virtual NICs (topo/pcitopo_vnic.c): the ports of one card that the
 * release topo_nccl_rules gives fuses into one network device, named
 * "mlx5_0+mlx5_1", at the speed of its ports together, in the place of its
 * first port. topo_nccl_fuse sets them (topo_nccl_rules and
 * topo_nccl_set_version call it), reading NCCL_IB_MERGE_NICS,
 * NCCL_IB_MERGE_VFS, NCCL_NET_MERGE_LEVEL and NCCL_TOPO_DUMP_FILE from the
 * environment; t->vnic_how says what it decided. topo_nccl_vnic: the first
 * port of the virtual NIC @nic is in (the device NCCL's choices return for
 * it), or @nic itself when it is not fused. topo_nccl_netdev: 1 when @nic is
 * a network device of NCCL's topology: listed (topo_nccl_net) and not a
 * fused port other than the first.
 */
void topo_nccl_fuse(struct topo *t);
const struct topo_dev *topo_nccl_vnic(const struct topo *t, const struct topo_dev *nic);
int topo_nccl_netdev(const struct topo *t, const struct topo_dev *nic);
/* Whether two PCI bus ids ("0000:17:00.0") are functions of one device, the
 * ports of one card, NCCL's PORT level: of one length and equal but for the
 * last character (src/graph/topo.cc ncclTopoGetPath at v2.24.3-1,
 * "multiPort"); what NCCL 2.20.3+ fuses by default (doc/nccl-versions.md).
 * 0 for an empty id. */
int topo_nccl_same_card(const char *a, const char *b);

/*
 * A BlueField DPU's function (its own SoC runs the host side of these
 * ports): PCI ids of the kernel's mlx5_core_pci_table
 * (drivers/net/ethernet/mellanox/mlx5/core/main.c: 0xa2d2 BlueField,
 * 0xa2d6 BlueField-2, 0xa2dc BlueField-3 integrated ConnectX).
 */
int topo_nic_is_dpu(const struct topo_dev *nic);
const struct topo_dev *topo_nccl_nic_gpu(const struct topo *t, const char *nic);

/*
 * Bridges on the path between @a and @b that have ACS bits in @mask set
 * (only for paths inside a switch: PIX or PXB). Writes up to @max pointers
 * to @out; returns the count.
 */
int topo_acs_on_path(const struct topo *t, const struct topo_dev *a,
		     const struct topo_dev *b, int mask, const struct topo_dev **out,
		     int max);

/* ACS control bits from raw config space (little-endian, as the sysfs
 * `config` file holds it); -1 when there is no ACS capability, -ENODATA
 * when @len does not reach the extended space (non-root reads 64 bytes). */
int topo_acs_from_config(const uint8_t *cfg, size_t len);

/* "16.0 GT/s PCIe" -> 16.0; 0 when not a speed. */
double topo_parse_gts(const char *s);

#endif
