/* Command line of the parquetfs daemon (fuse_opt based). */
#ifndef PFS_SRC_OPTIONS_H
#define PFS_SRC_OPTIONS_H

#include <fuse_lowlevel.h>

#include "pfs_options.h"

/* Takes our -o options and SOURCE out of args (leaving FUSE's own options
 * and MOUNTPOINT for fuse_parse_cmdline). -1 on a parse error. */
int pfs_options_parse(struct fuse_args *args, pfs_options *o);
void pfs_options_help(const char *prog);
/* The mount and FUSE options a user gives parquetfs (not libfuse's list,
 * which names its internals and omits -o ro). */
void pfs_options_help_mount(void);
/* False (with a message) when MOUNTPOINT is SOURCE or inside it
 * (src/mountpoint.c). */
bool pfs_mountpoint_check(const pfs_options *o, const char *mnt, char *msg, size_t msglen);

#endif
