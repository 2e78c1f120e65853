"""BM25 arithmetic, corpus IDF, the exact-substring bonus, and the exact arm."""

from __future__ import annotations

import math

import bm25s
import pytest

from riko.recall import BM25Index, bm25_idf, classify_term, exact_matches, exact_terms, tokenize

TINY = [
    ("d1", "apple banana"),
    ("d2", "apple apple cherry"),
    ("d3", "cherry date elderberry fig"),
]


def test_bm25_matches_a_hand_computation() -> None:
    index = BM25Index(TINY, exact_bonus=0.0)
    # N = 3, df(apple) = 2, lengths 2, 3, 4 -> avgdl = 3.
    idf = math.log(1 + (3 - 2 + 0.5) / (2 + 0.5))
    d1 = idf * 1 * 2.2 / (1 + 1.2 * (1 - 0.75 + 0.75 * 2 / 3))
    d2 = idf * 2 * 2.2 / (2 + 1.2 * (1 - 0.75 + 0.75 * 3 / 3))
    results = index.search("apple")
    assert [doc_id for doc_id, _ in results] == ["d2", "d1"]
    assert math.isclose(results[0][1], d2, rel_tol=1e-12)
    assert math.isclose(results[1][1], d1, rel_tol=1e-12)
    assert math.isclose(index.idf("apple"), idf, rel_tol=1e-12)
    assert index.idf("unknown") == 0.0
    assert bm25_idf(3, 2) == idf


def test_bm25_sums_over_unique_query_terms() -> None:
    index = BM25Index(TINY, exact_bonus=0.0)
    both = dict(index.search("apple cherry"))
    apple = dict(index.search("apple"))
    cherry = dict(index.search("cherry"))
    assert math.isclose(both["d2"], apple["d2"] + cherry["d2"], rel_tol=1e-12)
    assert index.search("apple apple") == index.search("apple")


def test_bm25_agrees_with_bm25s_lucene_variant() -> None:
    # bm25s's lucene scoring omits the constant (k1 + 1) factor of the Okapi numerator.
    docs = [
        ("a", "user likes dark mode and dark themes"),
        ("b", "the cat sat on the mat"),
        ("c", "dark chocolate is great"),
        ("d", "用户喜欢深色模式"),
    ]
    reference = bm25s.BM25(method="lucene", k1=1.2, b=0.75)
    reference.index([tokenize(t) for _, t in docs], show_progress=False)
    expected = reference.get_scores(tokenize("dark mode"))
    ours = dict(BM25Index(docs, exact_bonus=0.0).search("dark mode"))
    for (doc_id, _), score in zip(docs, expected):
        assert math.isclose(ours.get(doc_id, 0.0), 2.2 * float(score), rel_tol=1e-5)


def test_corpus_idf_lets_rare_terms_beat_ubiquitous_ones() -> None:
    docs = [(f"d{i}", f"adapter prefix adapter prefix note {i}") for i in range(6)]
    docs.append(("rare", "adapter prefix kumquat"))
    index = BM25Index(docs)
    assert index.search("adapter prefix kumquat")[0][0] == "rare"


def test_exact_substring_bonus_for_query_and_quoted_phrase() -> None:
    docs = [("scrambled", "mode dark"), ("phrase", "dark mode")]
    plain = BM25Index(docs, exact_bonus=0.0).search("dark mode")
    assert plain[0][1] == plain[1][1]  # same terms, same length: a tie on BM25 alone
    with_bonus = BM25Index(docs).search("dark mode")
    assert with_bonus[0][0] == "phrase"
    assert math.isclose(with_bonus[0][1] - with_bonus[1][1], 1.0, rel_tol=1e-12)
    quoted = BM25Index(docs, exact_bonus=2.5).search('did I say "dark mode" once')
    assert quoted[0][0] == "phrase"
    assert math.isclose(quoted[0][1] - quoted[1][1], 2.5, rel_tol=1e-12)


