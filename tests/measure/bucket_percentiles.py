"""bucket_percentiles.py: percentiles computed from a bucket list printed by
hdr_sum.mjs (the reference decoder's sum), with sbench's rule: the value of
rank ceil(p/100 * n), reported as its bucket's highest equivalent value,
within the exact [min, max].  Shared by merge_exact.sh and shards.sh, which
compare it with sbench merge's percentiles."""
import math


def read_buckets(path):
    """[(index, count, highest_equivalent_value)] from hdr_sum.mjs's output."""
    return [tuple(map(int, l.split())) for l in open(path).read().split("\n")[1:] if l]


def percentile(buckets, pct, lo, hi):
    n = sum(c for _, c, _ in buckets)
    rank = max(1, math.ceil(pct / 100 * n - 1e-9))
    cum = 0
    for _, c, top in buckets:
        cum += c
        if cum >= rank:
            break
    return min(max(top, lo), hi)
