"""logpipe: filters JSON-lines logs with jq, counts events in time windows, stores summaries."""

__version__ = "2.1.0"
