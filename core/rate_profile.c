/*
 * --rate-profile: the spec parsed into a table of points (rate_profile.h),
 * and the arrival questions asked of it.  Parsed once, on the main thread,
 * before the workers start; what runs per arrival (time_of) walks the
 * table forward from the worker's cursor, without allocation or locks.
 */
#include "rate_profile.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_RATE 1e8            /* as --rate */
#define MAX_SECONDS 31536000.0  /* a year */
#define SINE_SEGMENTS 64        /* straight lines per period of a sine */
#define MAX_FILE_BYTES (1 << 20)

struct builder {
    struct sb_rate_profile *p;
    double now;                 /* where the next phase starts */
    const char *opt;            /* the option's name, for the messages */
    char *err;
    size_t errlen;
};

static int fail(struct builder *b, const char *what, const char *text, int len)
{
    snprintf(b->err, b->errlen, "invalid %s: %s in '%.*s' (see docs/load-profiles.md)", b->opt, what,
             len > 80 ? 80 : len, text);
    return -1;
}

static int add_point(struct builder *b, double t, double r)
{
    struct sb_rate_profile *p = b->p;
    if (p->npoints > 0) {
        struct sb_rate_point *last = &p->p[p->npoints - 1];
        if (last->t == t && last->r == r)
            return 0;
    }
    if (p->npoints == SB_RATE_PROFILE_MAX_POINTS) {
        snprintf(b->err, b->errlen, "invalid %s: more than %d points (fewer sine periods or "
                 "file lines)", b->opt, SB_RATE_PROFILE_MAX_POINTS);
        return -1;
    }
    p->p[p->npoints++] = (struct sb_rate_point){.t = t, .r = r};
    if (r > p->peak)
        p->peak = r;
    return 0;
}

/* A number from s up to one of the characters of `stop` (or the end);
 * *end after it.  -1 when not a number in [0, max]. */
static int number(const char *s, const char **end, double max, double *out)
{
    errno = 0;
    char *e;
    if (!isdigit((unsigned char)*s) && *s != '.')
        return -1;
    double v = strtod(s, &e);
    if (e == s || errno != 0 || !isfinite(v) || v < 0 || v > max)
        return -1;
    *out = v;
    *end = e;
    return 0;
}

/* A duration: seconds, or with a suffix s, m or h; more than 0. */
static int duration(const char *s, const char **end, double *out)
{
    if (number(s, end, MAX_SECONDS, out) != 0)
        return -1;
    const char *e = *end;
    if (*e == 's') {
        e++;
    } else if (*e == 'm') {
        *out *= 60;
        e++;
    } else if (*e == 'h') {
        *out *= 3600;
        e++;
    }
    *end = e;
    return *out > 0 && *out <= MAX_SECONDS ? 0 : -1;
}

/* The fields of one phase after its name: numbers (rates) and durations
 * separated by ':', as the kind's pattern says: 'r' a rate, 'R' a rate
 * range FROM-TO (two values), 'L' a list of rates R1,R2,..., 'd' a
 * duration, '?' the rest optional.  Returns the count read, or -1. */
static int fields(const char *s, const char *pattern, double *v, int maxv, int *nlist)
{
    int n = 0, optional = 0;
    *nlist = 0;
    for (const char *k = pattern; *k; k++) {
        if (*k == '?') {
            optional = 1;
            continue;
        }
        if (*s == '\0' && optional)
            return n;
        if (*s++ != ':')
            return -1;
        const char *e = s;
        if (*k == 'd') {
            if (duration(s, &e, &v[n++]) != 0)
                return -1;
        } else if (*k == 'r' || *k == 'R') {
            if (number(s, &e, MAX_RATE, &v[n++]) != 0)
                return -1;
            if (*k == 'R' && (*e != '-' || number(e + 1, &e, MAX_RATE, &v[n++]) != 0))
                return -1;
        } else { /* 'L' */
            do {
                if (n == maxv - 1 || number(s, &e, MAX_RATE, &v[n++]) != 0)
                    return -1;
                (*nlist)++;
                s = e + 1;
            } while (*e == ',');
        }
        s = e;
    }
    return *s == '\0' ? n : -1;
}

static int add_sine(struct builder *b, double mean, double ampl, double period, double length)
{
    if (ampl > mean)
        return -2;
    int n = (int)ceil(length / period * SINE_SEGMENTS);
    if (n > SB_RATE_PROFILE_MAX_POINTS)
        n = SB_RATE_PROFILE_MAX_POINTS; /* add_point says it is too many */
    for (int i = 0; i <= n; i++) {
        double t = length * i / n;
        if (add_point(b, b->now + t, mean + ampl * sin(2 * M_PI * t / period)) != 0)
            return -1;
    }
    return 0;
}

