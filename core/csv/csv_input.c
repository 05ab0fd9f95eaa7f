/* The input of a conversion as blocks of bytes: a plain file read with
 * pread (or read, for a pipe), or a gzip / zstd file decompressed as it
 * is read (core/codec/codec_stream.c). The tokenizer only ever asks for
 * "the next block"; a parallel tokenizer can take the same blocks.
 *
 * Memory: one raw block of the compressed file and the decoder's window.
 * A decompression bomb is stopped by a cap on the bytes handed out
 * (PQ_ELIMIT), by default the larger of PQ_CSV_INFLATE_MIN and
 * PQ_CSV_INFLATE_RATIO times the compressed file's size. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "codec/pq_codec.h"
#include "pq_csv.h"

#define RAW_CHUNK (256u << 10)

/* The decompressed bytes of the first pass (pq_csv_input_spool). */
struct pq_csv_spool {
	int fd;
	uint64_t len, cap;
	bool failed, complete;
};

void pq_csv_input_spool(pq_csv_input *in, const char *dir)
{
	if (in->codec == PQ_INPUT_PLAIN || !in->seekable || in->spool || in->out_bytes)
		return;
	if (!dir || !*dir)
		dir = getenv("TMPDIR");
	if (!dir || !*dir)
		dir = "/tmp";
	struct statvfs vs;
	int fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (fd < 0)
		return;
	struct pq_csv_spool *sp = calloc(1, sizeof *sp);
	if (!sp || fstatvfs(fd, &vs) != 0) {
		free(sp);
		close(fd);
		return;
	}
	sp->fd = fd;
	sp->cap = (uint64_t)vs.f_bavail * vs.f_frsize / 2;
	in->spool = sp;
}

/* Keeps n more decompressed bytes; end: the stream ended there. */
void pq_csv_input_spool_put(pq_csv_input *in, const uint8_t *p, size_t n, bool end)
{
	if (end && in->spool && !in->spool->failed)
		in->spool->complete = true;
	struct pq_csv_spool *sp = in->spool;
	if (!sp || sp->failed || sp->complete || in->from_spool)
		return;
	if (n > sp->cap - sp->len) {
		sp->failed = true; /* no room: the rewind decompresses again */
		return;
	}
	while (n > 0) {
		ssize_t w = pwrite(sp->fd, p, n, (off_t)sp->len);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			sp->failed = true;
			return;
		}
		p += w;
		n -= (size_t)w;
		sp->len += (uint64_t)w;
	}
}

static void spool_free(pq_csv_input *in)
{
	if (!in->spool)
		return;
	close(in->spool->fd);
	free(in->spool);
	in->spool = NULL;
	in->from_spool = false;
}

/* The next bytes of the kept stream; raw_off goes along in proportion. */
static pq_status spool_read(pq_csv_input *in, uint8_t *buf, size_t cap, size_t *got,
			    pq_error *err)
{
	struct pq_csv_spool *sp = in->spool;
	for (;;) {
		size_t want = sp->len - in->spool_off < cap ? (size_t)(sp->len - in->spool_off) : cap;
		ssize_t r = want ? pread(sp->fd, buf, want, (off_t)in->spool_off) : 0;
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0 || (r == 0 && want))
			return pq_fail(err, PQ_EIO, "%s: reading back the decompressed bytes: %s",
				       in->name, r < 0 ? strerror(errno) : "short file");
		*got = (size_t)r;
		in->spool_off += (uint64_t)r;
		in->raw_off = sp->len ? (uint64_t)((long double)in->spool_off * in->raw_size / sp->len)
				      : in->raw_size;
		if (in->on_block)
			in->on_block(in->ctx);
		return PQ_OK;
	}
}

pq_input_codec pq_csv_sniff(const uint8_t *p, size_t n)
{
	if (n >= 2 && p[0] == 0x1f && p[1] == 0x8b)
		return PQ_INPUT_GZIP;
	if (n >= 4 && p[0] == 0x28 && p[1] == 0xb5 && p[2] == 0x2f && p[3] == 0xfd)
		return PQ_INPUT_ZSTD;
	return PQ_INPUT_PLAIN;
}

