/*
 * Socket helpers of the wire-protocol fast paths: see sock_io.h.  Waiting
 * and sending a whole buffer are lib/sock.c's, the same as the core's.
 */
#include "sock_io.h"
#include "../../lib/sock.h"

#include <errno.h>
#include <poll.h>
#include <sys/socket.h>
#include <time.h>

int64_t sbc_now_ms(void)
{
    return sb_mono_ms();
}

int sbc_wait(int fd, short events, int64_t deadline)
{
    return sb_sock_wait(fd, events, -1, deadline);
}

int sbc_send_all(int fd, const void *buf, size_t n, int64_t deadline)
{
    return sb_send_all(fd, buf, n, -1, deadline);
}
