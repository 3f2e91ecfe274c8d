/*
 * Naming the failed part: evidence per port (port counters, `ethtool -S`
 * PHY counters and bit error rates, `ethtool -m` module readings, PCIe link
 * and AER, `perfquery` of both ends of an InfiniBand cable) read before and
 * after a test, and rules (diag/rules.c) that turn it into a most likely
 * part with its evidence and the next step to confirm it.
 *
 * Evidence travels as "snapshots": a JSON object mapping a relative file
 * path to the text that was read ("counters/symbol_error": "0\n"). The same
 * object is written to and read from an evidence folder (doc/diagnose.md),
 * so a live run and `fabcheck diagnose DIR` judge the same input.
 */
#ifndef FC_DIAG_H
#define FC_DIAG_H

#include <jansson.h>
#include <stdint.h>
#include <stdio.h>

#define DIAG_MAX_PCIE 16

/* Vendor-published thresholds (see diag/rules.c for their sources). */
#define DIAG_PRE_FEC_BER_MAX 2.4e-4
#define DIAG_POST_FEC_BER_MAX 1e-12
#define DIAG_PHYS_BER_MAX 1e-12 /* IBTA link target, ibdiagnet --ber_thresh */

enum diag_class {
	DIAG_C_NONE = 0,
	DIAG_C_PHYS,	  /* symbol, CRC, integrity, receive errors: the signal */
	DIAG_C_POSTFEC,	  /* errors FEC could not correct (counted as PHYS too) */
	DIAG_C_CORRECTED, /* bits FEC corrected (pre-FEC BER) */
	DIAG_C_BITS,	  /* bits received by the PHY (the BER's denominator) */
	DIAG_C_FLAP,	  /* link went down or retrained */
	DIAG_C_REMOTE,	  /* remote physical errors: a link further upstream */
	DIAG_C_DROP,	  /* discards, buffer overruns, out of buffer */
	DIAG_C_SEQ_IN,	  /* gaps in what this port received (loss into it) */
	DIAG_C_SEQ_OUT,	  /* loss of what this port sent: sequence NAKs it received,
			   * duplicates of requests it had answered (its reply lost) */
	DIAG_C_SEQ,	  /* retries, timeouts, duplicates (loss either way) */
	DIAG_C_PAUSE,	  /* pause frames, credit waits (flow control at work) */
	DIAG_C_ECN,	  /* ECN marks and CNPs (congestion control at work) */
	DIAG_C_CONFIG,	  /* constraint (partition) and relay errors */
	DIAG_C_RNR,	  /* receive not ready: RNR NAKs, no receive posted (loss
			   * unless the test's own receive cap caused it) */
	DIAG_C_NCLASS
};

/* The class of counter @name, as `ethtool -S`, sysfs or perfquery names it. */
enum diag_class diag_counter_class(const char *name);
const char *diag_class_name(enum diag_class c);

struct diag_pcie {
	char role[8]; /* "hca", "gpu", "bridge" */
	char bdf[24];
	double cur_gts, max_gts;
	int cur_width, max_width;
	double other_gts;      /* the other reading's speed and width (before/ */
	int other_width;       /* when cur_ is after/): the higher is judged */
	int mps;	       /* max payload size in bytes; 0 unknown */
	int under_load;	       /* cur_ was read during the test (during/) */
	long long aer[3];      /* correctable, nonfatal, fatal: deltas */
	int aer_known;
	double ceiling_gbps;   /* payload ceiling of the link as trained */
};

#define DIAG_MAX_LANES 16 /* CMIS bank 0 and 1: OSFP and QSFP-DD have 8 */

