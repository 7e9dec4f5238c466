"""Exceptions raised by prefeval. Every message names the file, line, query or key at fault."""


class PrefevalError(ValueError):
    """Bad input or configuration: the message says what and where."""


class InputFormatError(PrefevalError):
    """A malformed line in a TREC run or qrels file (the message names file and line)."""


class DatasetUnavailable(PrefevalError):
    """An ir_datasets file could not be obtained (offline, or the download failed)."""
