/*
 * The traced driver (trace_driver.c): a copy of the real driver's table
 * whose calls record each statement before passing it on.  Private to
 * author/.
 */
#ifndef SB_AUTHOR_TRACE_DRIVER_H
#define SB_AUTHOR_TRACE_DRIVER_H

#include <sbench/driver.h>

/* The table to run with in place of real (static: valid until exit).
 * rollback: --trace-rollback. */
const struct sbd_driver *trace_driver(const struct sbd_driver *real, int rollback);

#endif
