"""The annotator: trajectories (ours or imported) matched against a blocker card → per-run
metrics (t*, N_post, L, U, Y, Z, A, R, outcome, blocker_removed) with their evidence, and aggregates.
The contract is docs/metrics.md."""
