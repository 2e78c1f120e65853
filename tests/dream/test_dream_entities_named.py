"""Entities riko derives only where the words treat something as named: Chinese personal names
and nicknames, quoted and Title-Case names of projects, documents and organisations, and no
heading words, sentence-initial capitals or common words."""

from __future__ import annotations

import pytest

from riko.language.derive import derive


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


def named(text: str) -> dict[str, str]:
    return {e.name: e.kind for e in derive(text).entities}


@pytest.mark.parametrize("text, name, kind", [
    ("I'm working on 'Orbit Ledger Cleanup' this week.", "Orbit Ledger Cleanup", "project"),
    ("I finished the 'Quick & Clear' Onboarding Guide yesterday.", "Quick & Clear", "project"),
    ("I moved some savings into the \"Rainy Day Reserve\" fund.", "Rainy Day Reserve", "project"),
    ("We just read \"The Year of the Quiet Fox\" together.", "The Year of the Quiet Fox", "other"),
    ("I'm building a startup called Lanternly, it helps small shops.", "Lanternly", "project"),
    ("I keep notes for the Harbor Lights project.", "Harbor Lights", "project"),
    ("I have drafted the Vendor Intake Playbook.", "Vendor Intake Playbook", "project"),
    ("I've heard good things about the brand The Plainly.", "The Plainly", "project"),
    ("We hiked up Mount Ferrow and then walked down Kessel Street.", "Mount Ferrow", "place"),
    ("Tomorrow we see the Great Wall with my aunt.", "Great Wall", "other"),
    ("Lord of the Lanterns by Mira Okafor is my favourite.", "Lord of the Lanterns", "other"),
    ("Recently I read a novel by Delia Brandt.", "Delia Brandt", "person"),
])
def test_a_quoted_or_title_case_name_the_words_treat_as_named_is_an_entity(text, name, kind):
    assert named(text).get(name) == kind, named(text)


@pytest.mark.parametrize("text, junk", [
    ("The Situation/Problem: Rent is still too high", ("Situation", "Problem", "Rent")),
    ("Weekly Goal 3: finish the draft", ("Weekly Goal",)),
    ("Health/Wellness: Sleep is the priority", ("Health", "Wellness", "Sleep")),
    ("Cafe Visit: visit a cafe visit spot near the office", ("Cafe Visit",)),
    ("We drink tea, usually Tieguanyin.", ("Tieguanyin",)),
    ("Key Result 1: 30% of leads are 'Hot' or 'Cold'", ("Key Result", "Hot", "Cold")),
    ("I just clicked the \"Save Draft\" button", ("Save Draft",)),
    ("I need a detailed Query Planning Overview for the course", ("Query Planning Overview",)),
    ("I'm keen on the tasting on Day 4", ("Day",)),
    ("They're uploaded now", ("They're",)),
    ("The ID is unique to each employee", ("ID",)),
    ("Music has a way of lifting the mood", ("Music",)),
    ("Astronomy is a captivating field", ("Astronomy",)),
    ("Previously I played chess every night", ("Previously", "Previously I")),
    ("I'm majoring in Marine Biology", ("Marine Biology",)),
    ("I always lose when the Viking raids start", ("Viking",)),
    ("We want to visit a Greek island this summer", ("Greek",)),
    ("My roommate was French", ("French",)),
    ("I'd love a good old Backyard BBQ this weekend", ("Backyard BBQ",)),
])
def test_headings_labels_and_common_words_are_no_entities(text, junk):
    found = named(text)
    assert not [j for j in junk if j in found], found


@pytest.mark.parametrize("text, name", [
    ("Muhammad intends to file a report.", "Muhammad"),
    ("I met Lena at the Hilton Hotel.", "Lena"),
    ("Yesterday I had lunch with Priya.", "Priya"),
    ("Tomas said the venue is booked.", "Tomas"),
])
def test_people_are_still_people(text, name):
    assert named(text).get(name) == "person", named(text)


@pytest.mark.parametrize("text, event", [
    ("我将要参加云端数据创新论坛。", "云端数据创新论坛"),
    ("云端数据创新论坛的规模是两千人。", "云端数据创新论坛"),
    ("我报名的湖畔夜跑嘉年华下周开始", "湖畔夜跑嘉年华"),
    ("山野写生创作之旅的时间是下周六上午九点", "山野写生创作之旅"),
])
def test_a_named_chinese_event_is_an_entity(text, event):
    assert named(text).get(event) == "other", named(text)


@pytest.mark.parametrize("text", ["我去了一场音乐会", "公司年会很无聊", "我同事挺喜欢听音乐会", "这个论坛不错",
                                  "这件衣服的颜色啥样"])
def test_an_event_word_alone_names_nothing(text):
    found = named(text)
    assert not [n for n, k in found.items() if k in ("other", "person") and not n.startswith("my ")], found


def test_the_words_after_a_dot_in_an_event_name_are_no_person():
    # "<event>·<subtitle>": the subtitle after the dot may start with a surname character
    # (the subtitle is part of the event's name, as the user wrote it)
    assert named("美食盛宴·高球趣的地点是广州") == {"美食盛宴·高球趣": "other", "Guangzhou": "place"}


def test_a_list_item_or_a_bold_heading_starts_a_sentence():
    text = "Here is the plan:\n1.  **Budget Review:** Aggressive targets and a lean team.\n2. **Team:** Short bios."
    found = named(text)
    assert not [n for n in ("Budget Review", "Aggressive", "Team", "Short") if n in found], found


@pytest.mark.parametrize("text", ["Like I said, it works", "We've uploaded the files", "We'll see tomorrow"])
def test_a_contraction_of_a_common_word_names_nothing(text):
    assert not named(text), named(text)


def test_a_product_before_a_document_word_is_a_project_not_a_person():
    assert named("The numbers are in Google Sheets, Quillpad docs and a shared drive").get("Quillpad") == "project"


@pytest.mark.parametrize("text", ["We're on for Plan B after all", "I'm ready to finalize the Series A deadline",
                                  "The glitches go into the first Act II beats", "My first action is to run 'Step 0'",
                                  "The \"SYSTEM FAILURE: REBOOT NOW\" message must dominate", "Even got the notes in there"])
def test_labels_and_shouted_messages_are_no_entities(text):
    assert not named(text), named(text)


def test_a_product_before_a_noun_stays_a_name():
    assert "Quillpad" in named("I'm integrating the Quillpad database now")


@pytest.mark.parametrize("text", ["We've locked down the core for Acts I and II", "I've clicked \"Search",
                                  "I have PDFs on my tablet", "1-\tThe App still shows the old stock", "Ah, I see",
                                  "I train on Tuesdays and Saturdays", "Yep, this is us"])
def test_interjections_plural_days_and_open_quotations_name_nothing(text):
    assert not named(text), named(text)


def test_a_preposition_that_starts_a_sentence_is_not_part_of_the_name():
    assert named("In Lisbon there is a rich art scene") == {"Lisbon": "place"}
    assert not named("For Halloween I stay home")


@pytest.mark.parametrize("text", ["I've scanned Section IV: Capital Calls / Commitments", "I'm not ready yet, Pal",
                                  "The row heading is Creative | Technical | Comment", "See volume 106(D15), page 3"])
def test_table_cells_slash_lists_codes_and_a_word_one_speaks_to_name_nothing(text):
    assert not named(text), named(text)
