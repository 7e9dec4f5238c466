"""prefeval.textscan against brute-force definitions: ``bytes.split`` for fields, Python's ``float`` (bit for bit)
and ``int`` for numbers, on hypothesis-generated and hand-picked inputs."""

from __future__ import annotations

import math
import random
import re
from decimal import Decimal, localcontext

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from prefeval import textscan
from prefeval.textscan import MAX_WIDTH, parse_floats, parse_ints, split_fields, token_bytes

# ----------------------------------------------------------------------------------------------
# definitions


def expected_fields(data: bytes, fields: int) -> list[list[bytes]] | None:
    """The fields of each non-blank line, or None when a line has another count or a byte is refused."""
    if any(byte < 32 and byte not in (9, 10) for byte in data):
        return None
    lines = [line.split() for line in data.split(b"\n")]
    lines = [line for line in lines if line]
    if any(len(line) != fields for line in lines):
        return None
    return lines


def located(tokens: list[bytes], separator: bytes = b" ") -> tuple[bytes, np.ndarray, np.ndarray]:
    """The tokens joined by ``separator``, with their start and end offsets."""
    lengths = np.array([len(token) for token in tokens], dtype=np.int64)
    starts = (np.cumsum(lengths + len(separator)) - lengths - len(separator)).astype(np.int64)
    return separator.join(tokens), starts, starts + lengths


def same_floats(values: np.ndarray, tokens: list[bytes]) -> None:
    """``values`` are ``float(token)`` bit for bit (the sign of zero included)."""
    expected = np.array([float(token) for token in tokens], dtype=np.float64)
    assert values.dtype == np.float64 and values.shape == expected.shape
    differ = np.flatnonzero(values.view(np.uint64) != expected.view(np.uint64))
    assert not len(differ), [(tokens[k], values[k], expected[k]) for k in differ[:5]]


def floats(tokens: list[bytes]) -> np.ndarray | None:
    return parse_floats(*located(tokens))


# ----------------------------------------------------------------------------------------------
# split_fields

BLANKS = st.sampled_from([b" ", b"\t", b"  ", b" \t ", b"\t\t"])
TOKEN = st.one_of(
    st.binary(min_size=1, max_size=6).map(lambda b: bytes(byte for byte in b if byte > 32) or b"x"),
    st.text(min_size=1, max_size=4).map(lambda s: "".join(c for c in s if not c.isspace()).encode() or b"y"),
    st.sampled_from([b"Q0", b"1", b"-2.5", b"doc#1", "d\u00e9j\u00e0".encode(), "\u6587".encode(), b"\x7f"]),
)


@st.composite
def lines_data(draw, fields: int) -> bytes:
    out = []
    for _ in range(draw(st.integers(0, 8))):
        kind = draw(st.integers(0, 9))
        if kind == 0:
            out.append(draw(st.sampled_from([b"", b" ", b"\t ", b"  "])))  # a blank line
            continue
        count = fields if kind > 2 else draw(st.integers(1, fields + 2))
        tokens = draw(st.lists(TOKEN, min_size=count, max_size=count))
        line = draw(BLANKS) if draw(st.booleans()) and kind == 3 else b""
        line += b"".join(token + (draw(BLANKS) if i + 1 < count else b"") for i, token in enumerate(tokens))
        if kind == 4:
            line += draw(BLANKS)
        out.append(line)
    data = b"\n".join(out)
    if out and draw(st.booleans()):
        data += b"\n"
    return data


def check_split(data: bytes, fields: int) -> None:
    expected = expected_fields(data, fields)
    result = split_fields(data, fields)
    if expected is None:
        assert result is None
        return
    assert result is not None
    starts, ends = result
    assert starts.dtype == ends.dtype == np.int64
    assert starts.shape == ends.shape == (len(expected), fields)
    got = [[data[s:e] for s, e in zip(row_s, row_e, strict=True)]
           for row_s, row_e in zip(starts.tolist(), ends.tolist(), strict=True)]
    assert got == expected


@settings(max_examples=120, deadline=None)
@given(st.integers(1, 6).flatmap(lambda f: st.tuples(st.just(f), lines_data(f))))
@example((2, b"a b\nc d"))
@example((2, b"a b\n\nc d\n"))
@example((1, b"\n\n\n"))
@example((3, b" a b c\n"))
def test_split_fields_is_line_split(case):
    fields, data = case
    check_split(data, fields)