struct diag_module {
	int known;
	double temp_c, temp_warn_c, temp_alarm_c; /* 0 when not given */
	double volt, volt_lo_alarm, volt_hi_alarm;
	double rx_lo_alarm_dbm;
	/* the module's own thresholds (SFF-8636 page 3 / CMIS page 02h, as
	 * ethtool sff-common.c sff_show_thresholds prints them): dBm 99 and
	 * mA 0 when not given */
	double rx_lo_warn_dbm, rx_hi_warn_dbm, tx_lo_alarm_dbm, tx_lo_warn_dbm, tx_hi_warn_dbm;
	double bias_lo_alarm_ma, bias_hi_alarm_ma, bias_lo_warn_ma, bias_hi_warn_ma;
	double volt_lo_warn, volt_hi_warn; /* V; 0 when not given */
	/* CMIS Module State as ethtool cmis.c cmis_show_mod_state prints it
	 * ("0x03 (ModuleReady)"): the word in parentheses; "" not printed */
	char mod_state[24];
	char alarms[256];  /* module-level flags that are On, then those of
			    * the lanes in use (after diag_module_judge) */
	/* per lane, as read: -1 when not printed */
	int nlanes;	   /* highest channel read */
	double lane_rx_mw[DIAG_MAX_LANES], lane_tx_mw[DIAG_MAX_LANES];
	double lane_bias_ma[DIAG_MAX_LANES];
	char lane_flags[DIAG_MAX_LANES][128]; /* "Laser rx power low alarm, ..." */
	/* lane lists of the module's signals (ethtool cmis.c
	 * cmis_show_signals, qsfp.c sff8636_show_signals: "Tx fault : [ No,
	 * Yes, ... ]", lane 1 first; "None" when no lane is flagged): bit per
	 * lane; lol: CDR loss of lock */
	unsigned tx_fault, tx_los, rx_los, tx_lol, rx_lol;
	double br_mbd;	    /* SFF-8636 nominal lane signalling rate (MBd); 0 not read */
	unsigned app_lanes; /* host lanes with an active application code, as
			     * SONiC's 'show interfaces transceiver eeprom'
			     * prints them (ethtool -m prints none); 0 not read */
	/* diag_module_judge: the lanes the link uses */
	unsigned used;	   /* bit per lane judged */
	unsigned dark;	   /* bit per lane with no light or its transmitter off */
	int width;	   /* lanes the link uses (0 unknown) */
	double rx_dbm_min; /* lowest receive power of the lanes used; 99 unknown */
	int rx_min_lane;   /* its lane, from 1; 0 unknown */
	int weak_lane;	   /* a lane DIAG_LANE_IMBALANCE_DB below the others, or 0 */
	double weak_db;	   /* how far below the mean of the others */
};

/* Lane @i (from 0) of @m has light and its transmitter on (diag/parse_module.c). */
int diag_module_lane_lit(const struct diag_module *m, int i);

/*
 * What a port should run at (diag/expect.c): the lanes its module is set
 * for (the active application's host lanes, else every lane with light or
 * a transmitter fault) and the rate the same port runs at on its peers.
 * One model for `diagnose` (each test's ports, and the rack's over every
 * folder) and `preflight` (each port against the same port on the rack's
 * other nodes).
 */
struct diag_peer_rate {
	const char *node;
	double gbps;
	int width; /* lanes; 0 unknown */
};

struct diag_expect {
	double gbps;	/* what the port should run at; 0: nothing says more
			 * than it runs at */
	int width;	/* its lanes then; 0 unknown */
	int likely;	/* a transmitter fault, the module's application, or
			 * most of two or more peers say so */
	unsigned fault; /* module lanes with a transmitter fault (bit per lane) */
	int peers_at;	/* how many peers run at gbps (0: the module set it) */
	char why[600];	/* what set it, for a line of evidence */
	char part[96];	/* the part the link modes name (diag_expect_link); "" none */
};

/* What both ends of an Ethernet link support, from `ethtool DEV`
 * (diag/linkmodes.c): the fastest mode of each list in Mb/s with its lanes;
 * 0 when the list is not printed (the partner's: not reported). */
struct diag_link {
	int known;		/* Supported link modes read */
	long sup_mbps, adv_mbps, lp_mbps, speed_mbps;
	int sup_lanes, adv_lanes, lp_lanes, lanes;
};

