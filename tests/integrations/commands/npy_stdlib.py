"""Minimal .npy (version 1.0, C order) reading and writing with the stdlib
only: the test commands must run where numpy is not installed."""
import ast
import struct

_FORMATS = {"<f4": "f", "<f2": "e", "|i1": "b", "<i4": "i", "<i8": "q", "|b1": "?"}


def load(path):
    """Returns (descr, shape, flat list of values)."""
    with open(path, "rb") as f:
        data = f.read()
    assert data[:6] == b"\x93NUMPY", path
    header_len = struct.unpack("<H", data[8:10])[0]
    header = ast.literal_eval(data[10:10 + header_len].decode("latin1"))
    count = 1
    for n in header["shape"]:
        count *= n
    fmt = "<%d%s" % (count, _FORMATS[header["descr"]])
    return header["descr"], tuple(header["shape"]), list(struct.unpack_from(fmt, data, 10 + header_len))


def save(path, descr, shape, values):
    shape_text = "(%s)" % "".join("%d, " % n for n in shape) if len(shape) != 1 else "(%d,)" % shape[0]
    header = "{'descr': '%s', 'fortran_order': False, 'shape': %s, }" % (descr, shape_text)
    header += " " * ((64 - (10 + len(header) + 1) % 64) % 64) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode("latin1"))
        f.write(struct.pack("<%d%s" % (len(values), _FORMATS[descr]), *values))
