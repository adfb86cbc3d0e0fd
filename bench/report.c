/* The two output formats of tessera-bench (see report.h). JSON is written by hand because the
 * program must build with nothing but the C library: strings are escaped per RFC 8259 and a
 * number that is not finite becomes null, since JSON has no NaN. */
#include "report.h"

#include <math.h>
#include <stdarg.h>
#include <string.h>
#include <time.h>

void bench_result_init(bench_result *r, const char *bench, const char *metric, double value)
{
    memset(r, 0, sizeof *r);
    r->bench = bench;
    r->metric = metric;
    r->value = value;
    r->value_min = NAN;
    r->value_max = NAN;
    r->baseline_value = NAN;
    r->predicted_ms = NAN;
    r->predicted_efficiency = NAN;
}

static bench_param *bench_param_add(bench_result *r, const char *key, bench_param_kind kind)
{
    if (r->param_count >= TS_BENCH_MAX_PARAMS) {
        fprintf(stderr, "%s: param %s dropped: more than %d in a row\n", r->bench, key, TS_BENCH_MAX_PARAMS);
        return NULL;
    }
    bench_param *p = &r->params[r->param_count++];
    memset(p, 0, sizeof *p);
    snprintf(p->key, sizeof p->key, "%s", key);
    p->kind = kind;
    return p;
}

void bench_param_int(bench_result *r, const char *key, long long value)
{
    bench_param *p = bench_param_add(r, key, BENCH_PARAM_INT);
    if (p != NULL)
        p->int_value = value;
}

void bench_param_real(bench_result *r, const char *key, double value)
{
    bench_param *p = bench_param_add(r, key, BENCH_PARAM_REAL);
    if (p != NULL)
        p->real_value = value;
}

void bench_param_text(bench_result *r, const char *key, const char *value)
{
    bench_param *p = bench_param_add(r, key, BENCH_PARAM_TEXT);
    if (p != NULL)
        snprintf(p->text, sizeof p->text, "%s", value);
}

double bench_result_ratio(const bench_result *r)
{
    if (r->baseline == NULL || !isfinite(r->baseline_value) || !isfinite(r->value) ||
        r->value <= 0.0 || r->baseline_value <= 0.0)
        return NAN;
    if (strcmp(r->metric, "ms") == 0)
        return r->baseline_value / r->value;
    return r->value / r->baseline_value;
}

void bench_report_init(bench_report *rep, int json, const char *backend, const char *device,
                       const char *commit, const char *build)
{
    memset(rep, 0, sizeof *rep);
    rep->json = json;
    rep->out = stdout;
    rep->commit = commit;
    rep->build = build;
    snprintf(rep->backend, sizeof rep->backend, "%s", backend);
    snprintf(rep->device, sizeof rep->device, "%s", device);
    time_t now = time(NULL);
    struct tm utc;
    if (now == (time_t)-1 || gmtime_r(&now, &utc) == NULL ||
        strftime(rep->date, sizeof rep->date, "%Y-%m-%d", &utc) == 0)
        snprintf(rep->date, sizeof rep->date, "unknown");
}

/* ---- JSON ---------------------------------------------------------------------------------- */

static void bench_json_string(FILE *out, const char *s)
{
    fputc('"', out);
    for (const unsigned char *c = (const unsigned char *)s; *c != '\0'; c++) {
        switch (*c) {
        case '"': fputs("\\\"", out); break;
        case '\\': fputs("\\\\", out); break;
        case '\b': fputs("\\b", out); break;
        case '\f': fputs("\\f", out); break;
        case '\n': fputs("\\n", out); break;
        case '\r': fputs("\\r", out); break;
        case '\t': fputs("\\t", out); break;
        default:
            if (*c < 0x20)
                fprintf(out, "\\u%04x", *c);
            else
                fputc(*c, out);
        }
    }
    fputc('"', out);
}

static void bench_json_number(FILE *out, double v)
{
    if (isfinite(v))
        fprintf(out, "%.9g", v);
    else
        fputs("null", out);
}

static void bench_json_key(FILE *out, const char *key)
{
    fputs(", ", out);
    bench_json_string(out, key);
    fputs(": ", out);
}