/* Pure. Parses `ethtool DEV` text into @l; -1 when it lists no supported
 * link mode. */
int diag_parse_link(const char *text, struct diag_link *l);
/* What module @m is built to carry in Mb/s (0 not known: no SFF-8636 "BR,
 * Nominal", or a PAM4 rate it cannot state), its lanes in @lanes
 * (diag/linkmodes.c). */
long diag_module_mbps(const struct diag_module *m, int *lanes);
/* Raises @e (after diag_expect_rate) to the fastest mode both ends
 * support when the port at @gbps runs below it, naming in e->part what
 * holds it: its own advertised modes, the partner not reported, or the
 * link's training. */
void diag_expect_link(double gbps, const struct diag_link *l, const struct diag_module *m,
		      struct diag_expect *e);
/* A note when the port runs at the most its partner advertises or its
 * module @m (NULL: not read) is built for, below the HCA's own modes (""
 * otherwise). */
void diag_link_note(const struct diag_link *l, const struct diag_module *m, double gbps, char *buf,
		    size_t len);

/* Pure. @gbps on @width lanes (0 unknown), its module @m (NULL or not
 * known: not read) and the same port on @npeers other nodes. */
void diag_expect_rate(double gbps, int width, const struct diag_module *m,
		      const struct diag_peer_rate *peers, int npeers, struct diag_expect *e);
/* "200 Gb/s on 2 lanes" (@width 0: the rate alone). */
void diag_rate_text(double gbps, int width, char *buf, size_t len);
/* Over every folder's evidence (each set diagnosed: its "evidence"): a
 * port below the rate most of two or more other nodes run the same port
 * at, named once (rule "port_peers"), added to @doc's "diagnosis"; the
 * same port is the one on the same rail where @rails (diag_rails_read;
 * NULL: none) places both, else the same device and port
 * (diag/peerport.c). */
void diag_peers(json_t *doc, const json_t *sets, const json_t *rails);

/* The peers of a port (diag/peerport.c). How two ports were found the
 * same. */
enum { DIAG_PEER_BY_NAME = 1, DIAG_PEER_BY_RAIL = 2 };
/* The rail of @node's port @dev:@port in the rail set @set
 * (pf_check_rails' "rail_of"), or -1. */
int diag_rail_of(const json_t *set, const char *node, const char *dev, int port);
/* Evidence ports @a and @b (diag_port_json) of two nodes are the same port:
 * DIAG_PEER_BY_RAIL where @rails places both (on one rail), else
 * DIAG_PEER_BY_NAME for the same device and port; 0 otherwise (and on
 * one node). */
int diag_same_port(const json_t *rails, const json_t *a, const json_t *b);
/* " (its peers: the ports on its rail, rail R (NAME), matched by BY)"
 * when @rails places evidence port @e, else "". */
void diag_peer_note(const json_t *rails, const json_t *e, char *buf, size_t len);
/* diagnose --rails-from (diag/dgrails.c): @path is a capture (a folder
 * with manifest.json, or a file: .tar.gz) and not an evidence folder. */
int diag_is_capture(const char *path);
/* The rail set of the nodes' captures @paths (@n), matched as preflight
 * --from matches them, with "matched_by" and "captures" (their hosts);
 * NULL (said on stderr) when one could not be read
 * (checks/preflight/pf_dgrails.c). */
typedef json_t *diag_rails_reader(char *const *paths, int n);
struct fc_ctx;
/* fabcheck diagnose (diag/cmd_diagnose.c); @read reads --rails-from. */
int diag_cmd(struct fc_ctx *ctx, int argc, char **argv, diag_rails_reader *read);
/* A lane a folder's module_lanes names (diag/modlanes.c) that the
 * comparison with the other nodes (module_peers, module_rx_peers) names
 * too is one problem: the lane's evidence is added to the rack's entry in
 * @out and the module_lanes entries leave @out and each set's diagnosis
 * (diag/modpeers.c). */
