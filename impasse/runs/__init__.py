"""Runs as users start them: one run end to end, the matrix, rendering and ATIF export."""
