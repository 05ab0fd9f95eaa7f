/* A MOUNTPOINT inside SOURCE is refused: the mount would show itself
 * inside itself without end (mnt/mnt/mnt...), every walk of it would
 * recurse, and its unmount would find it busy. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "options.h"

/* Walks up from MOUNTPOINT by "..", comparing each directory's device and
 * inode with SOURCE's: symlinks, bind mounts and relative names on the way
 * make no difference, as they would to a string comparison of paths. */
bool pfs_mountpoint_check(const pfs_options *o, const char *mnt, char *msg, size_t msglen)
{
	if (o->source_kind != PFS_SRC_LOCAL || o->source_is_file || !o->source_abs)
		return true;
	struct stat src, st, up;
	if (stat(o->source_abs, &src) != 0)
		return true; /* checked before; the mount will say */
	int fd = open(mnt, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return true; /* fuse_session_mount names the problem */
	bool inside = false, self = false;
	for (int depth = 0; depth < 4096; depth++) {
		if (fstat(fd, &st) != 0)
			break;
		if (st.st_dev == src.st_dev && st.st_ino == src.st_ino) {
			inside = true;
			self = depth == 0;
			break;
		}
		int up_fd = openat(fd, "..", O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (up_fd < 0)
			break;
		bool root = fstat(up_fd, &up) == 0 && up.st_dev == st.st_dev && up.st_ino == st.st_ino;
		close(fd);
		fd = up_fd;
		if (root)
			break;
	}
	close(fd);
	if (self)
		snprintf(msg, msglen, "MOUNTPOINT %s is SOURCE %s itself: mount it on a directory "
			 "outside SOURCE", mnt, o->source_abs);
	else if (inside)
		snprintf(msg, msglen, "MOUNTPOINT %s is inside SOURCE %s: the mount would contain "
			 "itself; mount it on a directory outside SOURCE", mnt, o->source_abs);
	return !inside;
}