/* file:PATH: lines "time,rate" (seconds from the phase's start, events a
 * second), joined by straight lines; '#' starts a comment. */
static int add_file(struct builder *b, const char *path)
{
    FILE *f = fopen(path, "r");
    if (f == NULL) {
        snprintf(b->err, b->errlen, "invalid %s: cannot open '%.200s': %s", b->opt, path, strerror(errno));
        return -1;
    }
    char line[256];
    int lineno = 0, n = 0, rc = 0;
    double last = -1, t = 0;
    long bytes = 0;
    while (rc == 0 && fgets(line, sizeof line, f)) {
        lineno++;
        bytes += (long)strlen(line);
        char *c = strpbrk(line, "#\r\n");
        if (c)
            *c = '\0';
        const char *s = line, *e;
        while (*s == ' ' || *s == '\t')
            s++;
        if (*s == '\0')
            continue;
        double r;
        if (bytes > MAX_FILE_BYTES || number(s, &e, MAX_SECONDS, &t) != 0 || *e != ',' ||
            number(e + 1, &e, MAX_RATE, &r) != 0 || strspn(e, " \t") != strlen(e) || t < last) {
            snprintf(b->err, b->errlen, "invalid %s: %.200s line %d: expected 'time,rate' "
                     "(seconds not before the line above, events a second)", b->opt, path, lineno);
            rc = -1;
            break;
        }
        if (n++ == 0 && t > 0)
            rc = add_point(b, b->now, r);
        if (rc == 0)
            rc = add_point(b, b->now + t, r);
        last = t;
    }
    fclose(f);
    if (rc == 0 && n == 0) {
        snprintf(b->err, b->errlen, "invalid %s: %.200s has no 'time,rate' line", b->opt, path);
        return -1;
    }
    if (rc == 0)
        b->now += t;
    return rc;
}

/* One phase, text[0..len). */
static int add_phase(struct builder *b, const char *text, int len)
{
    char s[4096];
    if (len >= (int)sizeof s)
        return fail(b, "phase too long", text, len);
    memcpy(s, text, (size_t)len);
    s[len] = '\0';
    double v[1024], start = b->now;
    int nlist, n = -1, rc = 0;
    if (strncmp(s, "file:", 5) == 0 && s[5]) {
        rc = add_file(b, s + 5);
        if (rc != 0)
            return rc;
        n = 0;
    } else if (strncmp(s, "hold", 4) == 0 && (n = fields(s + 4, "rd", v, 1024, &nlist)) == 2) {
        rc = add_point(b, b->now, v[0]) || add_point(b, b->now + v[1], v[0]);
        b->now += v[1];
    } else if (strncmp(s, "ramp", 4) == 0 && (n = fields(s + 4, "Rd", v, 1024, &nlist)) == 3) {
        rc = add_point(b, b->now, v[0]) || add_point(b, b->now + v[2], v[1]);
        b->now += v[2];
    } else if (strncmp(s, "step", 4) == 0 && (n = fields(s + 4, "Ld", v, 1024, &nlist)) > 1) {
        for (int i = 0; i < nlist && rc == 0; i++) {
            rc = add_point(b, b->now, v[i]) || add_point(b, b->now + v[nlist], v[i]);
            b->now += v[nlist];
        }
    } else if (strncmp(s, "spike", 5) == 0 && (n = fields(s + 5, "rrdd?d", v, 1024, &nlist)) >= 4) {
        double at = v[2], peak_len = v[3], length = n == 5 ? v[4] : 2 * at + peak_len;
        if (at + peak_len > length)
            return fail(b, "the spike ends after the phase", text, len);
        rc = add_point(b, b->now, v[0]) || add_point(b, b->now + at, v[0]) || add_point(b, b->now + at, v[1]) ||
             add_point(b, b->now + at + peak_len, v[1]) || add_point(b, b->now + at + peak_len, v[0]) ||
             add_point(b, b->now + length, v[0]);
        b->now += length;
    } else if (strncmp(s, "sine", 4) == 0 && (n = fields(s + 4, "rrd?d", v, 1024, &nlist)) >= 3) {
        double length = n == 4 ? v[3] : v[2];
        if ((rc = add_sine(b, v[0], v[1], v[2], length)) == -2)
            return fail(b, "the amplitude is larger than the mean (a rate below 0)", text, len);
        b->now += length;
    } else {
        return fail(b, n < 0 && strchr(s, ':') ? "bad fields (numbers, durations in s, m or h)"
                                               : "unknown phase (hold, ramp, step, spike, sine, file)",
                    text, len);
    }
    if (rc != 0)
        return -1;
    if (b->now > MAX_SECONDS)
        return fail(b, "longer than a year", text, len);
    struct sb_rate_phase *ph = &b->p->phase[b->p->nphases++];
    ph->start = start;
    ph->end = b->now;
    size_t keep = (size_t)len < sizeof ph->name ? (size_t)len : sizeof ph->name - 1;
    memcpy(ph->name, s, keep); /* cut to fit */
    ph->name[keep] = '\0';
    return 0;
}