static void bench_report_json(bench_report *rep, const bench_result *r)
{
    FILE *out = rep->out;
    fputs("{\"bench\": ", out);
    bench_json_string(out, r->bench);
    bench_json_key(out, "backend");
    bench_json_string(out, rep->backend);
    bench_json_key(out, "device");
    bench_json_string(out, rep->device);
    bench_json_key(out, "params");
    fputc('{', out);
    for (int i = 0; i < r->param_count; i++) {
        const bench_param *p = &r->params[i];
        if (i > 0)
            fputs(", ", out);
        bench_json_string(out, p->key);
        fputs(": ", out);
        if (p->kind == BENCH_PARAM_INT)
            fprintf(out, "%lld", p->int_value);
        else if (p->kind == BENCH_PARAM_REAL)
            bench_json_number(out, p->real_value);
        else
            bench_json_string(out, p->text);
    }
    fputc('}', out);
    bench_json_key(out, "metric");
    bench_json_string(out, r->metric);
    bench_json_key(out, "value");
    bench_json_number(out, r->value);
    bench_json_key(out, "baseline");
    if (r->baseline != NULL)
        bench_json_string(out, r->baseline);
    else
        fputs("null", out);
    bench_json_key(out, "baseline_value");
    bench_json_number(out, r->baseline != NULL ? r->baseline_value : NAN);
    bench_json_key(out, "ratio");
    bench_json_number(out, bench_result_ratio(r));
    bench_json_key(out, "date");
    bench_json_string(out, rep->date);
    if (r->has_prediction) {
        bench_json_key(out, "predicted_ms");
        bench_json_number(out, r->predicted_ms);
        bench_json_key(out, "predicted_efficiency");
        bench_json_number(out, r->predicted_efficiency);
    }
    if (r->explanation != NULL) {
        bench_json_key(out, "explanation");
        bench_json_string(out, r->explanation);
    }
    bench_json_key(out, "commit");
    bench_json_string(out, rep->commit);
    bench_json_key(out, "build");
    fputs(rep->build, out);
    fputs("}\n", out);
    fflush(out);
}

void bench_report_version(FILE *out, const char *commit, const char *build)
{
    fprintf(out, "{\"version\": \"%d.%d.%d\"", TESSERA_VERSION_MAJOR, TESSERA_VERSION_MINOR,
            TESSERA_VERSION_PATCH);
    bench_json_key(out, "commit");
    bench_json_string(out, commit);
    bench_json_key(out, "build");
    fputs(build, out);
    fputs("}\n", out);
}

/* ---- table --------------------------------------------------------------------------------- */

#define TS_BENCH_PARAMS_WIDTH 38

void bench_report_heading(bench_report *rep, const char *title)
{
    if (rep->json)
        return;
    fprintf(rep->out, "\n%s\n", title);
    fprintf(rep->out, "  %-*s %10s %-7s %19s   %s\n", TS_BENCH_PARAMS_WIDTH, "params", "median",
            "unit", "min .. max", "baseline or prediction");
}

void bench_report_note(bench_report *rep, const char *fmt, ...)
{
    if (rep->json)
        return;
    va_list ap;
    va_start(ap, fmt);
    vfprintf(rep->out, fmt, ap);
    va_end(ap);
    fputc('\n', rep->out);
}

static void bench_format_params(const bench_result *r, char *buf, size_t size)
{
    size_t len = 0;
    buf[0] = '\0';
    for (int i = 0; i < r->param_count && len + 1 < size; i++) {
        const bench_param *p = &r->params[i];
        int n;
        if (p->kind == BENCH_PARAM_INT)
            n = snprintf(buf + len, size - len, "%s%s=%lld", i ? " " : "", p->key, p->int_value);
        else if (p->kind == BENCH_PARAM_REAL)
            n = snprintf(buf + len, size - len, "%s%s=%g", i ? " " : "", p->key, p->real_value);
        else
            n = snprintf(buf + len, size - len, "%s%s=%s", i ? " " : "", p->key, p->text);
        if (n < 0)
            break;
        len = (size_t)n >= size - len ? size - 1 : len + (size_t)n;
    }
}

void bench_report_row(bench_report *rep, const bench_result *r)
{
    if (rep->json) {
        bench_report_json(rep, r);
        return;
    }
    FILE *out = rep->out;
    char params[256];
    bench_format_params(r, params, sizeof params);
    fprintf(out, "  %-*s %10.4f %-7s", TS_BENCH_PARAMS_WIDTH, params, r->value, r->metric);
    if (isfinite(r->value_min) && isfinite(r->value_max))
        fprintf(out, " %8.4f .. %8.4f", r->value_min, r->value_max);
    else
        fprintf(out, " %19s", "");
    if (r->baseline != NULL)
        fprintf(out, "   %s %.4f, speed-up %.2fx", r->baseline, r->baseline_value,
                bench_result_ratio(r));
    if (r->has_prediction)
        fprintf(out, "   predicted %.4f ms, measured/predicted %.2f", r->predicted_ms,
                r->value / r->predicted_ms);
    fputc('\n', out);
    if (r->explanation != NULL)
        fprintf(out, "      %s\n", r->explanation);
    fflush(out);
}
