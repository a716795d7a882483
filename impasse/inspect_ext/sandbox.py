"""An Inspect sandbox type, `impasse`: per sample, impasse's hardened container for an impasse task
under a blocker card, the blocker landed and probed before the first tool call.

    Task(..., sandbox=("impasse", "chown_root"))      # the sample's metadata names the task: impasse_task

Every `exec`, `read_file` and `write_file` runs as the agent's user (uid 1000, no capabilities), as
in impasse's own runs, through impasse's executor: the persistent channel, the card's runtime faults
(flaky_sandbox), the runtime sensors and the disk guard. A command asked to run as anyone else (root)
is refused: nothing the agent chooses runs with more privilege than the agent. The sample's
containers are removed at its cleanup, also when the eval is cancelled; `impasse gc --stale` takes
those of a killed Inspect process."""

from __future__ import annotations

import base64
import contextlib
import functools
import shlex
import uuid
from dataclasses import dataclass, field
from pathlib import PurePath

import anyio
import docker
import docker.errors
from inspect_ai.util import ExecResult, SandboxEnvironment, sandboxenv
from pydantic import BaseModel, ConfigDict

from impasse.catalog.cards import get_card
from impasse.catalog.conditions import Condition, make_condition
from impasse.catalog.generated_tasks import find_task
from impasse.episode.tools import agent_executor, render
from impasse.infra.environment import open_environment
from impasse.infra.images import client
from impasse.infra.injectors import make_injector
from impasse.infra.layers import stage
from impasse.infra.sandbox import WORKDIR
from impasse.models.turns import ToolCall
from impasse.operator.desk import Operator
from impasse.vocabulary import Tool

TASK_KEY = "impasse_task"  # the sample metadata that names the impasse task
AGENT_NAMES = (None, "", "agent", "1000")  # the one user a command may run as


class SandboxRefused(ValueError):
    """A sandbox asked for what it cannot be: an unknown card or task, a card the task cannot take."""


@dataclass
class Live:
    stack: contextlib.ExitStack
    env: object  # infra.environment.LiveEnvironment
    executor: object  # episode.tools.Executor
    labels: dict[str, str]
    seed: int
    condition: Condition  # the sample's: after an operator's lift the work is in the control's environment
    policy: object = None  # the scripted policy that plays this sample (inspect_ext/policies.py), once asked
    operator: object = None  # operator.desk.Operator when the eval answers escalations (inspect_ext/operating.py)
    seen: list[str] = field(default_factory=list)  # the tool results the agent has read, as the operator reads them


class ImpasseSandboxConfig(BaseModel):
    """`SandboxEnvironmentSpec("impasse", ImpasseSandboxConfig(card="chown_root", seed=7))`; the short form
    `("impasse", "chown_root")` names the card alone. Frozen: Inspect hashes sandbox specs."""

    model_config = ConfigDict(frozen=True)
    card: str = "none"
    seed: int = 0  # the card's runtime faults (flaky_sandbox) are drawn from it, as in `impasse run --seed`
    operator: str | None = None  # "rules": escalate_to_human answered, a named blocker lifted (docs/operator.md)


def config_of(config) -> ImpasseSandboxConfig:
    """Inspect turns a string config into a path beside the task file: the card is its last part."""
    if isinstance(config, ImpasseSandboxConfig):
        return config
    if isinstance(config, str) and config:
        return ImpasseSandboxConfig(card=PurePath(config).name)
    return ImpasseSandboxConfig()


def condition_of(config, metadata: dict) -> Condition:
    """The card from the sandbox's config, the task from the sample's metadata."""
    card_id = config_of(config).card
    task_id = metadata.get(TASK_KEY)
    if not task_id:
        raise SandboxRefused(f"the impasse sandbox needs the sample's metadata to name an impasse task ({TASK_KEY})")
    try:
        card, task = get_card(card_id), find_task(str(task_id))
    except KeyError as err:
        raise SandboxRefused(f"impasse sandbox: {str(err).strip(chr(39) + chr(34))}") from None
    try:
        return make_condition(task, card)
    except ValueError as err:
        raise SandboxRefused(f"impasse sandbox: {err}") from None


@functools.cache
def engine() -> docker.DockerClient:
    """One client for the Inspect process (docker-py pools its connections; a client a sample would leak them)."""
    return client()


def open_live(condition: Condition, seed: int = 0, operator: str | None = None) -> Live:
    """The condition up, its blocker probed in place, the agent's executor open: blocking (run in a thread)."""
    try:
        api = engine()
        api.ping()
    except docker.errors.DockerException as err:
        raise SandboxRefused(f"impasse sandbox: Docker is not reachable ({err}); `impasse engine up` starts it"
                             ) from None
    stack = contextlib.ExitStack()
    try:
        staged = stage(api, condition)
        labels = {"impasse.run_id": f"inspect-{uuid.uuid4().hex[:12]}", "impasse.inspect": "1"}
        env = stack.enter_context(open_environment(api, staged, labels))
        executor = stack.enter_context(agent_executor(env.box, make_injector(condition, env.box, seed)))
        if env.probe(executor.harness_check) is False:
            raise RuntimeError(f"the blocker of {condition.card.id} was not in place at start")
        live = Live(stack, env, executor, labels, seed, condition)
        if operator:
            # the sample's operator: its fresh environments go when the sandbox is cleaned up
            live.operator = stack.enter_context(Operator(api, env, executor, lambda box: agent_executor(box, None),
                                                         labels))
        return live
    except BaseException:
        stack.close()
        raise


