"""relnotes: release notes and the next version number from Conventional Commits in git history."""

from relnotes.config import NotesConfig, load_config

__all__ = ["NotesConfig", "load_config"]
__version__ = "0.6.0"
