#!/usr/bin/env python3
"""ARUNA containers, written from interface.md ("ARUNA containers", "Byte
layout") alone, independent of parquetfs's C code: the tests' second
implementation. ChaCha20-Poly1305 comes from python3-cryptography, zstd
from the `zstd` tool; the rest is the standard library.

    aruna.py seal KEYHEX IN OUT [--nonce-seed N] [--level L]
    aruna.py open KEYHEX IN OUT          decrypt and decompress (checks all)
    aruna.py info KEYHEX IN              chunks, blocks, footer
    aruna.py broken KIND KEYHEX IN OUT   a container broken in one way (KINDS);
                                         KIND all: OUT is a directory, one of each
    aruna.py kinds                       the broken kinds
    aruna.py sizes KEYHEX DIR            every size boundary, plain and sealed

Exit 0 on success; 1 with "aruna.py: ERROR" on stderr when a container is
refused.
"""
import os
import struct
import subprocess
import sys

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305

CHUNK = 5 * 1024 * 1024
SECTION = 65536
BLOCK = SECTION + 28
PAD_MAGIC = 0x184D2A50
FOOTER1 = 0x184D2A51
FOOTER2 = 0x184D2A52
ZSTD_MAGIC = 0xFD2FB528
LIST_ROOM = SECTION - 12


class Refused(Exception):
    pass


def zstd(args, data):
    r = subprocess.run(['zstd', '-q', '-c'] + args, input=data, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE)
    if r.returncode:
        raise Refused('zstd %s: %s' % (' '.join(args), r.stderr.decode(errors='replace').strip()))
    return r.stdout


class Nonces:
    """os.urandom, or a counter from a seed (the same bytes each run)."""

    def __init__(self, seed=None):
        self.seed, self.n = seed, 0

    def __call__(self):
        if self.seed is None:
            return os.urandom(12)
        self.n += 1
        return struct.pack('<IQ', self.seed, self.n)


def seal_section(aead, data, nonces):
    while True:
        nonce = nonces()
        sealed = aead.encrypt(nonce, data, b'')
        if sealed[-1] != 0:  # aruna-file's readers take trailing zeros as padding
            return nonce + sealed


def padding(frame_len):
    miss = SECTION - frame_len % SECTION
    pad = miss if miss > 8 else miss + SECTION
    return struct.pack('<II', PAD_MAGIC, pad - 8) + bytes(pad - 8)


