"""Kept exports: run an export profile, replacing its file only when its text changed.

:func:`refresh_profile` renders a profile (:mod:`readinglist.library.profiles`) with the
export pipeline's own selection and writers (:func:`readinglist.pipelines.exporting.
select_papers`, :func:`~readinglist.pipelines.exporting.write_papers`), so a kept file
is byte for byte what ``readinglist export`` writes with the same options: entries in
the writer's stable order (BibTeX by key, crossref parents after their children), the
same library state giving the same bytes. :func:`write_if_changed` leaves a file whose
bytes are already those untouched (its mtime and inode stay, so latexmk and sync tools
do not fire) and otherwise replaces it atomically (a temporary file in the target's
folder, then a rename: two processes refreshing one profile leave one complete file).
A file whose bytes are neither the new text nor what readinglist last wrote there
(the digest the caller passes, :attr:`readinglist.pipelines.kept_here.Entry.written`)
was changed by hand: it is left as it is (``edited``) unless the refresh is forced.
A profile that cannot be written (its folder gone or read-only, its ``.aux`` file
unreadable, ``strict`` refused) gives an :class:`Outcome` ``failing``; nothing raises.
Receives a Session; never prints, never commits.
"""

from __future__ import annotations

import hashlib
import io
import os
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sqlalchemy.orm import Session

from readinglist import decided
from readinglist.errors import ReadingListError
from readinglist.library.profiles import Profile
from readinglist.pipelines import exporting, kept_here
from readinglist.pipelines.atomic import open_atomically, stale_message

#: The option names a profile stores for its format's writer (``export`` options).
WRITER_OPTIONS = ("keywords", "annote", "group_by", "abstracts", "notes", "title")


@dataclass
class Outcome:
    """One refresh of ``profile``: ``state`` is ``written`` (the file was replaced),
    ``unchanged`` (its bytes were already these; not touched), ``edited`` (changed by
    hand since readinglist wrote it: not touched; ``edited`` is the SHA-256 of its
    bytes), ``foreign`` (not a profile this account kept here: not run) or ``failing``
    (``message`` says why; nothing written); ``papers`` exported; ``digest`` the
    SHA-256 of the text written or found (None otherwise); ``warnings`` met while
    selecting (a cited key not in the library) and the audit of entries that are not
    real references yet (:attr:`new_warnings`: those not said by the last run);
    ``repeated`` when the caller had already reported this same hand edit."""

    profile: Profile
    state: str
    papers: int = 0
    digest: str | None = None
    message: str | None = None
    warnings: list[str] = field(default_factory=list)
    edited: str | None = None
    repeated: bool = False

    @property
    def said(self) -> str | None:
        """The fingerprint of :attr:`warnings` as a set (:func:`warnings_said`)."""
        return warnings_said(self.warnings)

    @property
    def new_warnings(self) -> list[str]:
        """:attr:`warnings`, or [] when the profile's last run said this same set
        (its ``said`` option): a cited old key in the ``.aux`` is said once, not at
        every refresh, and again when the set changes."""
        return [] if self.said == self.profile.options.get(SAID) else self.warnings


#: The profile option that keeps the fingerprint of the warnings its last run said.
SAID = "said"


def warnings_said(warnings: list[str]) -> str | None:
    """SHA-256 of the sorted, distinct ``warnings`` (None for none): what a refresh said."""
    if not warnings:
        return None
    return hashlib.sha256("\n".join(sorted(set(warnings))).encode("utf-8")).hexdigest()


def writer_options(profile: Profile) -> dict[str, Any]:
    """The writer options of ``profile`` (:func:`readinglist.pipelines.exporting.
    writer_options`). A kept Markdown list prints no generation time (only a fixed
    ``SOURCE_DATE_EPOCH``), so the same library state gives the same bytes."""
    stored = {k: v for k, v in profile.options.items() if k in WRITER_OPTIONS}
    return exporting.writer_options(profile.format, **stored)


