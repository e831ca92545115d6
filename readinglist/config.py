"""Settings: which database to use, which editor, and what online sources are told.

Resolution order (ARCHITECTURE.md "Configuration"): ``--db URL|PATH`` beats the
``READINGLIST_DB`` environment variable, which beats the default SQLite file
``readinglist.db`` in ``platformdirs.user_data_dir("readinglist")``.

Online sources (``resolve --online``) are sent the contact address of
``READINGLIST_CONTACT`` in the User-Agent; their answers are cached under
``READINGLIST_CACHE`` (default: ``platformdirs.user_cache_dir("readinglist")``).

Shell completion resolves the database here too, before anything else is imported
(issue 17), so this module imports only ``os`` at start-up: no ``pathlib`` or
``typing`` (both bring ``re``), no ``dataclasses`` (which brings ``inspect``).
"""

from __future__ import annotations

import os

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (mypy reads the name)
if TYPE_CHECKING:
    from pathlib import Path

ENV_DB = "READINGLIST_DB"
ENV_CONTACT = "READINGLIST_CONTACT"
ENV_CACHE = "READINGLIST_CACHE"
ENV_READER = "READINGLIST_READER"
ENV_CONFIG = "READINGLIST_CONFIG"


def config_file() -> Path:
    """The configuration file: ``READINGLIST_CONFIG``, else ``config.toml`` in
    ``platformdirs.user_config_dir("readinglist")``."""
    from pathlib import Path

    value = os.environ.get(ENV_CONFIG, "").strip()
    if value:
        return Path(value).expanduser()
    from platformdirs import user_config_dir

    return Path(user_config_dir("readinglist", appauthor=False)) / "config.toml"


def reader_name(option: str | None = None) -> str | None:
    """The current reader's name: ``--reader`` (``option``), else ``READINGLIST_READER``,
    else ``reader = "NAME"`` in the configuration file (:func:`config_file`, TOML), else
    None (the implicit reader of a personal library). A configuration file that is not
    TOML, or whose ``reader`` is not a string, raises UsageError naming the file (and the
    line, as ``tomllib`` reports it)."""
    if option is not None:
        return option
    value = os.environ.get(ENV_READER, "").strip()
    if value:
        return value
    path = config_file()
    try:
        data = path.read_bytes()
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError as err:
        from readinglist.errors import UsageError

        raise UsageError(f"{path}: cannot read the configuration file: {err.strerror}") from err
    import tomllib

    from readinglist.errors import UsageError

    try:
        settings = tomllib.loads(data.decode("utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as err:
        raise UsageError(f"{path}: not a TOML configuration file: {err}") from err
    reader = settings.get("reader")
    if reader is None:
        return None
    if not isinstance(reader, str):
        raise UsageError(f'{path}: reader must be a string such as reader = "ana"')
    return reader


def data_directory() -> Path:
    """The user data directory, ``platformdirs.user_data_dir("readinglist")`` (on Linux
    ``$XDG_DATA_HOME/readinglist``, else ``~/.local/share/readinglist``): this account's
    own files, the default library and the exports it keeps."""
    from pathlib import Path

    from platformdirs import user_data_dir

    return Path(user_data_dir("readinglist", appauthor=False))


def default_database_path() -> Path:
    """Return the default SQLite file in the user data directory (:func:`data_directory`)."""
    return data_directory() / "readinglist.db"


def contact_address() -> str | None:
    """The e-mail address online sources are sent (``READINGLIST_CONTACT``), or None."""
    return os.environ.get(ENV_CONTACT, "").strip() or None


def cache_directory(part: str) -> Path:
    """The folder of one kind of derived, disposable data (``"http"``: answers of online
    sources; ``"rank"``: ranking matrices of server libraries) under ``READINGLIST_CACHE``,
    else the user cache directory (platformdirs). The one home of where caches live."""
    from pathlib import Path

    value = os.environ.get(ENV_CACHE, "").strip()
    if value:
        return Path(value).expanduser() / part
    from platformdirs import user_cache_dir

    return Path(user_cache_dir("readinglist", appauthor=False)) / part


def to_url(value: str) -> str:
    """Turn a ``--db`` value into an SQLAlchemy URL.

    A value containing ``://`` is taken as a URL (``postgresql+psycopg://...``;
    ``postgresql://`` and ``postgres://`` are mapped to the psycopg 3 driver);
    anything else is a path to an SQLite file, ``~`` expanded, made absolute. Raises
    UsageError for a ``~user`` of no user, and for a path holding ``?``: an SQLAlchemy URL reads the rest as options (``lib?x=1``
    would open ``lib``), and SQLAlchemy does not unquote ``%3F`` in a database path.
    """
    if "://" in value:
        scheme, rest = value.split("://", 1)
        if scheme in ("postgresql", "postgres"):
            return f"postgresql+psycopg://{rest}"
        return value
    expanded = os.path.expanduser(value)
    if expanded.startswith("~"):  # ~name of no user: never a folder named "~name" here
        from readinglist.errors import UsageError

        user = expanded.split("/", 1)[0]
        raise UsageError(f"--db {value}: no user {user[1:]!r} to expand {user!r} for")
    path = os.path.realpath(expanded)
    if "?" in path:
        from readinglist.errors import UsageError

        raise UsageError(
            f"{path}: a library path cannot contain '?' (a database URL reads what follows "
            "it as options); rename the file or its folder"
        )
    return f"sqlite:///{path}"


def sqlite_path(url: str) -> Path | None:
    """Return the file of an ``sqlite:///PATH`` URL; None for a server or an in-memory
    database. Used to keep outputs from overwriting the library itself."""
    from pathlib import Path

    prefix = "sqlite:///"
    if url.startswith(prefix) and url[len(prefix) :] not in ("", ":memory:"):
        return Path(url[len(prefix) :])
    return None


class Settings:
    """Resolved settings for one run: the database URL and the editor command.

    A plain class, not a dataclass (see the module docstring); compared by value.
    """

    __slots__ = ("database_url", "editor", "editor_chosen", "reader")

    def __init__(
        self,
        database_url: str,
        editor: str,
        *,
        editor_chosen: bool = True,
        reader: str | None = None,
    ) -> None:
        self.database_url = database_url
        self.editor = editor
        #: ``--reader`` as given (None: not given); :meth:`reader_name` resolves it.
        self.reader = reader
        #: False when neither VISUAL nor EDITOR names one (``editor`` is then ``vi``).
        self.editor_chosen = editor_chosen

    def __repr__(self) -> str:
        return f"Settings(database_url={self.database_url!r}, editor={self.editor!r})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Settings):
            return NotImplemented
        return (self.database_url, self.editor) == (other.database_url, other.editor)

    def __hash__(self) -> int:
        return hash((self.database_url, self.editor))

    @classmethod
    def resolve(cls, db: str | None = None, reader: str | None = None) -> Settings:
        """Build settings from the ``--db`` and ``--reader`` values (or None), the
        environment and defaults."""
        value = db or os.environ.get(ENV_DB)
        url = to_url(value) if value else to_url(str(default_database_path()))
        chosen = os.environ.get("VISUAL") or os.environ.get("EDITOR")
        return cls(
            database_url=url,
            editor=chosen or "vi",
            editor_chosen=bool(chosen),
            reader=reader,
        )

    def reader_name(self) -> str | None:
        """The current reader (:func:`reader_name`: ``--reader``, the environment, the
        configuration file), read when a command first needs it: shell completion never
        reads the configuration file."""
        return reader_name(self.reader)
