/*
 * --rate-profile: an arrival rate that changes over the run (ramp, hold,
 * step, spike, sine, or a file of time,rate points), parsed once into a
 * table of points joined by straight lines, and the two questions the
 * arrival code asks of it: how many arrivals are due by time t, and when
 * the next arrival falls (a Poisson process whose rate follows the
 * profile, by the time change of its cumulative rate).  Read-only once
 * parsed: every worker reads it without locks, each with its own cursor.
 * The grammar is in docs/load-profiles.md.
 */
#ifndef SB_RATE_PROFILE_H
#define SB_RATE_PROFILE_H

#include <stddef.h>

/* Most phases in a profile, and most points of its table. */
#define SB_RATE_PROFILE_MAX_PHASES 64
#define SB_RATE_PROFILE_MAX_POINTS 8192

/* A point of the profile: at t seconds from the start of the run (warm-up
 * included) the rate is r events a second; m is the arrivals expected
 * from 0 to t.  Two points at the same t make a jump. */
struct sb_rate_point {
    double t, r, m;
};

/* A phase as the user wrote it, for the reports. */
struct sb_rate_phase {
    double start, end;      /* seconds from the start of the run */
    char name[48];          /* its text, cut to fit */
};

struct sb_rate_profile {
    int npoints;
    struct sb_rate_point *p;    /* npoints >= 1; after the last, its rate holds */
    double length;              /* the last point's time */
    double peak;                /* the highest rate */
    int nphases;
    struct sb_rate_phase phase[SB_RATE_PROFILE_MAX_PHASES];
};

/* Parses spec (see docs/load-profiles.md); opt names the option in the
 * messages ("--rate-profile", or "--clients-profile", whose values are
 * clients).  Returns the profile (free with sb_rate_profile_free), or NULL
 * with one line in err. */
struct sb_rate_profile *sb_rate_profile_parse(const char *spec, const char *opt, char *err, size_t errlen);
void sb_rate_profile_free(struct sb_rate_profile *p);

/* The rate at time t (seconds): the later side of a jump. */
double sb_rate_profile_rate(const struct sb_rate_profile *p, double t);
/* The arrivals expected from 0 to time t. */
double sb_rate_profile_mass(const struct sb_rate_profile *p, double t);
/* The time at which the arrivals expected from 0 reach `mass`; *cursor
 * (a point index, 0 at first, the caller's own) moves forward only, so
 * that a worker asking for later and later arrivals walks the table once.
 * INFINITY when the rate stays 0 before that. */
double sb_rate_profile_time_of(const struct sb_rate_profile *p, double mass, int *cursor);
/* The phase that contains time t, or -1 past the last (or none). */
int sb_rate_profile_phase_at(const struct sb_rate_profile *p, double t);

#endif
