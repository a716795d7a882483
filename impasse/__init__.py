"""impasse: what coding agents do when the environment makes the task impossible."""

__version__ = "0.1.0"