@settings(max_examples=150, deadline=None)
@given(st.integers(1, 6).flatmap(lambda f: st.tuples(st.just(f), lines_data(f))))
@example((2, b"\n\na b\n\n\nc d\n\n"))
@example((2, b"\na b"))
def test_split_fields_scans_agree(case):
    # the single-separator scan (which drops empty lines) and the general scan give the same fields
    fields, data = case
    found = textscan._separators(np.frombuffer(data, dtype=np.uint8)) if data else None
    if found is None:
        return
    single, runs = textscan._split_single(*found, fields), textscan._split_runs(*found, fields)
    assert runs is not None or single is None
    if single is not None:
        assert np.array_equal(single[0], runs[0]) and np.array_equal(single[1], runs[1])


def test_split_fields_single_separators_with_empty_lines():
    data = b"\n\n" + b"\n".join(b"q%d Q0 d%d 1 2.5 t\n" % (i, i) for i in range(50)) + b"\n\nq Q0 d 1 2 t"
    assert textscan._split_single(*textscan._separators(np.frombuffer(data, dtype=np.uint8)), 6) is not None
    check_split(data, 6)


@settings(max_examples=100, deadline=None)
@given(st.integers(1, 6).flatmap(lambda f: st.tuples(st.just(f), lines_data(f), st.integers(0, 100),
                                                       st.sampled_from(b"\x00\r\x01\x0b\x0c\x1b\x1f"))))
def test_split_fields_refuses_control_bytes(case):
    fields, data, at, byte = case
    at = at % (len(data) + 1)
    data = data[:at] + bytes([byte]) + data[at:]
    assert split_fields(data, fields) is None


@pytest.mark.parametrize("data, fields, expected", [
    (b"", 6, []),
    (b"\n \n\t\n", 2, []),
    (b"q Q0 d 1 2.5 t\n", 6, [[b"q", b"Q0", b"d", b"1", b"2.5", b"t"]]),
    (b"q\tQ0\td\t1\t2.5\tt", 6, [[b"q", b"Q0", b"d", b"1", b"2.5", b"t"]]),
    (b"q  Q0 d 1 2.5 t \n\n", 6, [[b"q", b"Q0", b"d", b"1", b"2.5", b"t"]]),
    (b"a b c\nd e\n", 3, None),
    (b"a b c\r\n", 3, None),
    ("\u00e9 \u00e8\n".encode(), 2, [["\u00e9".encode(), "\u00e8".encode()]]),
    (b"a\x7f b\n", 2, [[b"a\x7f", b"b"]]),
])
def test_split_fields_examples(data, fields, expected):
    result = split_fields(data, fields)
    if expected is None:
        assert result is None
    else:
        starts, ends = result
        assert [[data[s:e] for s, e in zip(rs, re_, strict=True)]
                for rs, re_ in zip(starts.tolist(), ends.tolist(), strict=True)] == expected


def test_split_fields_of_a_run_file_with_single_separators():
    lines = [f"{q} Q0 doc{q}-{r} {r} {1 / (r + 1)!r} tag" for q in range(30) for r in range(40)]
    data = "\n".join(lines).encode()
    for end in (b"", b"\n"):
        check_split(data + end, 6)
        check_split(data.replace(b" ", b"\t") + end, 6)


def test_split_fields_rejects_a_bad_field_count():
    with pytest.raises(ValueError):
        split_fields(b"a b\n", 0)


# ----------------------------------------------------------------------------------------------
# parse_floats

FINITE = st.floats(allow_nan=False, allow_infinity=False)


@settings(max_examples=300, deadline=None)
@given(st.lists(FINITE, min_size=1, max_size=40))
def test_floats_of_formatted_doubles_are_exact(values):
    tokens = []
    for value in values:
        tokens += [repr(value).encode(), b"%.17g" % value, b"%e" % value, b"%.6f" % value if abs(value) < 1e25
                   else b"1", b"%.3E" % value, b"%.19e" % value]
    same_floats(floats(tokens), tokens)


