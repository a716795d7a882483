"""No project image holds another copy of its project outside the work tree (and the root-only seed):
a vendored one (pkg_resources keeps more_itertools under `_vendor`) or a system package's would hand
the agent the fixed file of every task on the image. Searched as root, who sees every file."""

import pytest

from impasse.catalog.generated import load_generated
from impasse.catalog.projects import load_real_projects
from impasse.infra.projects import ensure_project_image, fetch

pytestmark = pytest.mark.docker

WITH_TASKS = sorted({g.project for g in load_generated()})
SEARCH = ("find / \\( -path /proc -o -path /sys -o -path /dev -o -path /workspace -o -path /opt/impasse-state \\) "
          "-prune -o \\( {names} \\) -print 2>/dev/null")


def copies(api, image: str, names: tuple[str, ...]) -> list[str]:
    wanted = " -o ".join(f"-name {n} -o -name {n}.py" for n in names)
    out = api.containers.run(image, ["sh", "-c", SEARCH.format(names=wanted)], user="0:0", network_mode="none",
                             remove=True, labels={"impasse": "1", "impasse.run_id": "test-no-copy"})
    # Where a copy would be importable: at a site folder's top, or in a distribution's `_vendor`. Not
    # the stdlib's own modules of the same name (urllib/parse.py), nor another package's module named
    # after the project (hypothesis/extra/dateutil.py, its integration with it).
    return [p for p in out.decode().split() if "/_vendor/" in p or p.rsplit("/", 1)[0].endswith("-packages")]


@pytest.mark.parametrize("name", WITH_TASKS)
def test_no_other_copy_of_the_project_is_in_its_image(api, name):
    project = load_real_projects()[name]
    image = ensure_project_image(api, fetch(project))
    found = copies(api, image, project.import_names)
    # The editable install points at the work tree: only its own finder or .pth may mention it.
    assert [p for p in found if "__editable__" not in p] == [], found
