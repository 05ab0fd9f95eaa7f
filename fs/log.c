/* Logging: one function, so that the daemon decides where messages go
 * (src/main.c opens syslog with LOG_PERROR in the foreground).
 *
 * A message may carry a file name or a value from SOURCE: its control
 * bytes are escaped (`\n` as `\x0a`), so one message stays one line and
 * nobody can forge log lines or terminal escapes with a name. */
#include "config.h"

#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>

#include "pfs.h"

#define LOG_LINE_MAX 4096 /* a path and a message; escaped up to 4x */

static _Atomic int totals_priority = LOG_DEBUG;

void pfs_log_set_totals(int priority)
{
	atomic_store(&totals_priority, priority);
}

int pfs_log_totals(void)
{
	return atomic_load(&totals_priority);
}

size_t pfs_escape_line(const char *in, char *out, size_t outlen)
{
	static const char hex[] = "0123456789abcdef";
	size_t n = 0;
	if (!outlen)
		return 0;
	for (const unsigned char *c = (const unsigned char *)in; *c; c++) {
		bool ctl = *c < 0x20 || *c == 0x7f;
		if (n + (ctl ? 4 : 1) >= outlen)
			break;
		if (ctl) {
			out[n++] = '\\';
			out[n++] = 'x';
			out[n++] = hex[*c >> 4];
			out[n++] = hex[*c & 15];
		} else {
			out[n++] = (char)*c;
		}
	}
	out[n] = '\0';
	return n;
}

void pfs_log(int priority, const char *fmt, ...)
{
	char raw[LOG_LINE_MAX], line[LOG_LINE_MAX * 2];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(raw, sizeof raw, fmt, ap);
	va_end(ap);
	pfs_escape_line(raw, line, sizeof line);
	syslog(priority, "%s", line);
}
