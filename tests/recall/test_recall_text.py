"""Normalisation, tokenisation (CJK bigrams, identifiers, stopwords) and sentence chunking."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from riko.recall import STOPWORDS, BM25Index, chunk_sentences, normalize, split_sentences, tokenize

# ---------------------------------------------------------------- normalize


def test_normalize_nfkc_lowercase_and_whitespace() -> None:
    assert normalize("  ＡＢＣ　１２３\n\tHello   World ") == "abc 123 hello world"
    assert normalize("Ｂ－４１７") == "b-417"
    assert normalize("") == ""


# ---------------------------------------------------------------- tokenize


def test_english_stopwords_removed_and_words_kept() -> None:
    assert tokenize("What is the name of my dog?") == ["name", "dog"]
    assert "the" in STOPWORDS and "my" in STOPWORDS


def test_identifier_kept_whole_and_as_parts() -> None:
    tokens = tokenize("Order B-417 and ticket ABC123, file v1.2")
    assert "b-417" in tokens and "b" in tokens and "417" in tokens
    assert "abc123" in tokens
    assert "v1.2" in tokens
    assert tokens[:4] == ["order", "b-417", "b", "417"]


def test_contractions_do_not_leak_fragments() -> None:
    assert tokenize("I don't think it's the user's") == ["think", "user"]


def test_cjk_run_becomes_overlapping_bigrams() -> None:
    assert tokenize("用户喜欢深色模式") == ["用户", "户喜", "喜欢", "欢深", "深色", "色模", "模式"]


def test_single_cjk_character_stays_unigram() -> None:
    assert tokenize("猫 and 狗") == ["猫", "狗"]


def test_chinese_function_bigrams_are_dropped_and_lone_characters_kept() -> None:
    # bigrams across 的 stay ("的猫"); pronoun + particle, stopwords ("什么", "我们") and
    # sentence-final particles ("式吗") go; a lone content character stays as a unigram.
    assert tokenize("我的猫") == ["的猫", "猫"]
    assert tokenize("什么是区块链") == ["是区", "区块", "块链"]
    assert tokenize("你还记得我们聊过深色模式吗") == ["还记", "记得", "得我", "们聊", "聊过", "过深", "深色", "色模", "模式"]
    assert "的" in STOPWORDS and "什么" in STOPWORDS


def test_mixed_english_and_chinese() -> None:
    assert tokenize("我喜欢Python编程, dark mode") == ["我喜", "喜欢", "python", "编程", "dark", "mode"]


def test_fullwidth_and_case_variants_tokenize_alike() -> None:
    assert tokenize("ＤＡＲＫ Mode") == tokenize("dark mode") == ["dark", "mode"]


def test_cjk_query_finds_cjk_document() -> None:
    index = BM25Index([("pref", "用户喜欢深色模式"), ("other", "今天天气很好"), ("en", "dark mode")])
    assert [doc_id for doc_id, _ in index.search("深色模式")] == ["pref"]


@settings(max_examples=150, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("ab 1-_.的我深色模式用户 ABC?!。\n")), max_size=40))
def test_tokens_are_clean_and_tokenize_is_idempotent_under_normalize(text: str) -> None:
    tokens = tokenize(text)
    assert all(t and not any(c.isspace() for c in t) for t in tokens)
    assert not any(t in STOPWORDS for t in tokens)
    assert tokenize(normalize(text)) == tokens


# ---------------------------------------------------------------- chunking


def test_split_sentences_english_chinese_and_newline() -> None:
    text = 'He said "Stop." Then left! Why? 第一句。第二句！第三句？\nLast line'
    pieces = [text[s:e] for s, e in split_sentences(text)]
    assert pieces == ['He said "Stop." ', "Then left! ", "Why? ", "第一句。", "第二句！", "第三句？\n", "Last line"]


def test_decimal_point_is_not_a_boundary() -> None:
    text = "The value was 3.14 today. Next"
    assert [text[s:e] for s, e in split_sentences(text)] == ["The value was 3.14 today. ", "Next"]


def test_chunks_pack_whole_sentences_and_reassemble() -> None:
    text = "First sentence here. Second one! Third? 第一句。第二句！第三句？\nNew line here."
    chunks = chunk_sentences(text, max_chars=25)
    assert [c for _, _, c in chunks] == [
        "First sentence here. ",
        "Second one! Third? 第一句。",
        "第二句！第三句？\nNew line here.",
    ]
    assert "".join(c for _, _, c in chunks) == text
    assert all(text[s:e] == c for s, e, c in chunks)


def test_overlong_sentence_is_cut_at_whitespace_then_hard() -> None:
    text = "alpha beta gamma delta epsilon"
    assert [c for _, _, c in chunk_sentences(text, max_chars=12)] == ["alpha beta ", "gamma delta ", "epsilon"]
    assert [c for _, _, c in chunk_sentences("x" * 25, max_chars=10)] == ["x" * 10, "x" * 10, "x" * 5]
    assert [c for _, _, c in chunk_sentences("没有标点的一段很长的中文文字", max_chars=5)] == [
        "没有标点的", "一段很长的", "中文文字",
    ]


def test_overlap_repeats_whole_trailing_sentences() -> None:
    text = "Aaaa. Bbbb. Cccc. Dddd."
    chunks = chunk_sentences(text, max_chars=12, overlap=6)
    assert [c for _, _, c in chunks] == ["Aaaa. Bbbb. ", "Bbbb. Cccc. ", "Cccc. Dddd."]
    # An overlap too small for a whole sentence adds nothing.
    assert [c for _, _, c in chunk_sentences(text, max_chars=12, overlap=3)] == ["Aaaa. Bbbb. ", "Cccc. Dddd."]


def test_blank_text_has_no_chunks_and_bad_arguments_fail() -> None:
    assert chunk_sentences("") == []
    assert chunk_sentences("   \n ") == []
    with pytest.raises(ValueError):
        chunk_sentences("x", max_chars=0)
    with pytest.raises(ValueError):
        chunk_sentences("x", overlap=-1)


_SENTENCE_TEXT = st.lists(
    st.text(alphabet=st.sampled_from(list("abc 中文字")), min_size=1, max_size=15).map(
        lambda s: s + "."
    ).flatmap(lambda s: st.sampled_from([s + " ", s[:-1] + "。", s + "\n"])),
    min_size=1,
    max_size=12,
).map("".join)


@settings(max_examples=150, deadline=None)
@given(_SENTENCE_TEXT, st.integers(min_value=1, max_value=60), st.integers(min_value=0, max_value=30))
def test_chunk_properties(text: str, max_chars: int, overlap: int) -> None:
    if not text.strip():
        assert chunk_sentences(text, max_chars, overlap) == []
        return
    chunks = chunk_sentences(text, max_chars, overlap)
    assert all(text[s:e] == c and 0 < len(c) <= max_chars for s, e, c in chunks)
    starts = [s for s, _, _ in chunks]
    ends = [e for _, e, _ in chunks]
    assert starts == sorted(set(starts)) and ends == sorted(set(ends))
    rebuilt, covered = [], 0
    for s, e, _ in chunks:
        assert s <= covered
        rebuilt.append(text[covered:e])
        covered = e
    assert "".join(rebuilt) == text
    if overlap == 0:
        assert "".join(c for _, _, c in chunks) == text
    sentence_ends = {e for _, e in split_sentences(text)}
    longest = max(e - s for s, e in split_sentences(text))
    if longest <= max_chars:
        assert set(ends) <= sentence_ends  # never mid-sentence when every sentence fits


def test_english_words_are_stemmed_so_inflections_meet() -> None:
    assert tokenize("She was running to the meetings") == tokenize("run to a meeting")
    assert tokenize("happiness, cats") == ["happi", "cat"]
    # identifiers, numbers, short words and other scripts stay as written
    assert tokenize("B-417 v1.2 2023 ox 深色") == ["b-417", "b", "417", "v1.2", "v1", "2", "2023", "ox", "深色"]
