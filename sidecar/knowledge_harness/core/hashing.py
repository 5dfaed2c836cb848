"""Content digests: lower-case hex SHA-256, the form every record, plan and artifact name uses."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable


def sha256_hex(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def sha256_hex_of_pieces(pieces: Iterable[bytes | memoryview]) -> str:
    """`sha256_hex` of the pieces' bytes one after the other, without joining them."""
    digest = hashlib.sha256()
    for piece in pieces:
        digest.update(piece)
    return digest.hexdigest()
