"""The operator (`--operator rules`): a deterministic simulated human who answers escalations, and
lifts the blocker for real when the agent names it (docs/operator.md)."""