void diag_fold_lanes(json_t *out, json_t *sets);
/* How the peers over every folder were matched into @doc's "peers". */
void diag_peers_note(json_t *doc, const json_t *sets, const json_t *rails);

/* Lane imbalance in dB (see diag/rules.c for the figure's basis). */
#define DIAG_LANE_IMBALANCE_DB 2.0

/* One port's evidence over a test: counter deltas by class, BER, module,
 * PCIe path, the far end. */
struct diag_port {
	char node[128], dev[64], netdev[32], link_layer[16];
	int port, width;		   /* width: lanes, from the rate; 0 unknown */
	double rate_gbps, seconds;
	int mtu_before, mtu_after;
	long long sum[DIAG_C_NCLASS];	   /* local deltas per class */
	long long far_sum[DIAG_C_NCLASS];  /* the switch port at the other end */
	long long pkts;			   /* packets sent and received, 0 unknown */
	char detail[DIAG_C_NCLASS][160];   /* "symbol_error +12, ..." */
	char far_detail[DIAG_C_NCLASS][160];
	double pre_ber, post_ber;	   /* < 0: not computed */
	double bits;			   /* bits received in the window; 0 unknown */
	int bits_estimated;		   /* 1: rate x time, no rx_bits_phy */
	double phys_ber;		   /* physical errors per bit; < 0 unknown */
	long long lane_corr[DIAG_MAX_LANES]; /* rx_err_lane_N_phy deltas */
	int nlane_corr;			   /* lanes with such a counter */
	/* flow and congestion control over the window (diag/port.c) */
	double pause_s;			   /* time told to pause (received); < 0 unknown */
	int pause_estimated;		   /* 1: frames x 65535 quanta at the port rate */
	long long pause_frames;		   /* pause frames received; -1 unknown */
	char pause_detail[160];
	long long ecn_marked, cnp_sent, cnp_handled; /* -1 when not read */
	/* InfiniBand PortXmitWait as time (diag/port.c): this port waiting for
	 * credits to send, and the switch port at the other end waiting to send
	 * to this one; < 0 unknown */
	double wait_s, far_wait_s;
	char wait_detail[160], far_wait_detail[160];
	/* configuration and the card */
	char trust[8];			   /* "pcp", "dscp"; "" unknown */
	char gid_type[16];		   /* "RoCE v2", "IB/RoCE v1" (sysfs gid_attrs); "" unknown */
	int pfc;			   /* a bit per priority with PFC on; -1 unknown */
	char hca_bdf[24];		   /* the HCA's PCI function; "" unknown */
	char fw_ver[64];		   /* the HCA's firmware (sysfs fw_ver); "" unknown */
	char module_pn[48];		   /* its module's part number (ethtool -m "Vendor PN"); "" unknown */
	/* devlink dev info of the HCA (diag/devlink.c); "" unknown */
	char fw_running[32], fw_stored[32], fw_psid[32];
	char health[240];		   /* card reporters in error (devlink health) */
	int have_ib, have_phy, have_far, have_pcie;
	char far_why[160];		   /* why the far end is not seen */
	struct diag_module mod;
	struct diag_link link; /* ethtool DEV; known 0 when not read */
	int npcie;
	struct diag_pcie pcie[DIAG_MAX_PCIE];
	json_t *notes; /* strings: what is not exposed, saturated, reset */
	json_t *reporters; /* the card's reporters in state healthy: {NAME: errors
			    * recovered from} (devlink health show), or NULL */
};

/* The most a snapshot holds, read by a worker or from a folder, or sent to
 * the controller: one file (ethtool -S of a big NIC is ~100 KiB), all. */
#define DIAG_SNAP_FILE_MAX (1u << 20)
#define DIAG_SNAP_TOTAL_MAX (16u << 20)
/* The most an evidence folder's test.json may be (a pair document with
 * every size's samples is some 100 KiB). */
