/* Where the daemon's messages go.
 *
 * Until the daemon detaches: standard error, where the user typed the
 * command (libfuse's messages too: a bad -o option is named in the one
 * line of a failed start instead of going to syslog). After: syslog, and
 * standard error as well in the foreground, or when there is no syslog
 * socket (containers, minimal systems), where they would otherwise go
 * nowhere. Standard error is kept then unless it is a pipe or a socket:
 * a detached daemon holding it open would keep `out=$(parquetfs ...)`
 * waiting until the unmount. */
#include "config.h"

#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <syslog.h>
#include <unistd.h>

#include <fuse_lowlevel.h>

#include "logging.h"

static bool detached;
static char fuse_text[1024]; /* libfuse's messages before detaching */
static size_t fuse_len;
static char fuse_said[1100];

__attribute__((format(printf, 2, 0)))
static void fuse_log_fn(enum fuse_log_level level, const char *fmt, va_list ap)
{
	if (detached) {
		vsyslog((int)level, fmt, ap);
		return;
	}
	/* libfuse writes one message in pieces: gather them */
	if (fuse_len < sizeof fuse_text - 1) {
		int n = vsnprintf(fuse_text + fuse_len, sizeof fuse_text - fuse_len, fmt, ap);
		if (n > 0)
			fuse_len += (size_t)n < sizeof fuse_text - fuse_len ? (size_t)n
									: sizeof fuse_text - 1 - fuse_len;
	}
}

void pfs_logging_start(bool debug)
{
	openlog("parquetfs", LOG_PID | LOG_PERROR, LOG_DAEMON);
	setlogmask(LOG_UPTO(debug ? LOG_DEBUG : LOG_INFO));
	fuse_set_log_func(fuse_log_fn);
}

/* libfuse's text as one line: "fuse: " prefixes dropped, newlines as "; ". */
static void fuse_line(char *out, size_t outlen)
{
	size_t n = 0;
	const char *p = fuse_text;
	out[0] = '\0';
	while (*p && n + 1 < outlen) {
		if (!strncmp(p, "fuse: ", 6) && (p == fuse_text || p[-1] == '\n')) {
			p += 6;
			continue;
		}
		if (*p == '\n') {
			p++;
			if (*p && n + 3 < outlen) {
				out[n++] = ';';
				out[n++] = ' ';
			}
			continue;
		}
		out[n++] = *p++;
	}
	out[n] = '\0';
}

void pfs_logging_session_failed(char *msg, size_t msglen)
{
	char line[sizeof fuse_text];
	fuse_line(line, sizeof line);
	/* "unknown option(s): `-o cache_sise=1G'" */
	const char *u = strstr(line, "unknown option(s): `");
	const char *q = u ? strchr(u + 20, '\'') : NULL;
	if (!q) {
		snprintf(msg, msglen, "cannot start a FUSE session%s%s", line[0] ? ": " : "", line);
		return;
	}
	char names[sizeof line] = "";
	size_t n = 0, count = 0;
	for (const char *p = u + 20; p < q;) {
		size_t w = strcspn(p, " ");
		if (w > (size_t)(q - p))
			w = (size_t)(q - p);
		bool dash_o = w == 2 && !strncmp(p, "-o", 2);
		if (w && !dash_o) {
			/* "-oa,b" or "a,b" after "-o": one name per option */
			const char *word = !strncmp(p, "-o", 2) ? p + 2 : p;
			for (const char *e = word + (w - (size_t)(word - p)); word < e;) {
				size_t ww = strcspn(word, ",");
				if (ww > (size_t)(e - word))
					ww = (size_t)(e - word);
				if (ww && n + ww + 3 < sizeof names) {
					n += (size_t)snprintf(names + n, sizeof names - n, "%s%.*s",
							      n ? ", " : "", (int)ww, word);
					count++;
				}
				word += ww + (word + ww < e);
			}
		}
		p += w;
		while (p < q && *p == ' ')
			p++;
	}
	snprintf(msg, msglen, "unknown option%s %s (parquetfs --help lists the options)",
		 count > 1 ? "s" : "", names);
}

const char *pfs_logging_fuse_said(void)
{
	char line[sizeof fuse_text];
	fuse_line(line, sizeof line);
	snprintf(fuse_said, sizeof fuse_said, "%s%s", line[0] ? ": " : "", line);
	return fuse_said;
}

int pfs_logging_before_detach(void)
{
	struct stat st;
	if (fstat(STDERR_FILENO, &st) != 0 || S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode))
		return -1;
	return fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 3);
}

void pfs_logging_detached(bool foreground, int saved_stderr)
{
	struct stat st;
	bool socket = stat(_PATH_LOG, &st) == 0 && S_ISSOCK(st.st_mode);
	if (!foreground && !socket && saved_stderr >= 0)
		(void)dup2(saved_stderr, STDERR_FILENO); /* fuse_daemonize made it /dev/null */
	if (saved_stderr >= 0)
		close(saved_stderr);
	bool to_stderr = foreground || (!socket && saved_stderr >= 0);
	openlog("parquetfs", LOG_PID | (to_stderr ? LOG_PERROR : 0), LOG_DAEMON);
	detached = true;
	/* what libfuse said on the way that did not stop the mount */
	if (fuse_len) {
		char line[sizeof fuse_text];
		fuse_line(line, sizeof line);
		syslog(LOG_NOTICE, "%s", line);
		fuse_len = 0;
		fuse_text[0] = '\0';
	}
}
