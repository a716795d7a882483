"""The `impasse` command line: one module per command group, each a thin shell over the package
that does the work."""