/* Reads up to n bytes of the file (from raw_off when seekable). */
static pq_status file_read(pq_csv_input *in, uint8_t *buf, size_t n, size_t *got,
			   pq_error *err)
{
	if (in->grow_wait) {
		uint64_t avail = 0;
		if (!in->grow_wait(in->grow_ctx, in->raw_off, &avail))
			return pq_fail(err, PQ_EIO, "%s: the file changed while it was read",
				       in->name);
		uint64_t left = avail > in->raw_off ? avail - in->raw_off : 0;
		if (left < n)
			n = (size_t)left;
		if (n == 0) {
			*got = 0;
			in->raw_eof = true;
			return PQ_OK;
		}
	}
	for (;;) {
		ssize_t r = in->seekable ? pread(in->fd, buf, n, (off_t)in->raw_off)
					 : read(in->fd, buf, n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return pq_fail(err, PQ_EIO, "%s: read at offset %llu: %s", in->name,
				       (unsigned long long)in->raw_off, strerror(errno));
		*got = (size_t)r;
		in->raw_off += (uint64_t)r;
		if (r == 0)
			in->raw_eof = true;
		if (in->on_block)
			in->on_block(in->ctx);
		return PQ_OK;
	}
}

static pq_status input_open(pq_csv_input *in, pq_input_codec codec, uint64_t max_out,
			    pq_error *err);

pq_status pq_csv_input_open(pq_csv_input *in, int fd, const char *name, pq_input_codec codec,
			    uint64_t max_out, pq_error *err)
{
	memset(in, 0, sizeof *in);
	in->fd = fd;
	in->name = name ? name : "input";
	struct stat st;
	in->seekable = fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
	if (in->seekable)
		in->raw_size = (uint64_t)st.st_size;
	return input_open(in, codec, max_out, err);
}

pq_status pq_csv_input_open_growing(pq_csv_input *in, int fd, const char *name,
				    pq_input_codec codec,
				    bool (*grow_wait)(void *ctx, uint64_t off, uint64_t *avail),
				    void *ctx, pq_error *err)
{
	memset(in, 0, sizeof *in);
	in->fd = fd;
	in->name = name ? name : "input";
	in->seekable = true;
	in->grow_wait = grow_wait;
	in->grow_ctx = ctx;
	return input_open(in, codec, 0, err);
}

/* The first block, the codec, the decoder and the cap on its output. */
static pq_status input_open(pq_csv_input *in, pq_input_codec codec, uint64_t max_out,
			    pq_error *err)
{
	in->raw = malloc(RAW_CHUNK);
	if (!in->raw)
		return pq_fail(err, PQ_ENOMEM, "%s: no memory for the read buffer", in->name);
	/* the first block tells the codec by its magic (kept for a pipe) */
	PQ_TRY(file_read(in, in->raw, RAW_CHUNK, &in->raw_end, err));
	if (codec == PQ_INPUT_AUTO)
		codec = pq_csv_sniff(in->raw, in->raw_end);
	in->codec = codec;
	if (codec != PQ_INPUT_PLAIN) {
		PQ_TRY(pq_unpack_new(codec == PQ_INPUT_GZIP ? PQ_UNPACK_GZIP : PQ_UNPACK_ZSTD,
				     &in->u, err));
		if (!max_out) {
			uint64_t by_ratio = in->raw_size > UINT64_MAX / PQ_CSV_INFLATE_RATIO
						    ? UINT64_MAX
						    : in->raw_size * PQ_CSV_INFLATE_RATIO;
			max_out = by_ratio > PQ_CSV_INFLATE_MIN ? by_ratio : PQ_CSV_INFLATE_MIN;
		}
	}
	in->max_out = max_out ? max_out : UINT64_MAX;
	return PQ_OK;
}

void pq_csv_input_free(pq_csv_input *in)
{
	pq_csv_ahead_free(in);
	spool_free(in);
	free(in->raw);
	pq_unpack_free(in->u);
	memset(in, 0, sizeof *in);
	in->fd = -1;
}

pq_status pq_csv_input_rewind(pq_csv_input *in, pq_error *err)
{
	if (!in->seekable)
		return pq_fail(err, PQ_EINVAL, "%s: a pipe cannot be read twice", in->name);
	pq_csv_ahead_stop(in);
	if (in->spool && in->spool->complete) {
		in->from_spool = true; /* read back, not decompressed again */
		in->spool_off = 0;
	} else {
		spool_free(in); /* kept only part: of no use */
	}
	in->raw_off = 0;
	in->raw_pos = in->raw_end = 0;
	in->raw_eof = false;
	in->out_bytes = 0;
	if (in->u)
		PQ_TRY(pq_unpack_reset(in->u, err));
	return PQ_OK;
}

pq_status pq_csv_input_unpack(pq_csv_input *in, uint8_t *buf, size_t cap, size_t *got,
			      pq_error *err)
{
	for (;;) {
		if (in->raw_pos == in->raw_end && !in->raw_eof) {
			in->raw_pos = 0;
			PQ_TRY(file_read(in, in->raw, RAW_CHUNK, &in->raw_end, err));
		}
		const uint8_t *p = in->raw + in->raw_pos;
		size_t left = in->raw_end - in->raw_pos;
		pq_status st = pq_unpack_run(in->u, &p, &left, buf, cap, got, err);
		if (st != PQ_OK)
			return pq_context(err, "%s", in->name);
		in->raw_pos = in->raw_end - left;
		if (*got) {
			pq_csv_input_spool_put(in, buf, *got, false);
			return PQ_OK;
		}
		if (in->raw_pos == in->raw_end && in->raw_eof) {
			st = pq_unpack_finish(in->u, err);
			if (st != PQ_OK)
				return pq_context(err, "%s", in->name);
			pq_csv_input_spool_put(in, NULL, 0, true);
			return PQ_OK;
		}
	}
}

pq_status pq_csv_input_read(pq_csv_input *in, uint8_t *buf, size_t cap, size_t *got,
			    pq_error *err)
{
	*got = 0;
	if (in->from_spool) {
		PQ_TRY(spool_read(in, buf, cap, got, err));
	} else if (in->codec != PQ_INPUT_PLAIN && in->read_ahead) {
		PQ_TRY(pq_csv_ahead_read(in, buf, cap, got, err));
	} else if (in->codec != PQ_INPUT_PLAIN) {
		PQ_TRY(pq_csv_input_unpack(in, buf, cap, got, err));
	} else if (in->raw_pos < in->raw_end) { /* the first block, read at open */
		size_t n = in->raw_end - in->raw_pos < cap ? in->raw_end - in->raw_pos : cap;
		memcpy(buf, in->raw + in->raw_pos, n);
		in->raw_pos += n;
		*got = n;
	} else if (!in->raw_eof) {
		PQ_TRY(file_read(in, buf, cap, got, err));
	}
	if (*got > in->max_out - in->out_bytes)
		return pq_fail(err, PQ_ELIMIT,
			       "%s: decompresses to more than %llu bytes (the cap for a file of "
			       "its size; a likely decompression bomb)",
			       in->name, (unsigned long long)in->max_out);
	in->out_bytes += *got;
	return PQ_OK;
}