#define DIAG_TEST_MAX (16u << 20)

/* A snapshot from the files under @dir (recursively, 3 levels). Returns
 * NULL and logs naming the file when one cannot be read or is too big. */
json_t *diag_snap_read_dir(const char *dir);
/* 1 when @rel is a name a snapshot may hold (relative, no "..", printable,
 * at most 200 bytes). */
int diag_snap_path_ok(const char *rel);
/* Adds the file @rel (@len bytes of @text) to @snap within the bounds above
 * (*@total: the snapshot's bytes so far), @where naming it in messages. A
 * file that is not text reads "(not text)", or with @strict (a reading
 * fabcheck wrote) is refused. 0, or a negative errno (logged). */
int diag_snap_take(json_t *snap, const char *rel, const char *text, size_t len, size_t *total,
		   const char *where, int strict);
/* A reading (before/, during/, after/) as --save-evidence writes it: a
 * capture (core/bundle.h) holding the snapshot's files (diag/snapcap.c).
 * The bundle is checked whole first; NULL after logging what is wrong,
 * naming the file. */
json_t *diag_snap_read_bundle(const char *dir);
struct fc_bundle;
/* The snapshot of port @dev/@port (net device @netdev, "" none) in the
 * opened capture @b (a whole node's: `fabcheck capture`); @dev NULL: every
 * file (a reading). NULL after logging a file that cannot be read. */
json_t *diag_snap_of_port(const struct fc_bundle *b, const char *dev, int port,
			  const char *netdev);
/* Writes @snap, the reading @phase of port @dev/@port of @node, as the
 * capture folder @phase of the folder @dfd (@shown names @dfd). 0, or a
 * negative errno (logged). */
int diag_snap_write_bundle(int dfd, const char *phase, const char *shown, const json_t *snap,
			   const char *node, const char *dev, int port);
/* A copy of @after with @during's files as "during/FILE" (either may be
 * NULL): the reading taken while the test ran travels with the last one. */
json_t *diag_snap_with_during(const json_t *after, const json_t *during);

/* Reads the PCI functions on the sysfs path of @link (bridges first, the
 * device last, as ROLE @last_role) into "pcie/ROLE-BDF/" entries of @snap:
 * link speed and width, aer_dev_*, max_payload from config space. @seen
 * (an object) skips functions already read. Returns how many were found. */
int diag_snap_pcie(json_t *snap, const char *link, const char *last_role, json_t *seen);

/* The PCIe link of RDMA device @ibdev as trained, with its payload
 * ceiling: {bdf, gts, width, max_gts, max_width, max_payload_bytes,
 * ceiling_gbps}, or JSON null when it has no PCIe link in sysfs. */
json_t *diag_hca_pcie_json(const char *root, const char *ibdev);

/* Evidence of one port from its before and after snapshots. Fills @p (its
 * node, dev and port set by the caller); release with diag_port_release. */
void diag_port_from_snaps(struct diag_port *p, const json_t *before, const json_t *after);
void diag_port_release(struct diag_port *p);
/* The smallest PCIe payload ceiling on the port's path (diag/ceiling.c):
 * {gbps, role ("hca" or "gpu"), bdf, gts, width, max_gts, max_width,
 * max_payload_bytes, downtrained, basis}, or NULL when no PCIe link of
 * the HCA or the GPU was read. */
json_t *diag_path_ceiling_json(const struct diag_port *p);
/* The port as JSON (deltas by class, BER, module, PCIe, notes). */
json_t *diag_port_json(const struct diag_port *p);

/* Parsers of recorded text (pure). */
int diag_parse_module(const char *ethtool_m, struct diag_module *m);
/* The module's part number ("Vendor PN" of ethtool -m, SFF-8636 and CMIS
 * alike: ethtool sff-common.c) into @buf; "" when not printed. */
