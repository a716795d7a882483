"""A model as people run it: a spec plus its settings, its endpoint, where its key is, its label.

The command line (`--model-arg KEY=VALUE`) and a matrix file's `models:` entries take the same keys
and go through the same checks, so a key one of them refuses the other refuses too. Nothing is sent
that the user did not set: an unset setting is None and the adapters leave it out of the request
(a reasoning model refuses `temperature`, so impasse never sends one of its own accord)."""

from __future__ import annotations

import json
import re
from dataclasses import asdict, dataclass, field, fields, replace

from impasse.models.failures import ModelSpecError
from impasse.models.spec import parse_spec

REASONING_EFFORTS = ("minimal", "low", "medium", "high")


@dataclass(frozen=True)
class ModelSettings:
    """What is sent with every request; None is 'not sent'."""

    temperature: float | None = None
    max_tokens: int | None = None
    reasoning_effort: str | None = None  # OpenAI reasoning models: minimal, low, medium, high
    thinking: int | None = None  # Anthropic extended thinking: the budget in tokens
    extra_body: dict = field(default_factory=dict)  # merged into the request body as given

    def to_dict(self) -> dict:
        """Only what was set, so an unset model's meta and run id are what they were before settings."""
        return {k: v for k, v in asdict(self).items() if v not in (None, {})}

    @property
    def label(self) -> str:
        return ",".join(f"{k}={json.dumps(v, sort_keys=True) if isinstance(v, dict) else v}"
                        for k, v in self.to_dict().items())


@dataclass(frozen=True)
class ModelConfig:
    """One model of a run or a matrix. `name` is its label in tables and run ids (default: the spec,
    with its settings when it has any, so two settings of one model are two models)."""

    spec: str
    name: str | None = None
    base_url: str | None = None
    key_env: str | None = None  # the environment variable holding its key (default: <VENDOR>_API_KEY)
    settings: ModelSettings = field(default_factory=ModelSettings)
    price: dict | None = None  # a price for this model alone, over the price table

    @property
    def label(self) -> str:
        if self.name:
            return self.name
        return f"{self.spec}[{self.settings.label}]" if self.settings.label else self.spec

    @property
    def kind(self) -> str:
        return parse_spec(self.spec)[0]

    def to_meta(self) -> dict:
        """What meta.json records (never the key itself, only where it is read from)."""
        return {"spec": self.spec, "settings": self.settings.to_dict(), "base_url": self.base_url,
                "key_env": self.key_env}


SETTING_KEYS = tuple(f.name for f in fields(ModelSettings))
ENTRY_KEYS = ("spec", "name", "base_url", "key_env", "price") + SETTING_KEYS
ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def parse_setting(key: str, value) -> object:
    """One setting, from YAML (typed) or from the command line (a string), checked."""
    if key not in SETTING_KEYS:
        raise ModelSpecError(f"unknown model setting {key!r}; known: {', '.join(SETTING_KEYS)}")
    try:
        return CONVERT[key](value)
    except (TypeError, ValueError) as err:
        raise ModelSpecError(f"model setting {key}={value!r}: {err}") from None


def number(value) -> float | int:
    """As written: `0` stays 0 (sent as 0, labelled temperature=0), `0.2` is 0.2."""
    parsed = json.loads(value) if isinstance(value, str) else value
    if isinstance(parsed, bool) or not isinstance(parsed, int | float):
        raise ValueError("not a number")
    return parsed


def positive_int(value) -> int:
    if isinstance(value, bool) or int(value) != float(value) or int(value) < 1:
        raise ValueError("not a positive whole number")
    return int(value)


def effort(value) -> str:
    if value not in REASONING_EFFORTS:
        raise ValueError(f"use one of {', '.join(REASONING_EFFORTS)}")
    return value


def json_object(value) -> dict:
    parsed = json.loads(value) if isinstance(value, str) else value
    if not isinstance(parsed, dict):
        raise ValueError("not a JSON object")
    return parsed


CONVERT = {"temperature": number, "max_tokens": positive_int, "reasoning_effort": effort,
           "thinking": positive_int, "extra_body": json_object}


def settings_from_args(args: list[str]) -> ModelSettings:
    """`--model-arg KEY=VALUE`, repeatable; `extra_body` takes a JSON object."""
    values = {}
    for arg in args:
        key, sep, value = arg.partition("=")
        if not sep or not key:
            raise ModelSpecError(f"--model-arg {arg!r}: use KEY=VALUE (keys: {', '.join(SETTING_KEYS)})")
        values[key.strip()] = parse_setting(key.strip(), value.strip())
    return checked_settings(values)


def checked_settings(values: dict) -> ModelSettings:
    settings = ModelSettings(**values)
    if settings.thinking is not None and settings.max_tokens is not None and settings.max_tokens <= settings.thinking:
        raise ModelSpecError(f"max_tokens ({settings.max_tokens}) must be larger than the thinking budget "
                             f"({settings.thinking}): the answer comes on top of the thinking")
    return settings


def config_from_entry(entry, where: str) -> ModelConfig:
    """A matrix file's `models:` entry: a spec string, or a mapping of ENTRY_KEYS."""
    if isinstance(entry, str):
        parse_spec(entry)
        return ModelConfig(entry)
    if not isinstance(entry, dict) or not isinstance(entry.get("spec"), str):
        raise ModelSpecError(f"{where}: {entry!r} is not a model: give a spec string or a mapping with `spec:`")
    unknown = set(entry) - set(ENTRY_KEYS)
    if unknown:
        raise ModelSpecError(f"{where}: unknown keys {sorted(unknown)}; known: {', '.join(ENTRY_KEYS)}")
    parse_spec(entry["spec"])
    for key in ("name", "base_url", "key_env"):
        if entry.get(key) is not None and not isinstance(entry[key], str):
            raise ModelSpecError(f"{where}: {key} must be a string")
    if entry.get("key_env") and not ENV_NAME.fullmatch(entry["key_env"]):
        raise ModelSpecError(f"{where}: key_env {entry['key_env']!r} is not an environment variable name")
    if entry.get("price") is not None and not isinstance(entry["price"], dict):
        raise ModelSpecError(f"{where}: price must be a mapping (input, output, cache_read, cache_write)")
    settings = checked_settings({k: parse_setting(k, entry[k]) for k in SETTING_KEYS if entry.get(k) is not None})
    return ModelConfig(entry["spec"], entry.get("name"), entry.get("base_url"), entry.get("key_env"), settings,
                       entry.get("price"))


def refuse_duplicate_labels(configs: list[ModelConfig]) -> None:
    """Each model's label names its runs: two models with one label would share run ids."""
    seen: set[str] = set()
    for config in configs:
        if config.label in seen:
            raise ModelSpecError(f"two models are both labelled {config.label!r}: list each once, or give each "
                                 f"a `name:`")
        seen.add(config.label)


def with_endpoint(config: ModelConfig, base_url: str | None, key_env: str | None) -> ModelConfig:
    """The model with a run's or a matrix's endpoint and key variable where it names none itself."""
    return replace(config, base_url=config.base_url or base_url, key_env=config.key_env or key_env)
