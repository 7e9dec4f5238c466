"""MkDocs hook: the API reference renders the docstrings' Sphinx cross-reference roles as links.

The docstrings use Sphinx roles (``:class:`~prefeval.engine.comparison.Comparison```, ``:func:`prefeval.evaluate```,
``:meth:``, ``:mod:``, ``:attr:``, ``:data:``, ``:exc:``, ``:obj:``). mkdocstrings renders the backticked part as
``<code>``, which leaves ``:class:`` in front of it; this hook turns each such role into an optional autorefs
reference (mkdocs-autorefs resolves it to the object's anchor when the object is documented, and leaves the code
text without a link when it is not). ``~`` shows the last component only, ``title <target>`` shows the title."""

from __future__ import annotations

import html
import re

_ROLE = re.compile(r":(?:py:)?(?:class|func|meth|mod|attr|data|exc|obj|const):<code>(?P<text>[^<]*)</code>")
_TITLED = re.compile(r"^(?P<title>.*?)\s*&lt;(?P<target>[^&]+)&gt;$")


def _reference(match: re.Match) -> str:
    text = match.group("text").strip()
    titled = _TITLED.match(text)
    if titled:
        title, target = titled.group("title"), titled.group("target")
    else:
        target = text.lstrip("~").rstrip("()") if text.startswith("~") else text.rstrip("()")
        title = text[1:].rsplit(".", 1)[-1] if text.startswith("~") else text
    target = html.unescape(target).lstrip(".")
    return f'<autoref identifier="{html.escape(target)}" optional><code>{title}</code></autoref>'


def on_page_content(html_text: str, page, config, files) -> str:  # noqa: ARG001 (MkDocs hook signature)
    return _ROLE.sub(_reference, html_text)