void diag_module_pn(const char *ethtool_m, char *buf, size_t len);
/* Which lanes of @m the link uses: the first @width lanes with light and
 * their transmitter on (@width 0: every lane with light); lanes with no
 * light (0 mW, "-inf dBm") or a transmitter off are "not in use". Fills
 * used, dark, rx_dbm_min, the lane flags into alarms, the weak lane. */
void diag_module_judge(struct diag_module *m, int width);
/* What module @m says of itself (diag/modlimits.c): its flags that are On,
 * its temperature and supply against its thresholds, then each lane in use
 * against its thresholds (diag_module_limits): 1 an alarm, 0 a warning,
 * -1 nothing; what in @why ("" when nothing). After diag_module_judge. */
int diag_module_verdict(const struct diag_module *m, char *why, size_t len);
/* @m's readings that peers compare (diag/modpeers.c), after
 * diag_module_judge: {"pn": @pn, "readings": {"temperature", "supply
 * voltage", "lane N transmit power", "lane N laser bias" (lanes in use):
 * {"value", "warn_lo", "warn_hi" (null: not given), "unit"}}}; null when
 * @m was not read. */
json_t *diag_module_readings(const struct diag_module *m, const char *pn);
/* The readings of @own (as diag_module_readings) against the same port's
 * module on @k other nodes (@peers; those of another part number left
 * out): each reading outside its peers' band that is nearer its own warning
 * threshold than their median is, into @why ("; " between), @part the part
 * the first points at; returns how many. */
int diag_module_peer(const json_t *own, const json_t *const *peers, int k, char *why, size_t len,
		     const char **part);
/* Each lane's receive power of module @own (as diag_module_readings:
 * "lanes_rx_dbm") against the same lane of the same port's module on @k
 * other nodes (@peers): a lane more than DIAG_RX_PEER_DB (its source in
 * diag/modpeers.c) below their median, with two or more of them, into @why
 * and its number into @lanes ("2, 3"); returns how many lanes. */
#define DIAG_RX_PEER_DB 4.0
int diag_rx_peer(const json_t *own, const json_t *const *peers, int k, char *why, size_t len,
		 char *lanes, size_t llen);
/* What to do about @n lanes (@lanes) diag_rx_peer named. */
void diag_rx_peer_next(const char *lanes, int n, char *buf, size_t len);
/* Each lane in use of @m (after diag_module_judge) against the module's
 * other lanes in use (diag/modlanes.c, where the rule and its sources
 * are): its transmit power, laser bias and receive power (lanes of @rx_skip
 * left out) outside the band of the others and more than half the way from
 * their median to the module's own warning threshold, into @why; @part the
 * end the first points at (this transceiver's lane transmitter, or the far
 * end's transmitter or fibre). Returns how many. */
int diag_module_lanes(const struct diag_module *m, unsigned rx_skip, char *why, size_t len,
		      char *part, size_t plen);
/* @m's lane flags (Tx fault when @faults, Tx/Rx loss of signal and of lock
 * on the lanes the port uses) into @why, each named at the end that
 * transmits, @part the first's (diag/modlanes.c). Returns how many. */
int diag_module_signals(const struct diag_module *m, int faults, char *why, size_t len,
			char *part, size_t plen);
/* The command that reads a port's module into @buf: 'ethtool -m NETDEV',
 * or where the port has no network interface (an InfiniBand port without
 * IPoIB) 'mlxlink -d BDF -m' through its HCA (@bdf, else @dev); returns
 * @buf. 'ethtool -m' takes a network interface only (ethtool(8): DEVNAME);
 * mlxlink -d takes the HCA's device, -m shows its module (NVIDIA MFT
 * manual, mlxlink Utility). @link: the link's speed and lanes instead
 * ('ethtool NETDEV', 'mlxlink -d BDF'). */
const char *diag_module_cmd(const char *netdev, const char *dev, const char *bdf, int link,
			    char *buf, size_t len);
/* What to do about a lane diag_module_lanes, or a flag diag_module_signals,
 * whose module @cmd reads (diag_module_cmd). */
