/*
 * `sbench info`: the machine (core/sysinfo.h), sbench's version, the
 * drivers found with their client library versions and the workloads
 * found, as text or (--report-format=json) one JSON object.  No database
 * is touched.
 */
#ifndef SB_INFO_H
#define SB_INFO_H

struct sb_options;

/* Prints the facts on stdout; json selects the JSON object.  language is
 * the script binding's ("Lua 5.4").  Registers the drivers' options in o
 * (a driver that learns its client version in init is initialized once).  Returns the exit status: 0, or 1
 * when stdout could not be written. */
int sb_info_command(struct sb_options *o, const char *language, int json);

#endif
