"""One lexicon: every word class Dream and review read statements by is defined once, in
``riko/language/lexicon.py``, and the language floor imports nothing from riko above it."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from riko.language.derive import derive
from riko.language.lexicon import CJK, NEGATION_EN, NEGATION_ZH, RELATIONS, ZH_RELATIONS, alternation
from riko.review.conflicts import relation

PACKAGE = Path(__file__).resolve().parents[2] / "riko"
#: The modules that read statements: they build their patterns from the lexicon.
READERS = sorted([*(PACKAGE / "dream").glob("*.py"), *(PACKAGE / "review").glob("*.py"), PACKAGE / "request_cues.py"])
#: Modules that still spell a class themselves; this set only shrinks.
NOT_YET: set[str] = set()
#: Literal spellings of a word class in source: the CJK range, the relation nouns, the English
#: negations, the first-person object and owner words, the guard that keeps 性别 from being "don't".
DEFINITIONS = {
    "CJK range": re.compile(r"\\u4e00-\\u9fff|\\u3400-\\u9fff"),
    "relations": re.compile(r"sister\|brother|\"sister\"\s*:|妹妹\|姐姐|姐姐\|妹妹"),
    "negation": re.compile(r"don't\|doesn't|doesn't\|didn't"),
    "first person": re.compile(r"me\|my\|mine|my\|mine\|myself"),
    "别 guard": re.compile(r"性区特分告"),
}


def _offenders() -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for path in READERS:
        text = path.read_text(encoding="utf-8")
        for name, pattern in DEFINITIONS.items():
            if pattern.search(text):
                found.setdefault(str(path.relative_to(PACKAGE)), []).append(name)
    return found


def test_no_reader_defines_a_word_class_again():
    found = _offenders()
    assert set(found) <= NOT_YET, {k: v for k, v in found.items() if k not in NOT_YET}
    assert set(found) == NOT_YET, f"{NOT_YET - set(found)} no longer spells a class: take it out of NOT_YET"


def test_the_lexicon_defines_each_class_it_is_read_by():
    text = (PACKAGE / "language" / "lexicon.py").read_text(encoding="utf-8")
    for name, pattern in DEFINITIONS.items():
        if name in ("relations", "negation", "first person"):
            continue  # kept as tuples there, not as alternations
        assert pattern.search(text.encode("unicode_escape").decode("ascii")) or pattern.search(text), name


def test_the_language_floor_imports_nothing_above_it():
    allowed = {"riko.errors", "riko.contracts", "riko.language"}
    for path in (PACKAGE / "language").glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom):
                target = node.module or ""
                if node.level:
                    target = "riko.language" + (f".{target}" if target and node.level == 1 else "") \
                        if node.level == 1 else f"riko.{target}"
                if target.startswith("riko"):
                    assert any(target == a or target.startswith(a + ".") for a in allowed), (path.name, target)
            elif isinstance(node, ast.Import):
                assert not any(a.name.startswith("riko") for a in node.names), path.name


@pytest.mark.parametrize("word", ["sister", "cat", "best friend", "mother-in-law"])
def test_every_relation_has_its_chinese_forms_and_kind(word):
    forms, kind, gender = RELATIONS[word]
    assert forms and kind in ("person", "pet") and gender in ("", "f", "m")
    assert all(ZH_RELATIONS[form] for form in forms)


def test_derivation_and_conflicts_read_the_same_negation():
    neg = re.compile(r"(?<![\w'])" + alternation(NEGATION_EN) + r"(?![\w'])|" + NEGATION_ZH, re.I)
    for said in ("I don't like coffee", "I have no siblings", "I never eat pork", "我不喜欢咖啡", "我没有兄弟姐妹"):
        assert neg.search(said) and derive(said).negated, said
    for said in ("I like coffee", "我的性别是女", "这两个有区别", "我特别喜欢咖啡"):
        assert not neg.search(said) and not derive(said).negated, said
    # a statement and its negation contest each other in review's reading too
    assert relation("Coffee", "I like coffee", "Coffee", "I don't like coffee") == "contradiction"
    assert relation("咖啡", "我喜欢咖啡", "咖啡", "我不喜欢咖啡") == "contradiction"


def test_chinese_text_is_read_by_one_range():
    assert re.fullmatch(CJK + "+", "我妹妹小雨住在杭州")
    assert re.fullmatch(CJK, "㐀")  # extension A is Chinese to every reader
    assert derive("㐀㐁喜欢绿茶").kind == "preference"
