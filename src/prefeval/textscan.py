"""Vectorised scanning of TREC text with numpy alone: fields, numbers and strings of whole files.

The functions work on the bytes of a whole file (decompressed, comment lines already blanked out) and never loop
over lines in Python. Each returns ``None`` where its fast scan does not apply (a line with another number of
fields, a byte the scan does not handle, a token outside the number grammar): the caller then takes the general
parser, which names the offending line.

Numbers are converted exactly as Python's :func:`float` (correctly rounded, as the C library's ``strtod`` that
``trec_eval`` uses): a token is scanned into a decimal mantissa ``w`` (up to 19 significant digits, in an unsigned
64-bit integer) and a power of ten ``q``; then

* when ``w <= 2**53`` and ``|q| <= 22``, ``w`` and ``10**|q|`` are exact doubles and one IEEE multiplication or
  division gives the correctly rounded value (Clinger (1990), the "fast path");
* otherwise the 128-bit product of ``w`` with a truncated power of five gives it, ties to even and subnormals
  included (the Eisel-Lemire algorithm, Lemire (2021) Algorithm 1); Mushtak & Lemire (2023) prove that this
  product always decides the rounding for ``w < 2**64``;
* tokens with more than 19 significant digits, ``inf``/``infinity`` spellings and tokens longer than
  ``MAX_WIDTH`` bytes (rare) are converted one by one with :func:`float`.

Memory: beside its two int64 results, :func:`split_fields` needs temporaries of less than one byte per byte of
data when fields are separated by single blanks and there is no empty line (about three otherwise);
:func:`parse_floats` converts numbers in blocks of ``BLOCK`` tokens (temporaries of a few MB).
"""

from __future__ import annotations

import re
from functools import cache

import numpy as np

__all__ = ["MAX_WIDTH", "parse_floats", "parse_ints", "split_fields", "token_bytes"]

#: Longest number token scanned in the vectorised way; longer ones (rare: long digit strings) go one by one.
MAX_WIDTH = 40
#: Numbers are converted in blocks of this many tokens (temporary arrays of about 100 bytes per token).
BLOCK = 1 << 15

_FLOAT = re.compile(rb"[+-]?(?:(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|inf|infinity)", re.IGNORECASE)
_INT = re.compile(rb"[+-]?\d{1,18}(?:\.0*)?")
_NEWLINE, _TAB, _SPACE = 10, 9, 32
_MINUS, _PLUS, _DOT, _ZERO = ord("-"), ord("+"), ord("."), ord("0")
_U64 = np.uint64


# ----------------------------------------------------------------------------------------------
# fields


def split_fields(data: bytes, fields: int) -> tuple[np.ndarray, np.ndarray] | None:
    """Byte offsets of the fields of each non-blank line of ``data``.

    Returns ``(starts, ends)``, two int64 arrays of shape ``(lines, fields)``: field ``j`` of the ``i``-th
    non-blank line is ``data[starts[i, j]:ends[i, j]]``. Fields are separated by runs of spaces and tabs; blanks
    at the start or end of a line are ignored, blank lines (empty or only blanks) are skipped and the last line
    may lack its newline, so the fields are those of ``line.split()`` for each line of ``data.split(b"\\n")``.
    Bytes of 128 and above (UTF-8) are data; their encoding is not checked.

    Returns ``None`` when a non-blank line has another number of fields, or ``data`` contains a control byte
    other than tab and newline (NUL, ``\\r``, ...; DEL is data).
    """
    if fields < 1:
        raise ValueError(f"fields must be positive, not {fields}")
    raw = np.frombuffer(data, dtype=np.uint8)
    if not len(raw):
        return np.empty((0, fields), np.int64), np.empty((0, fields), np.int64)
    found = _separators(raw)
    if found is None:
        return None
    positions, newline = found
    return _split_single(positions, newline, fields) or _split_runs(positions, newline, fields)


