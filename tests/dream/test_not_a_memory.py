"""What Dream proposed from the shared conversation sets and a reader judged not a memory: being
ready or eager for the next step of the work, a verdict on what the assistant just showed, the
step just taken, the conversation's own messages, asking to see how something is done or
wondering how, a caption to a shared photo, how the speaker is doing when greeted, and a long
message pasted for the task that never says I — in English and Chinese. What a speaker says of themselves in similar words is still proposed."""

from __future__ import annotations

import pytest

from conversation import proposed_quotes
from riko.dream import Transcript, TranscriptLine
from riko.dream.selection import choose, scored_facts
from riko.language.content import carries_content, pasted, task_talk

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
    quoted = {q.rstrip("!") for q in proposed_quotes(lines)}
    assert quoted & {text.rstrip("!") for _, text in CASES} == set()
    assert {text for text in STAYS if text.rstrip("!") in quoted} == set(STAYS)


#: Pasted for the task: a story's scene, a product's description (no first-person word, 300+ characters).
STORY = ("As Toren walked along the road towards the Buried Treasure Inn, he waved to the fishermen heading to the "
         "docks. When Toren arrived at the Inn, he watched as Cora swiftly exited and almost hit him. He could tell she "
         "was going through something; tears had streaked down her face and were already freezing due to the cold. "
         "Toren had always been generous, and extremely naive, and he wanted to be there for her.")
BLURB_ZH = ("这款智能手表采用一点四三英寸高清屏幕，支持全天心率监测、血氧检测和睡眠分析，续航长达十四天。机身重量仅三十二克，"
            "防水等级五十米，适合游泳和户外运动。内置一百多种运动模式，可以自动识别跑步、骑行和步行。表带采用亲肤硅胶材质，"
            "长时间佩戴也不会闷热。支持蓝牙通话、消息提醒和移动支付，兼容安卓和苹果手机。官方售价一千二百九十九元，"
            "首发期间赠送替换表带一条，购买后七天无理由退货，一年内免费保修，全国联保，支持以旧换新和分期付款，"
            "下单后四十八小时内发货，偏远地区可能稍有延迟。表盘支持自定义，内置五十多款官方表盘，还可以上传照片作为背景。"
            "配套的运动健康应用能够记录每天的步数、卡路里消耗和运动时长，并生成每周报告，帮助培养良好的作息习惯。")


#: Written in an organisation's voice for the task: only "we" and "our", 600+ characters.
PROFILE = ("We are a post Series C startup in the Edtech industry. Our mission is to connect talented individuals with "
           "innovative tech startups, creating a community of creators, thinkers, and doers. We use the latest encryption "
           "techniques to ensure that all of the information we collect is secure. Recruitment: we'll post job listings on "
           "platforms like LinkedIn, Indeed, and specialized tech forums. Screening: initial resume screening followed by "
           "phone interviews. Interviews: technical assessments and in-person interviews with the team. We're raising a $5M "
           "seed round to scale, and we've got pilot projects showing a strong return, reducing operational costs by 20% "
           "within months.")
PROFILE_ZH = "我们公司成立于二零一五年，专注智能穿戴设备。" + BLURB_ZH + "我们的新款手环同样" + BLURB_ZH

#: A recording's transcript pasted whole: its "I" is whoever speaks in it, never the user.
INTERVIEW = ("Henry Badgery  00:02\nHi. So, can you tell me a bit about yourself? I'm Matt, I'm a product manager and "
             "I work at a company called Safety Culture.\nMatt Hinds  00:24\nSo I start my day with daily stand up, and "
             "I have a team of engineers and designers.\nHenry Badgery  01:04\nCan you tell me about a time when you "
             "struggled to align your stakeholders\nMatt Hinds  01:10\nI was launching a product and had to align the "
             "sales team behind it.")
INTERVIEW_BRACKETS = ("[00:02] Henry: So, tell me about yourself.\n[00:24] Matt: I run the issues product at Safety "
                      "Culture.\n[01:04] Henry: And how do you start your day?\n[01:10] Matt: I check our metrics first.")


@pytest.mark.parametrize("message", [STORY, BLURB_ZH, PROFILE, PROFILE_ZH, INTERVIEW, INTERVIEW_BRACKETS])
def test_a_long_message_that_never_says_i_is_pasted_and_proposes_nothing(message: str) -> None:
    assert pasted(message)
    t = Transcript("s1", (TranscriptLine(1, "user", message),))
    assert choose(scored_facts(t)) == []


@pytest.mark.parametrize("message", [
    STORY.replace("Toren had always been", "My brother Toren has always been"),   # the speaker's own words
    BLURB_ZH.replace("官方售价", "我买的时候售价"),
    "Toren was generous, and extremely naive.",                                   # short: not a paste
    PROFILE.replace("We are a post", "I run a post"),                             # the speaker's own company
    PROFILE[:500],                                                                # "we" under 600 characters: a family, a couple
    PROFILE_ZH.replace("我们的新款", "我的新款"),
    "张丽华在江苏南京工作。",
    "My day:\nGym 07:00\nStandup 09:30\nI have lunch with my sister at 12:00\nPiano 18:00",  # the user's own plan
])
def test_a_message_that_says_i_or_is_short_is_not_pasted(message: str) -> None:
    assert not pasted(message)
