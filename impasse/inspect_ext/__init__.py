"""impasse inside Inspect (inspect-ai): its blockers as an Inspect sandbox type. Needs the `inspect`
extra (pip install -e '.[inspect]'); nothing else in impasse imports this package."""