def _separators(raw: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """The offsets of the blanks and newlines of non-empty ``raw``, with ``len(raw)`` last when the data does not
    end with a newline (it ends the last line), and which of them are newlines; ``None`` for another control
    byte."""
    positions = np.flatnonzero(raw <= _SPACE)
    separators = raw[positions]
    newline = separators == _NEWLINE
    if np.count_nonzero(newline) + np.count_nonzero(separators == _SPACE) + np.count_nonzero(separators == _TAB) \
            != len(positions):
        return None
    if raw[-1] != _NEWLINE:
        positions, newline = np.append(positions, len(raw)), np.append(newline, True)
    return positions, newline


def _split_single(positions: np.ndarray, newline: np.ndarray, fields: int) -> tuple[np.ndarray, np.ndarray] | None:
    """The fields when every line is either empty (as a blanked comment line) or ``fields`` non-empty fields
    joined by single blanks: then, once the newlines of empty lines are dropped, each separator ends a field.
    ``positions``: the offsets of the blanks and newlines (``newline`` marks these), the end of the data last.
    ``None`` otherwise."""
    ends = positions
    breaks = np.flatnonzero(newline)
    empty = np.empty(len(breaks), dtype=bool)  # a newline right after a newline, or first: an empty line
    empty[0] = ends[breaks[0]] == 0
    np.equal(ends[breaks[1:]], ends[breaks[:-1]] + 1, out=empty[1:])
    empties = np.count_nonzero(empty)
    separators = len(ends) - empties
    if separators % fields or len(breaks) - empties != separators // fields:
        return None  # not one newline per ``fields`` separators
    starts = np.empty_like(ends)  # a field starts after the separator before it
    starts[0] = 0
    np.add(ends[:-1], 1, out=starts[1:])
    if empties:
        keep = np.ones(len(ends), dtype=bool)
        keep[breaks[empty]] = False
        starts, ends, newline = starts[keep], ends[keep], newline[keep]
    if not newline[fields - 1::fields].all():
        return None  # a newline where a field separator should be
    if not (starts < ends).all():  # an empty field: two separators in a row, a line of blanks, a leading blank
        return None
    return starts.reshape(-1, fields), ends.reshape(-1, fields)


def _split_runs(positions: np.ndarray, newline: np.ndarray, fields: int) -> tuple[np.ndarray, np.ndarray] | None:
    """The general scan: the fields are the non-empty runs of bytes before each separator, and the newlines cut
    them into lines. ``None`` when a line has another number of fields than 0 or ``fields``."""
    starts = np.empty(len(positions), dtype=np.int64)  # the run before separator j starts after separator j - 1
    starts[0] = 0
    np.add(positions[:-1], 1, out=starts[1:])
    token = starts < positions
    lines = np.concatenate(([0], np.flatnonzero(newline[:-1]) + 1))  # the first run of each line
    per_line = np.add.reduceat(token, lines, dtype=np.int64)
    if ((per_line != 0) & (per_line != fields)).any():
        return None
    return starts[token].reshape(-1, fields), positions[token].reshape(-1, fields)


# ----------------------------------------------------------------------------------------------
# tokens as a character matrix


def _bounds(starts: np.ndarray, ends: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``starts`` and ends as contiguous 1-D int64 arrays (a column of :func:`split_fields`' arrays is strided:
    copied once, it is read fast by the several passes that follow)."""
    starts = np.ascontiguousarray(starts, dtype=np.int64).ravel()
    ends = np.ascontiguousarray(ends, dtype=np.int64).ravel()
    if starts.shape != ends.shape:
        raise ValueError("starts and ends differ in shape")
    return starts, ends


#: LOW_BYTES[r]: the first ``r`` bytes of a little-endian 64-bit word
_LOW_BYTES = np.array([(1 << (8 * r)) - 1 for r in range(9)], dtype=_U64)


def _gather(raw: np.ndarray, starts: np.ndarray, width: int) -> np.ndarray:
    """The ``(tokens, width)`` uint8 matrix of the ``width`` bytes from each start (NUL past the end of ``raw``),
    gathered with one fancy index into a stride-1 view of ``raw`` as ``width``-byte items."""
    count = len(starts)
    if not count:
        return np.zeros((0, width), dtype=np.uint8)
    if len(raw) < width:
        raw = np.concatenate((raw, np.zeros(width - len(raw), dtype=np.uint8)))
    last = len(raw) - width  # the last window start
    windows = np.ndarray(shape=(last + 1,), dtype=f"V{width}", buffer=raw, strides=(1,))
    if starts.max() <= last:
        return windows[starts].view(np.uint8).reshape(count, width)
    chars = windows[np.minimum(starts, last)].view(np.uint8).reshape(count, width)
    near_end = np.flatnonzero(starts > last)  # tokens within ``width`` bytes of the end: shift the last window
    tail = np.concatenate((raw[last:], np.zeros(width, dtype=np.uint8)))
    chars[near_end] = tail[(starts[near_end] - last)[:, None] + np.arange(width)]
    return chars


def _chars(raw: np.ndarray, starts: np.ndarray, lengths: np.ndarray, width: int) -> np.ndarray:
    """The ``(tokens, width)`` uint8 matrix of the tokens' first ``width`` bytes, NUL after each token's end
    (``width``: a multiple of 8; the tokens are cut with a mask per 64-bit word)."""
    chars = _gather(raw, starts, width)
    words = chars.view("<u8")
    for k in range(width // 8):
        words[:, k] &= _LOW_BYTES[np.clip(lengths - 8 * k, 0, 8)]
    return chars


def _columns(raw: np.ndarray, starts: np.ndarray, sizes: np.ndarray, width: int) -> np.ndarray:
    """:func:`_chars` transposed, ``(width, tokens)``: the bytes at one position of every token side by side
    (``sizes``: the tokens' lengths as uint8, 255 for any longer)."""
    columns = _gather(raw, starts, width).T.copy()
    columns *= np.arange(width, dtype=np.uint8)[:, None] < sizes
    return columns


def _round8(width: int) -> int:
    return max(-(-width // 8) * 8, 8)


def token_bytes(data: bytes, starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """The tokens ``data[starts[k]:ends[k]]`` as one 1-D numpy ``S`` array (width: the longest token, at least 1).

    numpy pads shorter items with NUL bytes and drops trailing NULs when an item is read, so a token ending in NUL
    would lose it (:func:`split_fields` refuses data with NUL bytes).
    """
    starts, ends = _bounds(starts, ends)
    lengths = ends - starts
    if (lengths < 0).any():
        raise ValueError("a token ends before it starts")
    width = max(int(lengths.max(initial=0)), 1)
    raw = np.frombuffer(data, dtype=np.uint8)
    chars = _chars(raw, starts, lengths, _round8(width))
    return np.ndarray(shape=(len(starts),), dtype=f"S{width}", buffer=chars, strides=(chars.shape[1],)).copy()


def _digits_value(value: np.ndarray, digit: np.ndarray) -> np.ndarray:
    """The uint64 number written by the digits of each column of ``value`` (``(positions, tokens)``, a multiple of 8
    positions, 0 at non-digits; ``digit`` marks the digits), other bytes skipped: ``m = m * 10 + d`` over the
    digits. Computed as a pairwise tree within groups of 8 positions (two neighbours combine to ``v0 * s1 + v1``
    with scale ``s = 10**digits``) in the narrowest integer type that holds each level, then by Horner's rule over
    the groups. Exact up to 19 significant digits, modulo 2**64 beyond."""
    scale = digit * np.uint8(9) + np.uint8(1)  # 10 for a digit, 1 for a skipped byte
    for kind in (np.uint8, np.uint16, np.uint32):
        right = scale[1::2].astype(kind, copy=False)
        combined = np.multiply(value[0::2], right, dtype=kind)
        combined += value[1::2]
        value = combined
        scale = np.multiply(scale[0::2], right, dtype=kind)
    number = value[0].astype(_U64)
    for group in range(1, len(value)):
        number *= scale[group]
        number += value[group]
    return number


# ----------------------------------------------------------------------------------------------
# decimal numbers


class _Decimals:
    """The scan of tokens of the form ``[+-]?(\\d+\\.?\\d*|\\.\\d+)``: ``valid`` (the token has that form and at
    most ``MAX_WIDTH`` bytes), ``negative``, ``mantissa`` (the digits as an integer, exact where ``exact``: at most
    19 significant digits), ``fraction`` (the number of digits after the point) and ``digits`` (before it)."""

    def __init__(self, raw: np.ndarray, starts: np.ndarray, lengths: np.ndarray):
        width = _round8(min(int(lengths.max(initial=0)), MAX_WIDTH))
        size = np.minimum(lengths, 255).astype(np.uint8)
        chars = _columns(raw, starts, size, width)
        first = chars[0]
        signed = (first == _MINUS) | (first == _PLUS)
        self.negative = first == _MINUS
        value = chars - np.uint8(_ZERO)  # digits 0-9, other bytes wrap to 10-255
        digit = value < 10
        point = chars == _DOT
        ndigits = digit.sum(axis=0, dtype=np.uint8)
        npoints = point.sum(axis=0, dtype=np.uint8)
        self.valid = (ndigits > 0) & (npoints <= 1) & (size <= MAX_WIDTH) & (ndigits + npoints + signed == size)
        column = np.arange(width, dtype=np.uint8)[:, None]
        where = (point * column).sum(axis=0, dtype=np.uint8)  # position of the point (0 when there is none)
        self.points = npoints
        self.fraction = np.where(npoints > 0, size - np.uint8(1) - where, np.uint8(0))
        self.digits = ndigits - self.fraction
        value *= digit
        self.mantissa = mantissa = _digits_value(value, digit)
        self.exact = ndigits <= 19
        long = np.flatnonzero(self.valid & ~self.exact)
        if len(long):  # more than 19 digits: exact when the leading zeros leave at most 19
            nonzero = (value[:, long] != 0).argmax(axis=0)  # position of the first significant digit
            zeros = nonzero - signed[long] - ((npoints[long] > 0) & (where[long] < nonzero))
            self.exact[long] = (ndigits[long] - zeros <= 19) | (mantissa[long] == 0)


def parse_ints(data: bytes, starts: np.ndarray, ends: np.ndarray) -> np.ndarray | None:
    """The int64 value of each token ``data[starts[k]:ends[k]]`` (1-D result) when every token is of the form
    ``[+-]?\\d{1,18}(\\.0*)?`` (a relevance grade: ``1.0`` is 1, ``-2`` is -2); ``None`` otherwise."""
    starts, ends = _bounds(starts, ends)
    if not len(starts):
        return np.empty(0, dtype=np.int64)
    scan = _Decimals(np.frombuffer(data, dtype=np.uint8), starts, ends - starts)
    good = scan.valid & (scan.digits >= 1) & (scan.digits <= 18) & scan.exact
    power = _U64(10) ** np.where(good, scan.fraction, 0).astype(_U64)  # the fraction's digits must be zeros:
    whole = scan.mantissa // power  # the mantissa is the integer part times 10**fraction
    good &= whole * power == scan.mantissa
    values = whole.astype(np.int64)
    values = np.where(scan.negative, -values, values)
    other = np.flatnonzero(~good)  # not of the form, or too long for the scan (many zeros after the point)
    for k in other.tolist():
        token = data[starts[k]:ends[k]]
        if not _INT.fullmatch(token):
            return None
        values[k] = int(token.split(b".")[0])
    return values


def parse_floats(data: bytes, starts: np.ndarray, ends: np.ndarray) -> np.ndarray | None:
    """The float64 value of each token ``data[starts[k]:ends[k]]`` (1-D result), bit for bit as Python's
    :func:`float` gives it (correctly rounded; ``-0`` is ``-0.0``, ``1e400`` is ``inf``, ``1e-400`` is ``0.0``),
    when every token is of the form ``[+-]?((\\d+\\.?\\d*|\\.\\d+)([eE][+-]?\\d+)?|inf|infinity)`` (letters in
    any case); ``None`` otherwise (NaN spellings included).

    Tokens are converted in blocks of ``BLOCK`` so the temporary arrays stay small (a few MB) whatever the size of
    the data."""
    starts, ends = _bounds(starts, ends)
    values = np.empty(len(starts), dtype=np.float64)
    raw = np.frombuffer(data, dtype=np.uint8)
    for first in range(0, len(starts), BLOCK):
        block = slice(first, first + BLOCK)
        if not _floats_block(data, raw, starts[block], ends[block], values[block]):
            return None
    return values


def _floats_block(data: bytes, raw: np.ndarray, starts: np.ndarray, ends: np.ndarray, out: np.ndarray) -> bool:
    """Write the values of the tokens into ``out``; False if some token is not a number of the grammar."""
    lengths = ends - starts
    if (lengths <= 0).any():
        return False
    scan = _Decimals(raw, starts, lengths)
    negative, mantissa, exact = scan.negative, scan.mantissa, scan.exact
    power = -scan.fraction.astype(np.int64)
    other = np.flatnonzero(~scan.valid)
    if len(other):  # exponents, infinities, or not a number
        accepted, sub = _with_exponent(raw, starts[other], lengths[other])
        rows = other[accepted]
        negative[rows], mantissa[rows], exact[rows], power[rows] = sub
        exact[other[~accepted]] = False
    out[:] = _compose(negative, mantissa, power)
    for k in np.flatnonzero(~exact).tolist():  # long digit strings, infinities, and errors
        token = data[starts[k]:ends[k]]
        if not _FLOAT.fullmatch(token):
            return False
        out[k] = float(token)
    return True


def _with_exponent(raw: np.ndarray, starts: np.ndarray, lengths: np.ndarray) -> tuple:
    """For tokens that are no plain decimal: which are ``decimal[eE][+-]?digits`` with at most 18 exponent digits
    (a bool array), and for those (negative, mantissa, exact, power of ten); the caller checks the rest one by
    one."""
    chars = _chars(raw, starts, lengths, _round8(min(int(lengths.max()), MAX_WIDTH)))
    mark = (chars | np.uint8(32)) == ord("e")
    found = (mark.sum(axis=1) == 1) & (lengths <= MAX_WIDTH)
    at = mark.argmax(axis=1)
    found &= (at > 0) & (at < lengths - 1)
    rows = np.flatnonzero(found)
    accepted = np.zeros(len(starts), dtype=bool)
    if not len(rows):
        return accepted, (np.zeros(0, bool), np.zeros(0, _U64), np.zeros(0, bool), np.zeros(0, np.int64))
    head_start, head_length = starts[rows], at[rows]
    tail_start, tail_length = head_start + head_length + 1, lengths[rows] - head_length - 1
    head = _Decimals(raw, head_start, head_length)
    tail = _Decimals(raw, tail_start, tail_length)
    good = head.valid & tail.valid & (tail.points == 0) & (tail.digits <= 18)  # so the exponent is exact
    exponent = tail.mantissa.astype(np.int64)
    exponent = np.where(tail.negative, -exponent, exponent)
    accepted[rows] = good
    keep = good
    return accepted, (head.negative[keep], head.mantissa[keep], head.exact[keep],
                      exponent[keep] - head.fraction[keep].astype(np.int64))


# ----------------------------------------------------------------------------------------------
# exact conversion of w * 10**q


_POWERS_OF_TEN = np.array([10.0 ** k for k in range(23)])
_SMALLEST_POWER, _LARGEST_POWER = -342, 308  # beyond: zero, infinity (for w < 2**64)


def _compose(negative: np.ndarray, mantissa: np.ndarray, power: np.ndarray) -> np.ndarray:
    """The double nearest to ``(-1)**negative * mantissa * 10**power`` (ties to even), for uint64 mantissas."""
    values = mantissa.astype(np.float64)
    size = np.abs(power)
    scale = _POWERS_OF_TEN[np.minimum(size, 22)]
    up = power > 0
    if up.any():
        np.multiply(values, scale, out=values, where=up)
        np.divide(values, scale, out=values, where=~up)
    else:
        np.divide(values, scale, out=values)
    rest = np.flatnonzero((mantissa > 1 << 53) | (size > 22))
    if len(rest):
        values[rest] = _eisel_lemire(mantissa[rest], power[rest])
    np.negative(values, out=values, where=negative)
    return values


@cache
def _powers_of_five() -> tuple[np.ndarray, np.ndarray]:
    """128-bit approximations of ``5**q`` for ``q`` from -342 to 308, normalised so the top bit is set (high and
    low 64-bit halves): truncated for ``q >= 0``, rounded up for ``q < 0`` (Lemire (2021))."""
    table = []
    for q in range(_SMALLEST_POWER, 0):
        five = 5 ** -q
        bits = five.bit_length()
        if q >= -27:
            value = (1 << (bits + 127)) // five + 1
        else:
            value = (1 << (2 * bits + 128)) // five + 1
            value >>= max(value.bit_length() - 128, 0)
        table.append(value)
    for q in range(0, _LARGEST_POWER + 1):
        five = 5 ** q
        shift = five.bit_length() - 128
        table.append(five >> shift if shift > 0 else five << -shift)
    high = np.array([value >> 64 for value in table], dtype=_U64)
    low = np.array([value & ((1 << 64) - 1) for value in table], dtype=_U64)
    return high, low


def _multiply(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The 128-bit products of uint64 arrays, as (high, low) halves."""
    mask = _U64(0xFFFFFFFF)
    a0, a1, b0, b1 = a & mask, a >> _U64(32), b & mask, b >> _U64(32)
    p00, p01, p10, p11 = a0 * b0, a0 * b1, a1 * b0, a1 * b1
    middle = (p00 >> _U64(32)) + (p01 & mask) + (p10 & mask)
    low = (p00 & mask) | (middle << _U64(32))
    high = p11 + (p01 >> _U64(32)) + (p10 >> _U64(32)) + (middle >> _U64(32))
    return high, low


def _eisel_lemire(w: np.ndarray, q: np.ndarray) -> np.ndarray:
    """The double nearest to ``w * 10**q`` (ties to even) for uint64 ``w`` and int64 ``q``: Lemire (2021)
    Algorithm 1 with its handling of subnormals and exact halves, vectorised (rare cases on their rows only)."""
    inside = (w != 0) & (q >= _SMALLEST_POWER) & (q <= _LARGEST_POWER)
    if inside.all():
        return _eisel_lemire_inside(w, q).view(np.float64)
    bits = np.zeros(len(w), dtype=_U64)  # w == 0 or q below the range: zero
    bits[(q > _LARGEST_POWER) & (w != 0)] = _U64(0x7FF << 52)  # infinity
    rows = np.flatnonzero(inside)
    bits[rows] = _eisel_lemire_inside(w[rows], q[rows])
    return bits.view(np.float64)


def _eisel_lemire_inside(w: np.ndarray, q: np.ndarray) -> np.ndarray:
    """The bits of the double nearest to ``w * 10**q`` for ``w > 0`` and ``q`` in [-342, 308]."""
    length = np.frexp(w.astype(np.float64))[1].astype(np.int64)  # bit length, or one more after rounding up
    length -= (length > 64) | ((w >> np.minimum(length - 1, 63).astype(_U64)) == 0)
    zeros = 64 - length
    w = w << zeros.astype(_U64)  # normalised: the top bit is set
    high5, low5 = _powers_of_five()
    index = q - _SMALLEST_POWER
    high, low = _multiply(w, high5[index])
    inexact = np.flatnonzero((high & _U64(0x1FF)) == _U64(0x1FF))  # the low 9 bits might change with the
    if len(inexact):  # next 64 bits of the power of five
        second, _ = _multiply(w[inexact], low5[index[inexact]])
        summed = low[inexact] + second
        high[inexact] += (second > summed).astype(_U64)
        low[inexact] = summed
    upper = high >> _U64(63)
    shift = upper + _U64(9)
    mantissa = high >> shift  # 54 bits: the 53 of the result and one to round
    exponent = ((217706 * q) >> 16) + 63 + upper.astype(np.int64) - zeros + 1023  # floor(q * log2(10)) + ...

    subnormal = np.flatnonzero(exponent <= 0)
    halfway = np.flatnonzero((low <= _U64(1)) & (q >= -4) & (q <= 23))  # exact halves exist only there
    if len(halfway):
        m = mantissa[halfway]
        tie = ((m & _U64(3)) == _U64(1)) & ((m << shift[halfway]) == high[halfway])
        mantissa[halfway] = m & ~tie.astype(_U64)  # round down to even
    rounded = (mantissa + (mantissa & _U64(1))) >> _U64(1)
    carry = rounded >> _U64(53)  # rounded up to 2**53: one more binary digit
    rounded >>= carry
    exponent += carry.astype(np.int64)
    bits = (rounded & ~_U64(1 << 52)) | (exponent.astype(_U64) << _U64(52))
    bits[exponent >= 0x7FF] = _U64(0x7FF << 52)  # infinity

    if len(subnormal):
        m, e = mantissa[subnormal], exponent[subnormal] - carry[subnormal].astype(np.int64)
        m = m >> np.minimum(-e + 1, 63).astype(_U64)
        m = (m + (m & _U64(1))) >> _U64(1)
        smallest_normal = (m >= _U64(1 << 52)).astype(_U64)  # rounded up to the smallest normal number
        bits[subnormal] = np.where(-e + 1 >= 64, _U64(0), m | (smallest_normal << _U64(52)))
    return bits