DIGITS = st.text("0123456789", min_size=1, max_size=45)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["", "+", "-"]), DIGITS, st.integers(0, 45), st.booleans(),
                          st.sampled_from(["", "e", "E"]), st.sampled_from(["", "+", "-"]),
                          st.integers(0, 400)), min_size=1, max_size=30))
def test_floats_of_digit_strings_are_exact(parts):
    tokens = []
    for sign, digits, point, leading, mark, exponent_sign, exponent in parts:
        point = min(point, len(digits))
        body = digits[:point] + "." + digits[point:] if point or leading else digits
        token = sign + body + (mark + exponent_sign + str(exponent) if mark else "")
        tokens.append(token.encode())
    same_floats(floats(tokens), tokens)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.integers(1, 2**64 - 1), st.integers(-360, 330)), min_size=1, max_size=30))
def test_floats_of_64_bit_mantissas_at_every_scale_are_exact(pairs):
    tokens = [f"{w}e{q}".encode() for w, q in pairs] + [f"-{w}e{q}".encode() for w, q in pairs]
    same_floats(floats(tokens), tokens)


def halfway_tokens(count: int, seed: int) -> list[bytes]:
    """Decimal strings of the exact midpoint between two neighbouring doubles (ties: round half to even), and
    their neighbours one unit in the last decimal place away."""
    rng = random.Random(seed)
    tokens = []
    with localcontext() as context:
        context.prec = 60
        while len(tokens) < count:
            value = rng.choice([rng.uniform(0, 1), rng.uniform(1, 1e6), float(rng.randrange(2**53, 2**64)),
                                rng.uniform(1e15, 1e23)])
            middle = (Decimal(value) + Decimal(math.nextafter(value, math.inf))) / 2
            text = format(middle.normalize(), "f")
            digits = len(text.replace(".", "").lstrip("0"))
            if digits > 19 or len(text) > MAX_WIDTH:
                continue
            step = Decimal(1).scaleb(middle.normalize().as_tuple().exponent)
            tokens += [text.encode(), format(middle + step, "f").encode(), format(middle - step, "f").encode()]
    return tokens


def test_floats_of_halfway_cases_round_to_even():
    tokens = halfway_tokens(600, 7)
    tokens += [b"9007199254740993", b"9007199254740995", b"18014398509481986", b"18014398509481990",
               b"1.00000000000000011102230246251565404236316680908203125", b"0.5000000000000000277555756156289135"]
    same_floats(floats(tokens), tokens)


@pytest.mark.parametrize("token", [
    b"0", b"-0", b"+0", b"-0.0", b"-0e5", b"0e-999", b"-.0", b"+.5", b"5.", b"-5.", b"1E5", b"1e+5", b"1e-5",
    b"inf", b"-inf", b"+INF", b"Infinity", b"-Infinity", b"iNfInItY", b"1e400", b"-1e400", b"1e-400", b"-1e-400",
    b"4.9e-324", b"2.4703282292062327e-324", b"2.4703282292062328e-324", b"2.2250738585072011e-308",
    b"2.2250738585072014e-308", b"1.7976931348623157e308", b"1.7976931348623158e308", b"1.7976931348623159e308",
    b"123456789012345678901234567890", b"0.000000000000000000000000000123456789012345678901234567",
    b"1" + b"0" * 300, b"0." + b"0" * 330 + b"1", b"1e0000000000000000000000000005", b"00000000000000000000001.5",
    b"-0.0012815127847716212", b"0.1", b"0.2", b"0.3", b"1e23", b"8.5e-5", b"7.2057594037927933e16",
])
def test_floats_of_special_tokens(token):
    same_floats(floats([token]), [token])
    same_floats(floats([b"1.5", token, b"2"]), [b"1.5", token, b"2"])


@pytest.mark.parametrize("token", [
    b"1.2.3", b"1e", b"e5", b"--1", b".", b"+", b"-", b"1e+", b"1e-", b"0x10", b"nan", b"NaN", b"-nan", b"+nan",
    b"nAn", b"1_000", b"1e5.", b"1e5.0", b"1e.5", b"1.5e2e3", b"inf1", b"infinit", b"- 1", b"1-", b"+-1", b"e",
    b"1,5", b"\xd9\xa1", b"1e\xd9\xa1", b"", b"1d5", b"1.5f",
])
def test_floats_refuse_invalid_tokens(token):
    assert floats([token]) is None
    assert floats([b"1.5", token, b"2"]) is None


