/* How tessera-bench reports results: a table for people on stdout, or with --json one JSON object
 * per line with the keys bench, backend, device, params, metric, value, baseline, baseline_value,
 * ratio, date (and, for rows that carry a prediction, predicted_ms, predicted_efficiency,
 * explanation), then commit and build (the library's ts_build_info: the source tree's commit and
 * the build's options as an object), so that results from different machines, dates and revisions
 * can be collected and compared by scripts. */
#ifndef TESSERA_BENCH_REPORT_H
#define TESSERA_BENCH_REPORT_H

#include <stdio.h>

#include <tessera/tessera.h>

#define TS_BENCH_MAX_PARAMS 16

typedef enum bench_param_kind {
    BENCH_PARAM_INT,
    BENCH_PARAM_REAL,
    BENCH_PARAM_TEXT
} bench_param_kind;

typedef struct bench_param {
    char key[32];
    bench_param_kind kind;
    long long int_value;
    double real_value;
    char text[160];
} bench_param;

typedef struct bench_result {
    const char *bench;
    bench_param params[TS_BENCH_MAX_PARAMS];
    int param_count;
    const char *metric;         /* "TFLOP/s", "TB/s" or "ms" */
    double value;               /* the median */
    double value_min;           /* the range over repetitions, for the table; NAN if unknown */
    double value_max;
    const char *baseline;       /* e.g. "cuBLAS"; NULL when there is none */
    double baseline_value;      /* same metric as value */
    int has_prediction;
    double predicted_ms;
    double predicted_efficiency;
    const char *explanation;    /* one line; NULL when there is none */
} bench_result;

/* An empty row: no params, no range, no baseline, no prediction. */
void bench_result_init(bench_result *r, const char *bench, const char *metric, double value);
/* Params are kept in the order added; more than TS_BENCH_MAX_PARAMS are dropped, each with a line on
 * stderr (a bench that adds that many needs a larger table, not a silent gap in its rows). */
void bench_param_int(bench_result *r, const char *key, long long value);
void bench_param_real(bench_result *r, const char *key, double value);
void bench_param_text(bench_result *r, const char *key, const char *value);

typedef struct bench_report {
    int json;
    FILE *out;
    char backend[16];
    char device[256];
    char date[16]; /* yyyy-mm-dd, UTC, fixed when the report starts */
    const char *commit; /* ts_build_info's, static storage */
    const char *build;  /* a JSON object, written into each line as it is */
} bench_report;

void bench_report_init(bench_report *rep, int json, const char *backend, const char *device,
                       const char *commit, const char *build);

/* One JSON line: {"version": "<major.minor.patch>", "commit": ..., "build": {...}}. */
void bench_report_version(FILE *out, const char *commit, const char *build);

/* Starts a table (a blank line, the title, the column names); nothing in JSON mode. */
void bench_report_heading(bench_report *rep, const char *title);
/* A line of commentary for people; nothing in JSON mode. */
#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
void bench_report_note(bench_report *rep, const char *fmt, ...);
/* One result: a table row (and its explanation under it), or one JSON line. */
void bench_report_row(bench_report *rep, const bench_result *r);

/* The speed-up over the baseline, > 1 when the subject is faster: baseline / value for times,
 * value / baseline for rates. NAN when there is no baseline. */
double bench_result_ratio(const bench_result *r);

#endif
