# Sourced by every bash an agent inside its container starts (its BASH_ENV), before the command:
# the shell joins the cgroup of the agent's commands (impasse/infra/cgroups.py), so the card's
# memory limit and process-table hold fall on what it runs, not on the agent. A shell already inside
# (a script a command started) does nothing. Builtins only, so the check itself starts no process.
if [[ -n ${IMPASSE_COMMANDS_SOCKET-} ]]; then
  __impasse_inside=
  while IFS= read -r __impasse_line; do
    [[ $__impasse_line == *:memory:*/commands ]] && __impasse_inside=1
  done </proc/self/cgroup
  unset __impasse_line
  if [[ -z $__impasse_inside ]]; then
    /usr/bin/python3 -I -S /opt/impasse-shell/join.py || exit $?
  fi
  unset __impasse_inside
fi