def test_floats_of_no_tokens_and_of_2d_columns():
    assert parse_floats(b"", np.zeros(0, np.int64), np.zeros(0, np.int64)).shape == (0,)
    data = b"q Q0 d 1 2.5 t\nq Q0 e 2 -1e3 t\n"
    starts, ends = split_fields(data, 6)
    assert parse_floats(data, starts[:, 4], ends[:, 4]).tolist() == [2.5, -1000.0]
    assert parse_floats(b"3.25", np.array([0]), np.array([4])).tolist() == [3.25]  # a token at the very end


def test_floats_in_several_blocks(monkeypatch):
    monkeypatch.setattr(textscan, "BLOCK", 7)
    tokens = [repr(x).encode() for x in np.random.default_rng(5).normal(size=60).tolist()] + [b"1e400", b"-inf"]
    same_floats(floats(tokens), tokens)
    assert floats(tokens[:30] + [b"nan"] + tokens[30:]) is None  # a bad token in a later block


def test_floats_of_real_run_scores():
    # a few score spellings of real runs: fp16 values, repr of float32 sums, %f
    tokens = [b"1.90234375", b"-0.0009996660519391298", b"0.005222320556640625", b"8.284300", b"-12.5",
              b"3.4028234663852886e+38", b"1.401298464324817e-45"]
    same_floats(floats(tokens), tokens)


# ----------------------------------------------------------------------------------------------
# parse_ints

INT = re.compile(rb"[+-]?\d{1,18}(?:\.0*)?")


@settings(max_examples=120, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["", "+", "-"]), st.text("0123456789", min_size=1, max_size=20),
                          st.sampled_from(["", ".", ".0", ".000", ".5", ".01", "." + "0" * 25, "e1", "x"])),
                min_size=1, max_size=30))
def test_ints_are_int_of_the_grammar(parts):
    tokens = [(sign + digits + tail).encode() for sign, digits, tail in parts]
    result = parse_ints(*located(tokens))
    if all(INT.fullmatch(token) for token in tokens):
        assert result is not None and result.dtype == np.int64
        assert result.tolist() == [int(token.split(b".")[0]) for token in tokens]
    else:
        assert result is None


@pytest.mark.parametrize("token, value", [(b"0", 0), (b"-2", -2), (b"+3", 3), (b"1.0", 1), (b"4.", 4),
                                          (b"999999999999999999", 999999999999999999), (b"-0.000", 0),
                                          (b"000000000000000007", 7), (b"12." + b"0" * 40, 12)])
def test_ints_examples(token, value):
    assert parse_ints(*located([token, b"1"])).tolist() == [value, 1]


@pytest.mark.parametrize("token", [b"1.5", b"1e2", b".0", b"", b"1000000000000000000", b"0000000000000000001",
                                   b"--1", b"1 ", b"a", b"1.0.0", b"\xd9\xa1"])
def test_ints_refuse(token):
    assert parse_ints(*located([b"1", token])) is None


# ----------------------------------------------------------------------------------------------
# token_bytes


@settings(max_examples=100, deadline=None)
@given(st.lists(st.binary(min_size=0, max_size=30).map(lambda b: b.replace(b"\x00", b"").replace(b" ", b"")),
                min_size=0, max_size=30))
def test_token_bytes_are_the_tokens(tokens):
    array = token_bytes(*located(tokens))
    assert array.dtype.kind == "S" and array.shape == (len(tokens),)
    assert array.dtype.itemsize == max([len(token) for token in tokens] + [1])
    assert array.tolist() == tokens


def test_token_bytes_of_split_fields_columns():
    data = "q1 Q0 d\u00e9j\u00e0 1 2.5 t\nq22 Q0 x 2 1 t".encode()
    starts, ends = split_fields(data, 6)
    assert token_bytes(data, starts[:, 0], ends[:, 0]).tolist() == [b"q1", b"q22"]
    assert token_bytes(data, starts[:, 2], ends[:, 2]).tolist() == ["d\u00e9j\u00e0".encode(), b"x"]
