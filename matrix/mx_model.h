/*
 * The matrix model: a run's nodes, parameters and pair results read from the
 * store, and their analysis. Shared by `matrix` (its report), `tui` (what it
 * draws) and `report` (HTML, CSV, Prometheus). No terminal, no processes.
 */
#ifndef FC_MX_MODEL_H
#define FC_MX_MODEL_H

#include <jansson.h>
#include <stdint.h>

#include "matrix/mxan.h"
#include "matrix/mxlevel.h"
#include "store/store.h"

struct mx_model {
	int64_t run;
	struct fc_store_run info; /* kind, verdict, started, params */
	int n;			  /* nodes */
	char **names;
	json_t *by_name;   /* name -> index, kept by the loader (NULL: names scanned) */
	double *rate_gbps; /* per node: its port's link rate from the documents, NAN unknown */
	int both;    /* --both-directions */
	int retest;  /* --retest asked */
	struct fc_mx_opts opts;
	struct fc_mx_result *res; /* every stored row, in row order */
	int64_t *res_id;	  /* the store's row id of each */
	char **res_err;		  /* why a result could not run (NULL otherwise) */
	/* node -> the device its own faults were on (store.h fc_fault_dev_*),
	 * from the documents that named the node (NULL: none did) */
	json_t *fault_dev;
	size_t nres, cap;
	int64_t last_id; /* newest row read */
	unsigned char *seen; /* bits: a -> b read ([a * seen_n + b], mx_load.c) */
	int seen_n;
	double last_time; /* unix time of the newest row */
	struct fc_mx_analysis an;
	int analyzed;
	/* matrix --rails (mx_rails.c): the rack's rails, a cell per (pair,
	 * rail), their levels. "an" above holds each pair's aggregate. */
	struct mx_rail {
		int index;
		char name[64], subnet[48];
	} *rails;
	int nrails;
	struct fc_mxl_cell *rcells;
	size_t nrcells, rcap;
	struct fc_mxl_analysis ran;
};

/* Reads run @run of @st (a "matrix" run, or any run with pairs). Returns 0
 * or a negative errno (logged). */
int mx_model_load(struct mx_model *m, struct fc_store *st, int64_t run);
/* Reads the rows added since the last load or refresh, and the run's end.
 * Returns the number of new rows or a negative errno. */
int mx_model_refresh(struct mx_model *m, struct fc_store *st);
/* (Re)computes m->an from the latest result of each pair. */
int mx_model_analyze(struct mx_model *m);
void mx_model_release(struct mx_model *m);

/* Index of @name in the model, -1 when absent. */
int mx_model_node(const struct mx_model *m, const char *name);

/* Progress: directed pairs of the schedule measured (not counting
 * retests), of the total; the first round with a pair still to run
 * (== rounds when all are done); seconds left at the pace so far (NAN
 * when unknown). */
struct mx_progress {
	int done, total, round, rounds;
	double elapsed_s, left_s;
};
void mx_model_progress(const struct mx_model *m, double now, struct mx_progress *p);

/* The `fabcheck matrix --json` document of the model (analysis done). */
json_t *mx_model_doc(const struct mx_model *m);
/* The same without its "pairs" list (an entry per measured direction and
 * rail: 4 million at 1,024 nodes x 8 rails, gigabytes as JSON): its
 * verdict, findings, suspects and per-node figures, for what reads those
 * (report's HTML, the TUI's verdict) and draws the pairs from the model. */
json_t *mx_model_doc_brief(const struct mx_model *m);

/* The run parameters of a matrix: what --resume and the TUI read back. */
json_t *mx_params_new(char **nodes, int n, int both, int retest, const struct fc_mx_opts *o,
		      const json_t *pair_args, double deadline_s);

/* The analysis thresholds of run parameters (defaults where absent). */
void mx_params_opts(const json_t *params, struct fc_mx_opts *o);
/* The ranges of the options a run keeps (mx_cli.c's option table uses
 * them too): a stored number is checked against them on read. */
#define MX_MIN_GBPS_MAX 1e5
#define MX_MAX_LAT_US_MAX 1e9
#define MX_DEADLINE_MAX 86400
#define MX_MAX_ROUNDS_MAX 4096
/* 0 when every number run @run of @db keeps in @params (the thresholds,
 * deadline_s, the screen's max_rounds) is in the range its
 * option takes on the command line, else -EINVAL, logged naming the run,
 * the number and the range (a store changed outside fabcheck). */
int mx_params_check(const json_t *params, long long run, const char *db);

/* The cell to show at row @a, column @b of a heat map: a -> b when it
 * was measured, else b -> a for a single-direction run (*mirrored_p set),
 * else NULL. */
const struct fc_mx_cell *mx_model_show(const struct mx_model *m, int a, int b, int *mirrored_p);
/* The same on @an: m->an, or one rail's analysis (m->ran.rails[r]). */
const struct fc_mx_cell *mx_model_show_in(const struct mx_model *m,
					  const struct fc_mx_analysis *an, int a, int b,
					  int *mirrored_p);
/* Bandwidth as a share of @an's best pair (0..1; NAN when none). */
double mx_model_share_in(const struct fc_mx_analysis *an, const struct fc_mx_cell *c);
/* The slowest measured pair of @node in @an (either direction), or NULL. */
const struct fc_mx_cell *mx_model_worst(const struct fc_mx_analysis *an, int node);
/* A block of a heat map at rack scale: rows a0 .. a0+g-1, columns b0 ..
 * b0+g-1 of @an (cut at the rack's end). Its worst pair is its lowest share
 * of the best pair, a bad pair counting as worse than any good one. */
struct mx_block {
	int wa, wb;	  /* the worst pair, -1 when nothing inside was measured */
	const struct fc_mx_cell *worst;
	int measured, bad, errors; /* pairs inside that ran, were bad, could not run */
};
void mx_model_block(const struct mx_model *m, const struct fc_mx_analysis *an, int a0, int b0,
		    int g, struct mx_block *k);
/* Bandwidth as a share of the best pair (0..1; NAN when none). */
double mx_model_share(const struct mx_model *m, const struct fc_mx_cell *c);
/* Heat colour of a share: red (0) through yellow (0.5) to green (1). */
void mx_heat_rgb(double share, unsigned char rgb[3]);

/* Why a -> b could not run (its latest result), or NULL. */
const char *mx_model_error(const struct mx_model *m, int a, int b);

/* State of a stored row from its verdict column. */
enum fc_mx_state mx_state_of(const char *verdict);
/* The FC_MX_FAULT_* bits of pair a -> b whose document's "node_fault"
 * (pair/pair_msg.c: the node whose own RDMA device, port or rail its
 * worker could not set up or connect) is @node_fault; 0 for NULL or a name
 * that is neither end's. */
unsigned char mx_fault_bits(const struct mx_model *m, int a, int b, const char *node_fault);
/* The device node @i's own faults were on (its port into *@port_p), when
 * every document that named them said the same one; NULL otherwise. */
const char *mx_model_fault_dev(const struct mx_model *m, int i, int *port_p);
/* The text of finding @f of @m's single-port analysis: a suspect node whose
 * own device its worker could not set up, on the device and port its
 * workers named (mx_model_fault_dev), as that port's ("suspect node nodeC
 * on rxe0 port 1: its own RDMA device ..."; 1 returned); else the
 * analysis's own text (0). One text for matrix's document, the TUI's
 * suspects list and its findings pane. */
int mx_model_finding_text(const struct mx_model *m, const struct fc_mx_finding *f, char *buf,
			  size_t len);

#endif
