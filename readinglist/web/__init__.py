"""The browser page of ``readinglist serve``: a second face beside ``readinglist.cli``.

Routes (:mod:`.app`) parse a request, call the same ``library``, ``triage`` and
``ranking`` functions the commands call, and render Jinja2 templates; the triage rules
(what "next" is, undo) stay in :mod:`readinglist.triage` below both faces
(ARCHITECTURE.md, "The browser page"). Only this package imports the web stack
(Starlette, uvicorn, Jinja2); nothing imports it but ``readinglist serve``, lazily.
:mod:`.security` holds the safety rules, :mod:`.desk` one browser tab's run,
:mod:`.present` what a paper looks like on the page, :mod:`.vendor` re-fetches the
page's scripts from the npm registry.
"""
