"""The exports this account kept on this machine: a small registry in its own data folder.

A profile stored in the library (:mod:`readinglist.library.profiles`) says what to write
where, but anyone who can write the library (a member of a shared PostgreSQL library,
whoever sent an SQLite file) can store one, under any owner name. So a kept export is
written only when this registry lists it: a JSON file, ``kept-exports.json`` in this
account's data directory (:func:`readinglist.config.data_directory`), that only this
account's ``export ... --keep`` adds to and ``export --forget`` removes from. An entry
names the library (as ``AppContext.where`` names it), the profile's id, its absolute
target, the fingerprint of its definition (:func:`definition`: format, target, query,
``.aux`` file, options) and the SHA-256 of the bytes last written to the target. A
profile of the library that no entry matches on all of these (another account's, one
whose target or query someone changed, one kept before this registry existed) is never
written.

:func:`editing` holds an exclusive lock (``fcntl.flock`` on ``kept-exports.lock``, where
the platform has it) while it reads, the caller refreshes, and the file is replaced
atomically (:func:`readinglist.pipelines.atomic.open_atomically`): two commands keeping
files current at once take turns, so neither's record of what it wrote is lost.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, fields
from pathlib import Path

from readinglist.config import data_directory
from readinglist.errors import ReadingListError
from readinglist.library.profiles import Profile
from readinglist.pipelines.atomic import open_atomically

#: The registry's file name in the data directory, and that of its lock file.
REGISTRY_NAME = "kept-exports.json"
LOCK_NAME = "kept-exports.lock"
#: The version of the registry's layout written in the file.
VERSION = 1
#: Profile options a run rewrites (``pipelines.keeping.SAID``): not part of a definition.
RUN_OPTIONS = frozenset({"said"})


@dataclass
class Entry:
    """One export this account kept: ``profile`` (its id) on ``library``, writing
    ``target``; ``definition`` as :func:`definition` gives it when kept; ``written`` the
    SHA-256 of the bytes last written there (None before the first write);
    ``noticed`` the SHA-256 of a hand-edited file already reported (said once)."""

    library: str
    profile: int
    target: str
    definition: str
    written: str | None = None
    noticed: str | None = None


#: The fields of an entry's JSON object.
_FIELDS = frozenset(f.name for f in fields(Entry))


def definition(profile: Profile) -> str:
    """SHA-256 of what ``profile`` exports where: format, target, query, ``.aux`` file
    and options (without :data:`RUN_OPTIONS`), as sorted JSON."""
    options = {k: v for k, v in profile.options.items() if k not in RUN_OPTIONS}
    data = [profile.format, profile.target, profile.query, profile.aux, options]
    text = json.dumps(data, sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def digest(data: bytes) -> str:
    """SHA-256 of ``data`` as hexadecimal: what :attr:`Entry.written` records."""
    return hashlib.sha256(data).hexdigest()


@dataclass
class Registry:
    """The entries of the registry file ``path`` (:func:`load`)."""

    path: Path
    entries: list[Entry]

    def find(self, library: str, profile: Profile) -> Entry | None:
        """The entry keeping ``profile`` of ``library``: same library, id, target and
        definition; None when there is none (the profile is not this account's to write)."""
        return next((e for e in self._same(profile) if e.library == library), None)

    def elsewhere(self, library: str, profile: Profile) -> Entry | None:
        """An entry keeping this same profile for another library (``library`` is a copy
        of that one), else None."""
        return next((e for e in self._same(profile) if e.library != library), None)

    def _same(self, profile: Profile) -> Iterator[Entry]:
        """The entries of ``profile``'s id, target and definition."""
        shape = definition(profile)
        for entry in self.entries:
            if (entry.profile, entry.target, entry.definition) == (
                profile.id,
                profile.target,
                shape,
            ):
                yield entry

    def keep(self, library: str, profile: Profile) -> Entry:
        """Record that this account keeps ``profile`` of ``library`` (replacing the entry
        of the same library and id); return the new entry (nothing written yet)."""
        self.forget(library, profile.id)
        entry = Entry(library, profile.id, profile.target, definition(profile))
        self.entries.append(entry)
        return entry

    def forget(self, library: str, profile_id: int) -> None:
        """Drop the entry of ``profile_id`` on ``library``, if any."""
        self.entries = [e for e in self.entries if (e.library, e.profile) != (library, profile_id)]

    def text(self) -> str:
        """The registry as the JSON its file holds."""
        data = {"version": VERSION, "kept": [asdict(e) for e in self.entries]}
        return json.dumps(data, indent=1, ensure_ascii=False) + "\n"


def registry_path() -> Path:
    """The registry file: ``kept-exports.json`` in :func:`readinglist.config.data_directory`."""
    return data_directory() / REGISTRY_NAME


def load(path: Path | None = None) -> Registry:
    """Read the registry at ``path`` (default :func:`registry_path`); an absent file is
    an empty registry. Raises ReadingListError naming the file when it cannot be read or
    is not a registry of this layout (nothing is then written anywhere)."""
    path = path or registry_path()
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return Registry(path, [])
    except OSError as err:
        raise ReadingListError(f"{path}: cannot read the kept exports: {err.strerror}") from None
    try:
        data = json.loads(raw.decode("utf-8"))
        if not isinstance(data, dict) or data.get("version") != VERSION:
            raise ValueError(f"not version {VERSION} of the layout")
        entries = [_entry(item) for item in data["kept"]]
    except (ValueError, KeyError, TypeError, UnicodeDecodeError) as err:
        raise ReadingListError(
            f"{path}: not a registry of kept exports ({err}); move it aside and keep "
            "your exports again with export FORMAT -o FILE --keep"
        ) from None
    return Registry(path, entries)


def _entry(item: object) -> Entry:
    """One :class:`Entry` from its JSON object; TypeError when a field is missing or of
    the wrong type."""
    if not isinstance(item, dict) or set(item) != _FIELDS:
        raise TypeError("an entry without the fields of a kept export")
    entry = Entry(**item)
    strings = (entry.library, entry.target, entry.definition)
    optional = (entry.written, entry.noticed)
    if (
        not all(isinstance(v, str) for v in strings)
        or not isinstance(entry.profile, int)
        or not all(v is None or isinstance(v, str) for v in optional)
    ):
        raise TypeError("an entry with a field of the wrong type")
    return entry


@contextmanager
def editing(path: Path | None = None) -> Iterator[Registry]:
    """Lock the registry (:data:`LOCK_NAME`, exclusive, waiting for another command
    that holds it), yield it as :func:`load` reads it, and replace its file atomically
    with the yielded registry's entries when the block ends without error and they
    changed. The data directory is made (mode 0700) when missing. Raises
    ReadingListError as :func:`load`, and naming the file when it cannot be written."""
    path = path or registry_path()
    try:
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        lock = open(path.parent / LOCK_NAME, "a+b")  # noqa: SIM115 - closed below
    except OSError as err:
        raise ReadingListError(f"{path}: cannot record kept exports: {err.strerror}") from None
    with lock:
        _lock(lock.fileno())
        registry = load(path)
        before = registry.text()
        yield registry
        after = registry.text()
        if after != before:
            try:
                with open_atomically(path) as handle:
                    handle.write(after)
            except OSError as err:
                message = f"{path}: cannot record kept exports: {err.strerror}"
                raise ReadingListError(message) from None


def _lock(fd: int) -> None:
    """Take an exclusive ``flock`` on ``fd`` (released when it is closed); nothing where
    the platform has no ``fcntl`` (Windows: two commands at once may then lose an entry)."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not POSIX
        return
    fcntl.flock(fd, fcntl.LOCK_EX)