def seal(plain, key, nonces=None, level=3, frames=None):
    """frames: the chunks' zstd frames as given (tests of broken files)."""
    nonces = nonces or Nonces()
    aead = ChaCha20Poly1305(key)
    if frames is None:
        chunks = [plain[i:i + CHUNK] for i in range(0, len(plain), CHUNK)] or [b'']
        frames = [zstd(['-%d' % level], c) for c in chunks]
    out = []
    if len(frames) == 1:
        f = frames[0]
        for i in range(0, max(len(f), 1), SECTION):
            out.append(seal_section(aead, f[i:i + SECTION], nonces))
        return b''.join(out)
    counts = []
    for f in frames:
        data = f + padding(len(f))
        assert len(data) % SECTION == 0
        counts.append(len(data) // SECTION)
        for i in range(0, len(data), SECTION):
            out.append(seal_section(aead, data[i:i + SECTION], nonces))
    out.append(footer_blocks(aead, counts, nonces))
    return b''.join(out)


def footer_sections(counts, total_override=None, extra=0):
    nsec = 2 if len(counts) >= LIST_ROOM else 1
    lst = list(counts)
    lst[-1] += nsec
    total = sum(counts) + nsec if total_override is None else total_override
    lst[-1] += extra
    magic = FOOTER2 if nsec == 2 else FOOTER1
    secs = []
    for k in range(nsec):
        part = bytes(lst[k * LIST_ROOM:(k + 1) * LIST_ROOM])
        secs.append(struct.pack('<III', magic, 65528, total) + part + bytes(LIST_ROOM - len(part)))
    return secs


def footer_blocks(aead, counts, nonces, **kw):
    return b''.join(seal_section(aead, s, nonces) for s in footer_sections(counts, **kw))


def open_block(aead, raw, b):
    if len(raw) < 29:
        raise Refused('block %d (byte %d) is cut short: the file ends inside it' % (b, b * BLOCK))
    try:
        return aead.decrypt(raw[:12], raw[12:], b'')
    except InvalidTag:
        raise Refused('block %d (byte %d) failed authentication: wrong container key or damaged '
                      'file' % (b, b * BLOCK))


def layout(c, aead):
    """(chunks as [first block, count], footer blocks)."""
    n = len(c)
    if n == 0:
        raise Refused('empty file')
    if n % BLOCK == 0 and n // BLOCK >= 2:
        nb = n // BLOCK
        last = open_block(aead, c[-BLOCK:], nb - 1)
        magic, fsize = struct.unpack_from('<II', last)
        if fsize == 65528 and magic in (FOOTER1, FOOTER2):
            secs = [last]
            if magic == FOOTER2:
                secs.insert(0, open_block(aead, c[-2 * BLOCK:-BLOCK], nb - 2))
            lst = []
            for s in secs:
                m, fs, total = struct.unpack_from('<III', s)
                if (m, fs) != (magic, 65528):
                    raise Refused('footer inconsistent: bad section')
                if total != nb:
                    raise Refused('footer inconsistent: Block_Total %d, length says %d' % (total, nb))
                part = s[12:]
                z = part.find(0)
                lst += part[:z if z >= 0 else len(part)]
                if z >= 0:
                    break
            if sum(lst) != nb:
                raise Refused('footer inconsistent: Block_List adds up to %d blocks, Block_Total '
                              'says %d' % (sum(lst), nb))
            lst[-1] -= len(secs)
            chunks, first = [], 0
            for k in lst:
                if not 1 <= k <= 81:
                    raise Refused('footer inconsistent: a chunk of %d blocks' % k)
                chunks.append((first, k))
                first += k
            return chunks, len(secs)
    nb = (n + BLOCK - 1) // BLOCK
    if nb > 81:
        raise Refused('footer missing')
    return [(0, nb)], 0


def split_padding(data, i):
    """The frame before chunk i's padding frame (the last skippable frame
    whose size reaches exactly the end)."""
    pos = data.rfind(struct.pack('<I', PAD_MAGIC))
    while pos >= 0:
        if pos + 8 <= len(data) and struct.unpack_from('<I', data, pos + 4)[0] == len(data) - pos - 8:
            return data[:pos]
        pos = data.rfind(struct.pack('<I', PAD_MAGIC), 0, pos)
    raise Refused('chunk %d: no padding frame after its zstd frame' % i)


def count_frames(data):
    """(zstd frames, skippable frames), as `zstd -lv` counts them."""
    import tempfile
    with tempfile.NamedTemporaryFile(suffix='.zst') as t:
        t.write(data)
        t.flush()
        r = subprocess.run(['zstd', '-lv', t.name], stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    text = r.stdout.decode(errors='replace')
    if r.returncode:
        raise Refused('not zstd frames: %s' % text.strip().splitlines()[-1:])
    def num(label):
        for line in text.splitlines():
            if line.strip().startswith(label):
                return int(line.split(':')[1])
        return 0
    return num('# Zstandard Frames'), num('# Skippable Frames')


def decode_chunk(c, aead, i, first, count, nblocks_data, padded):
    data = b''.join(open_block(aead, c[b * BLOCK:(b + 1) * BLOCK], b) for b in range(first, first + count))
    if padded:
        data = split_padding(data, i)
    if len(data) < 4 or struct.unpack_from('<I', data)[0] != ZSTD_MAGIC:
        raise Refused('chunk %d does not start with a zstd frame' % i)
    frames, skippable = count_frames(data)
    if (frames, skippable) != (1, 0):
        what = 'chunk %d holds %d zstd frames and %d skippable ones' % (i, frames, skippable)
        raise Refused(what if padded else 'footer missing: ' + what)
    out = zstd(['-d'], data)
    if len(out) > CHUNK:
        raise Refused('chunk %d decompresses to more than 5 MiB%s' % (i, '' if padded else ' (footer missing)'))
    return out


def unseal(c, key):
    aead = ChaCha20Poly1305(key)
    chunks, fb = layout(c, aead)
    out = []
    for i, (first, count) in enumerate(chunks):
        d = decode_chunk(c, aead, i, first, count, len(chunks), fb > 0)
        if i + 1 < len(chunks) and len(d) != CHUNK:
            raise Refused('chunk %d decompresses to %d bytes, not 5,242,880' % (i, len(d)))
        out.append(d)
    return b''.join(out)


def info(c, key):
    chunks, fb = layout(c, ChaCha20Poly1305(key))
    nb = (len(c) + BLOCK - 1) // BLOCK
    return 'container: aruna, %d chunks, %d blocks, index: %s' % (
        len(chunks), nb, 'footer' if fb else 'none (read whole)')


SIZES = [0, 1, 65535, 65536, 65537, CHUNK - 1, CHUNK, CHUNK + 1, 2 * CHUNK + 12345]


def boundary_plain(n):
    """n bytes: 4 KiB of text, 4 KiB of random bytes, ... (several blocks a chunk)."""
    import random
    r, text = random.Random(n), bytes(range(97, 123)) * 160
    return b''.join(r.randbytes(4096) if (i // 4096) % 2 else text[:4096]
                    for i in range(0, n, 4096))[:n]


def sizes(outdir, key):
    """Every size boundary: DIR/sN (plain) and DIR/sN.parquet.aruna, each
    read back by this implementation first."""
    for n in SIZES:
        plain = boundary_plain(n)
        c = seal(plain, key)
        if unseal(c, key) != plain:
            raise Refused('%d bytes: does not read back' % n)
        with open(os.path.join(outdir, 's%d' % n), 'wb') as f:
            f.write(plain)
        with open(os.path.join(outdir, 's%d.parquet.aruna' % n), 'wb') as f:
            f.write(c)


KINDS = ['wrong_key', 'damaged_block', 'cut_mid_block', 'cut_footer', 'footer_auth',
         'footer_total', 'footer_list_sum', 'second_frame', 'padding_no_footer',
         'chunk_two_frames', 'chunk_short', 'blocks_swapped']


def broken(kind, plain, key, nonces=None, memo=None):
    """A container of plain broken in one way; plain has more than 10 MiB
    (three chunks). memo (a dict) keeps the frames between calls."""
    nonces = nonces or Nonces()
    aead = ChaCha20Poly1305(key)
    memo = {} if memo is None else memo
    if 'frames' not in memo:
        chunks = [plain[i:i + CHUNK] for i in range(0, len(plain), CHUNK)] or [b'']
        memo['chunks'] = chunks
        memo['frames'] = [zstd(['-3'], x) for x in chunks]
    chunks, frames = memo['chunks'], memo['frames']
    if kind == 'wrong_key':
        return seal(b'', bytes(b ^ 0x5a for b in key), nonces, frames=frames)
    good = seal(b'', key, nonces, frames=frames)
    counts = [len(f + padding(len(f))) // SECTION for f in frames]
    c1 = counts[0] * BLOCK  # chunk 1's first block (chunk 0 holds the magic every open reads)
    if kind == 'damaged_block':  # a data block of chunk 1
        b = bytearray(good)
        b[c1 + 40] ^= 1
        return bytes(b)
    if kind == 'cut_mid_block':
        return good[:len(good) - BLOCK // 2]
    if kind == 'cut_footer':
        return good[:len(good) - BLOCK]
    if kind == 'footer_auth':
        b = bytearray(good)
        b[-100] ^= 1
        return bytes(b)
    data = good[:len(good) - BLOCK]
    if kind == 'footer_total':
        return data + footer_blocks(aead, counts, nonces, total_override=sum(counts) + 2)
    if kind == 'footer_list_sum':
        return data + footer_blocks(aead, counts, nonces, extra=1)
    if kind == 'second_frame':  # one chunk of two frames, no footer
        h = len(plain) // 2
        f = zstd(['-3'], plain[:h]) + zstd(['-3'], plain[h:])
        return seal(b'', key, nonces, frames=[f])
    if kind == 'padding_no_footer':
        f = frames[0]
        return seal(b'', key, nonces, frames=[f + padding(len(f))])
    if kind == 'chunk_two_frames':  # chunk 1 holds two frames (the same bytes)
        h = len(chunks[1]) // 2
        fr = frames[:1] + [zstd(['-3'], chunks[1][:h]) + zstd(['-3'], chunks[1][h:])] + frames[2:]
        return seal(b'', key, nonces, frames=fr)
    if kind == 'chunk_short':  # chunk 1 holds 1 MiB less
        fr = frames[:1] + [zstd(['-3'], chunks[1][:CHUNK - 1048576])] + frames[2:]
        return seal(b'', key, nonces, frames=fr)
    if kind == 'blocks_swapped':  # the first two blocks of chunk 1
        b = bytearray(good)
        b[c1:c1 + BLOCK], b[c1 + BLOCK:c1 + 2 * BLOCK] = good[c1 + BLOCK:c1 + 2 * BLOCK], good[c1:c1 + BLOCK]
        return bytes(b)
    raise SystemExit('aruna.py: unknown kind %s (one of %s)' % (kind, ' '.join(KINDS)))


def main(argv):
    if len(argv) < 2:
        raise SystemExit(__doc__)
    cmd = argv[1]
    seed = None
    if '--nonce-seed' in argv:
        i = argv.index('--nonce-seed')
        seed = int(argv[i + 1])
        del argv[i:i + 2]
    level = 3
    if '--level' in argv:
        i = argv.index('--level')
        level = int(argv[i + 1])
        del argv[i:i + 2]
    try:
        if cmd == 'seal':
            key = bytes.fromhex(argv[2])
            with open(argv[3], 'rb') as f:
                plain = f.read()
            with open(argv[4], 'wb') as f:
                f.write(seal(plain, key, Nonces(seed), level))
        elif cmd == 'open':
            key = bytes.fromhex(argv[2])
            with open(argv[3], 'rb') as f:
                c = f.read()
            plain = unseal(c, key)
            with open(argv[4], 'wb') as f:
                f.write(plain)
        elif cmd == 'info':
            with open(argv[3], 'rb') as f:
                print(info(f.read(), bytes.fromhex(argv[2])))
        elif cmd == 'sizes':
            sizes(argv[3], bytes.fromhex(argv[2]))
        elif cmd == 'kinds':
            print(' '.join(KINDS))
        elif cmd == 'broken':
            key = bytes.fromhex(argv[3])
            with open(argv[4], 'rb') as f:
                plain = f.read()
            kinds = KINDS if argv[2] == 'all' else [argv[2]]
            memo = {}
            for k in kinds:  # OUT: a file, or with 'all' a directory
                out = os.path.join(argv[5], k + '.parquet.aruna') if argv[2] == 'all' else argv[5]
                with open(out, 'wb') as f:
                    f.write(broken(k, plain, key, Nonces(seed), memo))
        else:
            raise SystemExit(__doc__)
    except Refused as e:
        print('aruna.py: %s' % e, file=sys.stderr)
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
