/*
 * rand.c: seeding and the non-uniform distributions of rand.h (gaussian,
 * special, pareto, zipfian), unique values and random strings.  All state is
 * in the caller's sb_rand; nothing here allocates or locks.
 */
#include "rand.h"

#include <math.h>
#include <string.h>
#include <time.h>

static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += UINT64_C(0x9e3779b97f4a7c15));
    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

static uint64_t clock_seed(const void *salt)
{
    struct timespec ts = { 0, 0 };
    timespec_get(&ts, TIME_UTC);
    uint64_t x = (uint64_t)ts.tv_sec * UINT64_C(1000000000) + (uint64_t)ts.tv_nsec;
    x ^= (uint64_t)(uintptr_t)salt * UINT64_C(0x9e3779b97f4a7c15);
    x ^= (uint64_t)clock() << 32;
    uint64_t s = splitmix64(&x);
    return s ? s : 1;
}

void sb_rand_seed(sb_rand *r, uint64_t seed, int stream)
{
    if (seed == 0)
        seed = clock_seed(r);
    memset(r, 0, sizeof *r);
    r->seed = seed;
    r->stream = stream;

    /* Mix seed and stream into one splitmix64 state; every output word
     * depends on both. */
    uint64_t x = seed, y = (uint64_t)(int64_t)stream ^ UINT64_C(0x6a09e667f3bcc909);
    uint64_t x0 = splitmix64(&x);
    x = x0 ^ splitmix64(&y);
    for (int i = 0; i < 4; i++)
        r->s[i] = splitmix64(&x);
    if (!(r->s[0] | r->s[1] | r->s[2] | r->s[3]))
        r->s[0] = 1;
    uint64_t k = splitmix64(&x);
    r->uniq_key[0] = (uint32_t)k;
    r->uniq_key[1] = (uint32_t)(k >> 32) | 1;
    k = splitmix64(&x);
    r->uniq_key[2] = (uint32_t)k;
    r->uniq_key[3] = (uint32_t)(k >> 32);
    r->uniq_ctr = (uint32_t)splitmix64(&x);
}

/* ---- gaussian / special ------------------------------------------------ */

/* floor(mean of iter uniform draws from [0, span]), no overflow. */
static uint64_t mean_of_uniforms(sb_rand *r, uint64_t span, int iter)
{
    if (span == 0)
        return 0;
    uint64_t n = (uint64_t)iter;
    if (span == UINT64_MAX || span > UINT64_MAX / n) {
        /* sum could overflow: keep quotient and remainder separately */
        uint64_t q = 0, rem = 0;
        for (int i = 0; i < iter; i++) {
            uint64_t u = span == UINT64_MAX ? sb_rand_u64(r) : sb_rand_below(r, span + 1);
            q += u / n;
            rem += u % n;
        }
        return q + rem / n;
    }
    uint64_t sum = 0;
    for (int i = 0; i < iter; i++)
        sum += sb_rand_below(r, span + 1);
    return sum / n;
}

int64_t sb_rand_gaussian(sb_rand *r, int64_t a, int64_t b, int iter)
{
    if (b < a) {
        int64_t t = a;
        a = b;
        b = t;
    }
    if (iter < 1)
        iter = 1;
    uint64_t span = (uint64_t)b - (uint64_t)a;
    return sb_rand__u2i((uint64_t)a + mean_of_uniforms(r, span, iter));
}

int64_t sb_rand_special(sb_rand *r, int64_t a, int64_t b, int iter, double pct, double res)
{
    if (b < a) {
        int64_t t = a;
        a = b;
        b = t;
    }
    uint64_t span = (uint64_t)b - (uint64_t)a;
    if (span == 0)
        return a;
    if (!(pct > 0.0) || !(res > 0.0) || sb_rand_double(r) * 100.0 >= res)
        return sb_rand_gaussian(r, a, b, iter);

    /* The special block: d values centred in the range. */
    double values = (double)span + 1.0; /* 2^64 for the whole int64 range */
    double dd = floor(values * (pct > 100.0 ? 100.0 : pct) / 100.0);
    uint64_t d;
    if (dd >= values) {
        if (span == UINT64_MAX)
            return sb_rand__u2i(sb_rand_u64(r));
        d = span + 1;
    } else if (dd < 1.0) {
        d = 1;
    } else {
        d = (uint64_t)dd;
    }
    uint64_t start = (span - (d - 1)) / 2; /* (n - d) / 2 without overflow */
    return sb_rand__u2i((uint64_t)a + start + sb_rand_below(r, d));
}

/* ---- pareto ------------------------------------------------------------ */

int64_t sb_rand_pareto(sb_rand *r, int64_t a, int64_t b, double h)
{
    if (b < a) {
        int64_t t = a;
        a = b;
        b = t;
    }
    if (!(h > 0.0 && h < 1.0))
        return sb_rand_uniform(r, a, b);
    uint64_t span = (uint64_t)b - (uint64_t)a;
    double x = ((double)span + 1.0) * pow(sb_rand_double(r), log(h) / log(1.0 - h));
    uint64_t off = x >= (double)span ? span : (uint64_t)x;
    return sb_rand__u2i((uint64_t)a + off);
}

/* ---- zipfian: rejection-inversion (Hoermann & Derflinger 1996) ---------- */

