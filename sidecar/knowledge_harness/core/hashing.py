"""Content digests: lower-case hex SHA-256, the form every record, plan and artifact name uses."""

from __future__ import annotations

import hashlib


def sha256_hex(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()
