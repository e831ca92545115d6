"""Fetch the page's JavaScript and CSS from their npm registry releases into ``static/vendor``.

Run ``python -m readinglist.web.vendor`` (needs ``npm`` on PATH). For each pinned package of
:data:`PINNED` it asks the registry for the release's published ``dist.integrity``
(``npm view``), downloads the release tarball (``npm pack``), checks the tarball's SHA-512
against that hash (the Subresource Integrity form npm publishes: ``sha512-`` and base64),
and copies the files the page loads and the package's licence into
``readinglist/web/static/vendor/<package>/``, each through a temporary file and a rename.
``VERSIONS.json`` there records the versions and hashes. A hash that does not match stops
the script (exit 1) before any file is copied. The page loads nothing from another host:
these copies ship inside the package.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

#: package -> (version, files of the tarball to copy: names under ``package/``, a name
#: ending in ``/`` copies the ``.woff2`` files of that folder).
PINNED: dict[str, tuple[str, tuple[str, ...]]] = {
    "htmx.org": ("2.0.11", ("dist/htmx.min.js", "LICENSE")),
    "katex": (
        "0.19.1",
        (
            "dist/katex.min.js",
            "dist/katex.min.css",
            "dist/contrib/auto-render.min.js",
            "dist/fonts/",
            "LICENSE",
        ),
    ),
}
VENDOR = Path(__file__).resolve().parent / "static" / "vendor"


def npm(*args: str, cwd: Path) -> str:
    """Run ``npm ARGS`` in ``cwd``; return its standard output (CalledProcessError on failure)."""
    done = subprocess.run(["npm", *args], cwd=cwd, capture_output=True, text=True, check=True)
    return done.stdout


def sri_sha512(data: bytes) -> str:
    """Return the Subresource Integrity string (``sha512-<base64>``) of ``data``."""
    return "sha512-" + base64.b64encode(hashlib.sha512(data).digest()).decode("ascii")


def fetch(name: str, version: str, work: Path) -> tuple[Path, str]:
    """Download ``name@version`` with ``npm pack`` into ``work``; return the tarball and its
    published integrity. Raises SystemExit when the tarball's hash is not the published one."""
    spec = f"{name}@{version}"
    published = json.loads(npm("view", spec, "dist.integrity", "--json", cwd=work))
    packed = json.loads(npm("pack", spec, "--json", cwd=work))
    tarball = work / packed[0]["filename"]
    actual = sri_sha512(tarball.read_bytes())
    if actual != published:
        raise SystemExit(f"{spec}: tarball hash {actual} is not the published {published}")
    return tarball, published


def wanted(member: str, files: tuple[str, ...]) -> bool:
    """True when tarball member ``member`` (``package/...``) is one of ``files``."""
    inner = member.removeprefix("package/")
    return any(
        inner.startswith(f) and inner.endswith(".woff2") if f.endswith("/") else inner == f
        for f in files
    )


def copy_out(tarball: Path, files: tuple[str, ...], target: Path) -> list[str]:
    """Copy the ``files`` of ``tarball`` into ``target`` (temp file, then rename); return them."""
    copied = []
    with tarfile.open(tarball) as archive:
        for member in archive.getmembers():
            if not member.isfile() or not wanted(member.name, files):
                continue
            source = archive.extractfile(member)
            assert source is not None
            inner = member.name.removeprefix("package/").removeprefix("dist/")
            path = target / inner
            path.parent.mkdir(parents=True, exist_ok=True)
            handle, temp = tempfile.mkstemp(dir=path.parent)
            with os.fdopen(handle, "wb") as out:
                out.write(source.read())
            os.replace(temp, path)
            copied.append(inner)
    return sorted(copied)


def main() -> int:
    """Fetch, check and copy every pinned package; print what was copied."""
    record: dict[str, dict[str, object]] = {}
    with tempfile.TemporaryDirectory() as folder:
        work = Path(folder)
        fetched = {name: fetch(name, v, work) for name, (v, _) in PINNED.items()}
        for name, (version, files) in PINNED.items():
            tarball, integrity = fetched[name]
            copied = copy_out(tarball, files, VENDOR / name)
            record[name] = {"version": version, "integrity": integrity, "files": copied}
            print(f"{name}@{version}: {len(copied)} files, {integrity[:20]}...", file=sys.stderr)
    text = json.dumps(record, indent=2, sort_keys=True) + "\n"
    handle, temp = tempfile.mkstemp(dir=VENDOR)
    with os.fdopen(handle, "w", encoding="utf-8") as out:
        out.write(text)
    os.replace(temp, VENDOR / "VERSIONS.json")
    return 0


if __name__ == "__main__":
    sys.exit(main())
