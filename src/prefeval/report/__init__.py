"""Rendering of results: text tables, Markdown, LaTeX, CSV, JSON and HTML."""
