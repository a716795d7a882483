"""What builds and proves the catalog, before any run is judged: tasks generated and proved by
their project's suite, a task validated, each card proved a genuine impasse, and the error atlas
of real commands under each blocker."""
