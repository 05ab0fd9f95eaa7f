/* The FUSE request loop of the daemon.
 *
 * libfuse's multi-threaded loop keeps every idle worker asleep in read(2)
 * on /dev/fuse, so each request wakes a thread, and each reply wakes the
 * client. On a virtual machine a wake-up costs tens of microseconds; a
 * serial client (ls -lR, cat of many small files) pays for both on every
 * request. This loop has one reader at a time, which keeps polling
 * /dev/fuse for poll_us after each request before it sleeps, and handles
 * what it takes itself. A watchdog hands the reader's role to another
 * thread when a request holds the reader longer than PFS_LOOP_WATCH_US,
 * so a request that waits (disk, server, rendering) never holds up the
 * others for longer than that; while the reader is awake, the watchdog
 * keeps a second CPU from halting, so the client is woken sooner. */
#ifndef PFS_LOOP_H
#define PFS_LOOP_H

#include <fuse_lowlevel.h>

/* How often the watchdog looks at a busy reader: a request that waits
 * holds the others up for one to two of these. */
#define PFS_LOOP_WATCH_US 1000
/* The default of -o poll_us=. */
#define PFS_LOOP_POLL_US 300

/* Serves se until it exits (unmount, signal). At most max_threads threads
 * (the caller's included) handle requests at once; poll_us = 0 sleeps as
 * soon as nothing is queued, and keeps no CPU awake. Returns 0, or the
 * session's error. */
int pfs_loop_run(struct fuse_session *se, unsigned max_threads, unsigned poll_us);

/* The calling thread is about to wait (for a server, or for bytes another
 * thread is fetching): if it is the loop's reader, its role goes to another
 * thread now rather than at the watchdog's next look. Free for any other
 * thread. */
void pfs_loop_will_wait(void);

/* A round trip to a server begins (pfs_loop_will_wait included) / ends on
 * the calling thread, any thread. While any is under way the watchdog
 * keeps no CPU awake: the clients wait for the network, not for wake-ups. */
void pfs_loop_server_begin(void);
void pfs_loop_server_end(void);

#endif
