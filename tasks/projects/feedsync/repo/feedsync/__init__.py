"""feedsync: builds the shop's price feed from the catalog service, exchange rates and overrides."""

__version__ = "0.9.1"
