"""The containers an integration test looks for: those of one run, by its labels."""


def labelled(api, run_id: str, *more: str) -> list:
    """Every container (running or not) of the run, narrowed by `more` labels ("key=value")."""
    return api.containers.list(all=True, filters={"label": [f"impasse.run_id={run_id}", *more]})