def render(
    session: Session, profile: Profile, database: Path | None = None
) -> tuple[str, exporting.Selection, exporting.Audit]:
    """The text ``profile`` exports now, its selection and the audit of its entries.

    Raises ReadingListError as the export does: an unreadable ``.aux`` file
    (InvalidInput), a bad query (QueryError), a target that is the library itself or
    the ``.aux`` file read (UsageError).
    """
    exporting.refuse_database(profile.target, database)
    exporting.refuse_aux(profile.target, profile.aux)
    with decided.acting_as(profile_reader(profile)):
        session.expire_all()  # papers loaded for another reader hold their decisions
        with_keys = exporting.needs_keys(profile.format)
        selection = exporting.select_papers(
            session, profile.query, profile.aux, with_keys=with_keys
        )
        options = writer_options(profile)
        if profile.format == "bibtex" and selection.cited_aliases:
            options["cited_aliases"] = selection.cited_aliases
        audit = exporting.Audit()
        out = io.StringIO()
        exporting.write_papers(session, out, profile.format, selection, options, audit=audit)
    return out.getvalue(), selection, audit


def profile_reader(profile: Profile) -> str | None:
    """The reader whose list a kept Markdown profile writes, whoever's command refreshes
    it: the one it was made for (``--reader`` or the run's reader, kept in its options),
    else the implicit reader (a profile made before readers existed). None for the other
    formats: they carry no reader's state."""
    if profile.format != "markdown":
        return None
    name = profile.options.get("reader")
    return name if isinstance(name, str) else decided.DEFAULT_READER


def write_if_changed(target: str, text: str, warnings: list[str] | None = None) -> bool:
    """Replace ``target`` atomically with ``text`` (UTF-8) unless it holds exactly those
    bytes already; return True when it was written. Temporary files an interrupted write
    of ``target`` left are removed then, and ``warnings`` told so. Raises OSError."""
    data = text.encode("utf-8")
    path = Path(os.path.realpath(target))
    try:
        if path.stat().st_size == len(data) and path.read_bytes() == data:
            return False
    except FileNotFoundError:
        pass
    removed: list[Path] = []
    with open_atomically(path, removed) as handle:
        handle.write(text)
    if removed and warnings is not None:
        warnings.append(f"{target}: {stale_message(removed)}")
    return True


def changed_by_hand(target: str, written: str | None, data: bytes) -> str | None:
    """The SHA-256 of the bytes of ``target`` when they are neither ``data`` (the text
    about to be written) nor those whose SHA-256 is ``written`` (what readinglist last
    wrote there; None: nothing yet, so any bytes found are someone else's); None when
    the file may be replaced: absent, not a regular file (a FIFO is written to, never
    read), or holding one of those. Raises OSError when it cannot be read."""
    path = Path(os.path.realpath(target))
    try:
        if not stat.S_ISREG(path.stat().st_mode):
            return None
        found = path.read_bytes()
    except FileNotFoundError:
        return None
    if found == data:
        return None
    found_digest = kept_here.digest(found)
    return None if found_digest == written else found_digest


def refresh_profile(
    session: Session,
    profile: Profile,
    database: Path | None = None,
    *,
    written: str | None = None,
    force: bool = False,
) -> Outcome:
    """Export ``profile`` now (:func:`render`) and write its file when the text changed
    (:func:`write_if_changed`); return the :class:`Outcome`. A file changed by hand
    since the bytes whose SHA-256 is ``written`` were written there
    (:func:`changed_by_hand`) is left as it is (``edited``) unless ``force``. Never
    raises for the profile's own problems: a ReadingListError or OSError gives
    ``failing``, as does a ``strict`` profile with entries that are not real
    references yet."""
    try:
        text, selection, audit = render(session, profile, database)
    except ReadingListError as err:
        return Outcome(profile, "failing", message=str(err))
    warnings = list(selection.warnings)
    papers = len(selection.ids)
    if audit.count:
        if profile.options.get("strict"):
            message = f"{audit.summary()}; not written (strict)"
            return Outcome(profile, "failing", papers, message=message, warnings=warnings)
        warnings.append(f"{audit.summary()}; complete them with readinglist resolve")
    data = text.encode("utf-8")
    digest = kept_here.digest(data)
    try:
        edited = None if force else changed_by_hand(profile.target, written, data)
        if edited is not None:
            message = "changed by hand since readinglist wrote it; not refreshed"
            return Outcome(profile, "edited", papers, message=message, edited=edited)
        done = write_if_changed(profile.target, text, warnings)
    except OSError as exc:
        reason = exc.strerror or str(exc)
        return Outcome(profile, "failing", papers, message=f"cannot write: {reason}")
    state = "written" if done else "unchanged"
    return Outcome(profile, state, papers, digest, warnings=warnings)
