/*
 * rand.h: per-thread pseudo-random numbers for workloads: the generator
 * (xoshiro256**, seeded through splitmix64) and the distributions that
 * sysbench 1.0 scripts expect (uniform, gaussian, special, pareto, zipfian),
 * unique 32-bit values and random strings.
 *
 * One sb_rand per thread: no global state, no locks, no allocation.  The
 * struct is public so it can live on the stack or inside a worker struct;
 * treat its fields as private.  The hot functions are inline here; the
 * distributions that need libm live in rand.c.
 *
 * Ranges are inclusive [a, b]; if b < a the two are swapped.
 */
#ifndef SB_RAND_H
#define SB_RAND_H

#include <stddef.h>
#include <stdint.h>

typedef struct sb_rand {
    uint64_t s[4];          /* xoshiro256** state, never all zero */
    uint64_t seed;          /* effective seed (the clock's when seeded with 0) */
    int stream;             /* stream given to sb_rand_seed */
    uint32_t uniq_ctr;      /* sb_rand_unique: next counter value */
    uint32_t uniq_key[4];   /* sb_rand_unique: keys of the bijection */
    /* sb_rand_zipfian constants, valid for (zipf_n, zipf_theta); n 0 = none */
    int64_t zipf_n;
    double zipf_theta, zipf_hx1, zipf_hn, zipf_s;
} sb_rand;

/*
 * Seeds r.  Equal (seed, stream) give equal sequences; different streams of
 * one seed give unrelated sequences (use the thread number as stream).
 * seed 0 means "seed from the clock"; the seed actually used is then in
 * r->seed, so a run can print it and be repeated.
 */
void sb_rand_seed(sb_rand *r, uint64_t seed, int stream);

static inline uint64_t sb_rand__rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

/* Uniform 64 random bits (xoshiro256**). */
static inline uint64_t sb_rand_u64(sb_rand *r)
{
    uint64_t *s = r->s;
    uint64_t result = sb_rand__rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = sb_rand__rotl(s[3], 45);
    return result;
}

/* Uniform double in [0, 1) with 53 random bits. */
static inline double sb_rand_double(sb_rand *r)
{
    return (double)(sb_rand_u64(r) >> 11) * 0x1.0p-53;
}

/* Uniform in [0, n) for n >= 1, unbiased (Lemire's multiply-and-reject). */
static inline uint64_t sb_rand_below(sb_rand *r, uint64_t n)
{
#ifdef __SIZEOF_INT128__
    __extension__ typedef unsigned __int128 sb_rand__u128;
    sb_rand__u128 m = (sb_rand__u128)sb_rand_u64(r) * n;
    uint64_t low = (uint64_t)m;
    if (low < n) {
        uint64_t threshold = (0 - n) % n; /* 2^64 mod n */
        while (low < threshold) {
            m = (sb_rand__u128)sb_rand_u64(r) * n;
            low = (uint64_t)m;
        }
    }
    return (uint64_t)(m >> 64);
#else
    uint64_t threshold = (0 - n) % n, x;
    do
        x = sb_rand_u64(r);
    while (x < threshold);
    return x % n;
#endif
}

/* Two's-complement uint64 -> int64 without implementation-defined casts. */
static inline int64_t sb_rand__u2i(uint64_t u)
{
    return u <= (uint64_t)INT64_MAX ? (int64_t)u : -(int64_t)(UINT64_MAX - u) - 1;
}

/* Uniform integer in [a, b] inclusive, unbiased, for any int64 a, b. */
static inline int64_t sb_rand_uniform(sb_rand *r, int64_t a, int64_t b)
{
    if (b < a) {
        int64_t t = a;
        a = b;
        b = t;
    }
    uint64_t span = (uint64_t)b - (uint64_t)a;
    if (span == UINT64_MAX)
        return sb_rand__u2i(sb_rand_u64(r));
    return sb_rand__u2i((uint64_t)a + sb_rand_below(r, span + 1));
}

/*
 * Bell-shaped on [a, b]: the mean of `iter` uniform draws from [a, b]
 * (rounded down), as sysbench's --rand-spec-iter (default 12).  iter < 1
 * counts as 1 (uniform).
 */
int64_t sb_rand_gaussian(sb_rand *r, int64_t a, int64_t b, int iter);

/*
 * sysbench 1.0's "special" distribution: a block of pct% of the values of
 * [a, b] (at least one value), centred in the middle of the range, receives
 * res% of the draws, uniformly; the other draws are sb_rand_gaussian(a, b,
 * iter) over the whole range (so the block gets slightly more than res%).
 * Defaults: iter 12, pct 1, res 75.  pct <= 0 or res <= 0 gives plain
 * gaussian.
 */
int64_t sb_rand_special(sb_rand *r, int64_t a, int64_t b, int iter, double pct, double res);

/*
 * Pareto-skewed towards a: a + floor(n * U^(log h / log(1-h))), n = b-a+1,
 * so a fraction 1-h of the draws falls on the lowest h of the range
 * (h 0.2: 80% of draws on the lowest 20%).  Default h 0.2; h outside
 * (0, 1) gives uniform.
 */
int64_t sb_rand_pareto(sb_rand *r, int64_t a, int64_t b, double h);

/*
 * Zipfian on [a, b]: P(a + k - 1) proportional to 1 / k^theta, k = 1..n.
 * Rejection-inversion sampling (Hoermann & Derflinger), O(1) per draw; the
 * per-(n, theta) constants are cached in r, so only a change of (b - a) or
 * theta costs a few extra libm calls.  Any theta > 0 works (including 1);
 * theta <= 0 gives uniform.  Default --rand-zipfian-exp 0.8.
 */
int64_t sb_rand_zipfian(sb_rand *r, int64_t a, int64_t b, double theta);

/*
 * A 32-bit value unique within this generator's stream for 2^32 calls: a
 * keyed bijection of a counter (counter start and keys come from the seed).
 * Different streams produce different permutations, which may overlap.
 */
uint32_t sb_rand_unique(sb_rand *r);

/*
 * Fills out from tmpl: '#' -> random digit, '@' -> random lowercase letter,
 * anything else copied.  Like strncpy: writes the template up to its NUL or
 * len bytes, whichever comes first, then a NUL if fewer than len bytes were
 * written.  So len = strlen(tmpl) gives exactly the template's length with
 * no terminator, len = strlen(tmpl) + 1 a C string.
 */
void sb_rand_string(sb_rand *r, const char *tmpl, size_t len, char *out);

/*
 * Writes a random string of uniform length in [min, max] of letters
 * (a-z, A-Z) and digits, plus a NUL: out must hold max + 1 bytes.
 * Returns the length (without the NUL).
 */
size_t sb_rand_varstring(sb_rand *r, size_t min, size_t max, char *out);

#endif /* SB_RAND_H */
