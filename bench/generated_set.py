"""Benchmark: the generated task set as a whole — per project, how generation went (candidates tried,
kept, kept per CPU-minute, from each project's stats.json), its image on disk and, with --cold, the
time to build it from nothing; then how many generated tasks each blocker card supports.

Usage: python bench/generated_set.py [--cold]
--cold removes every project image first and times the rebuild (offline, from the host wheelhouse).
"""

from __future__ import annotations

import argparse
import time
from collections import Counter

from impasse.catalog.generated import load_stats
from impasse.catalog.generated_tasks import generated_tasks
from impasse.catalog.projects import load_real_projects
from impasse.infra import images
from impasse.infra.projects import ensure_project_image, fetch


def image_row(api, project, tasks, cold: bool) -> tuple[float | None, float, int]:
    """(cold build seconds, MB on top of the base, condition layers) for the project image and the
    condition layers its tasks' cards build (one per card, shared by every task of the project)."""
    from impasse.catalog.cards import load_cards
    from impasse.catalog.conditions import make_condition
    from impasse.infra.layers import CONDITION_REPO, stage
    fetched = fetch(project)
    if cold:
        ours = [i for i in api.images.list() if any(t.startswith(f"{CONDITION_REPO}-{project.key}-") for t in i.tags)]
        for image in [*ours, *api.images.list(name=project.image_repo)]:
            api.images.remove(image.id, force=True)
    started = time.monotonic()
    tag = ensure_project_image(api, fetched)
    cards, staged = load_cards(), set()
    for card in sorted({c for t in tasks for c in t.supports}):
        first = next(t for t in tasks if card in t.supports)
        staged.add(stage(api, make_condition(first, cards[card])).image)
    seconds = time.monotonic() - started if cold else None
    base = api.images.get(images.ensure_base(api, lambda m: None)).attrs["Size"]
    layers = {api.images.get(i).id: api.images.get(i).attrs["Size"] for i in staged | {tag}}
    project_size = api.images.get(tag).attrs["Size"]
    extra = sum(size - project_size for size in layers.values() if size != project_size)
    return seconds, (project_size - base + extra) / 1024**2, len(layers) - 1


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--cold", action="store_true", help="Rebuild every project image from nothing.")
    args = parser.parse_args()
    api = images.client()
    print("| project | baseline tests (s) | tried | kept | rejected | kept / CPU-min | wall s | image MB "
          "| cold build s |")  # MB: the project image and its condition layers
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    totals = Counter()
    for project in load_real_projects().values():
        stats = load_stats(project)
        if stats is None:
            print(f"| {project.key} | not generated | | | | | | | |")
            continue
        tasks = [t for t in generated_tasks("full") if t.real.name == project.name]
        seconds, size, layers = image_row(api, project, tasks, args.cold)
        totals.update(tried=stats.tried, kept=stats.kept, cpu=stats.container_seconds, wall=stats.wall_seconds,
                      build=seconds or 0, size=size, layers=layers)
        rejected = ", ".join(f"{k}: {v}" for k, v in sorted(stats.rejected.items()))
        print(f"| {project.key} | {stats.baseline_tests} ({stats.baseline_seconds:.1f}) | {stats.tried} | {stats.kept} "
              f"| {rejected} | {stats.kept_per_cpu_minute} | {stats.wall_seconds:.0f} | {size:.1f} "
              f"| {'' if seconds is None else f'{seconds:.0f}'} |")
    rate = totals["kept"] / (totals["cpu"] / 60) if totals["cpu"] else 0
    print(f"| **all** | | {totals['tried']} | {totals['kept']} | | {rate:.2f} | {totals['wall']:.0f} "
          f"| {totals['size']:.0f} | {totals['build']:.0f} |")
    print(f"\n{totals['layers']} condition layers (one per project and build-time card), "
          f"{totals['size']:.0f} MB on top of the base for the whole set")
    cards = Counter(card for task in generated_tasks("full") for card in task.supports)
    print("\ngenerated tasks per card: " + ", ".join(f"{c} {n}" for c, n in sorted(cards.items())))


if __name__ == "__main__":
    main()
