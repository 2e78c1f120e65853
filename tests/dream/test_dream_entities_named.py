"""Entities riko derives only where the words treat something as named: Chinese personal names
and nicknames, quoted and Title-Case names of projects, documents and organisations, and no
heading words, sentence-initial capitals or common words."""

from __future__ import annotations

import pytest

from riko.dream.derive import derive


def people(text: str) -> dict[str, tuple[str, ...]]:
    return {e.name: e.aliases for e in derive(text).entities if e.kind == "person"}


@pytest.mark.parametrize("text, name, subject", [
    ("李梓轩喜欢骑自行车", "李梓轩", "李梓轩"),
    ("李强是个警察", "李强", "李强"),
    ("王思琪的联系电话是13600000000。", "王思琪", "王思琪"),
    ("欧阳娜娜今年二十岁", "欧阳娜娜", "欧阳娜娜"),
    ("张伟和李明一起去了北京", "李明", "张伟"),
    ("我告诉王芳这件事", "王芳", "user"),
    ("周末我和陈晓东一起去爬山", "陈晓东", "user"),
    ("小雨说她明天来", "小雨", "小雨"),
    ("和老王一起去钓鱼了", "老王", "user"),
])
def test_a_chinese_name_the_words_treat_as_someone_is_a_person(text, name, subject):
    assert name in people(text), derive(text).entities
    assert derive(text).subject == subject


@pytest.mark.parametrize("text, name, relation", [
    ("张涛是我的叔叔，他是博士", "张涛", "叔叔"),
    ("我妹妹小雨住在上海", "小雨", "妹妹"),
    ("我的朋友小王说他要来", "小王", "朋友"),
    ("阿杰是我的同事", "阿杰", "同事"),
    ("我的上司叫赵雅琳。", "赵雅琳", "上司"),
])
def test_a_chinese_name_tied_to_a_relative_is_that_relative(text, name, relation):
    found = people(text)
    assert name in found and relation in found[name], derive(text).entities
    d = derive(text)
    assert d.subject == name and d.kind == "relationship"


@pytest.mark.parametrize("text", [
    "张开双手迎接新的一天", "我今天很高兴", "李子很好吃", "王国的历史很长", "周末去爬山", "黄色的衣服很好看",
    "方法是对的", "陈述事实就好", "林业发展很快", "马上就到", "钱包丢了", "任务完成了", "高中的时候我很胖",
    "小时候我住在成都", "老师说明天考试", "我们小区很大", "和小米一起用很方便", "阿姨来了", "我跟老板说了",
    "这是王先生", "我的名字是王芳",
])
def test_a_common_word_that_starts_with_a_surname_or_小_老_阿_is_nobody(text):
    found = people(text)
    assert not [n for n in found if not n.startswith("my ")], found
