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
 * present, name matching `name`.  Returns the driver (static, owned by the
 * loaded object, valid until exit) or NULL with one line in err.  The
 * shared object is never unloaded. */
const struct sbd_driver *sb_driver_load(const char *path, const char *name,
                                        char *err, size_t errlen);

/* Registers the driver's options in the registry. */
void sb_driver_register_options(const struct sbd_driver *d, struct sb_options *o);

/* Builds the host services table over the registry.  The returned table
 * is static (one per process) and valid until exit. */
const struct sbd_host *sb_host_create(const struct sb_options *o, const char *driver_name);

/* 1 if the driver struct has member at offset off (appended members). */
#define SB_DRV_HAS(d, member) \
    ((d)->struct_size >= offsetof(struct sbd_driver, member) + sizeof((d)->member) && \
     (d)->member != NULL)

#endif