void diag_module_lanes_next(const char *cmd, char *buf, size_t len);
void diag_module_signals_next(const char *cmd, char *buf, size_t len);
/* What to do about a port diag_module_peer named (@cmd reads its module). */
void diag_module_peer_next(const char *cmd, char *buf, size_t len);
/* The link width of a sysfs rate ("400 Gb/sec (4X NDR)" -> 4); 0 unknown. */
int diag_parse_width(const char *sysfs_rate);
json_t *diag_parse_perfquery(const char *text); /* NULL when no counter */
double diag_parse_rate(const char *sysfs_rate);	/* "100 Gb/sec (4X EDR)" -> 100 */
/* Trust mode ("pcp", "dscp") of `mlnx_qos -i` or sysfs qos/trust into @out,
 * "" when none; PFC priorities of `mlnx_qos -i`, `dcb pfc show dev` or eight
 * 0/1 flags as a bit mask, -1 unknown. */
void diag_parse_trust(const char *text, char *out, size_t len);
int diag_parse_pfc(const char *text);
/* `devlink health show`: [{handle, reporter, state, error}], NULL when none. */
json_t *diag_parse_devlink(const char *text);
/* `devlink dev info` (diag/devlink.c): [{handle, psid, running, stored}]
 * in output order, each key only when printed; NULL when no handle. */
json_t *diag_parse_devlink_info(const char *text);
/* The entry of `devlink dev info` for PCI function @bdf, or NULL. */
const json_t *diag_devlink_find(const json_t *list, const char *bdf);
/* The firmware's state from its running and stored versions. */
enum diag_fw_state {
	DIAG_FW_UNKNOWN = 0, /* a version not printed */
	DIAG_FW_ACTIVE,	     /* the stored firmware is the one running */
	DIAG_FW_PENDING,     /* another firmware is flashed: active after a reset */
	DIAG_FW_UNREADABLE,  /* the driver could not read a version (0 / U32_MAX) */
};
enum diag_fw_state diag_fw_state(const char *running, const char *stored);
/* "unknown", "active", "pending", "unreadable". */
const char *diag_fw_state_name(enum diag_fw_state st);
/* The HCA's versions from `devlink dev info` of its PCI function (the
 * first handle of @text) into @p's fw_running, fw_stored and fw_psid. */
struct diag_port;
void diag_port_fw(struct diag_port *p, const char *text);
/* The largest counter value diagnose takes (2^61): see diag_count. */
#define DIAG_COUNT_MAX (1LL << 61)
/* TOTAL_ERR_COR / _NONFATAL / _FATAL of an aer_dev_* file; -1 unknown (or
 * negative, or above DIAG_COUNT_MAX). */
long long diag_parse_aer(const char *text);

/* PCIe payload ceiling in Gb/s of @gts x @width at @mps bytes: encoding
 * (8b/10b up to 5 GT/s, 128b/130b up to 32 GT/s, FLIT at 64 GT/s), TLP
 * framing per packet and DLLP traffic. */
double diag_pcie_gbps(double gts, int width, int mps);
/* The first function's PCIe link in `lspci -vvv` text (diag/lspci.c):
 * LnkSta as cur_, LnkCap as max_, DevCtl's MaxPayload as mps, the ceiling;
 * bdf as the block names it, role "hca". 0, or -ENOENT without a LnkSta
 * speed and width (no PCI Express capability, or "<access denied>"). */
int diag_parse_lspci_link(const char *text, struct diag_pcie *d);
/* The probe's "pcie" object of an HCA's link (diag/live.c). */
json_t *diag_pcie_json(const struct diag_pcie *d);
/* Max payload size in bytes from PCI config space (as sysfs "config"
 * reads); 0 when the PCI Express capability is not within @len. */
int diag_pcie_mps_from_config(const uint8_t *cfg, size_t len);
/* A ceiling as said "about": to 10 Gb/s from 100 Gb/s up, else to 1. */
double diag_about(double gbps);

