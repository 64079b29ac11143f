/*
 * report_tpcc.c: the TPC-C section of the text report (NOPM, TPM,
 * tpmC-style, rolled-back New-Orders, the executed mix with retries and
 * failures per type), printed after sbench's own sections when every event
 * type of the run is one of TPC-C's (the names the tpcc workload gives its
 * events, workloads/tpcc_common.lua).  It reads only the report's types
 * (core/report.h), so a single run and `sbench merge` print it alike: the
 * merged report runs no Lua.  A pure function of struct sb_report.
 */
#include "report.h"

#include <string.h>

/* The tpcc workload's types in --mix order, the Deliveries that skipped a
 * district, then the New-Orders rolled back by their unused item
 * (tpcc_common.lua's types, SKIPPED_TYPE and ROLLBACK_TYPE). */
static const char *const tpcc_types[] = {"new_order",   "payment",          "order_status", "delivery",
                                         "stock_level", "delivery_skipped", "new_order_rollback"};
#define DELIVERY 3
#define SKIPPED 5 /* a Delivery that skipped a district (tpcc_common.lua's SKIPPED_TYPE) */
#define NTPCC (int)(sizeof tpcc_types / sizeof tpcc_types[0])
#define ROLLBACK (NTPCC - 1)

/* The index of name among the TPC-C types, or -1. */
static int tpcc_index(const char *name)
{
    for (int i = 0; i < NTPCC; i++)
        if (strcmp(tpcc_types[i], name) == 0)
            return i;
    return -1;
}

void sb_report_tpcc_text(FILE *f, const struct sb_report *r)
{
    uint64_t count[NTPCC] = {0}, retries[NTPCC] = {0}, failed[NTPCC] = {0};
    double minutes = r->elapsed / 60;
    if (r->ntypes == 0 || !(minutes > 0))
        return;
    for (int ty = 0; ty < r->ntypes; ty++) {
        int i = tpcc_index(r->type_name[ty]);
        if (i < 0)
            return; /* a type TPC-C does not have: not a TPC-C run */
        count[i] = r->d.type_count[ty];
        retries[i] = r->d.type_retries[ty];
        failed[i] = r->d.type_failed[ty];
    }
    uint64_t committed = count[0], rolled_back = count[ROLLBACK], all_no = committed + rolled_back;
    uint64_t total = 0;
    for (int i = 0; i < NTPCC; i++)
        total += count[i];
    fprintf(f, "TPC-C (a TPC-C-like workload, not an audited tpmC):\n");
    fprintf(f, "    %-40s %.1f\n", "NOPM (New-Orders committed/min):", (double)committed / minutes);
    fprintf(f, "    %-40s %.1f\n", "TPM (transactions/min):", (double)total / minutes);
    fprintf(f, "    %-40s %.1f\n", "tpmC-style (all New-Orders/min):", (double)all_no / minutes);
    fprintf(f, "    %-40s %llu of %llu (%.2f%%)\n", "New-Orders rolled back:",
            (unsigned long long)rolled_back, (unsigned long long)all_no,
            all_no > 0 ? 100.0 * (double)rolled_back / (double)all_no : 0.0);
    uint64_t deliveries = count[DELIVERY] + count[SKIPPED];
    fprintf(f, "    %-40s %llu of %llu (%.2f%%; TPC-C clause 2.7.4.2 allows 1%%)%s\n",
            "Deliveries that skipped a district:", (unsigned long long)count[SKIPPED],
            (unsigned long long)deliveries,
            deliveries > 0 ? 100.0 * (double)count[SKIPPED] / (double)deliveries : 0.0,
            deliveries > 0 && (double)count[SKIPPED] > 0.01 * (double)deliveries ? "  OVER THE LIMIT" : "");
    fprintf(f, "    mix, retries (deadlocks, serialization failures) and failures per type:\n");
    for (int i = 0; i < NTPCC; i++)
        fprintf(f, "        %-20s %6.2f%%  retries: %llu (%.2f%%)  failed: %llu\n", tpcc_types[i],
                total > 0 ? 100.0 * (double)count[i] / (double)total : 0.0,
                (unsigned long long)retries[i],
                count[i] > 0 ? 100.0 * (double)retries[i] / (double)count[i] : 0.0,
                (unsigned long long)failed[i]);
    fputc('\n', f);
    fflush(f);
}
