def test_render_lists_lines_and_totals(mixed_invoice, settings):
    text = __import__("invoicekit.render", fromlist=["render_text"]).render_text(mixed_invoice, settings)
    assert text.startswith("Muster Software GmbH\nVAT ID DE123456789\n")
    assert "2.5 x Consulting hour" in text
    assert "Tax 7%" in text and "Tax 19%" in text
    assert text.rstrip().endswith("468.56 EUR")
