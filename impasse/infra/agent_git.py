"""Git, as the harness asks it about the agent's repository: run as the agent's user, never as root.

The repository is the agent's: its `.git/config`, `.gitattributes` and hooks can name programs for
git to run (an external diff, a textconv or clean filter, an fsmonitor, a pager). Whatever git runs
on it therefore runs with the agent's privileges and no more, so nothing the agent wrote gains root
through the harness's questions. Beside that, the configuration the agent can reach is set aside
where git allows it (its global file, replace refs, its work tree and git dir redirections), and no
verdict reads an answer git could have been configured to forge: the scan reads the work tree's
files themselves against the base commit's blobs, which are addressed by their content."""

from __future__ import annotations

import secrets

from impasse.infra.sandbox import AGENT_USER, ExecResult, Sandbox

# Explicit git dir and work tree: `core.worktree` or a `.git` file cannot point git elsewhere.
# The options override what the repository's configuration would name as a program.
GIT = ("git --git-dir=/workspace/.git --work-tree=/workspace --no-optional-locks --no-replace-objects "
       "-c safe.directory='*' -c core.fsmonitor=false -c core.hooksPath=/dev/null -c core.pager=cat "
       "-c core.attributesFile=/dev/null -c core.untrackedCache=false -C /workspace")
# The agent's own global configuration, and any the container's environment carries, set aside.
ENVIRONMENT = {"GIT_CONFIG_GLOBAL": "/dev/null", "GIT_CONFIG_COUNT": "0", "HOME": "/nonexistent",
               "GIT_NO_REPLACE_OBJECTS": "1", "GIT_TERMINAL_PROMPT": "0", "GIT_PAGER": "cat",
               "GIT_ASKPASS": "/bin/false", "SSH_ASKPASS": "/bin/false"}


def run_as_agent(box: Sandbox, script: str, timeout: int = 120, keep_bytes: int | None = None) -> ExecResult:
    return box.exec(script, timeout=timeout, user=AGENT_USER, workdir="/", environment=ENVIRONMENT,
                    keep_bytes=keep_bytes)


def sectioned(box: Sandbox, asked: dict[str, str], timeout: int = 120, keep_bytes: int | None = None,
              as_root: bool = False) -> dict[str, str]:
    """Every question in one exec, each answer its own section behind a boundary drawn per call (no
    file name or diff line can forge one). As the agent unless `as_root` (questions that run no
    program the agent can name: `find` with fixed arguments)."""
    boundary = f"impasse-facts-{secrets.token_hex(8)}"
    script = "\n".join(f"echo {boundary} {name}\n{command}" for name, command in asked.items())
    if as_root:
        result = box.exec_root(script, timeout=timeout, keep_bytes=keep_bytes)
    else:
        result = run_as_agent(box, script, timeout=timeout, keep_bytes=keep_bytes)
    return split_sections(result.output, boundary)


def split_sections(output: str, boundary: str) -> dict[str, str]:
    answers: dict[str, str] = {}
    for section in output.split(f"{boundary} ")[1:]:
        name, _, answer = section.partition("\n")
        answers[name.strip()] = answer
    return answers


KEEP_BYTES = 64 * 1024**2  # what of an answer is kept: a base tree or a file's base content whole
BLOB_LIMIT = 200  # changed files whose base is read; beyond it, a changed file is read whole


def blob_questions(blob_ids: list[str]) -> dict[str, str]:
    """The questions that read the base content of changed files, `blob:<id>` each."""
    wanted = [b for b in dict.fromkeys(blob_ids) if len(b) == 40 and all(c in "0123456789abcdef" for c in b)]
    return {f"blob:{b}": f"{GIT} cat-file blob {b}" for b in wanted[:BLOB_LIMIT]}


def base_blobs(box: Sandbox, blob_ids: list[str], timeout: int = 120) -> dict[str, str]:
    """The base commit's content of changed files, by blob id (text; undecodable bytes replaced)."""
    asked = blob_questions(blob_ids)
    answers = sectioned(box, asked, timeout=timeout, keep_bytes=KEEP_BYTES) if asked else {}
    return {name.removeprefix("blob:"): text for name, text in answers.items()}


BASE_TREES: dict[str, str] = {}  # a commit id always names the same tree: safe to keep across runs


def base_tree_of(box: Sandbox, base: str) -> str:
    """`git ls-tree -r` of the base commit, read as the container starts, before the agent has run
    anything: what the scan compares the work tree against never depends on the repository the agent
    leaves (it may have broken it, rewritten it or pointed it elsewhere)."""
    if base not in BASE_TREES:
        listing = sectioned(box, {"tree": f"{GIT} ls-tree -r --full-tree {base}"}, keep_bytes=KEEP_BYTES)
        if not listing.get("tree", "").strip():
            return ""  # not remembered: the end of the run asks again
        if len(BASE_TREES) > 256:
            BASE_TREES.clear()
        BASE_TREES[base] = listing["tree"]
    return BASE_TREES[base]