def test_ties_break_by_doc_id_and_unmatched_docs_are_excluded() -> None:
    index = BM25Index([("b", "twin text"), ("a", "twin text"), ("c", "different words")])
    assert [doc_id for doc_id, _ in index.search("twin")] == ["a", "b"]
    assert index.search("nothing matches") == []
    assert index.search("the of and") == []  # stopwords only
    assert index.search("twin", k=1) == [index.search("twin")[0]]
    assert index.search("twin", k=0) == []
    assert len(index) == 3
    assert len(BM25Index([])) == 0 and BM25Index([]).search("x") == []


def test_bm25_rejects_bad_parameters() -> None:
    with pytest.raises(ValueError):
        BM25Index(TINY, b=1.5)
    with pytest.raises(ValueError):
        BM25Index(TINY, k1=-1)


# ---------------------------------------------------------------- exact arm


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ('did "dark mode" ship?', ["dark mode"]),
        ("我说过“深色模式”和「猫」", ["深色模式", "猫"]),
        ("what happened on 2026-04-03 and in 2026-04?", ["2026-04-03", "2026-04"]),
        ("order B-417, ticket ABC123 and issue #1234", ["B-417", "ABC123", "#1234"]),
        ("edit /etc/x.conf then src/app.py and ~/notes.md", ["/etc/x.conf", "src/app.py", "~/notes.md"]),
        (r"the file C:\Users\bob\report.docx is gone", [r"C:\Users\bob\report.docx"]),
        ("mail Bob.Smith@example.com about config.yaml.", ["Bob.Smith@example.com", "config.yaml"]),
        ("订单B-417已在2026-04-03发货", ["B-417", "2026-04-03"]),
        ("what is 17*23 at 3pm on the 2nd, 17/23 and/or 2026-13", []),
        ("no exact terms here at all", []),
    ],
)
def test_exact_terms(query: str, expected: list[str]) -> None:
    assert exact_terms(query) == expected


def test_exact_terms_deduplicate_and_classify() -> None:
    assert exact_terms("B-417 then B-417 again") == ["B-417"]
    kinds = [classify_term(t) for t in exact_terms('"x y" a@b.io /a/b.txt 2026-04 #12 ZX9 notes.md')]
    assert kinds == ["phrase", "email", "path", "date", "tag", "identifier", "path"]


def test_exact_matches_counts_distinct_terms_and_sorts() -> None:
    docs = [
        ("both", "Order B-417 shipped on 2026-04-03."),
        ("one", "Order B-417 is late."),
        ("glued", "Order B-4170 and XB-417 are other orders."),
        ("case", "order b-417 lowercase"),
        ("none", "Nothing relevant."),
    ]
    assert exact_matches(["B-417", "2026-04-03"], docs) == [("both", 2), ("one", 1)]


def test_exact_matches_phrase_is_case_and_width_insensitive_identifier_is_not() -> None:
    docs = [("a", "The user prefers DARK   Mode."), ("b", "ＡＢＣ１２３ was the code"), ("c", "abc123 lower")]
    assert exact_matches(["dark mode"], docs) == [("a", 1)]
    assert exact_matches(["ABC123"], docs) == [("b", 1)]


def test_exact_matches_paths_emails_dates_tags() -> None:
    docs = [
        ("p", "I moved the settings to /etc/x.conf yesterday"),
        ("m", "write to BOB@example.com"),
        ("d", "It happened on 2026-04-03"),
        ("t", "see #1234 for details"),
        ("t2", "see #12345 instead"),
    ]
    assert exact_matches(["/etc/x.conf"], docs) == [("p", 1)]
    assert exact_matches(["bob@example.com"], docs) == [("m", 1)]
    assert exact_matches(["2026-04"], docs) == [("d", 1)]  # a year-month finds its days
    assert exact_matches(["#1234"], docs) == [("t", 1)]
    assert exact_matches([], docs) == []
    assert exact_matches(["", "B-1"], docs) == []