/* Where the phase that starts at s ends: at ';', or at ',' before a
 * letter (a phase's name; the rates of step are numbers). */
static const char *phase_end(const char *s)
{
    for (; *s; s++)
        if (*s == ';' || (*s == ',' && isalpha((unsigned char)s[1])))
            return s;
    return s;
}

struct sb_rate_profile *sb_rate_profile_parse(const char *spec, const char *opt, char *err, size_t errlen)
{
    struct sb_rate_profile *p = calloc(1, sizeof *p);
    if (p)
        p->p = calloc(SB_RATE_PROFILE_MAX_POINTS, sizeof *p->p);
    if (p == NULL || p->p == NULL) {
        snprintf(err, errlen, "out of memory");
        sb_rate_profile_free(p);
        return NULL;
    }
    struct builder b = {.p = p, .opt = opt, .err = err, .errlen = errlen};
    const char *s = spec;
    int rc = *s ? 0 : fail(&b, "empty", s, 0);
    while (rc == 0 && *s) {
        const char *e = phase_end(s);
        if (p->nphases == SB_RATE_PROFILE_MAX_PHASES)
            rc = fail(&b, "too many phases", spec, (int)strlen(spec));
        else
            rc = e == s ? fail(&b, "empty phase", spec, (int)strlen(spec)) : add_phase(&b, s, (int)(e - s));
        s = *e ? e + 1 : e;
        if (rc == 0 && e[0] && !e[1])
            rc = fail(&b, "empty phase at the end", spec, (int)strlen(spec));
    }
    if (rc != 0) {
        sb_rate_profile_free(p);
        return NULL;
    }
    for (int i = 1; i < p->npoints; i++)
        p->p[i].m = p->p[i - 1].m + (p->p[i - 1].r + p->p[i].r) / 2 * (p->p[i].t - p->p[i - 1].t);
    p->length = p->p[p->npoints - 1].t;
    return p;
}

void sb_rate_profile_free(struct sb_rate_profile *p)
{
    if (p == NULL)
        return;
    free(p->p);
    free(p);
}

/* The last point at or before t (0 before the first). */
static int point_at(const struct sb_rate_profile *p, double t)
{
    int lo = 0, hi = p->npoints - 1;
    while (lo < hi) {
        int mid = (lo + hi + 1) / 2;
        if (p->p[mid].t <= t)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

double sb_rate_profile_rate(const struct sb_rate_profile *p, double t)
{
    int i = point_at(p, t);
    const struct sb_rate_point *a = &p->p[i];
    if (i == p->npoints - 1 || t <= a->t)
        return a->r;
    const struct sb_rate_point *z = &p->p[i + 1];
    return a->r + (z->r - a->r) * (t - a->t) / (z->t - a->t);
}

double sb_rate_profile_mass(const struct sb_rate_profile *p, double t)
{
    if (t <= 0)
        return 0;
    int i = point_at(p, t);
    const struct sb_rate_point *a = &p->p[i];
    double dt = t - a->t;
    return a->m + (a->r + sb_rate_profile_rate(p, t)) / 2 * dt;
}

double sb_rate_profile_time_of(const struct sb_rate_profile *p, double mass, int *cursor)
{
    int i = *cursor, n = p->npoints;
    while (i + 1 < n && p->p[i + 1].m < mass)
        i++;
    *cursor = i;
    const struct sb_rate_point *a = &p->p[i];
    double x = mass - a->m;
    if (x <= 0)
        return a->t;
    if (i == n - 1)
        return a->r > 0 ? a->t + x / a->r : INFINITY;
    const struct sb_rate_point *z = &p->p[i + 1];
    double span = z->t - a->t;
    if (span <= 0)
        return a->t;
    /* a->r * dt + k dt^2 / 2 = x, in the form that keeps its digits */
    double k = (z->r - a->r) / span, disc = a->r * a->r + 2 * k * x;
    double denom = a->r + sqrt(disc > 0 ? disc : 0);
    double dt = denom > 0 ? 2 * x / denom : span;
    return a->t + (dt < span ? dt : span);
}

int sb_rate_profile_phase_at(const struct sb_rate_profile *p, double t)
{
    for (int i = 0; i < p->nphases; i++)
        if (t < p->phase[i].end)
            return i;
    return -1;
}