/* log1p(x) / x, accurate near 0 */
static double zipf_helper1(double x)
{
    if (fabs(x) > 1e-8)
        return log1p(x) / x;
    return 1.0 - x * (0.5 - x * (1.0 / 3.0 - 0.25 * x));
}

/* expm1(x) / x, accurate near 0 */
static double zipf_helper2(double x)
{
    if (fabs(x) > 1e-8)
        return expm1(x) / x;
    return 1.0 + x * 0.5 * (1.0 + x * (1.0 / 3.0) * (1.0 + 0.25 * x));
}

/* h(x) = x^-e, its integral H(x) = (x^(1-e) - 1) / (1-e) (log x at e = 1),
 * and the inverse of H. */
static double zipf_h(double x, double e)
{
    return exp(-e * log(x));
}

static double zipf_H(double x, double e)
{
    double lx = log(x);
    return zipf_helper2((1.0 - e) * lx) * lx;
}

static double zipf_Hinv(double x, double e)
{
    double t = x * (1.0 - e);
    if (t < -1.0)
        t = -1.0; /* guards rounding at the lower end */
    return exp(zipf_helper1(t) * x);
}

int64_t sb_rand_zipfian(sb_rand *r, int64_t a, int64_t b, double theta)
{
    if (b < a) {
        int64_t t = a;
        a = b;
        b = t;
    }
    if (!(theta > 0.0))
        return sb_rand_uniform(r, a, b);
    uint64_t span = (uint64_t)b - (uint64_t)a;
    if (span == 0)
        return a;
    int64_t n = span >= (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)(span + 1);

    if (r->zipf_n != n || r->zipf_theta != theta) {
        r->zipf_n = n;
        r->zipf_theta = theta;
        r->zipf_hx1 = zipf_H(1.5, theta) - 1.0;
        r->zipf_hn = zipf_H((double)n + 0.5, theta);
        r->zipf_s = 2.0 - zipf_Hinv(zipf_H(2.5, theta) - zipf_h(2.0, theta), theta);
    }
    const double hx1 = r->zipf_hx1, hn = r->zipf_hn, s = r->zipf_s;
    for (;;) {
        double u = hn + sb_rand_double(r) * (hx1 - hn);
        double x = zipf_Hinv(u, theta);
        double kd = floor(x + 0.5);
        int64_t k;
        if (kd < 1.0)
            k = 1;
        else if (kd >= (double)n)
            k = n;
        else
            k = (int64_t)kd;
        if ((double)k - x <= s || u >= zipf_H((double)k + 0.5, theta) - zipf_h((double)k, theta))
            return sb_rand__u2i((uint64_t)a + (uint64_t)(k - 1));
    }
}

/* ---- unique ------------------------------------------------------------ */

uint32_t sb_rand_unique(sb_rand *r)
{
    /* Each step is a bijection on 32 bits (add, xor-shift right, multiply
     * by an odd number, xor), so distinct counters give distinct outputs. */
    uint32_t x = r->uniq_ctr++;
    x += r->uniq_key[0];
    x ^= x >> 16;
    x *= r->uniq_key[1];            /* odd */
    x ^= x >> 15;
    x += r->uniq_key[2];
    x *= UINT32_C(0x846ca68b);
    x ^= x >> 16;
    x ^= r->uniq_key[3];
    return x;
}

/* ---- strings ----------------------------------------------------------- */

void sb_rand_string(sb_rand *r, const char *tmpl, size_t len, char *out)
{
    uint64_t bits = 0;
    int have = 0; /* 32-bit halves left in bits */
    size_t i = 0;
    for (; i < len && tmpl[i]; i++) {
        char c = tmpl[i];
        if (c != '#' && c != '@') {
            out[i] = c;
            continue;
        }
        if (!have) {
            bits = sb_rand_u64(r);
            have = 2;
        }
        uint64_t w = bits & 0xffffffffu;
        bits >>= 32;
        have--;
        /* (w * m) >> 32 maps 32 random bits onto [0, m); bias < m / 2^32 */
        out[i] = c == '#' ? (char)('0' + ((w * 10) >> 32)) : (char)('a' + ((w * 26) >> 32));
    }
    if (i < len)
        out[i] = '\0';
}

/* Its loop takes 32 random bits per character as sb_rand_string's does,
 * written out again on purpose: a shared inline helper (next_half, tried)
 * cost about one instruction per character more under callgrind (5800 ->
 * 5937 Ir per event generating 130 characters), on the path of every
 * INSERT and UPDATE of the OLTP workloads. */
size_t sb_rand_varstring(sb_rand *r, size_t min, size_t max, char *out)
{
    static const char alphabet[] =
        "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
    if (max < min) {
        size_t t = min;
        min = max;
        max = t;
    }
    size_t len = min + (size_t)sb_rand_below(r, (uint64_t)(max - min) + 1);
    uint64_t bits = 0;
    int have = 0;
    for (size_t i = 0; i < len; i++) {
        if (!have) {
            bits = sb_rand_u64(r);
            have = 2;
        }
        uint64_t w = bits & 0xffffffffu;
        bits >>= 32;
        have--;
        out[i] = alphabet[(w * 62) >> 32];
    }
    out[len] = '\0';
    return len;
}
