"""The review page in a real headless Chromium (Debian's) against a live ``riko serve`` on loopback.

Enter a token, confirm a candidate, watch the Resident change, open a page, check that protected
text stays hidden; screenshots land in ``tests/artifacts/``. Chromium missing is a failure.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Iterator

import httpx
import pytest
from playwright.sync_api import Page, expect, sync_playwright
from server_data import ADMIN, TOKEN_CONFIG, TOKENS, Data, LiveServer, populate

import riko
from riko.server import create_app

CHROMIUM = Path("/usr/bin/chromium")
ARTIFACTS = Path(__file__).resolve().parents[1] / "artifacts"
API = "/memory/v1"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--no-first-run"]


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Data]]:
    data = populate(tmp_path_factory.mktemp("browser"))
    with riko.open(data.root, preset="companion") as mem:  # a candidate that cites its evidence
        sid = data.sessions[0]
        seq = mem.evidence(sid, user_only=True)["seq"][0]
        data.candidates["evidenced"] = mem.propose("Candidate evidenced", body="Mira said so herself.",
                                                   type="episode", evidence=[f"session:{sid}/event:{seq}"])
    with LiveServer(create_app(data.root, TOKEN_CONFIG)) as url:
        yield url, data


@pytest.fixture(scope="module")
def page() -> Iterator[Page]:
    assert CHROMIUM.exists(), "Debian's chromium is required at /usr/bin/chromium (apt-get install chromium)"
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=ARGS)
        context = browser.new_context(viewport={"width": 1280, "height": 900})
        tab = context.new_page()
        errors: list[str] = []
        tab.on("pageerror", lambda exc: errors.append(str(exc)))
        yield tab
        browser.close()
        assert errors == []


def _connect(page: Page, url: str, token: str) -> None:
    page.goto(url + API + "/ui")
    page.fill("#profile", "companion")
    page.fill("#token", token)
    page.click("#connect")
    expect(page.locator("#status")).to_have_class("status ok")


def test_confirm_a_candidate_and_see_the_resident_change(page: Page, live: tuple[str, Data]) -> None:
    url, data = live
    _connect(page, url, TOKENS["companion"])
    expect(page.locator("#status")).to_contain_text("Connected to profile companion")
    version = page.locator("#resident-version")
    expect(version).not_to_have_text("–")
    before = version.inner_text()
    before_pages = int(page.locator("#count-pages").inner_text())
    # the token is kept for this tab only
    stored = page.evaluate("() => [sessionStorage.getItem('riko.token'), JSON.stringify(localStorage)]")
    assert stored[0] == TOKENS["companion"] and TOKENS["companion"] not in stored[1]

    page.click('#tabs button[data-tab="candidates"]')
    card = page.locator(f'article[data-candidate="{data.candidates["browser"]}"]')
    expect(card).to_contain_text("Candidate browser")
    protected = page.locator(f'article[data-candidate="{data.candidates["sensitive"]}"]')
    expect(protected).to_contain_text("Protected episode candidate")
    expect(protected).not_to_contain_text("depression")
    card.locator("button.confirm").click()
    expect(page.locator("#status")).to_contain_text("Candidate confirmed")
    expect(card).to_have_count(0)

    page.click('#tabs button[data-tab="overview"]')
    expect(version).not_to_have_text(before)
    expect(page.locator("#resident-text")).to_contain_text("Mira mentioned browser once.")
    expect(page.locator("#count-pages")).to_have_text(str(before_pages + 1))
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "review-page-overview.png"), full_page=True)


def test_open_pages_from_the_wiki_tree(page: Page, live: tuple[str, Data]) -> None:
    url, data = live
    page.click('#tabs button[data-tab="wiki"]')
    page.locator("#wiki-tree .item", has_text="Candidate browser").click()
    expect(page.locator("#page-title")).to_have_text("Candidate browser")
    expect(page.locator("#page-body")).to_have_text("Mira mentioned browser once.")
    page.locator("#wiki-tree .item", has_text="Mira").first.click()
    expect(page.locator("#page-title")).to_have_text("Mira")
    expect(page.locator("#page-detail")).to_contain_text("→ Atlas")
    page.screenshot(path=str(ARTIFACTS / "review-page-wiki.png"), full_page=True)
    # a protected page shows its shape only, and a profile token cannot reveal it
    page.locator(f'#wiki-tree .item[data-page="{data.pages["health"]}"]').click()
    detail = page.locator("#page-detail")
    expect(detail).to_contain_text("This page is protected")
    expect(detail).not_to_contain_text("anxiety")
    detail.get_by_role("button", name="Reveal (owner admin)").click()
    expect(page.locator("#status")).to_contain_text("Error 403")


def test_evidence_viewer_hides_protected_lines(page: Page, live: tuple[str, Data]) -> None:
    url, data = live
    sid = data.sessions[0]
    admin = {"x-dsh-memory-profile": "companion", "authorization": f"Bearer {ADMIN}"}
    lines = httpx.get(f"{url}{API}/sessions/{sid}?reveal=sensitive", headers=admin, timeout=30).json()["lines"]
    plain = httpx.get(f"{url}{API}/sessions/{sid}", headers=admin, timeout=30).json()["lines"]
    hidden_texts = [full["text"] for full, shown in zip(lines, plain) if shown["hidden"]]
    visible_texts = [shown["text"] for shown in plain if shown["text"]]
    assert hidden_texts and visible_texts
    page.click('#tabs button[data-tab="sessions"]')
    page.locator(f'#session-list .item[data-session="{sid}"]').click()
    viewer = page.locator("#session-detail")
    expect(viewer).to_contain_text(visible_texts[0])
    expect(viewer.locator(".hidden").first).to_contain_text("hidden ·")
    text = viewer.inner_text()
    for secret in hidden_texts:
        assert secret not in text


def test_owner_admin_reveal_and_settings(page: Page, live: tuple[str, Data]) -> None:
    url, data = live
    _connect(page, url, ADMIN)
    expect(page.locator("#status")).to_contain_text("owner admin")
    page.click('#tabs button[data-tab="wiki"]')
    page.locator(f'#wiki-tree .item[data-page="{data.pages["health"]}"]').click()
    page.get_by_role("button", name="Reveal (owner admin)").click()
    expect(page.locator("#page-body")).to_have_text("Diagnosed with anxiety in 2024.")
    page.click('#tabs button[data-tab="settings"]')
    expect(page.locator("#set-ref")).to_have_value("DSH_MEMORY_DREAM_API_KEY")
    page.fill("#set-model", "deepseek-reasoner")
    page.click("#settings button[type=submit]")
    expect(page.locator("#status")).to_contain_text("Dream settings saved")
    page.fill("#set-ref", "sk-live-should-never-be-kept")
    page.click("#settings button[type=submit]")
    expect(page.locator("#status")).to_contain_text("Error 400")
    cfg: Any = httpx.get(f"{url}{API}/config", headers={"x-dsh-memory-profile": "companion",
                                                         "authorization": f"Bearer {ADMIN}"}, timeout=30).json()
    assert cfg["dream_model"] == "deepseek-reasoner" and cfg["dream_credential_ref"] == "DSH_MEMORY_DREAM_API_KEY"
    page.click('#tabs button[data-tab="graph"]')
    expect(page.locator("#graph circle").first).to_be_visible()
    expect(page.locator("#graph")).to_contain_text("Atlas")
    expect(page.locator("#graph")).not_to_contain_text("Health note")
    expect(page.locator("#legend")).to_contain_text("supports")
    page.screenshot(path=str(ARTIFACTS / "review-page-graph.png"), full_page=True)


def _no_horizontal_overflow(page: Page) -> None:
    width = page.evaluate("() => [document.documentElement.scrollWidth, window.innerWidth]")
    assert width[0] <= width[1], f"the page is {width[0]} px wide in a {width[1]} px window"


def test_evidence_refs_open_the_evidence_viewer(page: Page, live: tuple[str, Data]) -> None:
    url, data = live
    _connect(page, url, TOKENS["companion"])
    page.click('#tabs button[data-tab="candidates"]')
    card = page.locator(f'article[data-candidate="{data.candidates["evidenced"]}"]')
    link = card.locator("a.evref")
    expect(link).to_have_count(1)
    sid, seq = link.get_attribute("data-session"), link.get_attribute("data-seq")
    assert link.inner_text() == f"session:{sid}/event:{seq}"
    link.click()
    expect(page.locator("#tab-sessions")).to_have_class("tab active")
    target = page.locator(f'#session-detail .line.target[data-seq="{seq}"]')
    expect(target).to_be_visible()
    expect(page.locator("#session-detail h2")).to_have_text(f"Session {sid}")


def test_protected_pages_read_as_what_they_are_and_when(page: Page, live: tuple[str, Data]) -> None:
    url, data = live
    _connect(page, url, TOKENS["companion"])
    page.click('#tabs button[data-tab="wiki"]')
    item = page.locator(f'#wiki-tree .item[data-page="{data.pages["health"]}"] .title')
    expect(item).to_have_text(re.compile(r"^protected concept · created \d{4}-\d{2}-\d{2}$"))
    assert data.pages["health"][:8] not in item.inner_text()
    whole = item.evaluate("""(el) => { const r = el.getBoundingClientRect(), box = el.closest('.item').getBoundingClientRect();
        return el.scrollWidth <= el.clientWidth && r.right <= box.right + 0.5; }""")
    assert whole, "the label is shown whole inside its row, not cut off"


def test_graph_edges_have_arrowheads(page: Page, live: tuple[str, Data]) -> None:
    url, _ = live
    _connect(page, url, TOKENS["companion"])
    page.click('#tabs button[data-tab="graph"]')
    edges = page.locator("#graph line.edge")
    expect(edges.first).to_be_attached()  # a vertical line has a zero-width box, so not "visible"
    markers = page.evaluate("""() => [...document.querySelectorAll('#graph line.edge')].map(
        (l) => [l.getAttribute('marker-end'), !!document.querySelector(l.getAttribute('marker-end').slice(4, -1) + ' path')])""")
    assert markers and all(ref.startswith("url(#arrow-") and found for ref, found in markers)


def test_the_page_fits_420_and_1280_px_windows_with_a_cjk_font(page: Page, live: tuple[str, Data]) -> None:
    url, _ = live
    fonts = page.evaluate("() => getComputedStyle(document.body).fontFamily")
    assert "Noto Sans CJK SC" in fonts and "PingFang SC" in fonts
    browser = page.context.browser
    assert browser is not None
    ARTIFACTS.mkdir(exist_ok=True)
    for width in (420, 1280):
        context = browser.new_context(viewport={"width": width, "height": 900})
        tab = context.new_page()
        errors: list[str] = []
        tab.on("pageerror", lambda exc, errors=errors: errors.append(str(exc)))
        _connect(tab, url, TOKENS["companion"])
        expect(tab.locator("#resident-version")).not_to_have_text("–")
        _no_horizontal_overflow(tab)
        # the Dream facts stay readable: a value gets more than a few characters a line
        assert tab.evaluate("() => document.querySelector('#dream-state').getBoundingClientRect().width") > 120
        tab.screenshot(path=str(ARTIFACTS / f"review-page-{width}px.png"), full_page=True)
        for name in ("wiki", "candidates", "sessions", "audits", "graph"):
            tab.click(f'#tabs button[data-tab="{name}"]')
            expect(tab.locator(f"#tab-{name}")).to_have_class("tab active")
            tab.wait_for_load_state("networkidle")
            _no_horizontal_overflow(tab)
        tab.click('#tabs button[data-tab="candidates"]')
        tab.screenshot(path=str(ARTIFACTS / f"review-page-{width}px-candidates.png"), full_page=True)
        context.close()
        assert errors == []
