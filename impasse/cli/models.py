"""What `impasse run` and `impasse matrix` share about models: the settings given on the command
line, checked, and the preflight that refuses a model that cannot work before any container."""

from __future__ import annotations

from impasse.cli.common import console, fail


def model_config_or_fail(spec: str, args: list[str], key_env: str | None, base_url: str | None):
    from impasse.models import ModelSpecError, parse_spec
    from impasse.models.config import ModelConfig, settings_from_args
    try:
        parse_spec(spec)
        return ModelConfig(spec, base_url=base_url, key_env=key_env, settings=settings_from_args(args))
    except ModelSpecError as err:
        raise fail(str(err), code=2) from None


def preflight_or_fail(configs, timeout: float) -> None:
    """One cheap request per distinct endpoint before any container: a model that cannot work is one
    line naming it and the provider's message, exit 2."""
    from impasse.runs.preflight import preflight
    refusals = preflight(configs, timeout)
    if refusals:
        raise fail("\n".join(map(str, refusals)), code=2)


def install_or_fail(agents: list[str]) -> None:
    """Each external agent fetched, checked against its pins and cached before any container (a
    cache hit once fetched): one that cannot be is one line naming it, exit 2."""
    from impasse.agents.install import AgentInstallError, ensure_agent
    from impasse.agents.pins import AgentSpecError
    for agent in dict.fromkeys(agents):
        try:
            ensure_agent(agent, log=lambda m: console.print(f"[dim]{m}[/]", highlight=False))
        except (AgentInstallError, AgentSpecError) as err:
            raise fail(str(err), code=2) from None
