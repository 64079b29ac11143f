/*
 * The host's /proc figures (host_stat.h).  /proc's text is read with
 * bounded buffers and sscanf; a line that does not parse is skipped.
 */
#include "host_stat.h"

#include <stdio.h>
#include <string.h>

/* A whole disk: sdX, vdX, xvdX, hdX without a partition number, nvmeNnM,
 * mmcblkN (their partitions end in pN); not loop, ram, dm. */
static int whole_disk(const char *name)
{
    size_t n = strlen(name);
    if (strncmp(name, "nvme", 4) == 0 || strncmp(name, "mmcblk", 6) == 0)
        return strchr(name + 4, 'p') == NULL;
    if (strncmp(name, "sd", 2) == 0 || strncmp(name, "vd", 2) == 0 ||
        strncmp(name, "hd", 2) == 0 || strncmp(name, "xvd", 3) == 0)
        return n > 0 && !(name[n - 1] >= '0' && name[n - 1] <= '9');
    return 0;
}

static void read_disks(struct sb_host_stat *h)
{
    FILE *f = fopen("/proc/diskstats", "r");
    char line[512];
    if (f == NULL)
        return;
    while (fgets(line, sizeof line, f) != NULL) {
        char name[64];
        long long rd_sec, wr_sec;
        /* major minor name reads merged sectors ms writes merged sectors */
        if (sscanf(line, " %*u %*u %63s %*u %*u %lld %*u %*u %*u %lld", name, &rd_sec,
                   &wr_sec) == 3 && whole_disk(name)) {
            h->read_sectors += rd_sec;
            h->write_sectors += wr_sec;
        }
    }
    fclose(f);
}

void sb_host_stat_read(struct sb_host_stat *h)
{
    memset(h, 0, sizeof *h);
    FILE *f = fopen("/proc/stat", "r");
    char line[512];
    if (f == NULL)
        return;
    while (fgets(line, sizeof line, f) != NULL) {
        long long u, ni, sy, id, io, irq, sirq, st;
        if (sscanf(line, "cpu %lld %lld %lld %lld %lld %lld %lld %lld", &u, &ni, &sy, &id, &io,
                   &irq, &sirq, &st) == 8) {
            h->user = u + ni;
            h->system = sy + irq + sirq;
            h->idle = id;
            h->iowait = io;
            h->other = st;
            h->have = 1;
        } else if (sscanf(line, "ctxt %lld", &u) == 1) {
            h->ctxt = u;
        }
    }
    fclose(f);
    read_disks(h);
}

void sb_host_stat_diff(struct sb_host_stat *out, const struct sb_host_stat *b,
                       const struct sb_host_stat *a)
{
    memset(out, 0, sizeof *out);
    if (!a->have || !b->have)
        return;
    out->have = 1;
    out->user = b->user - a->user;
    out->system = b->system - a->system;
    out->idle = b->idle - a->idle;
    out->iowait = b->iowait - a->iowait;
    out->other = b->other - a->other;
    out->ctxt = b->ctxt - a->ctxt;
    out->read_sectors = b->read_sectors - a->read_sectors;
    out->write_sectors = b->write_sectors - a->write_sectors;
}
