#!/usr/bin/env python3
# mdc_capacity.py C D T PCT LIMIT: the true capacity of a server of C slots
# that each serve a request in D seconds (M/D/C: Poisson arrivals, first
# come first served), for `sbench capacity`'s definition: the arrival rate
# at which half the runs of T seconds (starting empty) have their PCT
# percentile latency (nearest rank, as sbench reports it) below LIMIT
# seconds.  Simulated (300 runs a rate, bisection on the rate), apart from
# sbench's code.  Used by tests/measure/capacity.sh.
import heapq, math, random, sys
def run_p99(rate, c, d, T, pct, rng):
    t, free, lat = 0.0, [0.0] * c, []
    while True:
        t += rng.expovariate(rate)
        if t >= T: break
        s = heapq.heappop(free)
        start = max(s, t)
        heapq.heappush(free, start + d)
        lat.append(start + d - t)
    if not lat: return 0.0
    lat.sort()
    return lat[max(1, math.ceil(pct / 100 * len(lat))) - 1]
def p_meet(rate, c, d, T, pct, limit, n, seed):
    rng = random.Random(seed)
    return sum(run_p99(rate, c, d, T, pct, rng) < limit for _ in range(n)) / n
def capacity(c, d, T, pct, limit, n=300):
    lo, hi = 0.01 * c / d, 2.0 * c / d
    for i in range(18):
        m = math.sqrt(lo * hi)
        if p_meet(m, c, d, T, pct, limit, n, i) >= 0.5: lo = m
        else: hi = m
    return math.sqrt(lo * hi)
if __name__ == '__main__':
    c, d, T, pct, limit = int(sys.argv[1]), float(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4]), float(sys.argv[5])
    print(f"{capacity(c, d, T, pct, limit):.2f}")