/* The whole evidence folder: {"test": doc or null, "ports": [port json]}
 * and the diagnosis, as `fabcheck diagnose` prints it. */
struct diag_set {
	int nports;
	struct diag_port *ports;
	json_t *test; /* the test's JSON document, or NULL */
};

/* Reads an evidence folder (doc/diagnose.md). 0, or a negative errno
 * (logged, naming the file and the fix). */
int diag_set_read(const char *dir, struct diag_set *s);
/* `diagnose --from`: the ports of @n (1 or 2) captures of one node, the
 * first the reading before, the last the reading after (diag/fromcap.c).
 * 0, or a negative errno (logged, naming the capture and the fix). */
int diag_set_from_captures(char *const *paths, int n, struct diag_set *s);
/* 0 when @name, the last part of the folder @path found in an evidence
 * folder, is a name of @kind (core/names.h: "node", "RDMA device", a set
 * folder NNN-A-B as a node name): only then is it used in a path or a
 * line; else -EINVAL, logged naming @path (escaped) and the fix. */
int diag_entry_check(int kind, const char *path, const char *name, const char *what);
/* Adds a port read from @before/@after snapshots (copied). */
struct diag_port *diag_set_add(struct diag_set *s, const char *node, const char *dev, int port,
			       const json_t *before, const json_t *after);
void diag_set_release(struct diag_set *s);

/* The diagnosis: "diagnosis": [ {subject, part, confidence, evidence, next,
 * rule} ] in @doc (the test's document, or a new one), most likely first;
 * "evidence": the ports. Findings stay as they are. */
void diag_run(json_t *doc, const struct diag_set *s);
/* @in (taken) with "likely" entries before "possible" ones, each group in
 * its order. */
json_t *diag_sorted(json_t *in);
/* The card over several tests' documents @sets (each diagnosed: its
 * "verdict" and "evidence"): every test of two or more ports of one PCI
 * device failed -> "HCA" (rule "hca_all_tests") added to @doc's
 * "diagnosis", sorted again (diag/cards.c). */
void diag_cards(json_t *doc, const json_t *sets);
/* Text: one block per diagnosis entry, then the evidence notes. */
void diag_render(FILE *f, const json_t *doc);
/* Text: one block per diagnosis entry, without the evidence notes. */
void diag_render_list(FILE *f, const json_t *doc);
/* Adds each evidence note of @doc to @notes (core/holders.h), held by the
 * port it was read at ("nodeA rxe0 port 1") (diag/notes.c). */
void diag_notes_add(json_t *notes, const json_t *doc);
/* Text: the notes gathered in @notes, those held by the same ports under
 * one heading naming them ("  evidence notes, nodeA rxe0 port 1, nodeC rxe0
 * port 1:"), each note one line fitted to the terminal. */
void diag_notes_render(FILE *f, const json_t *notes);
/* The sets of @sets (diagnosed) whose diagnosis is "not determined" alone
 * (no rule matched), grouped by that entry (core/holders.h): groups of
 * {"text", "holders": the sets' paths, "entry"} (diag/notes.c). */
json_t *diag_undetermined(const json_t *sets);
/* 1 when @set's "not determined" is said once for it and other sets
 * (diag_undetermined_render), not in its own block. */
int diag_undetermined_shared(const json_t *groups, const json_t *set);
/* Text: each "not determined" of two or more sets once, naming them. */
void diag_undetermined_render(FILE *f, const json_t *groups);
/* The indent of a diagnosis entry's text under its confidence ("  likely   "). */
#define DIAG_HANG 11
/* One diagnosis entry @e of diag_render: "  CONFIDENCE SUBJECT: PART", then
 * "@ev_label: EVIDENCE" and "next: STEP" under it, each line wrapped to the
 * terminal's width (core/summary.h fc_put_wrapped; whole in --json). */
void diag_render_entry(FILE *f, const json_t *e, const char *subject, const char *ev_label);

#endif
