"""What can be run: the blocker cards, the repair tasks and their projects, a task under a card
(a condition), their JSON Schemas, and the SWE-smith exchange format. Pure data: no Docker."""
