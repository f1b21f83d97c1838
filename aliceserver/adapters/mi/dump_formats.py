"""The text formats gdb's `dump` writes through BFD, byte for byte as binutils 2.40 writes
one loadable section: Motorola S-records (srec.c), Intel hex (ihex.c) and Verilog hex
(verilog.c); and S-records read back for `restore` (each run of contiguous records one
section, as BFD's srec reader makes them)."""

from __future__ import annotations

from collections.abc import Callable

_CHUNK = 16  # bytes per record in all three writers


def _srec_record(kind: int, address: int, data: bytes) -> bytes:
    width = {0: 2, 1: 2, 9: 2, 2: 3, 8: 3, 3: 4, 7: 4}[kind]
    body = (address & ((1 << (8 * width)) - 1)).to_bytes(width, "big") + data
    body = bytes([len(body) + 1]) + body
    check = 255 - (sum(body) & 0xFF)
    return f"S{kind}{body.hex().upper()}{check:02X}\r\n".encode()


def srec(name: str, address: int, data: bytes) -> bytes:
    last = address + len(data) - 1
    kind = 1 if last <= 0xFFFF else 2 if last <= 0xFFFFFF else 3
    out = [_srec_record(0, 0, name.encode()[:40])]
    for at in range(0, len(data), _CHUNK):
        out.append(_srec_record(kind, address + at, data[at:at + _CHUNK]))
    out.append(_srec_record(10 - kind, 0, b""))
    return b"".join(out)


def _ihex_record(address: int, kind: int, data: bytes) -> bytes:
    body = bytes([len(data)]) + (address & 0xFFFF).to_bytes(2, "big") + bytes([kind]) + data
    return f":{body.hex().upper()}{-sum(body) & 0xFF:02X}\r\n".encode()


def ihex(name: str, address: int, data: bytes) -> bytes:
    """ValueError with BFD's words where an address does not fit the format."""
    out: list[bytes] = []
    segbase = extbase = 0
    where, at = address, 0
    while at < len(data):
        if where > 0xFFFFFFFF:
            raise ValueError(f"64-bit address {where:#x} out of range for Intel Hex file")
        now = min(len(data) - at, _CHUNK)
        if where > segbase + extbase + 0xFFFF:
            if extbase == 0 and where <= 0xFFFFF:
                segbase = where & 0xF0000
                out.append(_ihex_record(0, 2, (segbase >> 4).to_bytes(2, "big")))
            else:
                if segbase:
                    out.append(_ihex_record(0, 2, b"\0\0"))
                    segbase = 0
                extbase = where & 0xFFFF0000
                out.append(_ihex_record(0, 4, (extbase >> 16).to_bytes(2, "big")))
        offset = where - (extbase + segbase)
        now = min(now, 0x10000 - offset)
        out.append(_ihex_record(offset, 0, data[at:at + now]))
        where, at = where + now, at + now
    out.append(_ihex_record(0, 1, b""))
    return b"".join(out)


def verilog(name: str, address: int, data: bytes) -> bytes:
    digits = 16 if address >= 1 << 32 else 8
    out = [f"@{address:0{digits}X}\r\n".encode()]
    for at in range(0, len(data), _CHUNK):
        out.append((" ".join(f"{b:02X}" for b in data[at:at + _CHUNK]) + "\r\n").encode())
    return b"".join(out)


FORMATS: dict[str, Callable[[str, int, bytes], bytes]] = {"srec": srec, "ihex": ihex, "verilog": verilog}


def read_srec(data: bytes) -> list[tuple[int, bytes]] | None:
    """The sections of an S-record file (address, contents); None when it is not one."""
    sections: list[tuple[int, bytearray]] = []
    lines = data.splitlines()
    if not lines or not lines[0].startswith(b"S"):
        return None
    for line in lines:
        line = line.strip()
        if not line:
            continue
        if not line.startswith(b"S") or len(line) < 4:
            return None
        kind = line[1:2]
        if kind not in b"123":
            continue  # header, count and start-address records
        try:
            raw = bytes.fromhex(line[2:].decode())
        except ValueError:
            return None
        width = int(kind) + 1
        address, chunk = int.from_bytes(raw[1:1 + width], "big"), raw[1 + width:-1]
        if sections and sections[-1][0] + len(sections[-1][1]) == address:
            sections[-1][1].extend(chunk)
        else:
            sections.append((address, bytearray(chunk)))
    return [(address, bytes(contents)) for address, contents in sections]
