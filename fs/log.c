/* Logging: one function, so that the daemon decides where messages go
 * (src/main.c opens syslog with LOG_PERROR in the foreground). */
#include "config.h"

#include <stdarg.h>

#include "pfs.h"

void pfs_log(int priority, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsyslog(priority, fmt, ap);
	va_end(ap);
}
