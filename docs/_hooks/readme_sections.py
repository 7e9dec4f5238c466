"""MkDocs hook: a line ``{{ readme("Section title") }}`` in a docs page is replaced by that section of
README.md (its body, without the heading), so the user guide and the README never disagree. ``intro`` is the
text before the first section; ``{{ file("NAME") }}`` includes a whole file of the repository root
(CHANGELOG.md). Links into ``docs/`` (and to CHANGELOG.md) are rewritten relative to the docs
folder."""

from __future__ import annotations

import re
from pathlib import Path

_PATTERN = re.compile(r'^\{\{ readme\("([^"]*)"\) \}\}$', re.MULTILINE)
_FILE = re.compile(r'^\{\{ file\("([^"/]+)"\) \}\}$', re.MULTILINE)


def _sections(readme: str) -> dict[str, str]:
    parts = re.split(r"^## (.+)$", readme, flags=re.MULTILINE)
    intro = parts[0].split("\n", 1)[1] if "\n" in parts[0] else ""
    sections = {"intro": intro}
    for title, body in zip(parts[1::2], parts[2::2]):
        sections[title.strip()] = body
    return sections


def on_page_markdown(markdown: str, page, config, files) -> str:  # noqa: ARG001 (MkDocs hook signature)
    root = Path(config["config_file_path"]).parent
    markdown = _FILE.sub(lambda m: (root / m.group(1)).read_text(encoding="utf-8"), markdown)
    if "{{ readme(" not in markdown:
        return markdown
    readme = (root / "README.md").read_text(encoding="utf-8")
    sections = _sections(readme)
    depth = page.file.src_uri.count("/")

    def replace(match: re.Match) -> str:
        title = match.group(1)
        if title not in sections:
            raise KeyError(f"{page.file.src_uri}: README.md has no section {title!r}")
        body = sections[title].replace("<!-- test-command -->\n", "")
        body = re.sub(r"\]\(docs/", "](" + "../" * depth, body)
        body = body.replace("](CHANGELOG.md)", "](" + "../" * depth + "changelog.md)")
        return body.replace("### ", "## ")

    return _PATTERN.sub(replace, markdown)
