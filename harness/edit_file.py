"""The edit_file tool, run inside the container as the agent user, so that every permission,
read-only or disk error is the kernel's own. Arguments arrive as base64-encoded JSON in argv[1]:
{"path", "old_str", "new_str"}. An empty old_str creates the file (it must not exist yet)."""

import base64
import json
import os
import sys


def resolve(path):
    return path if os.path.isabs(path) else os.path.join(os.getcwd(), path)


def edit(path, old, new):
    target = resolve(path)
    if old == "":
        if os.path.exists(target):
            return 1, f"edit_file: {path} already exists; give old_str to change it"
        parent = os.path.dirname(target)
        if parent:
            os.makedirs(parent, exist_ok=True)
        with open(target, "x", encoding="utf-8") as out:
            out.write(new)
        return 0, f"created {path} ({len(new.splitlines())} lines)"
    with open(target, encoding="utf-8") as source:
        text = source.read()
    count = text.count(old)
    if count == 0:
        return 1, f"edit_file: old_str not found in {path}"
    if count > 1:
        return 1, f"edit_file: old_str occurs {count} times in {path}; make it unique"
    with open(target, "w", encoding="utf-8") as out:
        out.write(text.replace(old, new, 1))
    line = text[: text.index(old)].count("\n") + 1
    return 0, f"edited {path} at line {line}"


def main():
    args = json.loads(base64.b64decode(sys.argv[1]))
    try:
        code, message = edit(args["path"], args["old_str"], args["new_str"])
    except (OSError, UnicodeDecodeError) as err:
        code, message = 1, f"{type(err).__name__}: {err}"
    print(message)
    return code


if __name__ == "__main__":
    sys.exit(main())
