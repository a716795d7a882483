"""Against the catalog service the environment runs (FEEDSYNC_CATALOG_URL, default 127.0.0.1:8080)."""

from feedsync.catalog import active_products, fetch_page, iter_products, service_health


def test_service_is_healthy():
    assert service_health()["status"] == "ok"


def test_first_page_is_capped_by_the_service():
    page = fetch_page(None, limit=50)
    assert len(page["items"]) == 20
    assert page["next"] == "20"


def test_iterates_every_product():
    skus = [product.sku for product in iter_products()]
    assert len(skus) == 37
    assert len(set(skus)) == 37
    assert skus[0] == "SKU-1000" and skus[-1] == "SKU-1036"


def test_inactive_products_are_left_out():
    assert len(active_products()) == 33
