"""What Dream proposed from the shared conversation sets and a reader judged not a memory: being
ready or eager for the next step of the work, a verdict on what the assistant just showed, the
step just taken, the conversation's own messages, asking to see how something is done or
wondering how, a caption to a shared photo, and how the speaker is doing when greeted — in
English and Chinese. What a speaker says of themselves in similar words is still proposed."""

from __future__ import annotations

import pytest

from riko.dream import HeuristicProvider, Transcript, TranscriptLine, parse_file_blocks
from riko.language.content import carries_content, task_talk

#: rule -> statements of that kind (the English ones as the sets said them).
NOT_A_MEMORY = {
    "ready for the next step": ["I'm ready to keep building", "I'm ready", "I'm eager to get more dialogue done for Scene 1",
                                "I'm really curious to see the comparison", "我准备好了", "我准备好开始下一步"],
    "the conversation's own messages": ["I will provide context data in the next several queries",
                                        "I don't have anything else to discuss or plan for the New Zealand trip",
                                        "我没有其他问题了"],
    "a verdict on what was shown": ["The voice notes look solid, no long talk, just direct",
                                    "All the other days look good with that relaxed morning pace",
                                    "My guy, this brief is finally what I needed", "这个方案看起来不错"],
    "the next step of the work": ["I just want to make sure I'm fully prepared for each day", "I think we're good for now on adjustments"],
    "the step just taken": ["I've just run the code in my notebook", "We just went through the authenticity filter"],
    "asking to see how": ["I'd like to see an example of how to use the --no-cache flag",
                          "I'm wondering how I can apply these techniques to other areas of my life",
                          "I'm curious to know how I can further build on this progress",
                          "I'd like an explanation with an example, such as the series 2, 4, 8, 16",
                          "我想知道怎么用这个参数", "我想看看例子"],
    "a caption": ["Heres the waterslide im thinking about going on today!", "Heres a desert I made the other day!",
                  "Look at how nice the fresh pasta comes out!", "你看我做的蛋糕！", "这是我昨天拍的照片"],
    "how the speaker is doing": ["I am doing quite well it is a sunny day today",
                                 "I'm doing good, it's a sunny day here in Houston!", "Its a sunny day here in San Francisco",
                                 "我挺好的，今天天气不错"],
}
CASES = [(rule, text) for rule, texts in NOT_A_MEMORY.items() for text in texts]

#: Said in similar words, about the speaker: each must stay proposed.
STAYS = [
    "I'm doing my PhD in Houston",
    "Heres the thing: my sister Lena lives in Berlin",
    "I'm good at chess",
    "I'm great friends with Tom",
    "I'm excited to start my new job",
    "I'm keen to keep it chill, not feeling like we're always on the road",
    "I'd love to visit Santorini in Greece",
    "I just want to relax, not collapse",
    "I really want to learn Japanese",
    "I really want to ensure comfort for my parents, so minimizing layovers is key",
    "I want to see the Northern Lights",
    "I just cancelled my unused gym membership",
    "My new apartment looks great",
    "I had a cold a few weeks ago, it's way worse when it's really chilly out",
    "I'm ready to look at flats in Lisbon on March 3",
    "我在休斯顿读博士",
    "这是我妹妹",
    "我很好奇他去了哪里",
    "我准备下个月搬到上海",
]


@pytest.mark.parametrize(("rule", "text"), CASES, ids=[f"{r}: {t}" for r, t in CASES])
def test_said_in_passing_or_about_the_work_is_not_a_memory(rule: str, text: str) -> None:
    assert task_talk(text), rule
    assert not carries_content(text)


@pytest.mark.parametrize("text", STAYS)
def test_what_the_speaker_says_of_themselves_in_similar_words_stays(text: str) -> None:
    assert not task_talk(text)
    assert carries_content(text)


def test_a_caption_that_names_what_it_shows_after_a_colon_is_not_passing_talk() -> None:
    assert not task_talk("Here's my new address: 12 Elm Street, Springfield")


@pytest.mark.parametrize("text", ["Yo was poppin", "im the latter"])
def test_a_greeting_or_a_pick_between_two_options_carries_no_content(text: str) -> None:
    assert not carries_content(text)


def test_dream_leaves_them_out_and_proposes_the_rest() -> None:
    lines = [text for _, text in CASES] + STAYS
    t = Transcript("s1", tuple(TranscriptLine(i + 1, "user", text) for i, text in enumerate(lines)))
    pages = parse_file_blocks(HeuristicProvider().extract(t), max_pages=64, allow_empty=True).pages
    quoted = {p.quote.rstrip("!") for p in pages if p.type != "entity"}
    assert quoted & {text.rstrip("!") for _, text in CASES} == set()
    assert {text for text in STAYS if text.rstrip("!") in quoted} == set(STAYS)
