"""Client of the catalog service: GET /products?cursor=C&limit=N returns
{"items": [...], "next": <cursor or null>}. The service may return fewer items than asked for (it
caps page sizes); only `next` says whether more pages follow."""

from __future__ import annotations

from collections.abc import Iterator

from feedsync.http import UpstreamError, build_url, get_json
from feedsync.models import Product
from feedsync.settings import CATALOG_URL

PAGE_SIZE = 50


def fetch_page(cursor: str | None, limit: int = PAGE_SIZE, base: str = CATALOG_URL) -> dict:
    page = get_json(build_url(base, "products", {"cursor": cursor, "limit": limit}))
    if not isinstance(page, dict) or "items" not in page:
        raise UpstreamError(f"unexpected catalog page: {str(page)[:200]}")
    return page


def iter_products(base: str = CATALOG_URL, limit: int = PAGE_SIZE) -> Iterator[Product]:
    cursor = None
    while True:
        page = fetch_page(cursor, limit, base)
        for record in page["items"]:
            yield Product.from_record(record)
        cursor = page.get("next")
        if not cursor:
            return


def active_products(base: str = CATALOG_URL) -> list[Product]:
    return [product for product in iter_products(base) if product.active]


def service_health(base: str = CATALOG_URL) -> dict:
    return get_json(build_url(base, "health"))