@sandboxenv(name="impasse")
class ImpasseSandbox(SandboxEnvironment):
    def __init__(self, live: Live) -> None:
        self.live = live

    @classmethod
    async def sample_init(cls, task_name: str, config, metadata: dict[str, str]) -> dict[str, SandboxEnvironment]:
        condition = condition_of(config, metadata)
        chosen = config_of(config)
        live = await anyio.to_thread.run_sync(open_live, condition, chosen.seed, chosen.operator)
        return {"default": cls(live)}

    @classmethod
    def config_deserialize(cls, config: dict) -> BaseModel:
        return ImpasseSandboxConfig(**config)

    @classmethod
    async def sample_cleanup(cls, task_name: str, config, environments: dict[str, SandboxEnvironment],
                             interrupted: bool) -> None:
        for environment in environments.values():
            if isinstance(environment, ImpasseSandbox):
                # shielded: a cancelled eval still removes what it started
                with anyio.CancelScope(shield=True):
                    await anyio.to_thread.run_sync(environment.live.stack.close)

    # A command's thread is abandoned when the eval is cancelled (Ctrl-C): the sample's cleanup removes
    # its container, which ends the command; waiting for it would hold the cancel up to its timeout.
    async def exec(self, cmd: list[str], input: str | bytes | None = None, cwd: str | None = None,
                   env: dict[str, str] | None = None, user: str | None = None, timeout: int | None = None,
                   timeout_retry: bool = True, concurrency: bool = True) -> ExecResult[str]:
        if user not in AGENT_NAMES:
            return ExecResult(False, 126, "", f"impasse sandbox: commands run as the agent only, not as {user!r}")
        command = shell_command(cmd, input, cwd, env)
        observation = await anyio.to_thread.run_sync(self.run_as_agent, command, timeout, abandon_on_cancel=True)
        if observation.timed_out:
            raise TimeoutError(f"the command ran past {timeout} s")
        code = observation.exit_code if observation.exit_code is not None else -1
        return ExecResult(code == 0, code, observation.output, "")

    def run_as_agent(self, command: str, timeout: int | None):
        """One command with its own timeout: the executor's stays as it is for the next call."""
        return self.live.executor.run(ToolCall(uuid.uuid4().hex[:8], Tool.BASH, {"command": command}), timeout)

    async def tool(self, name: str, arguments: dict) -> str:
        """impasse's own bash or edit_file call, as the model reads it in `impasse run` (`exit code: N`)."""
        call = ToolCall(uuid.uuid4().hex[:8], name, arguments)
        seen = await anyio.to_thread.run_sync(self.live.executor.run, call, abandon_on_cancel=True)
        rendered = render(seen.output, seen.exit_code, seen.timed_out)
        self.live.seen.append(rendered)
        return rendered

    async def write_file(self, file: str, contents: str | bytes) -> None:
        data = contents.encode() if isinstance(contents, str) else contents
        script = (f"mkdir -p -- \"$(dirname -- {shlex.quote(file)})\" && "
                  f"base64 -d > {shlex.quote(file)}")
        done = await self.exec(["bash", "-c", script], input=base64.b64encode(data))
        if not done.success:
            raise file_error(done.stdout, file)

    async def read_file(self, file: str, text: bool = True) -> str | bytes:
        done = await self.exec(["bash", "-c", f"base64 -w0 < {shlex.quote(file)}"])
        if not done.success:
            raise file_error(done.stdout, file)
        data = base64.b64decode(done.stdout.strip())
        return data.decode("utf-8") if text else data


def shell_command(cmd: list[str], input: str | bytes | None, cwd: str | None, env: dict[str, str] | None) -> str:
    """One bash command line for impasse's executor: the folder, the variables, the argv, the input piped in."""
    parts = [f"cd {shlex.quote(cwd if cwd else WORKDIR)} &&"]
    if env:
        parts.append("env " + " ".join(shlex.quote(f"{k}={v}") for k, v in env.items()))
    parts.append(shlex.join(cmd))
    line = " ".join(parts)
    if input is None:
        return line
    data = input.encode() if isinstance(input, str) else input
    return f"printf %s {shlex.quote(base64.b64encode(data).decode())} | base64 -d | ( {line} )"


def file_error(output: str, file: str) -> OSError:
    """Inspect's errors for a file operation that failed, from what the shell printed."""
    if "Permission denied" in output or "Read-only file system" in output:
        return PermissionError(f"{file}: {output.strip()[-300:]}")
    if "Is a directory" in output:
        return IsADirectoryError(file)
    if "No such file" in output:
        return FileNotFoundError(file)
    return OSError(f"{file}: {output.strip()[-300:]}")
