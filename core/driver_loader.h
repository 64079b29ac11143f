/*
 * Loading a driver shared object and checking it against the ABI, and the
 * host services table (struct sbd_host) that drivers read options through.
 */
#ifndef SB_DRIVER_LOADER_H
#define SB_DRIVER_LOADER_H

#include <sbench/driver.h>
#include <stddef.h>

struct sb_options;

/* dlopens path and validates the driver it exports: same ABI major,
 * struct_size large enough for the required members, required members
 * present, name matching `name`.  Returns a copy of the driver's table at
 * this sbench's full size (members the driver's older minor version lacks
 * are NULL, and a capability bit is set only when all its calls are
 * present: test the bit alone); static, valid until exit; or NULL with one
 * line in err.  The shared object is never unloaded; one driver per
 * process. */
const struct sbd_driver *sb_driver_load(const char *path, const char *name,
                                        char *err, size_t errlen);

/* Registers the driver's options in the registry. */
void sb_driver_register_options(const struct sbd_driver *d, struct sb_options *o);

/* Registers the options of the driver at path, one that is not the
 * driver in use, with `source` (SB_SRC_OTHER_DRIVER), so that its options
 * are accepted and ignored.  Loads nothing else from it; leaves the driver
 * in use alone.  Returns 0, or -1 when path is no driver of this ABI. */
int sb_driver_peek_options(const char *path, struct sb_options *o, int source);

/* Builds the host services table over the registry.  The returned table
 * is static (one per process) and valid until exit. */
const struct sbd_host *sb_host_create(const struct sb_options *o, const char *driver_name);

#endif
