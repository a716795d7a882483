"""YAML documents checked against the JSON Schemas shipped in the package, with errors that name
the file, the field path and the problem."""

from __future__ import annotations

import functools
import json
from pathlib import Path

import jsonschema
import yaml

from impasse.paths import SCHEMAS

# libyaml's safe loader when PyYAML was built with it: the same documents, several times faster.
SAFE_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class DocumentError(ValueError):
    """One or more problems in one file; str() lists each as `file: field.path: problem`."""

    def __init__(self, path: Path, problems: list[str]) -> None:
        self.path = path
        self.problems = problems
        super().__init__("\n".join(f"{path}: {problem}" for problem in problems))


@functools.cache
def schema(name: str, folder: Path = SCHEMAS) -> dict:
    return json.loads((folder / f"{name}.schema.json").read_text())


def field_path(parts) -> str:
    text = ""
    for part in parts:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text or "(top level)"


def read_yaml(path: Path) -> dict:
    try:
        data = yaml.load(path.read_text(encoding="utf-8"), Loader=SAFE_LOADER)
    except FileNotFoundError:
        raise DocumentError(path, ["file not found"]) from None
    except OSError as err:
        raise DocumentError(path, [f"cannot be read ({err.strerror or err})"]) from None
    except UnicodeDecodeError:
        raise DocumentError(path, ["not UTF-8 text (a binary file?)"]) from None
    except yaml.YAMLError as err:
        raise DocumentError(path, [f"not valid YAML: {err}"]) from None
    if not isinstance(data, dict):
        raise DocumentError(path, ["(top level): must be a mapping"])
    return data


def validate(data: dict, schema_name: str, path: Path, folder: Path = SCHEMAS) -> None:
    """`folder`: where the schema lives (the catalog's by default; the agents' specs keep theirs)."""
    validator = jsonschema.Draft202012Validator(schema(schema_name, folder))
    errors = sorted(validator.iter_errors(data), key=lambda e: list(map(str, e.absolute_path)))
    if errors:
        raise DocumentError(path, [f"{field_path(e.absolute_path)}: {e.message}" for e in errors])


def load_document(path: Path, schema_name: str) -> dict:
    data = read_yaml(path)
    validate(data, schema_name, path)
    return data
