#!/usr/bin/env python3
"""An independent implementation of the run fingerprint's mixing (models/sim/fingerprint.ts), used to recompute
the known answers that test/models/sim/fingerprint.test.ts and trace.test.ts pin. Run: python3 scripts/fingerprint-reference.py
"""
import struct

M = 0xFFFFFFFF


def imul(a, b):
    return (a * b) & M


def rotl(x, r):
    return ((x << r) | (x >> (32 - r))) & M


def fnv(s):
    """FNV-1a over the string's UTF-16 code units, as JavaScript's charCodeAt sees them."""
    h = 0x811C9DC5
    data = s.encode('utf-16-le')
    for i in range(0, len(data), 2):
        h = imul(h ^ (data[i] | data[i + 1] << 8), 0x01000193)
    return h


class Fingerprint:
    def __init__(self):
        self.h1, self.h2, self.n = 0x2545F491, 0x9E3779B9, 0

    def word(self, x):
        x &= M
        k = imul(rotl(imul(x, 0xCC9E2D51), 15), 0x1B873593)
        self.h1 = (imul(rotl(self.h1 ^ k, 13), 5) + 0xE6546B64) & M
        j = imul(rotl(imul(x, 0x1B873593), 17), 0xCC9E2D51)
        self.h2 = (imul(rotl(self.h2 ^ j, 15), 5) + 0x561CCD1B) & M
        self.n += 1

    def number(self, x):
        lo, hi = struct.unpack('<II', struct.pack('<d', x))
        self.word(lo)
        self.word(hi)

    def text(self, s):
        self.word(fnv(s))

    def content(self, s):
        self.word(fnv(s))
        self.word(len(s.encode('utf-16-le')) // 2)

    def event(self, time, label, node):
        self.number(time)
        self.word(imul(fnv(label), 0x9E3779B1) ^ fnv(node))

    def hash(self):
        def fmix(h):
            h ^= h >> 16
            h = imul(h, 0x85EBCA6B)
            h ^= h >> 13
            h = imul(h, 0xC2B2AE35)
            return h ^ (h >> 16)

        a, b = self.h1 ^ self.n, self.h2 ^ self.n
        a = (a + b) & M
        b = (b + a) & M
        a, b = fmix(a), fmix(b)
        a = (a + b) & M
        b = (b + a) & M
        return '%08x%08x' % (a, b)


if __name__ == '__main__':
    t = Fingerprint()
    t.content('{"t":0,"kind":"node.start","node":"n1","incarnation":1}')
    print('trace.test.ts KNOWN_HASH', t.hash())
    f = Fingerprint()
    f.event(0, 'node.start', 'broker-1')
    f.event(1.5, 'net.deliver', 'broker-2')
    f.event(2 ** 40 + 0.25, '', '')
    f.text('broker-1/topic:0')
    f.number(7)
    f.word(-1)
    f.content('{"x":"é"}')
    print('fingerprint.test.ts KNOWN', f.hash())
