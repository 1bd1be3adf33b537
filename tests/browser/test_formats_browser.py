"""Excel uploads in a real browser at 1280×720: a workbook with a merged two-row header,
formulas and a second sheet is read and trained on; then an old .xls is refused with its
message while the workbook's data and model stay. Screens: tests/screenshots/uploads/.
Uses test_browser.py's server."""

import re

from harness import SHOTS, _status, charts_drawn, idle, new_page, player_button, run_of
from playwright.sync_api import expect
from uploads import with_saved_values, xlsx_bytes

UPLOAD_SHOTS = SHOTS / "uploads"


def _workbook() -> bytes:
    rows = [("Revision", None, "Score"), ("hours", "sessions", None)]
    saved = {}
    for i in range(40):
        hours, sessions = round(0.25 * i, 2), i % 5
        rows.append((hours, sessions, f"=ROUND(10*A{i + 3}+2*B{i + 3}-0.3*A{i + 3}^2,1)"))
        saved[f"C{i + 3}"] = str(round(10 * hours + 2 * sessions - 0.3 * hours ** 2, 1))
    raw = xlsx_bytes(("Marks", rows), ("Notes", [("written by", "a teacher")]),
                     merges=("A1:B1", "C1:C2"))
    return with_saved_values(raw, saved)


def _upload(browser, server, path, raw: bytes):
    """A 1280x720 page on the moons sample, trained, then ``raw`` uploaded as ``path``."""
    UPLOAD_SHOTS.mkdir(parents=True, exist_ok=True)
    page = new_page(browser, viewport={"width": 1280, "height": 720})
    page.goto(server + "/?sample=moons")
    idle(page)
    expect(_status(page)).to_contain_text("Round 0 of 20", timeout=60_000)
    path.write_bytes(raw)
    with run_of(page):
        page.get_by_test_id("stFileUploaderDropzoneInput").set_input_files(str(path))
    return page


def test_excel_upload_then_an_old_xls_keeps_it(browser, server, tmp_path):  # noqa: F811
    page = _upload(browser, server, tmp_path / "marks.xlsx", _workbook())
    note = page.locator("p").filter(has_text="marks.xlsx: 40 rows × 3 columns").first
    expect(note).to_be_visible(timeout=60_000)
    expect(note).to_contain_text("Read sheet 'Marks'")
    expect(note).to_contain_text("not read: ['Notes']")
    expect(note).to_contain_text("Revision hours")
    expect(note).to_contain_text("40 cell(s) hold formulas")
    expect(_status(page)).to_contain_text(re.compile(r"Round 0 of 20 — train rmse"))
    with run_of(page):  # the page goes to the last round; the app hears of it at rest
        player_button(page, "last").click()
        expect(_status(page)).to_contain_text("Round 20 of 20")
    expect(page).to_have_url(re.compile(r"round=20(&|$)"))
    note.scroll_into_view_if_needed()
    charts_drawn(page)
    page.screenshot(path=str(UPLOAD_SHOTS / "excel-merged-header.png"))

    old = tmp_path / "marks-1997.xls"
    old.write_bytes(bytes.fromhex("d0cf11e0a1b11ae1") + bytes(504)
                    + "Workbook".encode("utf-16-le"))
    with run_of(page):
        page.get_by_test_id("stFileUploaderDropzoneInput").set_input_files(str(old))
    error = page.get_by_test_id("stAlert").filter(has_text="old Excel 97–2003 format")
    expect(error).to_contain_text("save it as .xlsx", timeout=30_000)
    expect(error).to_contain_text("The previous data stay loaded.")
    expect(_status(page)).to_contain_text("Round 20 of 20")  # the workbook's model stays
    assert page.locator('[data-testid="stException"]').count() == 0
    error.scroll_into_view_if_needed()
    page.screenshot(path=str(UPLOAD_SHOTS / "old-xls-refused.png"))
    page.close()


def _eu(x: float, decimals: int) -> str:
    """``x`` written the European way: points between thousands, a decimal comma."""
    return f"{x:,.{decimals}f}".replace(",", " ").replace(".", ",").replace(" ", ".")


def _european_csv() -> bytes:
    """A breast-cancer-like table exported the European way: semicolons, decimal commas,
    points between thousands; 'weight' (1.250, 2.500) reads both ways, a thousand and more
    in this file."""
    lines = ["mean radius;mean area;mean texture;weight;diagnosis"]
    for i in range(60):
        radius = 10 + (i * 37 % 100) / 10
        lines.append(";".join([_eu(radius, 2), _eu(3.1416 * radius ** 2, 1),
                               _eu(14 + i % 9 * 1.5, 1), f"{1 + i % 4}.{i % 7 * 125:03d}",
                               str(int(radius > 15))]))
    return "\n".join(lines).encode()


def test_a_european_csv_is_read_as_numbers(browser, server, tmp_path):  # noqa: F811
    page = _upload(browser, server, tmp_path / "cancer-eu.csv", _european_csv())
    note = page.locator("p").filter(has_text="cancer-eu.csv: 60 rows × 5 columns").first
    expect(note).to_contain_text("separated by semicolons", timeout=60_000)
    expect(note).to_contain_text("Numbers with decimal comma (1.234,5) in 4 columns: mean "
                                 "radius, mean area, mean texture, weight.")
    expect(_status(page)).to_contain_text(re.compile(r"Round 0 of 20 — train logloss"))
    expect(page.get_by_role("combobox", name="Sample data")).to_have_attribute(
        "placeholder", "cancer-eu.csv (your upload)")
    expect(page.get_by_role("combobox", name="Numbers")).to_have_value(
        "decimal comma (1.234,5)")
    note.scroll_into_view_if_needed()
    charts_drawn(page)
    page.screenshot(path=str(UPLOAD_SHOTS / "european-csv.png"))
